package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
)

// Why a period refuses postings, as details.reason says it.
const (
	reasonClosed   = "period_closed"
	reasonLocked   = "period_locked"
	reasonLockDate = "company_lock_date"
)

// InPeriod refuses a date outside the period: ENTRY_DATE_OUTSIDE_FISCAL_PERIOD.
func InPeriod(p fiscal.Period, day time.Time) error {
	if p.Span().Contains(day) {
		return nil
	}
	return apierr.New(apierr.EntryDateOutsideFiscalPeriod, map[string]any{
		"entry_date": day.Format(time.DateOnly), "fiscal_period_id": p.ID,
		"period_start": p.Start.Format(time.DateOnly), "period_end": p.End.Format(time.DateOnly)})
}

// Closedness says why nothing dated day may be posted into p by an entry
// of source, or "" when it may: a closed period takes nothing; a locked
// period takes only what the year-end writes; nothing at all goes on or
// before the company's lock date.
func Closedness(p fiscal.Period, lockedThrough *time.Time, day time.Time, source string) string {
	switch {
	case p.Closed:
		return reasonClosed
	case p.LockedAt != nil && !yearEndSources[source]:
		return reasonLocked
	case lockedThrough != nil && !day.After(*lockedThrough):
		return reasonLockDate
	}
	return ""
}

// Postable refuses posting into a closed or locked period, or on or
// before the company's lock date: PERIOD_LOCKED, with the reason.
func Postable(p fiscal.Period, lockedThrough *time.Time, day time.Time, source string) error {
	return PostableOr(apierr.PeriodLocked, p, lockedThrough, day, source)
}

// PostableOr is Postable answering code instead of PERIOD_LOCKED, with the
// same details: a rule that rests on the period taking postings (attaching
// underlag to a verifikat) names its own refusal.
func PostableOr(code apierr.Code, p fiscal.Period, lockedThrough *time.Time, day time.Time, source string) error {
	reason := Closedness(p, lockedThrough, day, source)
	if reason == "" {
		return nil
	}
	return periodLocked(code, p, lockedThrough, reason)
}

func periodLocked(code apierr.Code, p fiscal.Period, lockedThrough *time.Time, reason string) *apierr.Error {
	d := map[string]any{"reason": reason, "fiscal_period_id": p.ID}
	if reason == reasonLockDate {
		d["locked_through"] = lockedThrough.Format(time.DateOnly)
	}
	return apierr.New(code, d)
}

// Postable refuses what Post would refuse of an entry of source dated
// day, by the period alone: no fiscal period holding it
// (PERIOD_NOT_FOUND), a closed or locked one, or a day on or before the
// lock date (PERIOD_LOCKED). An engine registering a business document
// it books later (a supplier invoice under kontantmetoden) asks it first.
func (s *Store) Postable(ctx context.Context, company uuid.UUID, day time.Time, source string) error {
	b, err := s.readBooks(ctx, company, uuid.Nil, &day, nil)
	if apierr.Is(err, apierr.PeriodNotFound) {
		return apierr.New(apierr.PeriodNotFound, map[string]any{"date": day.Format(time.DateOnly)})
	}
	if err != nil {
		return err
	}
	return Postable(b.period, b.company.LockedThrough, day, source)
}
