package sieimport

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// MaxErrors is how many problems a refused file lists.
const MaxErrors = 100

// Span is a fiscal year as a file's #RAR names it.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Account is a #KONTO with what the file says of it.
type Account struct {
	Number string `json:"number"`
	Name   string `json:"name,omitempty"`
	Type   string `json:"type,omitempty"` // #KTYP: T, S, K or I
	SRU    string `json:"sru,omitempty"`
}

// Dimension is a #DIM or #UNDERDIM.
type Dimension struct {
	No     int    `json:"no"`
	Name   string `json:"name"`
	Parent int    `json:"parent,omitempty"`
}

// Object is an #OBJEKT, or an object a row names without one.
type Object struct {
	Dim  int    `json:"dim"`
	Code string `json:"code"`
	Name string `json:"name,omitempty"`
}

// Amount is an account's balance as the file states it; Period (YYYYMM)
// for a #PSALDO.
type Amount struct {
	Account string       `json:"account"`
	Period  string       `json:"period,omitempty"`
	Amount  money.Amount `json:"amount"`
}

// Series is what the file's vouchers hold of one series.
type Series struct {
	Count int `json:"count"`
	Min   int `json:"min"`
	Max   int `json:"max"`
	// Unnumbered vouchers (a 4I file's empty number) are numbered by the
	// ledger.
	Unnumbered int `json:"unnumbered,omitempty"`
}

// Summary is what pass 1 learns of a file: everything but the vouchers
// themselves, which pass 2 reads again.
type Summary struct {
	Encoding   sie.Encoding       `json:"encoding"`
	Program    string             `json:"program,omitempty"`
	Type       string             `json:"sie_type,omitempty"`
	Name       string             `json:"company_name,omitempty"`
	OrgNumber  string             `json:"org_number,omitempty"`
	Years      map[int]Span       `json:"years,omitempty"`
	Accounts   []Account          `json:"accounts,omitempty"`
	Dimensions []Dimension        `json:"dimensions,omitempty"`
	Objects    []Object           `json:"objects,omitempty"`
	Opening    []Amount           `json:"opening,omitempty"`  // #IB 0
	Closing    []Amount           `json:"closing,omitempty"`  // #UB 0
	Results    []Amount           `json:"results,omitempty"`  // #RES 0
	Previous   []Amount           `json:"previous,omitempty"` // #UB -1
	Months     []Amount           `json:"months,omitempty"`   // #PSALDO 0 without objects
	Vouchers   int                `json:"vouchers"`           // #VER
	Rows       int                `json:"rows"`               // rows booked
	ZeroRows   int                `json:"zero_rows"`          // rows of 0.00, counted not booked
	Empty      int                `json:"empty_vouchers"`     // vouchers of zero rows only
	Corrected  int                `json:"corrected_vouchers"` // with #BTRANS or #RTRANS
	Series     map[string]*Series `json:"series,omitempty"`
	First      *time.Time         `json:"first_date,omitempty"`
	Last       *time.Time         `json:"last_date,omitempty"`
	Offset     int64              `json:"voucher_offset"` // of the first #VER
	Line       int                `json:"voucher_line"`
	Used       []string           `json:"used_accounts,omitempty"` // accounts rows book
	Checksum   bool               `json:"checksum"`
	Warnings   []Warning          `json:"warnings,omitempty"`
	numbers    map[string]map[int]int
	accounts   map[string]int
	objects    map[Object]bool
	used       map[string]bool
}

// Warning is something an import tells about a file without refusing
// it.
type Warning struct {
	Code      string         `json:"code"`
	MessageSv string         `json:"message_sv"`
	MessageEn string         `json:"message_en"`
	Details   map[string]any `json:"details,omitempty"`
}

// The warnings an import gives.
const (
	WarnGap        = "SIE_VOUCHER_GAP"
	WarnRenumbered = "SIE_IMPORT_RENUMBERED"
	WarnOrgNumber  = "SIE_ORG_NUMBER_MISMATCH"
	WarnOpening    = "SIE_OPENING_BALANCE_KEPT"
	// WarnOpeningUnbalanced: the file's #IB did not balance; the
	// difference went to the suspense account.
	WarnOpeningUnbalanced = "SIE_OPENING_BALANCE_UNBALANCED"
	WarnZeroRows          = "SIE_ZERO_ROWS_SKIPPED"
	WarnEmpty             = "SIE_EMPTY_VOUCHERS_SKIPPED"
	WarnClass             = "SIE_ACCOUNT_OUTSIDE_CHART"
	WarnObject            = "SIE_OBJECT_CREATED"
	WarnMismatch          = "SIE_BALANCE_MISMATCH"
)

