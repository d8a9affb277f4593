// Package synth makes a bank account's rows and verifikat with a known
// truth, for the matching engine's precision test and the bench: of what
// it draws 90 % are pairs (exact, or the verifikat up to five days
// before), 3 % card rows settled as one verifikat, 3 % one payment of
// several invoices, and 2 % noise on either side.
package synth

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/reconciliation"
)

// Start is the first day the data is dated; everything falls within
// 2026.
var Start = time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)

// Account is the rows and verifikat of one account, and the truth: each
// row's verifikat.
type Account struct {
	Rows  []reconciliation.Row
	Items []reconciliation.Item
	Truth map[uuid.UUID][]uuid.UUID
}

// Generate makes at least n rows' worth of data from seed.
func Generate(n int, seed uint64) Account {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := Account{Truth: map[uuid.UUID][]uuid.UUID{}}
	next := 0
	newID := func() uuid.UUID {
		next++
		u := uuid.UUID{}
		u[0], u[1], u[6], u[8] = byte(seed>>8), byte(seed), 0x70, 0x80
		for i := 0; i < 6; i++ {
			u[15-i] = byte(next >> (8 * i))
		}
		return u
	}
	on := func(d int) time.Time { return Start.AddDate(0, 0, d) }
	amount := func() int64 {
		a := rng.Int64N(2_000_000) + 100
		if rng.IntN(3) != 0 {
			a = -a
		}
		return a
	}
	for len(s.Rows) < n {
		d := 7 + rng.IntN(330)
		switch k := rng.IntN(100); {
		case k < 2: // noise on the bank side
			s.Rows = append(s.Rows, reconciliation.Row{ID: newID(), Date: on(d), Amount: money.Öre(amount())})
		case k < 4: // noise in the books
			s.Items = append(s.Items, reconciliation.Item{EntryID: newID(), Date: on(d), Amount: money.Öre(amount())})
		case k < 94: // exact, or the verifikat up to five days before
			a, r, e := amount(), newID(), newID()
			shift := 0
			if k >= 60 {
				shift = rng.IntN(6)
			}
			s.Rows = append(s.Rows, reconciliation.Row{ID: r, Date: on(d), Amount: money.Öre(a)})
			s.Items = append(s.Items, reconciliation.Item{EntryID: e, Date: on(d - shift), Amount: money.Öre(a)})
			s.Truth[r] = []uuid.UUID{e}
		case k < 97: // card rows settled as one verifikat
			e, total := newID(), int64(0)
			for range 2 + rng.IntN(3) {
				a := -(rng.Int64N(300_000) + 100)
				r := newID()
				total += a
				s.Rows = append(s.Rows, reconciliation.Row{ID: r, Date: on(d + rng.IntN(3)), Amount: money.Öre(a)})
				s.Truth[r] = []uuid.UUID{e}
			}
			s.Items = append(s.Items, reconciliation.Item{EntryID: e, Date: on(d), Amount: money.Öre(total)})
		default: // one payment of several supplier invoices
			r, total := newID(), int64(0)
			for range 2 + rng.IntN(2) {
				a := -(rng.Int64N(1_000_000) + 100)
				e := newID()
				total += a
				s.Items = append(s.Items, reconciliation.Item{EntryID: e, Date: on(d - rng.IntN(2)), Amount: money.Öre(a)})
				s.Truth[r] = append(s.Truth[r], e)
			}
			s.Rows = append(s.Rows, reconciliation.Row{ID: r, Date: on(d), Amount: money.Öre(total)})
		}
	}
	return s
}

// Right says whether linking rows to entries is what the truth says: every
// row's verifikat are exactly entries (a row paying several) or include
// the one entry (rows paid as one).
func (s Account) Right(rows, entries []uuid.UUID) bool {
	for _, r := range rows {
		want := s.Truth[r]
		if len(want) == 0 {
			return false
		}
		for _, e := range entries {
			if !slices.Contains(want, e) {
				return false
			}
		}
		if len(rows) == 1 && len(want) != len(entries) {
			return false
		}
	}
	return true
}

// Score is precision of the sets given (rows, verifikat) and recall over
// every row with a truth.
func (s Account) Score(sets [][2][]uuid.UUID) (precision, recall float64) {
	right, rowsRight := 0, 0
	for _, set := range sets {
		if s.Right(set[0], set[1]) {
			right++
			rowsRight += len(set[0])
		}
	}
	if len(sets) > 0 {
		precision = float64(right) / float64(len(sets))
	}
	return precision, float64(rowsRight) / float64(len(s.Truth))
}
