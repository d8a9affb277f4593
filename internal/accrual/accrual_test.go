package accrual

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

type dated string

func (d dated) ReleaseDay() time.Time { return day(string(d)) }

// Months due through a day, grouped by release day in the order met: the
// months already past on the invoice date share one verifikat.
func TestDueByDay(t *testing.T) {
	months := []dated{"2026-12-10", "2026-12-10", "2026-12-31", "2027-01-31"}
	if got := fmt.Sprint(ByDay(Due(months, day("2026-12-31")))); got != "[[2026-12-10 2026-12-10] [2026-12-31]]" {
		t.Fatal(got)
	}
	if got := Due(months, day("2026-12-09")); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestState(t *testing.T) {
	entry := uuid.New()
	today := day("2027-01-20")
	for want, m := range map[string]Month{
		StateReleased:  {ReleaseDate: day("2026-12-31"), EntryID: &entry},
		StateCancelled: {ReleaseDate: day("2027-03-31"), Cancelled: true},
		StateScheduled: {ReleaseDate: day("2027-01-31")},
		StateDue:       {ReleaseDate: today},
	} {
		if got := m.State(today); got != want {
			t.Errorf("%+v: %s, want %s", m, got, want)
		}
	}
}

// side answers its months as given, as a register's query would: those
// after the filter's position, at most its limit.
type side []Month

func (s side) Waiting(context.Context, uuid.UUID, time.Time) ([]Waiting, error) { return nil, nil }
func (s side) ReleaseAccruals(context.Context, uuid.UUID, time.Time) (int, []error, error) {
	return 0, nil, nil
}
func (s side) ListAccruals(_ context.Context, _ uuid.UUID, f Filter) ([]Month, error) {
	var out []Month
	for _, m := range s {
		if (f.After == nil || compare(PositionOf(m), *f.After) > 0) && len(out) < f.Limit {
			out = append(out, m)
		}
	}
	return out, nil
}

// Both registers' pages merge in release-day, kind, item, month order,
// and a page ends where the next begins.
func TestListMerges(t *testing.T) {
	item := uuid.MustParse("00000000-0000-0000-0000-000000000001")
	m := func(kind, d, month string) Month {
		return Month{Kind: kind, ItemID: item, ReleaseDate: day(d), Month: day(month + "-01"), Amount: money.Öre(100)}
	}
	book := Book{
		side{m(Invoice, "2026-12-10", "2026-07"), m(Invoice, "2026-12-31", "2026-12")},
		side{m(SupplierInvoice, "2026-12-10", "2026-06"), m(SupplierInvoice, "2026-12-10", "2026-07"),
			m(SupplierInvoice, "2027-01-31", "2027-01")},
	}
	var got []string
	f := Filter{Limit: 2}
	for {
		page, err := book.ListAccruals(context.Background(), uuid.Nil, f)
		if err != nil || len(page) == 0 {
			break
		}
		for _, x := range page {
			got = append(got, x.Kind[:1]+x.Month.Format("01"))
		}
		last := PositionOf(page[len(page)-1])
		f.After = &last
	}
	if fmt.Sprint(got) != "[i07 s06 s07 i12 s01]" {
		t.Fatal(got)
	}
}
