package fiscal

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// The events of a period's life.
const (
	EventLocked     = "period.locked"
	EventUnlocked   = "period.unlocked"
	EventYearClosed = "period.year_closed"
)

// CheckLock says whether p may be locked: a closed period is already
// final (noop), a locked one answers PERIOD_LOCK_ALREADY_LOCKED. The
// ledger adds the rules that read the books (no drafts).
func CheckLock(p Period) (noop bool, err error) {
	switch p.State() {
	case Closed:
		return true, nil
	case Locked:
		return false, apierr.New(apierr.PeriodLockAlreadyLocked, map[string]any{
			"fiscal_period_id": p.ID, "locked_at": p.LockedAt})
	}
	return false, nil
}

// CheckUnlock refuses to unlock a closed period (PERIOD_UNLOCK_CLOSED) or
// one that is not locked (PERIOD_UNLOCK_NOT_LOCKED).
func CheckUnlock(p Period) error {
	switch p.State() {
	case Closed:
		return apierr.New(apierr.PeriodUnlockClosed, map[string]any{"fiscal_period_id": p.ID})
	case Open:
		return apierr.New(apierr.PeriodUnlockNotLocked, map[string]any{"fiscal_period_id": p.ID})
	}
	return nil
}

// CheckClose refuses to close a period twice (PERIOD_ALREADY_CLOSED), one
// whose last day is after today (FISCAL_YEAR_NOT_ENDED), one that is not
// locked (PERIOD_NOT_LOCKED) or one whose year-end has not run
// (YEAR_END_NOT_RUN).
func CheckClose(p Period, today time.Time) error {
	switch {
	case p.Closed:
		return apierr.New(apierr.PeriodAlreadyClosed, map[string]any{"fiscal_period_id": p.ID, "closed_at": p.ClosedAt})
	case p.End.After(today):
		return notEnded(p, today)
	case p.LockedAt == nil:
		return apierr.New(apierr.PeriodNotLocked, map[string]any{"fiscal_period_id": p.ID})
	case p.YearEndAt == nil:
		return apierr.New(apierr.YearEndNotRun, map[string]any{"fiscal_period_id": p.ID,
			"reason": "year_end_not_executed"})
	}
	return nil
}

// CheckYearEnd says whether the year-end of p may run, as far as the
// periods tell: p not closed, its last day not after today
// (FISCAL_YEAR_NOT_ENDED), locked, and the year before it closed
// (YEAR_END_PRIOR_PERIOD_OPEN). prev is nil for the company's first year.
func CheckYearEnd(p Period, prev *Period, today time.Time) error {
	switch {
	case p.Closed:
		return apierr.New(apierr.PeriodAlreadyClosed, map[string]any{"fiscal_period_id": p.ID, "closed_at": p.ClosedAt})
	case p.End.After(today):
		return notEnded(p, today)
	case p.LockedAt == nil:
		return apierr.New(apierr.PeriodNotLocked, map[string]any{"fiscal_period_id": p.ID,
			"reason": "lock the period before its year-end"})
	case prev != nil && !prev.Closed:
		return apierr.New(apierr.YearEndPriorPeriodOpen, map[string]any{"fiscal_period_id": p.ID,
			"prior_period_id": prev.ID, "prior_period_name": prev.Name})
	}
	return nil
}

// notEnded is FISCAL_YEAR_NOT_ENDED for p: closing a year before its
// last day would shut out everything still to be booked in it.
func notEnded(p Period, today time.Time) error {
	return apierr.New(apierr.FiscalYearNotEnded, map[string]any{"fiscal_period_id": p.ID,
		"period_end": date(p.End), "today": date(today)})
}

// Hold returns the company's period id locked for the rest of the unit
// of work: postings into it (which take it FOR SHARE) wait, and so does
// any other change of its state.
func (s *Store) Hold(ctx context.Context, company, id uuid.UUID) (Period, error) {
	var p Period
	err := s.db.Q(ctx).GetContext(ctx, &p, `SELECT `+Columns+` FROM fiscal_periods
		WHERE company_id = $1 AND id = $2 FOR UPDATE`, company, id)
	if store.NotFound(err) {
		return p, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": id})
	}
	return p, err
}

// Following returns the period that starts the day after p ends; a zero
// Period when the company has none yet.
func (s *Store) Following(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.Covering(ctx, company, p.End.AddDate(0, 0, 1))
}

// Lock locks p (held by the caller), audits LOCK_PERIOD and announces
// period.locked.
func (s *Store) Lock(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.change(ctx, company, p, `locked_at = now()`, audit.LockPeriod, EventLocked,
		"Räkenskapsåret "+p.Name+" låstes")
}