// Scan is pass 1: it reads a whole file (in encoding enc) and answers
// what it holds, or every problem that refuses it (the first MaxErrors):
// syntax, a voucher whose rows do not sum to 0, a duplicate voucher
// number, a number that is not a number, a date outside the year (#RAR
// 0), an #IB on classes 3-8, an account or object code the books cannot
// hold, a checksum that does not match, a truncated file.
func Scan(r io.Reader, enc sie.Encoding) (*Summary, []sie.Problem, error) {
	s := &Summary{Encoding: enc, Years: map[int]Span{}, Series: map[string]*Series{}, numbers: map[string]map[int]int{},
		accounts: map[string]int{}, objects: map[Object]bool{}, used: map[string]bool{}}
	var probs []sie.Problem
	bad := func(p sie.Problem) {
		if len(probs) < MaxErrors {
			probs = append(probs, p)
		}
	}
	rd := sie.NewReader(r, enc)
	var vouchers []sie.Record // held until #RAR is surely read: it may follow them in a careless file
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if p, ok := sie.AsProblem(err); ok {
			bad(*p)
			if rec.Label != "#VER" {
				continue
			}
		} else if err != nil {
			return nil, nil, err
		}
		if rec.Label == "#VER" {
			if s.Vouchers == 0 {
				s.Offset, s.Line = rec.Offset, rec.Line
			}
			s.Vouchers++
			vouchers = append(vouchers, rec)
			if len(vouchers) >= 1000 {
				for _, v := range vouchers {
					s.voucher(v, bad)
				}
				vouchers = vouchers[:0]
			}
			continue
		}
		s.record(rec, bad)
	}
	for _, v := range vouchers {
		s.voucher(v, bad)
	}
	s.Checksum = rd.Checksummed()
	s.finish()
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
	return s, probs, nil
}

// record takes in one record outside the vouchers.
func (s *Summary) record(rec sie.Record, bad func(sie.Problem)) {
	issue := func(msg string) { bad(sie.Problem{Line: rec.Line, Record: rec.Label, Issue: msg}) }
	switch rec.Label {
	case "#PROGRAM":
		s.Program = strings.TrimSpace(rec.Text(0) + " " + rec.Text(1))
	case "#SIETYP":
		s.Type = rec.Text(0)
	case "#FNAMN":
		s.Name = rec.Text(0)
	case "#ORGNR":
		s.OrgNumber = rec.Text(0)
	case "#RAR":
		y, err := strconv.Atoi(rec.Text(0))
		start, ok1 := sie.Date(rec.Text(1))
		end, ok2 := sie.Date(rec.Text(2))
		if err != nil || !ok1 || !ok2 || end.Before(start) {
			issue("#RAR needs a year number and two dates YYYYMMDD, the first not after the second")
			return
		}
		s.Years[y] = Span{Start: start, End: end}
	case "#KONTO", "#KTYP", "#SRU":
		n := rec.Text(0)
		if !bas.ValidNumber(n) {
			issue("the account " + strconv.Quote(n) + " is not four digits: the chart cannot hold it")
			return
		}
		a := s.account(n)
		switch rec.Label {
		case "#KONTO":
			a.Name = strings.TrimSpace(rec.Text(1))
			if utf8.RuneCountInString(a.Name) > 200 {
				issue("the account name is longer than 200 characters")
			}
		case "#KTYP":
			a.Type = strings.ToUpper(rec.Text(1))
		case "#SRU":
			if a.SRU == "" {
				a.SRU = rec.Text(1)
			}
		}
	case "#DIM", "#UNDERDIM":
		no, err := strconv.Atoi(rec.Text(0))
		if err != nil || no < 1 || no > 9999 {
			issue("the dimension number " + strconv.Quote(rec.Text(0)) + " is not a number from 1 to 9999")
			return
		}
		d := Dimension{No: no, Name: strings.TrimSpace(rec.Text(1))}
		if rec.Label == "#UNDERDIM" {
			if d.Parent, err = strconv.Atoi(rec.Text(2)); err != nil {
				issue("#UNDERDIM needs the number of its superior dimension")
				return
			}
		}
		s.Dimensions = append(s.Dimensions, d)
	case "#OBJEKT":
		no, err := strconv.Atoi(rec.Text(0))
		if err != nil || no < 1 || no > 9999 {
			issue("the dimension number " + strconv.Quote(rec.Text(0)) + " is not a number from 1 to 9999")
			return
		}
		o := Object{Dim: no, Code: rec.Text(1), Name: strings.TrimSpace(rec.Text(2))}
		if !ledger.ValidDimensionCode(o.Code) {
			issue("the object code " + strconv.Quote(o.Code) + " cannot be held by the dimension register (1-20 characters A-Ö, digits, _, + or -)")
			return
		}
		s.objects[Object{Dim: o.Dim, Code: o.Code}] = true
		s.Objects = append(s.Objects, o)
	case "#IB", "#UB", "#RES", "#PSALDO":
		b, p := sie.ParseBalance(rec)
		if p != nil {
			bad(*p)
			return
		}
		if !bas.ValidNumber(b.Account) {
			issue("the account " + strconv.Quote(b.Account) + " is not four digits: the chart cannot hold it")
			return
		}
		if rec.Label == "#IB" && b.Year == 0 && b.Account[0] >= '3' && b.Account[0] <= '8' {
			issue("an opening balance (#IB) on " + b.Account + ": classes 3-8 are result accounts, which open at 0")
			return
		}
		a := Amount{Account: b.Account, Period: b.Period, Amount: b.Amount}
		switch {
		case rec.Label == "#IB" && b.Year == 0:
			s.Opening = append(s.Opening, a)
		case rec.Label == "#UB" && b.Year == 0:
			s.Closing = append(s.Closing, a)
		case rec.Label == "#UB" && b.Year == -1:
			s.Previous = append(s.Previous, a)
		case rec.Label == "#RES" && b.Year == 0:
			s.Results = append(s.Results, a)
		case rec.Label == "#PSALDO" && b.Year == 0 && len(b.Objects) == 0:
			s.Months = append(s.Months, a)
		}
	}
}

