package sieimport

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// voucher takes in one #VER.
func (s *Summary) voucher(rec sie.Record) {
	bad := s.bad
	v, probs := sie.ParseVoucher(rec)
	for _, p := range probs {
		bad(p)
	}
	if len(probs) > 0 {
		return
	}
	issue := func(line int, record, msg string) { bad(sie.Problem{Line: line, Record: record, Issue: msg}) }
	if v.Series != "" && !SeriesOK(v.Series) {
		issue(v.Line, "#VER", "the series "+strconv.Quote(v.Series)+" must be 1-10 characters without blanks")
		return
	}
	number := -1
	if v.Number != "" {
		n, err := strconv.Atoi(v.Number)
		if err != nil || n < 0 || n > 2147483647 {
			issue(v.Line, "#VER", "the voucher number "+strconv.Quote(v.Number)+" is not a number from 1 up")
			return
		}
		number = n
	}
	if y, ok := s.Years[0]; ok && (v.Date.Before(y.Start) || v.Date.After(y.End)) {
		issue(v.Line, "#VER", fmt.Sprintf("the date %s lies outside the year %s – %s (#RAR 0)", v.Date.Format(time.DateOnly),
			y.Start.Format(time.DateOnly), y.End.Format(time.DateOnly)))
		return
	}
	if utf8.RuneCountInString(v.Text) > 500 {
		issue(v.Line, "#VER", "the voucher text is longer than 500 characters")
		return
	}
	if len(v.Rows) > ledger.MaxEngineLines {
		issue(v.Line, "#VER", fmt.Sprintf("a voucher has at most %d rows", ledger.MaxEngineLines))
		return
	}
	booked, corrected := 0, false
	var debit, first money.Amount // the voucher's total as it stands, and as first registered
	for _, r := range v.Rows {
		if r.Kind != sie.Kept {
			corrected = true
		}
		if !bas.ValidNumber(r.Account) {
			issue(r.Line, "#TRANS", "the account "+strconv.Quote(r.Account)+" is not four digits: the chart cannot hold it")
			return
		}
		if r.Amount.OverMax() {
			issue(r.Line, "#TRANS", "the amount is past the largest a line may book, "+money.Max.String())
			return
		}
		if utf8.RuneCountInString(r.Text) > 450 {
			issue(r.Line, "#TRANS", "the row text is longer than 450 characters")
			return
		}
		for _, o := range r.Objects {
			dim, err := strconv.Atoi(o.Dim)
			if err != nil || dim < 1 || dim > 9999 {
				issue(r.Line, "#TRANS", "the dimension number "+strconv.Quote(o.Dim)+" is not a number from 1 to 9999")
				return
			}
			k := Object{Dim: dim, Code: o.Code}
			if _, seen := s.tagged[k]; !seen {
				s.tagged[k] = r.Line
			}
			if !ledger.HeldDimensionCode(o.Code) {
				issue(r.Line, "#TRANS", "the object code "+strconv.Quote(o.Code)+" cannot be held by the dimension register: "+
					unheldReason(o.Code))
				return
			}
			if !s.objects[k] {
				s.objects[k] = true
				s.Objects = append(s.Objects, k)
			}
		}
		if r.Amount.Sign() > 0 {
			if r.Kind != sie.Added {
				first = first.Add(r.Amount)
			}
			if r.Kind != sie.Struck {
				debit = debit.Add(r.Amount)
			}
		}
		if r.Kind == sie.Struck {
			continue
		}
		if r.Amount.IsZero() {
			s.ZeroRows++
			continue
		}
		booked++
		if !s.move(r.Account, r.Amount) {
			issue(r.Line, "#TRANS", "the row takes the balance of "+r.Account+" past the largest an account may hold, "+money.Max.String())
			return
		}
		if !s.used[r.Account] {
			s.used[r.Account] = true
			s.Used = append(s.Used, r.Account)
		}
	}
	if debit.OverMax() || first.OverMax() {
		issue(v.Line, "#VER", "the voucher's total is past the largest an entry may book, "+money.Max.String())
		return
	}
	if corrected && !firstRegistered(v) {
		issue(v.Line, "#VER", "the rows struck afterwards (#BTRANS) and added afterwards (#RTRANS) do not balance each other, so the voucher as first registered did not balance")
		return
	}
	if booked == 0 {
		// Rows of 0.00 only, or every row struck by a correction: nothing
		// stands to be booked, and a verifikat needs rows.
		s.Empty++
		if len(s.emptied) < 20 {
			s.emptied = append(s.emptied, map[string]any{"series": v.Series, "number": v.Number, "line": v.Line})
		}
		return
	}
	if corrected {
		s.Corrected++
	}
	s.Rows += booked
	if s.First == nil || v.Date.Before(*s.First) {
		d := v.Date
		s.First = &d
	}
	if s.Last == nil || v.Date.After(*s.Last) {
		d := v.Date
		s.Last = &d
	}
	st := s.Series[v.Series]
	if st == nil {
		st = &Series{numbers: map[int]int{}}
		s.Series[v.Series] = st
	}
	st.Count++
	switch {
	case number < 0:
		st.Unnumbered++
		return
	case number == 0:
		st.zero++
	}
	if first, dup := st.numbers[number]; dup {
		// A real duplicate, unless the series turns out to be one a
		// program numbers for itself; known at the end.
		st.repeated = append(st.repeated, sie.Problem{Line: v.Line, Record: "#VER",
			Issue: fmt.Sprintf("voucher %s %d is in the file twice (first on line %d)", v.Series, number, first)})
		return
	}
	st.numbers[number] = v.Line
	if number > 0 && (st.Min == 0 || number < st.Min) {
		st.Min = number
	}
	st.Max = max(st.Max, number)
}

