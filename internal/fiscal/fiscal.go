// Package fiscal holds fiscal periods (räkenskapsår): a company's years,
// contiguous, never overlapping, at most 18 months long, each open,
// locked or closed.
package fiscal

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// MaxMonths is the longest fiscal year the law allows (a first year, or a
// year in which the fiscal year is moved).
const MaxMonths = 18

// Span is a fiscal year: first and last day, both inclusive.
type Span struct {
	Start, End time.Time
}

// Name is the fiscal year's name: "Räkenskapsår 2026" for a year within
// one calendar year, "2026/2027" for a broken one.
func (s Span) Name() string {
	if s.Start.Year() == s.End.Year() {
		return "Räkenskapsår " + strconv.Itoa(s.Start.Year())
	}
	return fmt.Sprintf("%d/%d", s.Start.Year(), s.End.Year())
}

// Months is the number of calendar months the span touches.
func (s Span) Months() int {
	return (s.End.Year()-s.Start.Year())*12 + int(s.End.Month()-s.Start.Month()) + 1
}

// Days is the number of days of the span.
func (s Span) Days() int { return int(s.End.Sub(s.Start).Hours()/24) + 1 }

// Contains reports whether day falls inside the span.
func (s Span) Contains(day time.Time) bool { return !day.Before(s.Start) && !day.After(s.End) }

// Overlaps reports whether s and o share a day.
func (s Span) Overlaps(o Span) bool { return !s.End.Before(o.Start) && !o.End.Before(s.Start) }

// Current returns the fiscal year that starts in startMonth and contains
// day.
func Current(startMonth int, day time.Time) Span {
	y := day.Year()
	if int(day.Month()) < startMonth {
		y--
	}
	start := time.Date(y, time.Month(startMonth), 1, 0, 0, 0, 0, time.UTC)
	return Span{Start: start, End: start.AddDate(1, 0, -1)}
}

// State is where a period is in its life.
type State string

// The states of a fiscal period.
const (
	Open   State = "open"
	Locked State = "locked"
	Closed State = "closed"
)

// Period is a fiscal period as stored.
type Period struct {
	ID               uuid.UUID  `db:"id"`
	Name             string     `db:"name"`
	Start            time.Time  `db:"period_start"`
	End              time.Time  `db:"period_end"`
	PreviousID       *uuid.UUID `db:"previous_period_id"`
	LockedAt         *time.Time `db:"locked_at"`
	Closed           bool       `db:"is_closed"`
	ClosedAt         *time.Time `db:"closed_at"`
	ClosedExternally bool       `db:"closed_externally"`
	// YearEndEntryID is the closing entry of the year-end run, once run.
	YearEndEntryID *uuid.UUID `db:"year_end_entry_id"`
	YearEndAt      *time.Time `db:"year_end_at"`
	CreatedAt      time.Time  `db:"created_at"`
}

// Span is the period's first and last day.
func (p Period) Span() Span { return Span{Start: p.Start, End: p.End} }

// State is open, locked or closed, derived as the API has always done:
// closed wins over locked.
func (p Period) State() State {
	switch {
	case p.Closed:
		return Closed
	case p.LockedAt != nil:
		return Locked
	}
	return Open
}

// CheckShape checks the span alone: it ends after it starts, on a month's
// last day, starts on a month's first day (only the company's earliest
// year may start mid-month, from its registration), and lasts at most 18
// months (FISCAL_PERIOD_TOO_LONG).
func CheckShape(s Span, earliest bool) error {
	switch {
	case !s.End.After(s.Start):
		return apierr.Field("period_end", "after_start", "must be after period_start")
	case s.End.AddDate(0, 0, 1).Day() != 1:
		return apierr.Field("period_end", "month_end", "must be the last day of a month")
	case !earliest && s.Start.Day() != 1:
		return apierr.Field("period_start", "month_start", "must be the first day of a month")
	case s.Months() > MaxMonths:
		return apierr.New(apierr.FiscalPeriodTooLong, map[string]any{
			"months": s.Months(), "max_months": MaxMonths})
	}
	return nil
}

// Place decides where s goes among the company's other periods (any
// order, the period being changed left out): it may not overlap one
// (FISCAL_PERIOD_OVERLAP) and must adjoin its neighbours, right after the
// latest or right before the earliest (FISCAL_PERIOD_NOT_CONTIGUOUS with
// the dates that would fit). It returns the period s follows, if any.
func Place(s Span, others []Period) (*Period, error) {
	if len(others) == 0 {
		return nil, CheckShape(s, true)
	}
	var first, last *Period
	for i := range others {
		o := &others[i]
		if s.Overlaps(o.Span()) {
			return nil, apierr.New(apierr.FiscalPeriodOverlap, map[string]any{
				"overlapping_period_id": o.ID, "overlapping_period_name": o.Name,
				"overlapping_start": date(o.Start), "overlapping_end": date(o.End)})
		}
		if first == nil || o.Start.Before(first.Start) {
			first = o
		}
		if last == nil || o.End.After(last.End) {
			last = o
		}
	}
	after := last.End.AddDate(0, 0, 1)
	before := first.Start.AddDate(0, 0, -1)
	switch {
	case s.Start.Equal(after):
		return last, CheckShape(s, false)
	case s.End.Equal(before):
		return nil, CheckShape(s, true)
	}
	details := map[string]any{"expected_start": date(after), "expected_end_before": date(before)}
	if s.Start.After(last.End) {
		details = map[string]any{"expected_start": date(after)}
	} else if s.End.Before(first.Start) {
		details = map[string]any{"expected_end": date(before)}
	}
	return nil, apierr.New(apierr.FiscalPeriodNotContiguous, details)
}

// Patch is a change of a period: its name and dates.
type Patch struct {
	Name       *string
	Start, End *time.Time
}

// MovesDates reports whether p changes the period's dates.
func (p Patch) MovesDates(cur Period) bool {
	return p.Start != nil && !p.Start.Equal(cur.Start) || p.End != nil && !p.End.Equal(cur.End)
}

// CheckChange refuses any change of a closed or locked period.
func CheckChange(cur Period) error {
	switch cur.State() {
	case Closed:
		return apierr.New(apierr.FiscalPeriodUpdateClosed, map[string]any{"fiscal_period_id": cur.ID})
	case Locked:
		return apierr.New(apierr.FiscalPeriodUpdateLocked, map[string]any{"fiscal_period_id": cur.ID})
	}
	return nil
}

func date(t time.Time) string { return t.Format(time.DateOnly) }
