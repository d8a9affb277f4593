package assets

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// The register's events.
const (
	EventCreated     = "asset.created"
	EventDepreciated = "asset.depreciated"
	EventDisposed    = "asset.disposed"
)

// Books are what the register needs of the other domains, in the
// request's unit of work.
type Books struct {
	// EnsureAccounts adds to the chart those of numbers BAS has and it
	// lacks (ACCOUNTS_NOT_IN_CHART for others).
	EnsureAccounts  func(ctx context.Context, company uuid.UUID, numbers []string) error
	CheckDimensions func(ctx context.Context, company uuid.UUID, day time.Time, tags []ledger.Dimensions) error
	Post            func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	// VATRegistered says whether a sale of an asset carries VAT.
	VATRegistered func(ctx context.Context, company uuid.UUID) (bool, error)
	// Entry refuses a verifikat the company lacks (404
	// JOURNAL_ENTRY_NOT_FOUND); SupplierInvoice a supplier invoice (404
	// SUPPLIER_INVOICE_NOT_FOUND): what an asset was acquired by.
	Entry           func(ctx context.Context, company, id uuid.UUID) error
	SupplierInvoice func(ctx context.Context, company, id uuid.UUID) error
	// Balances are accounts' balances at the end of a day (ledger.Store.BalancesAt).
	Balances func(ctx context.Context, company uuid.UUID, accounts []string, day time.Time) (map[string]money.Amount, error)
}

// Register keeps a company's fixed assets: the rules, the store, the
// audit trail, in the request's unit of work.
type Register struct {
	store *Store
	books Books
	audit *audit.Store
	now   func() time.Time
}

// NewRegister returns the register.
func NewRegister(s *Store, b Books, a *audit.Store, now func() time.Time) *Register {
	return &Register{store: s, books: b, audit: a, now: now}
}

func (r *Register) accounts(ctx context.Context, a Asset) error {
	numbers := []string{a.AssetAccount}
	if a.Method == Linear {
		numbers = append(numbers, *a.AccumulatedAccount, *a.CostAccount)
	}
	return r.books.EnsureAccounts(ctx, a.CompanyID, numbers)
}

// Create adds an asset to the register.
func (r *Register) Create(ctx context.Context, company uuid.UUID, in Input) (Asset, error) {
	a, err := New(company, in)
	if err != nil {
		return a, err
	}
	if a.JournalEntryID != nil {
		if err := r.books.Entry(ctx, company, *a.JournalEntryID); err != nil {
			return a, err
		}
	}
	if a.SupplierInvoiceID != nil {
		if err := r.books.SupplierInvoice(ctx, company, *a.SupplierInvoiceID); err != nil {
			return a, err
		}
	}
	if err := r.accounts(ctx, a); err != nil {
		return a, err
	}
	if err := r.books.CheckDimensions(ctx, company, a.AcquisitionDate, []ledger.Dimensions{a.Dimensions}); err != nil {
		return a, err
	}
	if a, err = r.store.Insert(ctx, a); err != nil {
		return a, err
	}
	if _, err := outbox.Emit(ctx, r.store.db, company, EventCreated, map[string]any{"asset": view(a)}); err != nil {
		return a, err
	}
	return a, r.record(ctx, audit.Insert, a, "Anläggningstillgången "+a.Name+" ("+a.AcquisitionValue.String()+
		" kr) lades till i anläggningsregistret", nil, &a)
}

// Change is what a PATCH asks; nil leaves a field as it is.
type Change struct {
	Name              *string
	AcquisitionDate   *time.Time
	AcquisitionValue  *money.Amount
	LifeMonths        *int
	ResidualValue     *money.Amount
	DepreciationStart *time.Time
	Dimensions        ledger.Dimensions
}

