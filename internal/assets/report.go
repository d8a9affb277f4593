package assets

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// Planned is a month of an asset's schedule: what it depreciates, and
// the verifikat that booked it, if one has.
type Planned struct {
	Month
	Entry *uuid.UUID
}

// Schedule answers an asset and its months: planned, and which are booked.
func (r *Register) Schedule(ctx context.Context, company, id uuid.UUID) (Asset, []Planned, error) {
	a, err := r.store.Get(ctx, company, id, false)
	if err != nil {
		return a, nil, err
	}
	bookings, err := r.store.Bookings(ctx, company, id)
	if err != nil {
		return a, nil, err
	}
	by := map[time.Time]uuid.UUID{}
	for _, b := range bookings {
		by[b.Month.UTC()] = b.EntryID
	}
	var out []Planned
	for _, m := range a.Schedule() {
		if a.DisposedOn != nil && !m.Month.Before(monthOf(*a.DisposedOn)) {
			break
		}
		p := Planned{Month: m}
		if e, ok := by[m.Month]; ok {
			p.Entry = &e
		}
		out = append(out, p)
	}
	return a, out, nil
}

// Held is an asset as the register stands at a day.
type Held struct {
	Asset       Asset
	Accumulated money.Amount // depreciation booked for months ended by the day
}

// BookValue is the asset's cost less its depreciation.
func (h Held) BookValue() money.Amount { return h.Asset.AcquisitionValue.Sub(h.Accumulated) }

// AccountCheck is an account of the register beside the ledger: what the
// register says it holds (an asset account its costs, a depreciation
// account its accumulated depreciation as a credit) and its balance.
type AccountCheck struct {
	Account    string
	Register   money.Amount
	Ledger     money.Amount
	Difference money.Amount
}

// RegisterAt answers the assets held at the end of day (acquired by it,
// not disposed of by it), each with the depreciation booked for the
// months ended by then, and each account beside its balance.
func (r *Register) RegisterAt(ctx context.Context, company uuid.UUID, day time.Time) ([]Held, []AccountCheck, error) {
	all, err := r.store.List(ctx, company, "")
	if err != nil {
		return nil, nil, err
	}
	bookings, err := r.store.AllBookings(ctx, company)
	if err != nil {
		return nil, nil, err
	}
	sums := map[string]money.Amount{}
	var held []Held
	for _, a := range all {
		if a.AcquisitionDate.After(day) || (a.DisposedOn != nil && !a.DisposedOn.After(day)) {
			continue
		}
		h := Held{Asset: a}
		for _, b := range bookings[a.ID] {
			if !b.Month.AddDate(0, 1, -1).After(day) {
				h.Accumulated = h.Accumulated.Add(b.Amount)
			}
		}
		held = append(held, h)
		sums[a.AssetAccount] = sums[a.AssetAccount].Add(a.AcquisitionValue)
		if a.AccumulatedAccount != nil {
			sums[*a.AccumulatedAccount] = sums[*a.AccumulatedAccount].Sub(h.Accumulated)
		}
	}
	accounts := make([]string, 0, len(sums))
	for n := range sums {
		accounts = append(accounts, n)
	}
	sort.Strings(accounts)
	balances, err := r.books.Balances(ctx, company, accounts, day)
	if err != nil {
		return nil, nil, err
	}
	checks := make([]AccountCheck, len(accounts))
	for i, n := range accounts {
		checks[i] = AccountCheck{Account: n, Register: sums[n], Ledger: balances[n], Difference: balances[n].Sub(sums[n])}
	}
	return held, checks, nil
}

// Pending is an asset with months not yet depreciated.
type Pending struct {
	AssetID uuid.UUID `json:"asset_id"`
	Name    string    `json:"name"`
	Months  []string  `json:"months"` // YYYY-MM
}

// Pending answers the assets with months through the month of day not
// yet depreciated: what a year's end waits for.
func (r *Register) Pending(ctx context.Context, company uuid.UUID, day time.Time) ([]Pending, error) {
	all, err := r.store.List(ctx, company, Active)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	booked, err := r.store.Booked(ctx, company)
	if err != nil {
		return nil, err
	}
	var out []Pending
	for _, a := range all {
		due := a.Due(booked[a.ID], monthOf(day))
		if len(due) == 0 {
			continue
		}
		p := Pending{AssetID: a.ID, Name: a.Name, Months: make([]string, len(due))}
		for i, m := range due {
			p.Months[i] = m.Month.Format("2006-01")
		}
		out = append(out, p)
	}
	return out, nil
}
