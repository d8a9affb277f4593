package fiscal

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func span(a, b string) Span { return Span{Start: day(a), End: day(b)} }

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestSpan(t *testing.T) {
	if n := span("2026-01-01", "2026-12-31").Name(); n != "Räkenskapsår 2026" {
		t.Error(n)
	}
	if n := span("2026-05-01", "2027-04-30").Name(); n != "2026/2027" {
		t.Error(n)
	}
	if d := span("2028-01-01", "2028-12-31").Days(); d != 366 {
		t.Errorf("leap year: %d days", d)
	}
	if m := span("2026-07-01", "2027-12-31").Months(); m != 18 {
		t.Errorf("months: %d", m)
	}
}

func TestCheckShape(t *testing.T) {
	for s, want := range map[Span]apierr.Code{
		span("2026-01-01", "2026-12-31"): "",
		span("2026-01-01", "2027-06-30"): "",
		span("2026-01-01", "2027-07-31"): apierr.FiscalPeriodTooLong,
		span("2026-01-01", "2026-12-30"): apierr.ValidationError, // not a month end
		span("2026-12-31", "2026-12-31"): apierr.ValidationError, // ends when it starts
	} {
		if got := code(CheckShape(s, false)); got != want {
			t.Errorf("%v: %q, want %q", s, got, want)
		}
	}
	if code(CheckShape(span("2026-03-15", "2026-12-31"), false)) != apierr.ValidationError {
		t.Error("a later year starting mid-month passes")
	}
	if err := CheckShape(span("2026-03-15", "2026-12-31"), true); err != nil {
		t.Errorf("the earliest year may start at registration: %v", err)
	}
}

func TestPlace(t *testing.T) {
	y26 := Period{ID: uuid.New(), Name: "Räkenskapsår 2026", Start: day("2026-01-01"), End: day("2026-12-31")}
	y27 := Period{ID: uuid.New(), Name: "Räkenskapsår 2027", Start: day("2027-01-01"), End: day("2027-12-31")}
	others := []Period{y27, y26}

	prev, err := Place(span("2028-01-01", "2028-12-31"), others)
	if err != nil || prev == nil || prev.ID != y27.ID {
		t.Fatalf("after the latest: %v %v", prev, err)
	}
	if prev, err := Place(span("2025-01-01", "2025-12-31"), others); err != nil || prev != nil {
		t.Fatalf("before the earliest: %v %v", prev, err)
	}
	err = placeErr(span("2027-07-01", "2028-06-30"), others)
	if e, _ := apierr.As(err); e == nil || e.Code != apierr.FiscalPeriodOverlap || e.Details["overlapping_period_id"] != y27.ID {
		t.Fatalf("overlap: %v", err)
	}
	err = placeErr(span("2028-02-01", "2029-01-31"), others)
	if e, _ := apierr.As(err); e == nil || e.Code != apierr.FiscalPeriodNotContiguous || e.Details["expected_start"] != "2028-01-01" {
		t.Fatalf("gap after: %v", err)
	}
	err = placeErr(span("2024-01-01", "2024-12-31"), others)
	if e, _ := apierr.As(err); e == nil || e.Code != apierr.FiscalPeriodNotContiguous || e.Details["expected_end"] != "2025-12-31" {
		t.Fatalf("gap before: %v", err)
	}
	if code(placeErr(span("2028-01-01", "2029-07-31"), others)) != apierr.FiscalPeriodTooLong {
		t.Fatal("19 months placed")
	}
	// The company's first year: only its shape counts.
	if prev, err := Place(span("2026-03-15", "2026-12-31"), nil); err != nil || prev != nil {
		t.Fatalf("first year: %v %v", prev, err)
	}
}

func placeErr(s Span, others []Period) error {
	_, err := Place(s, others)
	return err
}

func TestStateAndChange(t *testing.T) {
	now := time.Now()
	p := Period{}
	if p.State() != Open || CheckChange(p) != nil {
		t.Fatal("open")
	}
	p.LockedAt = &now
	if p.State() != Locked || code(CheckChange(p)) != apierr.FiscalPeriodUpdateLocked {
		t.Fatal("locked")
	}
	p.Closed = true
	if p.State() != Closed || code(CheckChange(p)) != apierr.FiscalPeriodUpdateClosed {
		t.Fatal("closed wins over locked")
	}
}

// The moves of a period's life: open -> locked -> closed, unlock back
// from locked only, close only after the year-end.
func TestLifecycleRules(t *testing.T) {
	now := time.Now()
	today := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	open := Period{ID: uuid.New(), Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		End: time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)}
	locked := open
	locked.LockedAt = &now
	ran := locked
	ran.YearEndAt = &now
	closed := ran
	closed.Closed, closed.ClosedAt = true, &now

	if noop, err := CheckLock(open); noop || err != nil {
		t.Fatal("lock open", noop, err)
	}
	if _, err := CheckLock(locked); !apierr.Is(err, apierr.PeriodLockAlreadyLocked) {
		t.Fatal("lock locked", err)
	}
	if noop, err := CheckLock(closed); !noop || err != nil {
		t.Fatal("lock closed", noop, err)
	}
	for p, code := range map[*Period]apierr.Code{&open: apierr.PeriodUnlockNotLocked, &closed: apierr.PeriodUnlockClosed} {
		if err := CheckUnlock(*p); !apierr.Is(err, code) {
			t.Fatal("unlock", err, code)
		}
	}
	if CheckUnlock(locked) != nil {
		t.Fatal("unlock locked")
	}
	for p, code := range map[*Period]apierr.Code{&open: apierr.PeriodNotLocked, &locked: apierr.YearEndNotRun,
		&closed: apierr.PeriodAlreadyClosed} {
		if err := CheckClose(*p, today); !apierr.Is(err, code) {
			t.Fatal("close", err, code)
		}
	}
	if CheckClose(ran, today) != nil {
		t.Fatal("close after year-end")
	}
	if err := CheckYearEnd(locked, &locked, today); !apierr.Is(err, apierr.YearEndPriorPeriodOpen) {
		t.Fatal("prior open", err)
	}
	if err := CheckYearEnd(open, nil, today); !apierr.Is(err, apierr.PeriodNotLocked) {
		t.Fatal("year-end open", err)
	}
	if CheckYearEnd(locked, &closed, today) != nil || CheckYearEnd(locked, nil, today) != nil {
		t.Fatal("year-end locked")
	}
	// A year whose last day is after today is neither closed nor run,
	// however far its other steps have come; on its last day it may be.
	lastDay, dayBefore := locked.End, locked.End.AddDate(0, 0, -1)
	if err := CheckYearEnd(locked, nil, dayBefore); !apierr.Is(err, apierr.FiscalYearNotEnded) {
		t.Fatal("year-end before the last day", err)
	}
	if err := CheckClose(ran, dayBefore); !apierr.Is(err, apierr.FiscalYearNotEnded) {
		t.Fatal("close before the last day", err)
	}
	if CheckYearEnd(locked, nil, lastDay) != nil || CheckClose(ran, lastDay) != nil {
		t.Fatal("on the last day the year may be closed")
	}
}