// unheldReason says why the register cannot hold an object code.
func unheldReason(code string) string {
	if utf8.RuneCountInString(code) > ledger.MaxHeldDimensionCode {
		return fmt.Sprintf("it is longer than %d characters", ledger.MaxHeldDimensionCode)
	}
	if strings.TrimSpace(code) == "" {
		return "it is blank"
	}
	for _, r := range code {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("it holds the control character U+%04X", r)
		}
	}
	return "it is not text"
}

// internal reports whether series st is one a program numbers for itself:
// its name has no letter (#, *, digits), and its vouchers carry one number
// or none, repeated or 0. An ordinary series' repeated number is a real
// duplicate.
func internal(name string, st *Series) bool {
	if name == "" || strings.IndexFunc(name, unicode.IsLetter) >= 0 {
		return false
	}
	return len(st.numbers) <= 1 && (len(st.repeated) > 0 || st.zero > 0 || st.Unnumbered > 0)
}

// finish decides what needs the whole file (the series a program numbers
// for itself, the objects no row uses) and adds the warnings pass 1 gives
// on its own: gaps in a series' numbers, rows of zero and empty vouchers
// left out, SRU codes read as none.
func (s *Summary) finish() {
	names := make([]string, 0, len(s.Series))
	for k := range s.Series {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		st := s.Series[k]
		if internal(k, st) {
			st.Internal, st.Min, st.Max = true, 0, 0
			s.Warnings = append(s.Warnings, Warning{Code: WarnNumbered,
				Message:   fmt.Sprintf("Serie %s har inga egna verifikationsnummer i filen; dess %d verifikationer numrerades i filens ordning. Filens nummer finns i source_id.", k, st.Count),
				MessageEn: fmt.Sprintf("Series %s carries no numbers of its own in the file; its %d vouchers were numbered in file order. The file's number is in source_id.", k, st.Count),
				Details:   map[string]any{"series": k, "count": st.Count}})
			continue
		}
		for _, p := range st.repeated {
			s.bad(p)
		}
		if first, ok := st.numbers[0]; ok {
			s.bad(sie.Problem{Line: first, Record: "#VER", Issue: "the voucher number \"0\" is not a number from 1 up"})
		}
		nums := make([]int, 0, len(st.numbers))
		for n := range st.numbers {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for i := 1; i < len(nums); i++ {
			if nums[i] > nums[i-1]+1 {
				s.Warnings = append(s.Warnings, Warning{Code: WarnGap,
					Message:   fmt.Sprintf("Serie %s saknar verifikationsnummer %d–%d i filen.", k, nums[i-1]+1, nums[i]-1),
					MessageEn: fmt.Sprintf("Series %s lacks voucher numbers %d–%d in the file.", k, nums[i-1]+1, nums[i]-1),
					Details:   map[string]any{"series": k, "from": nums[i-1] + 1, "to": nums[i] - 1}})
			}
		}
	}
	s.objectsUsed()
	s.findOutside()
	s.fromFile()
	if len(s.sru) > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnSRU,
			Message:   fmt.Sprintf("%d #SRU-rader har en kod som inte är en blankettruta (fyra siffror); kontona fick ingen SRU-kod av dem.", len(s.sru)),
			MessageEn: fmt.Sprintf("%d #SRU records carry a code that is not a form field (four digits); the accounts got no SRU code from them.", len(s.sru)),
			Details:   map[string]any{"count": len(s.sru), "codes": first20(s.sru)}})
	}
	if s.ZeroRows > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnZeroRows,
			Message:   fmt.Sprintf("%d rader på 0,00 kr räknades men bokfördes inte.", s.ZeroRows),
			MessageEn: fmt.Sprintf("%d rows of 0.00 were counted but not booked.", s.ZeroRows),
			Details:   map[string]any{"rows": s.ZeroRows}})
	}
	if s.Empty > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnEmpty,
			Message:   fmt.Sprintf("%d verifikationer hade inga rader kvar att bokföra (bara rader på 0,00 kr, eller varje rad struken av en rättelse) och bokfördes inte.", s.Empty),
			MessageEn: fmt.Sprintf("%d vouchers had no rows left to book (rows of 0.00 only, or every row struck by a correction) and were not booked.", s.Empty),
			Details:   map[string]any{"vouchers": s.Empty, "skipped": s.emptied}})
	}
}

