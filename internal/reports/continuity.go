package reports

import (
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Notes a continuity check may carry.
const (
	NoteFirstYear         = "first_year"
	NoteOutsideKontera    = "previous_year_outside_kontera"
	NoteYearEndNotRun     = "previous_year_end_not_run"
	noteFirstYearText     = "The company's first year in Kontera: there is no year before it to compare with."
	noteOutsideText       = "The year before holds no bookkeeping in Kontera (kept or closed outside): the opening balance was set by hand and cannot be checked here."
	noteYearEndNotRunText = "The year before has not run its year-end: run it, and it sets this opening balance."
)

// NoteText is what a note code says.
var NoteText = map[string]string{NoteFirstYear: noteFirstYearText, NoteOutsideKontera: noteOutsideText,
	NoteYearEndNotRun: noteYearEndNotRunText}

// ContinuityLine is one balance-sheet account of a continuity check:
// the closing balance of the year before (nil when that year cannot be
// compared), this year's opening balance, and the difference.
type ContinuityLine struct {
	Account    string
	Previous   *money.Amount
	Opening    money.Amount
	Difference money.Amount
}

// Continuity is the continuity check of a year.
type Continuity struct {
	Lines     []ContinuityLine
	Differing int
	// Previous and Opening are the column sums; Previous is nil when the
	// year before cannot be compared.
	Previous   *money.Amount
	Opening    money.Amount
	Difference money.Amount
}

// OK reports whether every account opens with the closing balance of the
// year before.
func (c Continuity) OK() bool { return c.Differing == 0 }

// CheckContinuity lays out the ledger's rows (the year before's closing
// balance against this year's opening balance, per account). compared is
// false when the year before holds no bookkeeping in Kontera: then only
// the opening balances are listed, and nothing differs.
func CheckContinuity(rows []ledger.ContinuityRow, compared bool) Continuity {
	c := Continuity{Lines: make([]ContinuityLine, 0, len(rows))}
	var prev money.Amount
	for _, r := range rows {
		l := ContinuityLine{Account: r.Account, Opening: r.NextOpening}
		c.Opening = c.Opening.Add(r.NextOpening)
		if compared {
			closing := r.Closing
			l.Previous, l.Difference = &closing, r.Difference()
			prev = prev.Add(closing)
			if !l.Difference.IsZero() {
				c.Differing++
			}
		}
		c.Lines = append(c.Lines, l)
	}
	if compared {
		c.Previous, c.Difference = &prev, c.Opening.Sub(prev)
	}
	return c
}