func (s *Summary) account(n string) *Account {
	i, ok := s.accounts[n]
	if !ok {
		i = len(s.Accounts)
		s.accounts[n] = i
		s.Accounts = append(s.Accounts, Account{Number: n})
	}
	return &s.Accounts[i]
}

// voucher takes in one #VER.
func (s *Summary) voucher(rec sie.Record, bad func(sie.Problem)) {
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
	number := 0
	if v.Number != "" {
		n, err := strconv.Atoi(v.Number)
		if err != nil || n < 1 || n > 2147483647 {
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
	booked, corrected := 0, false
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
			if !ledger.ValidDimensionCode(o.Code) {
				issue(r.Line, "#TRANS", "the object code "+strconv.Quote(o.Code)+" cannot be held by the dimension register (1-20 characters A-Ö, digits, _, + or -)")
				return
			}
			dim, err := strconv.Atoi(o.Dim)
			if err != nil || dim < 1 || dim > 9999 {
				issue(r.Line, "#TRANS", "the dimension number "+strconv.Quote(o.Dim)+" is not a number from 1 to 9999")
				return
			}
			if k := (Object{Dim: dim, Code: o.Code}); !s.objects[k] {
				s.objects[k] = true
				s.Objects = append(s.Objects, k)
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
		if !s.used[r.Account] {
			s.used[r.Account] = true
			s.Used = append(s.Used, r.Account)
		}
	}
	if len(v.Rows) > ledger.MaxEngineLines {
		issue(v.Line, "#VER", fmt.Sprintf("a voucher has at most %d rows", ledger.MaxEngineLines))
		return
	}
	if corrected && !firstRegistered(v) {
		issue(v.Line, "#VER", "the rows struck afterwards (#BTRANS) and added afterwards (#RTRANS) do not balance each other, so the voucher as first registered did not balance")
		return
	}
	if corrected {
		s.Corrected++
	}
	if booked == 0 {
		s.Empty++
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
		st = &Series{}
		s.Series[v.Series] = st
		s.numbers[v.Series] = map[int]int{}
	}
	st.Count++
	if number == 0 {
		st.Unnumbered++
		return
	}
	if first, dup := s.numbers[v.Series][number]; dup {
		issue(v.Line, "#VER", fmt.Sprintf("voucher %s %d is in the file twice (first on line %d)", v.Series, number, first))
		return
	}
	s.numbers[v.Series][number] = v.Line
	if st.Min == 0 || number < st.Min {
		st.Min = number
	}
	st.Max = max(st.Max, number)
}

// finish adds the warnings pass 1 can give on its own: gaps in a
// series' numbers, rows of zero and empty vouchers left out.
func (s *Summary) finish() {
	names := make([]string, 0, len(s.Series))
	for k := range s.Series {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		nums := make([]int, 0, len(s.numbers[k]))
		for n := range s.numbers[k] {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for i := 1; i < len(nums); i++ {
			if nums[i] > nums[i-1]+1 {
				s.Warnings = append(s.Warnings, Warning{Code: WarnGap,
					MessageSv: fmt.Sprintf("Serie %s saknar verifikationsnummer %d–%d i filen.", k, nums[i-1]+1, nums[i]-1),
					MessageEn: fmt.Sprintf("Series %s lacks voucher numbers %d–%d in the file.", k, nums[i-1]+1, nums[i]-1),
					Details:   map[string]any{"series": k, "from": nums[i-1] + 1, "to": nums[i] - 1}})
			}
		}
	}
	if s.ZeroRows > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnZeroRows,
			MessageSv: fmt.Sprintf("%d rader på 0,00 kr räknades men bokfördes inte.", s.ZeroRows),
			MessageEn: fmt.Sprintf("%d rows of 0.00 were counted but not booked.", s.ZeroRows),
			Details:   map[string]any{"rows": s.ZeroRows}})
	}
	if s.Empty > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnEmpty,
			MessageSv: fmt.Sprintf("%d verifikationer hade bara rader på 0,00 kr och bokfördes inte.", s.Empty),
			MessageEn: fmt.Sprintf("%d vouchers held only rows of 0.00 and were not booked.", s.Empty),
			Details:   map[string]any{"vouchers": s.Empty}})
	}
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