// Update changes an asset: its name and tags always, what its
// depreciation is reckoned from only while none is booked.
func (r *Register) Update(ctx context.Context, company, id uuid.UUID, ch Change) (Asset, error) {
	old, err := r.store.Get(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if old.Status == Disposed {
		return old, apierr.New(apierr.AssetDisposed, map[string]any{"asset_id": id, "disposal_entry_id": old.DisposalEntryID})
	}
	a := old
	if ch.Name != nil {
		a.Name = *ch.Name
	}
	if ch.Dimensions != nil {
		a.Dimensions = ch.Dimensions
	}
	reckoning := ch.AcquisitionDate != nil || ch.AcquisitionValue != nil || ch.LifeMonths != nil ||
		ch.ResidualValue != nil || ch.DepreciationStart != nil
	if reckoning && old.Booked.Sign() != 0 {
		return old, apierr.New(apierr.AssetDepreciationBooked, map[string]any{"asset_id": id, "booked": old.Booked})
	}
	if ch.AcquisitionDate != nil {
		a.AcquisitionDate = *ch.AcquisitionDate
	}
	if ch.AcquisitionValue != nil {
		a.AcquisitionValue = *ch.AcquisitionValue
	}
	if ch.LifeMonths != nil {
		if a.Method != Linear {
			return old, apierr.Field("useful_life_months", "method_none", "an asset not depreciated has no useful life")
		}
		a.LifeMonths = ch.LifeMonths
	}
	if ch.ResidualValue != nil {
		a.ResidualValue = *ch.ResidualValue
	}
	if ch.DepreciationStart != nil {
		a.DepreciationStart = monthOf(*ch.DepreciationStart)
	}
	if err := a.check(); err != nil {
		return old, err
	}
	if a, err = r.store.Update(ctx, a); err != nil {
		return a, err
	}
	return a, r.record(ctx, audit.Update, a, "Anläggningstillgången "+a.Name+" ändrades", &old, &a)
}

// Delete removes an asset registered by mistake: none of it booked.
func (r *Register) Delete(ctx context.Context, company, id uuid.UUID) (Asset, error) {
	a, err := r.store.Get(ctx, company, id, true)
	if err != nil {
		return a, err
	}
	switch {
	case a.Status == Disposed:
		return a, apierr.New(apierr.AssetDisposed, map[string]any{"asset_id": id, "disposal_entry_id": a.DisposalEntryID})
	case a.Booked.Sign() != 0:
		return a, apierr.New(apierr.AssetDepreciationBooked, map[string]any{"asset_id": id, "booked": a.Booked})
	}
	if err := r.store.Delete(ctx, a); err != nil {
		return a, err
	}
	return a, r.record(ctx, audit.Delete, a, "Anläggningstillgången "+a.Name+" togs bort ur registret", &a, nil)
}

// MonthBooked is one month's verifikat of a depreciation run.
type MonthBooked struct {
	Month  time.Time
	Entry  ledger.Entry
	Amount money.Amount
	Assets int
}

// Depreciate books every month not yet depreciated through month through
// (its first day), a verifikat per month for the company dated the
// month's last day, earliest first.
func (r *Register) Depreciate(ctx context.Context, company uuid.UUID, through time.Time) ([]MonthBooked, error) {
	through = monthOf(through)
	if last := monthOf(ledger.Today(r.now())); through.After(last) {
		return nil, apierr.Field("through_month", "not_after_this_month", "a month is depreciated once it has begun: "+
			"through_month is at most "+last.Format("2006-01"))
	}
	byMonth, err := r.due(ctx, company, through)
	if err != nil {
		return nil, err
	}
	months := make([]time.Time, 0, len(byMonth))
	for m := range byMonth {
		months = append(months, m)
	}
	sort.Slice(months, func(i, j int) bool { return months[i].Before(months[j]) })
	out := make([]MonthBooked, 0, len(months))
	for _, m := range months {
		rows := byMonth[m]
		lines := DepreciationLines(rows)
		var sum money.Amount
		for _, row := range rows {
			sum = sum.Add(row.Amount)
		}
		day := m.AddDate(0, 1, -1)
		e, err := r.books.Post(ctx, company, ledger.Input{Date: day, Description: "Avskrivningar " + m.Format("2006-01"),
			SourceType: SourceDepreciation, Lines: lines})
		if err != nil {
			return out, noPeriod(err, day, "through_month")
		}
		if err := r.store.InsertDepreciation(ctx, company, rows, e.ID); err != nil {
			return out, err
		}
		out = append(out, MonthBooked{Month: m, Entry: e, Amount: sum, Assets: len(rows)})
	}
	if len(out) > 0 {
		run := runView(through, out)
		if _, err := outbox.Emit(ctx, r.store.db, company, EventDepreciated, map[string]any{"through_month": run.ThroughMonth,
			"months": run.Months, "total": run.Total}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// due are the asset-months through month through not yet booked, by month.
func (r *Register) due(ctx context.Context, company uuid.UUID, through time.Time) (map[time.Time][]Row, error) {
	assets, err := r.store.List(ctx, company, Active)
	if err != nil {
		return nil, err
	}
	booked, err := r.store.Booked(ctx, company)
	if err != nil {
		return nil, err
	}
	byMonth := map[time.Time][]Row{}
	for _, a := range assets {
		for _, m := range a.Due(booked[a.ID], through) {
			byMonth[m.Month] = append(byMonth[m.Month], Row{Asset: a.ID, Month: m.Month, Amount: m.Amount, Cost: *a.CostAccount,
				Accumulated: *a.AccumulatedAccount, Dimensions: a.Dimensions})
		}
	}
	return byMonth, nil
}

// Due counts the asset-months through month through not yet booked: what
// decides whether a request books them itself or queues an operation.
func (r *Register) Due(ctx context.Context, company uuid.UUID, through time.Time) (int, error) {
	byMonth, err := r.due(ctx, company, monthOf(through))
	n := 0
	for _, rows := range byMonth {
		n += len(rows)
	}
	return n, err
}

// DisposeInput is a disposal as asked; a nil VAT is 25 % of the price for
// a VAT-registered company.
type DisposeInput struct {
	Date       time.Time
	Price      money.Amount
	VAT        *money.Amount
	Settlement string
}

// Dispose sells or scraps an asset: every month before the disposal's
// depreciated first (409 ASSET_DEPRECIATION_BEHIND), the avyttring
// verifikat posted dated its day.
func (r *Register) Dispose(ctx context.Context, company, id uuid.UUID, in DisposeInput) (Asset, ledger.Entry, error) {
	a, err := r.store.Get(ctx, company, id, true)
	if err != nil {
		return a, ledger.Entry{}, err
	}
	if a.Status == Disposed {
		return a, ledger.Entry{}, apierr.New(apierr.AssetDisposed, map[string]any{"asset_id": id,
			"disposal_entry_id": a.DisposalEntryID})
	}
	if in.Date.Before(a.AcquisitionDate) {
		return a, ledger.Entry{}, apierr.Field("disposal_date", "after_acquisition", "an asset is disposed of after it was acquired")
	}
	booked, err := r.store.Booked(ctx, company)
	if err != nil {
		return a, ledger.Entry{}, err
	}
	before := monthOf(in.Date).AddDate(0, -1, 0)
	if due := a.Due(booked[a.ID], before); len(due) > 0 {
		months := make([]string, len(due))
		for i, m := range due {
			months[i] = m.Month.Format("2006-01")
		}
		return a, ledger.Entry{}, apierr.New(apierr.AssetDepreciationBehind, map[string]any{"asset_id": id,
			"through": before.Format("2006-01"), "months": months})
	}
	d := Disposal{Date: in.Date, Price: in.Price, Settlement: in.Settlement}
	if in.VAT != nil {
		d.VAT = *in.VAT
	} else if registered, err := r.books.VATRegistered(ctx, company); err != nil {
		return a, ledger.Entry{}, err
	} else if registered {
		d.VAT = money.Öre((in.Price.InÖre()*25 + 50) / 100)
	}
	lines := a.DisposalLines(d)
	numbers := make([]string, len(lines))
	for i, l := range lines {
		numbers[i] = l.Account
	}
	if err := r.books.EnsureAccounts(ctx, company, numbers); err != nil {
		return a, ledger.Entry{}, err
	}
	kind := "Försäljning"
	if d.Price.IsZero() {
		kind = "Utrangering"
	}
	e, err := r.books.Post(ctx, company, ledger.Input{Date: d.Date, Description: kind + " av " + a.Name,
		SourceType: SourceDisposal, Lines: lines})
	if err != nil {
		return a, e, noPeriod(err, d.Date, "disposal_date")
	}
	old := a
	if a, err = r.store.Dispose(ctx, a, d, e.ID); err != nil {
		return a, e, err
	}
	if _, err := outbox.Emit(ctx, r.store.db, company, EventDisposed, map[string]any{"asset": view(a),
		"journal_entry_id": e.ID, "result": d.Price.Sub(a.AcquisitionValue.Sub(a.Booked))}); err != nil {
		return a, e, err
	}
	return a, e, r.record(ctx, audit.Update, a, kind+" av anläggningstillgången "+a.Name+" för "+d.Price.String()+" kr", &old, &a)
}

// Reversed follows a storno of a verifikat the register posted.
func (r *Register) Reversed(ctx context.Context, company uuid.UUID, orig, storno ledger.Entry) error {
	if orig.SourceType != SourceDepreciation && orig.SourceType != SourceDisposal {
		return nil
	}
	return r.store.Reversed(ctx, company, orig.ID, storno.ID)
}

// Replaced refuses a rättelse of a verifikat the register posted: what it
// booked is each asset's, month by month; storno it and book again.
func (r *Register) Replaced(ctx context.Context, company uuid.UUID, orig, _ ledger.Entry) error {
	owns, err := r.store.Owns(ctx, company, orig.ID)
	if err != nil || !owns {
		return err
	}
	return apierr.New(apierr.Conflict, map[string]any{"journal_entry_id": orig.ID, "reason": "asset_verifikat",
		"hint": "a depreciation or disposal verifikat is stornoed, not corrected: storno it and run the depreciation or disposal again"})
}

// noPeriod maps the ledger's want of a fiscal period to the catalogue's,
// naming field.
func noPeriod(err error, day time.Time, field string) error {
	if apierr.Is(err, apierr.PeriodNotFound) {
		return apierr.New(apierr.NoOpenPeriodForDate, map[string]any{"date": day.Format(time.DateOnly), "field": field})
	}
	return err
}

func (r *Register) record(ctx context.Context, action audit.Action, a Asset, desc string, old, new *Asset) error {
	return r.audit.Record(ctx, audit.Change{CompanyID: a.CompanyID, Action: action, Table: "assets",
		RecordID: a.ID.String(), Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}