// Unlock unlocks p (held by the caller) and announces period.unlocked;
// the company-wide lock date is not touched.
func (s *Store) Unlock(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.change(ctx, company, p, `locked_at = NULL`, audit.Update, EventUnlocked,
		"Räkenskapsåret "+p.Name+" låstes upp")
}

// Close closes p (held by the caller) for good, audits CLOSE_PERIOD and
// announces period.year_closed.
func (s *Store) Close(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.change(ctx, company, p, `is_closed = true, closed_at = now()`, audit.ClosePeriod, EventYearClosed,
		"Räkenskapsåret "+p.Name+" stängdes")
}

// MarkYearEnd records that the year-end of p ran, with its closing entry
// (nil when the year had no income-statement balances to close).
func (s *Store) MarkYearEnd(ctx context.Context, company uuid.UUID, p Period, entry *uuid.UUID) (Period, error) {
	var out Period
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE fiscal_periods SET year_end_entry_id = $3,
		year_end_at = now(), updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING `+Columns,
		company, p.ID, entry)
	if err != nil {
		return out, err
	}
	return out, s.record(ctx, company, audit.Update, "Bokslut för räkenskapsåret "+p.Name+" bokfördes", &p, &out)
}

// change sets a state column of p, audits it and emits event.
func (s *Store) change(ctx context.Context, company uuid.UUID, p Period, set string, action audit.Action,
	event, desc string) (Period, error) {
	var out Period
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE fiscal_periods SET `+set+`, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+Columns, company, p.ID)
	if err != nil {
		return out, err
	}
	if err := s.record(ctx, company, action, desc, &p, &out); err != nil {
		return out, err
	}
	_, err = outbox.Emit(ctx, s.db, company, event, eventPayload(out))
	return out, err
}

// eventPayload is the period as events carry it.
func eventPayload(p Period) map[string]any {
	return map[string]any{"id": p.ID, "name": p.Name, "period_start": date(p.Start), "period_end": date(p.End),
		"state": p.State(), "locked_at": stamp(p.LockedAt), "closed_at": stamp(p.ClosedAt),
		"year_end_entry_id": p.YearEndEntryID}
}

func stamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// CheckCloseExternally says whether p may be marked as closed outside
// Kontera (a year whose books were kept elsewhere): not closed already
// (PERIOD_ALREADY_CLOSED) and ended before today
// (FISCAL_PERIOD_CLOSE_EXTERNAL_NOT_ENDED). The ledger adds that it has no
// bookkeeping here.
func CheckCloseExternally(p Period, today time.Time) error {
	switch {
	case p.Closed:
		return apierr.New(apierr.PeriodAlreadyClosed, map[string]any{"fiscal_period_id": p.ID, "closed_at": p.ClosedAt})
	case !p.End.Before(today):
		return apierr.New(apierr.FiscalPeriodCloseExternalNotEnded, map[string]any{"fiscal_period_id": p.ID,
			"period_end": date(p.End)})
	}
	return nil
}

// CheckReopen says whether p may be re-opened: only a year closed outside
// Kontera (PERIOD_REOPEN_NOT_EXTERNAL); a year closed here is final, and
// one not closed has nothing to re-open (PERIOD_REOPEN_NOT_CLOSED).
func CheckReopen(p Period) error {
	switch {
	case !p.Closed:
		return apierr.New(apierr.PeriodReopenNotClosed, map[string]any{"fiscal_period_id": p.ID})
	case !p.ClosedExternally:
		return apierr.New(apierr.PeriodReopenNotExternal, map[string]any{"fiscal_period_id": p.ID,
			"reason": "a year closed by its year-end in Kontera is final"})
	}
	return nil
}

// CloseExternally marks p (held by the caller) as closed outside Kontera,
// locked, audits CLOSE_PERIOD and announces period.year_closed.
func (s *Store) CloseExternally(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.change(ctx, company, p, `locked_at = coalesce(locked_at, now()), is_closed = true, closed_at = now(),
		closed_externally = true`, audit.ClosePeriod, EventYearClosed,
		"Räkenskapsåret "+p.Name+" markerades som stängt utanför Kontera")
}

// Reopen re-opens p (held by the caller), a year closed outside Kontera:
// open and unlocked again, audited, announced as period.unlocked.
func (s *Store) Reopen(ctx context.Context, company uuid.UUID, p Period) (Period, error) {
	return s.change(ctx, company, p, `is_closed = false, closed_at = NULL, closed_externally = false, locked_at = NULL`,
		audit.Update, EventUnlocked, "Räkenskapsåret "+p.Name+", stängt utanför Kontera, öppnades igen")
}
