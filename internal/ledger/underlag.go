package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/fiscal"
)

// Underlag is what attaching underlag to an entry is checked against: the
// entry, its period and the company's lock date.
type Underlag struct {
	Entry         Entry
	Period        fiscal.Period
	LockedThrough *time.Time
}

// ForUnderlag reads entry id, locked for the rest of the unit of work (it
// is not posted or cancelled meanwhile), with its period and the
// company's lock date; JOURNAL_ENTRY_NOT_FOUND when the company has no
// such entry.
func (s *Store) ForUnderlag(ctx context.Context, company, id uuid.UUID) (Underlag, error) {
	e, err := s.get(ctx, company, id, true)
	if err != nil {
		return Underlag{}, err
	}
	b, err := s.readBooks(ctx, company, e.PeriodID, nil, nil)
	if err != nil {
		return Underlag{}, err
	}
	return Underlag{Entry: e, Period: b.period, LockedThrough: b.company.LockedThrough}, nil
}
