package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/fiscal"
)

// SourceAccrual is the source type of the verifikat that moves an accrued
// month off its balance account.
const SourceAccrual = "accrual"

// AccrualBook is what the ledger asks of the invoice registers' accrued
// months (accrual.Book).
type AccrualBook interface {
	// Pending is ACCRUALS_PENDING while months dated on or before through
	// wait, naming the action refused.
	Pending(ctx context.Context, company uuid.UUID, through time.Time, action string) error
	// ReleaseAccruals books the months due through the day.
	ReleaseAccruals(ctx context.Context, company uuid.UUID, through time.Time) (int, []error, error)
}

// pendingAccruals refuses action on p while accrued months dated in it
// (or before) wait; with release it books them first, and refuses only
// what the ledger would not take.
func (s *Store) pendingAccruals(ctx context.Context, company uuid.UUID, p fiscal.Period, release bool, action string) error {
	if s.Accruals == nil {
		return nil
	}
	if release {
		through := p.End
		if today := s.today(); today.Before(through) {
			through = today
		}
		if _, _, err := s.Accruals.ReleaseAccruals(ctx, company, through); err != nil {
			return err
		}
	}
	return s.Accruals.Pending(ctx, company, p.End, action)
}

// yearEndRelease is the context key naming the locked period whose
// year-end releases its accrued months.
type yearEndRelease struct{}

// releaseInYearEnd books the accrued months waiting in the locked period
// p as part of its year-end: the ledger and the database (through
// kontera.year_end_release, for this transaction only) let source
// accrual into p while it runs.
func (s *Store) releaseInYearEnd(ctx context.Context, company uuid.UUID, p fiscal.Period) error {
	if s.Accruals == nil {
		return nil
	}
	set := func(v string) error {
		_, err := s.db.Q(ctx).ExecContext(ctx, `SELECT set_config('kontera.year_end_release', $1, true)`, v)
		return err
	}
	if err := set(p.ID.String()); err != nil {
		return err
	}
	_, refused, err := s.Accruals.ReleaseAccruals(context.WithValue(ctx, yearEndRelease{}, p.ID), company, p.End)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return refused[0]
	}
	return set("")
}

// postedAs is the source an entry's period lock is judged by: an accrued
// month the year-end of p releases counts as the year-end's own.
func postedAs(ctx context.Context, p fiscal.Period, source string) string {
	if id, ok := ctx.Value(yearEndRelease{}).(uuid.UUID); ok && source == SourceAccrual && id == p.ID {
		return SourceYearEnd
	}
	return source
}
