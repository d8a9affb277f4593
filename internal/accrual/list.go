package accrual

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// The states of a month.
const (
	// StateScheduled: its release day is still to come.
	StateScheduled = "scheduled"
	// StateDue: its release day has come and it is not booked yet; it
	// blocks the lock, year-end and close of its year.
	StateDue = "due"
	// StateReleased: booked, by the verifikat named.
	StateReleased = "released"
	// StateCancelled: taken back before its day (a credit, or a
	// registration reversed).
	StateCancelled = "cancelled"
	// StateRefused: due, and the ledger refused to book it (a locked or
	// closed period, the lock date); it blocks as a due month does.
	StateRefused = "refused"
)

// Month is one month of an accrued line, as the list shows it.
type Month struct {
	Kind          string
	InvoiceID     uuid.UUID
	InvoiceNumber string
	ItemID        uuid.UUID
	Month         time.Time // its first day
	ReleaseDate   time.Time
	Amount        money.Amount
	// BalanceAccount is the 29xx or 17xx account it waits on, Account
	// the revenue or cost account it is moved to.
	BalanceAccount, Account string
	EntryID                 *uuid.UUID
	Cancelled               bool
	// RefusedCode and RefusedAt are the ledger's first refusal of its
	// release, if any.
	RefusedCode *string
	RefusedAt   *time.Time
}

// State is the month's state on day today.
func (m Month) State(today time.Time) string {
	switch {
	case m.EntryID != nil:
		return StateReleased
	case m.Cancelled:
		return StateCancelled
	case m.RefusedAt != nil:
		return StateRefused
	case m.ReleaseDate.After(today):
		return StateScheduled
	}
	return StateDue
}

// Position is where a page of months ends. The list runs in release day,
// then kind, item and month order.
type Position struct {
	Day   time.Time `json:"d"`
	Kind  string    `json:"k"`
	Item  uuid.UUID `json:"i"`
	Month time.Time `json:"m"`
}

// PositionOf is the position of m.
func PositionOf(m Month) Position {
	return Position{Day: m.ReleaseDate, Kind: m.Kind, Item: m.ItemID, Month: m.Month}
}

func compare(a, b Position) int {
	return cmp.Or(a.Day.Compare(b.Day), cmp.Compare(a.Kind, b.Kind), slices.Compare(a.Item[:], b.Item[:]),
		a.Month.Compare(b.Month))
}

// Filter is what a list of months asks: a state ("" for all), a kind
// ("" for both), the page after a position, at most Limit months; Today
// tells scheduled from due.
type Filter struct {
	State, Kind string
	After       *Position
	Limit       int
	Today       time.Time
}

// ListAccruals lists the months of every register, in list order: each
// asked for Limit of its own, the pages merged and cut to Limit.
func (b Book) ListAccruals(ctx context.Context, company uuid.UUID, f Filter) ([]Month, error) {
	var out []Month
	for _, s := range b {
		m, err := s.ListAccruals(ctx, company, f)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	slices.SortFunc(out, func(a, b Month) int { return compare(PositionOf(a), PositionOf(b)) })
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// Args are the parameters $2… of a register's list query, after the
// company: the state ("" for all), today, the position's day, kind, item
// and month (nulls on the first page) and the limit. The query reads
// them as ListWhere and ListOrder say.
func (f Filter) Args() []any {
	var day, month *time.Time
	var kind *string
	var item *uuid.UUID
	if f.After != nil {
		day, kind, item, month = &f.After.Day, &f.After.Kind, &f.After.Item, &f.After.Month
	}
	return []any{f.State, f.Today, day, kind, item, month, f.Limit}
}

// ListWhere is the condition of a register's list query on f.Args(),
// given its SQL for the month's state and its kind.
func ListWhere(state, kind string) string {
	return `($2 = '' OR ` + state + ` = $2)
		AND ($4::date IS NULL OR (a.release_date, ` + kind + `, a.item_id, a.month) > ($4::date, $5::text, $6::uuid, $7::date))`
}

// ListOrder ends a register's list query: list order, at most the limit.
const ListOrder = ` ORDER BY a.release_date, a.item_id, a.month LIMIT $8`

// StateSQL is the SQL of a month's state on today ($3), as Month.State
// tells it, given the register's conditions for released and cancelled.
func StateSQL(released, cancelled string) string {
	return `CASE WHEN ` + released + ` THEN '` + StateReleased + `' WHEN ` + cancelled + ` THEN '` + StateCancelled +
		`' WHEN a.refused_at IS NOT NULL THEN '` + StateRefused +
		`' WHEN a.release_date > $3::date THEN '` + StateScheduled + `' ELSE '` + StateDue + `' END`
}