// objectsUsed keeps the #OBJEKT codes only an import's register holds
// when a row uses them (refusing the file at the #OBJEKT when the register
// cannot hold the code at all), and leaves the others out with a warning.
func (s *Summary) objectsUsed() {
	var skipped []map[string]any
	for _, o := range s.unheld {
		k := Object{Dim: o.Dim, Code: o.Code}
		if _, used := s.tagged[k]; !used {
			skipped = append(skipped, map[string]any{"dimension": o.Dim, "code": o.Code, "line": o.line})
			continue
		}
		if !ledger.HeldDimensionCode(o.Code) {
			s.bad(sie.Problem{Line: o.line, Record: "#OBJEKT", Issue: "the object code " + strconv.Quote(o.Code) +
				" is used by rows but cannot be held by the dimension register: " + unheldReason(o.Code)})
			continue
		}
		s.Objects = append(s.Objects, o.Object)
	}
	if len(skipped) > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnObjectsSkipped,
			Message:   fmt.Sprintf("%d objekt (#OBJEKT) har koder som dimensionsregistret inte kan hålla och som ingen rad använder; de lades inte in.", len(skipped)),
			MessageEn: fmt.Sprintf("%d objects (#OBJEKT) have codes the dimension register cannot hold and no row uses; they were left out.", len(skipped)),
			Details:   map[string]any{"count": len(skipped), "objects": first20(skipped)}})
	}
}

func first20(list []map[string]any) []map[string]any {
	if len(list) > 20 {
		return list[:20]
	}
	return list
}

// SeriesOK reports whether a file's series can be kept: 1-10 characters
// without blanks or control characters.
func SeriesOK(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > 10 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
