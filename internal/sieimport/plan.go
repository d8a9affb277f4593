package sieimport

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// Suspense is where rows on a file's balance accounts outside BAS's
// balance sheet (classes 0 and 9 holding #IB, #UB or #KTYP T/S) are
// booked, the file's account named in the row's text, as the peer does;
// an unbalanced #IB's difference waits there too.
const Suspense = "2999"

// bookedAccount is the account a file's account is booked on, and the
// text that says so when it is not the file's own: a class 0 or 9 account
// the file keeps balances on (outside) goes to the suspense account; one
// it uses as a result account (a 9999 obs-konto with #RES) stays itself.
func bookedAccount(account, text string, outside bool) (string, *string) {
	if !outside {
		return account, nonEmpty(text)
	}
	t := "Konto " + account
	if text != "" {
		t += ": " + text
	}
	return Suspense, &t
}

func nonEmpty(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// line is one row of a voucher as a ledger line: debit when positive,
// credit when negative, objects as dimension tags.
func line(r sie.Row, order int, s *Summary) ledger.Line {
	account, text := bookedAccount(r.Account, r.Text, s.IsOutside(r.Account))
	l := ledger.Line{Account: account, Description: text, SortOrder: order}
	if r.Amount.Sign() > 0 {
		l.Debit = r.Amount
	} else {
		l.Credit = r.Amount.Neg()
	}
	if len(r.Objects) > 0 {
		l.Dimensions = ledger.Dimensions{}
		for _, o := range r.Objects {
			l.Dimensions[o.Dim] = o.Code
		}
	}
	return l
}

// Posting is one voucher of a file as the ledger takes it: the entry as
// it was first registered (its kept and struck rows), and what the
// file's corrections did to it afterwards.
type Posting struct {
	Entry ledger.BatchEntry
	// Struck are the indexes of the entry's lines the file struck out
	// afterwards (#BTRANS); Added the lines it added (#RTRANS).
	Struck    []int
	Added     []ledger.Line
	Signature *string
	// FileNumber is the voucher's number in the file ("" when it had
	// none).
	FileNumber string
}

// plan turns voucher v into a Posting for the year period: series
// (defaultSeries when the file's is empty), number (the file's plus its
// series' offset; 0 for the ledger to number, as it numbers a series a
// program kept for itself), text, rows of 0.00 left out. ok is false for
// a voucher with nothing to book.
func plan(v sie.Voucher, period uuid.UUID, imp uuid.UUID, defaultSeries string, s *Summary, offsets map[string]int) (Posting, bool) {
	series := s.Series
	name := v.Series
	if name == "" {
		name = defaultSeries
	}
	number := 0
	if n, err := strconv.Atoi(v.Number); err == nil && n > 0 && (series[v.Series] == nil || !series[v.Series].Internal) {
		number = n + offsets[name]
	}
	desc := strings.TrimSpace(v.Text)
	if desc == "" {
		desc = sie.Untitled(name, v.Number)
	}
	src := "sie:" + name + ":" + v.Number
	p := Posting{FileNumber: v.Number}
	in := ledger.Input{PeriodID: period, Date: v.Date, Description: desc, Series: name, SourceType: "import",
		SourceID: &src}
	stands := false
	for _, r := range v.Rows {
		if r.Amount.IsZero() {
			continue
		}
		stands = stands || r.Kind != sie.Struck
		switch r.Kind {
		case sie.Added:
			p.Added = append(p.Added, line(r, 0, s))
			if p.Signature == nil {
				p.Signature = nonEmpty(r.Sign)
			}
			continue
		case sie.Struck:
			p.Struck = append(p.Struck, len(in.Lines))
			if p.Signature == nil {
				p.Signature = nonEmpty(r.Sign)
			}
		}
		in.Lines = append(in.Lines, line(r, len(in.Lines), s))
	}
	id := imp
	p.Entry = ledger.BatchEntry{Input: in, Number: number, Import: &id}
	return p, stands
}

// firstRegistered reports whether a corrected voucher balanced as it was
// first registered: its kept and struck rows sum to 0. Pass 1 refuses one
// that did not, which cannot be booked as it stood.
func firstRegistered(v sie.Voucher) bool {
	var s money.Amount
	for _, r := range v.Rows {
		if r.Kind != sie.Added {
			s = s.Add(r.Amount)
		}
	}
	return s.IsZero()
}

// Mismatch is one figure the books and the file state differently after
// an import.
type Mismatch struct {
	Check   string       `json:"check"`
	Account string       `json:"account"`
	Period  string       `json:"period,omitempty"`
	File    money.Amount `json:"file"`
	Books   money.Amount `json:"books"`
}

// BalanceCheck compares the books after an import with what the file
// says they should be.
type BalanceCheck struct {
	Checked    map[string]int `json:"checked"`
	Mismatches []Mismatch     `json:"mismatches"`
	Balanced   bool           `json:"balanced"`
}

// equity is how compare names the equity accounts taken as a whole.
const equity = "2000-2099"

// compare checks the file's closing balances (#UB 0) and results (#RES
// 0) against each account's balance in the books, its period balances
// (#PSALDO) against the months' turnover, and its opening balances (#IB
// 0) against last year's closing ones (#UB -1). Equity (2000-2099) is
// compared as a whole, with the year's result when the books have not
// carried it there by a year-end: a file's #UB usually has the result in
// 2099 already, and its next #IB in 2091. Accounts outside the statements
// (0, 9) and the file's silence (an account the books have and the file
// does not name) are not compared, except that a balance the books hold
// on an account the file gives no #UB for is a mismatch when the file
// gives #UB at all.
func compare(s *Summary, sheet ledger.Sheet, balances map[string]money.Amount, months map[string]money.Amount) BalanceCheck {
	out := BalanceCheck{Checked: map[string]int{}, Mismatches: []Mismatch{}}
	mismatch := func(kind, account, period string, file, books money.Amount) {
		out.Checked[kind]++
		if file.Cmp(books) != 0 {
			out.Mismatches = append(out.Mismatches, Mismatch{Check: kind, Account: account, Period: period, File: file, Books: books})
		}
	}
	grouped := func(list []Amount) map[string]money.Amount {
		m := map[string]money.Amount{}
		for _, a := range list {
			if s.IsOutside(a.Account) {
				continue
			}
			m[groupOf(a.Account)] = m[groupOf(a.Account)].Add(a.Amount)
		}
		return m
	}
	closing := grouped(s.Closing)
	// A file whose balance sheet balances (#UB summing to zero) has the
	// year's result in equity already; one written before its program's
	// year-end has it on the result accounts, as the books do.
	var total money.Amount
	for _, v := range closing {
		total = total.Add(v)
	}
	carried := total.IsZero()
	books := map[string]money.Amount{}
	for acct, b := range balances {
		switch {
		case sheet.Holds(acct):
			books[groupOf(acct)] = books[groupOf(acct)].Add(b)
		case carried:
			books[equity] = books[equity].Add(b)
		}
	}
	for _, k := range sortedKeys(closing) {
		mismatch("closing_balances", k, "", closing[k], books[k])
	}
	results := map[string]bool{}
	for _, a := range s.Results {
		if s.IsOutside(a.Account) {
			continue
		}
		results[a.Account] = true
		mismatch("results", a.Account, "", a.Amount, balances[a.Account])
	}
	for _, acct := range sortedKeys(balances) {
		if acct == Suspense && !closing[acct].IsZero() {
			continue
		}
		_, named := closing[groupOf(acct)]
		switch {
		case acct == Suspense:
			// What waits there (an opening balance's difference, rows of
			// accounts outside the statements) is reported as a warning.
		case sheet.Holds(acct) && len(s.Closing) > 0 && !named && !balances[acct].IsZero():
			out.Mismatches = append(out.Mismatches, Mismatch{Check: "closing_balances", Account: acct, Books: balances[acct]})
		case !sheet.Holds(acct) && acct != Suspense && len(s.Results) > 0 && !results[acct] && !balances[acct].IsZero():
			out.Mismatches = append(out.Mismatches, Mismatch{Check: "results", Account: acct, Books: balances[acct]})
		}
	}
	for _, a := range s.Months {
		if s.IsOutside(a.Account) {
			continue
		}
		mismatch("period_balances", a.Account, a.Period, a.Amount, months[a.Account+":"+a.Period])
	}
	if len(s.Previous) > 0 {
		opening, previous := grouped(s.Opening), grouped(s.Previous)
		for _, k := range sortedKeys(opening) {
			if k == Suspense {
				// What an unbalanced #IB left there is warned about.
				continue
			}
			mismatch("opening_vs_last_closing", k, "", opening[k], previous[k])
		}
	}
	sort.SliceStable(out.Mismatches, func(i, j int) bool {
		a, b := out.Mismatches[i], out.Mismatches[j]
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		return a.Account+a.Period < b.Account+b.Period
	})
	out.Balanced = len(out.Mismatches) == 0
	return out
}

// groupOf is the name compare gives an account: equity as a whole, any
// other account its own number.
func groupOf(account string) string {
	if account >= "2000" && account <= "2099" {
		return equity
	}
	return account
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// monthKey is how compare looks a month's turnover up.
func monthKey(account string, month time.Time) string {
	return account + ":" + month.Format("200601")
}

// renumbered is the warning for a series whose numbers were shifted.
func renumbered(series string, offset int) Warning {
	return Warning{Code: WarnRenumbered,
		Message:   fmt.Sprintf("Serie %s fortsätter efter de nummer året redan har: filens nummer + %d. Filens nummer finns i source_id.", series, offset),
		MessageEn: fmt.Sprintf("Series %s continues after the numbers the year holds already: the file's number + %d. The file's number is in source_id.", series, offset),
		Details:   map[string]any{"series": series, "offset": offset}}
}
