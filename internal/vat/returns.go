package vat

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Declarant is what the returns need of the company.
type Declarant struct {
	Name             string     `db:"name"`
	EntityType       string     `db:"entity_type"`
	OrgNumber        *string    `db:"org_number"`
	VATNumber        *string    `db:"vat_number"`
	MomsPeriod       *string    `db:"moms_period"`
	AccountingMethod string     `db:"accounting_method"`
	LockedThrough    *time.Time `db:"bookkeeping_locked_through"`
	TaxContactName   *string    `db:"tax_contact_name"`
	TaxContactPhone  *string    `db:"tax_contact_phone"`
	TaxContactEmail  *string    `db:"tax_contact_email"`
}

// SoleTrader reports whether the company is an enskild firma.
func (d Declarant) SoleTrader() bool { return d.EntityType == "enskild_firma" }

// Returns computes VAT returns from the books and keeps their filings.
type Returns struct {
	db        *store.DB
	ledger    *ledger.Store
	chart     *chart.Store
	periods   *fiscal.Store
	filings   *Store
	declarant func(ctx context.Context, company uuid.UUID) (Declarant, error)
	now       func() time.Time
	// Sales are the EU sales the list reports, read from the invoices.
	Sales EUSales
}

// NewReturns returns the VAT returns over the books.
func NewReturns(db *store.DB, l *ledger.Store, c *chart.Store, p *fiscal.Store, f *Store,
	declarant func(context.Context, uuid.UUID) (Declarant, error), now func() time.Time) *Returns {
	return &Returns{db: db, ledger: l, chart: c, periods: p, filings: f, declarant: declarant, now: now}
}

// Query names a VAT period as the API does.
type Query struct {
	Type         string
	Year, Number int
	// FiscalPeriodID, when set, must hold the period's last day; for a
	// yearly period it is the fiscal year.
	FiscalPeriodID *uuid.UUID
}

// Declaration is a period's return with what the API shows beside it.
type Declaration struct {
	Period    Period
	Declarant Declarant
	Return    Return
	Names     map[string]string
	Filing    *Filing
	// Changed is true when the return as filed differs from the books now.
	Changed bool
}

// Resolve finds the period q names.
func (r *Returns) Resolve(ctx context.Context, company uuid.UUID, q Query) (Period, error) {
	list, err := r.periods.List(ctx, company)
	if err != nil {
		return Period{}, err
	}
	years := make([]Year, 0, len(list))
	var chosen *fiscal.Period
	for i, p := range list {
		if q.FiscalPeriodID != nil && p.ID == *q.FiscalPeriodID {
			chosen = &list[i]
		}
		if q.FiscalPeriodID == nil || q.Type != Yearly {
			years = append(years, Year{Start: p.Start, End: p.End})
		}
	}
	if q.FiscalPeriodID != nil && chosen == nil {
		return Period{}, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": *q.FiscalPeriodID,
			"field": "fiscal_period_id"})
	}
	if chosen != nil && q.Type == Yearly {
		years = []Year{{Start: chosen.Start, End: chosen.End}}
	}
	p, err := Resolve(q.Type, q.Year, q.Number, years)
	if err != nil {
		return p, err
	}
	if chosen != nil && (p.End.Before(chosen.Start) || p.End.After(chosen.End)) {
		return p, apierr.Validation(apierr.Issue{Field: "fiscal_period_id", In: "query", Rule: "covers",
			Issue: "the fiscal period must hold the VAT period's last day"})
	}
	return p, nil
}

// Declare computes the return of the period q names.
func (r *Returns) Declare(ctx context.Context, company uuid.UUID, q Query) (Declaration, error) {
	p, err := r.Resolve(ctx, company, q)
	if err != nil {
		return Declaration{}, err
	}
	return r.declare(ctx, company, p)
}

func (r *Returns) declare(ctx context.Context, company uuid.UUID, p Period) (Declaration, error) {
	d, err := r.declarant(ctx, company)
	if err != nil {
		return Declaration{}, err
	}
	all, err := r.declareAll(ctx, company, d, []Period{p})
	if err != nil {
		return Declaration{}, err
	}
	return all[0], nil
}

// returnFrom and returnTo bound the accounts whose turnover a VAT return
// reads: the VAT accounts, sales and purchases.
const returnFrom, returnTo = "2600", "4999"

// declareAll computes declarant's returns of periods (whole months each,
// none overlapping) in one pass: the month balances, the settlements and the
// filings of their whole span are read once, then shared out by month.
func (r *Returns) declareAll(ctx context.Context, company uuid.UUID, declarant Declarant, periods []Period) ([]Declaration, error) {
	// The return reads the turnover of 2600-4999 only (the window below),
	// so the chart beyond it has nothing to say.
	accounts, err := r.chart.List(ctx, company, chart.Filter{Class: -1, Inactive: true, From: returnFrom, To: returnTo})
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(accounts))
	boxOf := make(map[string]string, len(accounts))
	for _, a := range accounts {
		names[a.Number] = a.Name
		if b := BoxOf(Account{Number: a.Number, Box: a.VATBox, Treatment: a.VATTreatment, Rate: a.VATRate}); b != "" {
			boxOf[a.Number] = b
		}
	}
	from, to := periods[0].Start, periods[0].End
	for _, p := range periods {
		if p.Start.Before(from) {
			from = p.Start
		}
		if p.End.After(to) {
			to = p.End
		}
	}
	months, err := r.ledger.Window(ctx, company, from, to, returnFrom, returnTo, false)
	if err != nil {
		return nil, err
	}
	settling, err := r.ledger.Settlements(ctx, company, from, to, VATAccounts(boxOf))
	if err != nil {
		return nil, err
	}
	filings, err := r.filings.Filings(ctx, company)
	if err != nil {
		return nil, err
	}
	out := make([]Declaration, len(periods))
	for i, p := range periods {
		d := Declaration{Period: p, Declarant: declarant, Names: names}
		turnover := map[string]Turnover{}
		for _, m := range months {
			if boxOf[m.Account] == "" || m.Month.Before(p.Start) || m.Month.After(p.End) {
				continue
			}
			t := turnover[m.Account]
			t.Debit, t.Credit = t.Debit.Add(m.Debit), t.Credit.Add(m.Credit)
			turnover[m.Account] = t
		}
		for _, m := range settling {
			if t, ok := turnover[m.Account]; ok && !m.Month.Before(p.Start) && !m.Month.After(p.End) {
				t.Debit, t.Credit = t.Debit.Sub(m.Debit), t.Credit.Sub(m.Credit)
				turnover[m.Account] = t
			}
		}
		d.Return = Declare(turnover, boxOf)
		for j := range filings {
			if filings[j].Start.Equal(p.Start) && filings[j].End.Equal(p.End) {
				d.Filing = &filings[j]
			}
		}
		if d.Filing != nil && d.Filing.Snapshot.Filed != nil {
			for _, b := range Boxes {
				if d.Filing.Snapshot.Filed[b] != d.Return.Filed[b] {
					d.Changed = true
				}
			}
		}
		out[i] = d
	}
	return out, nil
}

// ESKD writes the eSKD file of the period q names, which must be of the
// company's own moms_period.
func (r *Returns) ESKD(ctx context.Context, company uuid.UUID, q Query) ([]byte, Period, error) {
	d, err := r.Declare(ctx, company, q)
	if err != nil {
		return nil, d.Period, err
	}
	if d.Declarant.MomsPeriod == nil || *d.Declarant.MomsPeriod != q.Type {
		mp := any(nil)
		if d.Declarant.MomsPeriod != nil {
			mp = *d.Declarant.MomsPeriod
		}
		return nil, d.Period, apierr.New(apierr.ValidationError, map[string]any{"field": "period_type", "moms_period": mp,
			"issues": []apierr.Issue{{Field: "period_type", In: "query", Rule: "moms_period",
				Issue: "the eSKD file is written for the company's own VAT period (moms_period) only"}}})
	}
	org, err := ESKDOrgNr(d.Declarant.OrgNumber, d.Declarant.SoleTrader())
	if err != nil {
		return nil, d.Period, err
	}
	b, err := ESKD(org, d.Period, d.Return)
	return b, d.Period, err
}

// Filings lists the company's filed VAT periods.
func (r *Returns) Filings(ctx context.Context, company uuid.UUID) ([]Filing, error) {
	return r.filings.Filings(ctx, company)
}

// Filed is the outcome of recording a filing.
type Filed struct {
	Filing           Filing
	Created, Changed bool
	// Unlocked is true when the bookkeeping lock leaves the period open:
	// what was filed can still change in the books.
	Unlocked bool
}

// File records the period q names as filed on filedOn (outside
// Kontera's Skatteverket connection), keeping the return as it stands.
func (r *Returns) File(ctx context.Context, company uuid.UUID, q Query, filedOn time.Time, ref *string) (Filed, error) {
	p, err := r.Resolve(ctx, company, q)
	if err != nil {
		return Filed{}, err
	}
	if err := r.ledger.Held(ctx, company, p.Start, p.End); err != nil {
		return Filed{}, err
	}
	today := ledger.Today(r.now())
	dates := map[string]any{"period_start": p.Start.Format(time.DateOnly), "period_end": p.End.Format(time.DateOnly),
		"filed_on": filedOn.Format(time.DateOnly), "today": today.Format(time.DateOnly)}
	switch {
	case !p.End.Before(today):
		return Filed{}, apierr.New(apierr.VATFilingPeriodNotEnded, dates)
	case !filedOn.After(p.End):
		return Filed{}, apierr.New(apierr.VATFilingDateBeforePeriodEnd, dates)
	case filedOn.After(today):
		return Filed{}, apierr.New(apierr.VATFilingDateInFuture, dates)
	}
	d, err := r.declare(ctx, company, p)
	if err != nil {
		return Filed{}, err
	}
	f, created, changed, err := r.filings.Record(ctx, company, p, filedOn, ref, Snapshot{Filed: d.Return.Filed})
	out := Filed{Filing: f, Created: created, Changed: changed,
		Unlocked: d.Declarant.LockedThrough == nil || d.Declarant.LockedThrough.Before(p.End)}
	return out, err
}

// Unmark removes the hand-made filing mark of the period q names.
func (r *Returns) Unmark(ctx context.Context, company uuid.UUID, q Query) (Filing, error) {
	p, err := r.Resolve(ctx, company, q)
	if err != nil {
		return Filing{}, err
	}
	return r.filings.Unmark(ctx, company, p)
}

// EUList is the EU sales list of a period with the VAT return's boxes it
// must agree with.
type EUList struct {
	Period Period
	List   List
	Filer  Filer
	// Boxes are the return's 35, 38 and 39 as filed.
	Boxes map[string]int64
}

// EUSales lists a company's sales to other EU states under reverse
// charge dated from..to, with each buyer's VAT number.
type EUSales func(ctx context.Context, company uuid.UUID, from, to time.Time) ([]Sale, error)

// EUList compiles the EU sales list of the month or quarter q names.
func (r *Returns) EUList(ctx context.Context, company uuid.UUID, q Query) (EUList, error) {
	if q.Type == Yearly {
		return EUList{}, apierr.Validation(apierr.Issue{Field: "period_type", In: "query", Rule: "enum",
			Issue: "the EU sales list is filed monthly or quarterly"})
	}
	p, err := r.Resolve(ctx, company, q)
	if err != nil {
		return EUList{}, err
	}
	sales, err := r.Sales(ctx, company, p.Start, p.End)
	if err != nil {
		return EUList{}, err
	}
	d, err := r.declare(ctx, company, p)
	if err != nil {
		return EUList{}, err
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	out := EUList{Period: p, List: Compile(sales), Boxes: map[string]int64{"35": d.Return.Filed["35"],
		"38": d.Return.Filed["38"], "39": d.Return.Filed["39"]},
		Filer: Filer{VATNumber: str(d.Declarant.VATNumber), Name: str(d.Declarant.TaxContactName),
			Phone: str(d.Declarant.TaxContactPhone), Email: str(d.Declarant.TaxContactEmail)}}
	return out, nil
}

// Status is a VAT period as the books stand: filed or not, settled or
// not, its net (box 49 to the öre) and the VAT accounts' turnover in it
// (debit minus credit).
type Status struct {
	Period         Period
	Filed, Settled bool
	Net            money.Amount
	Accounts       map[string]money.Amount
}

// Statuses lists the periods of the company's moms_period that end
// from..to, oldest first; none when the company files no VAT returns.
func (r *Returns) Statuses(ctx context.Context, company uuid.UUID, from, to time.Time) ([]Status, error) {
	d, err := r.declarant(ctx, company)
	if err != nil || d.MomsPeriod == nil {
		return nil, err
	}
	var periods []Period
	switch *d.MomsPeriod {
	case Yearly:
		list, err := r.periods.List(ctx, company)
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			if !p.End.Before(from) && !p.End.After(to) {
				periods = append(periods, Period{Type: Yearly, Year: p.End.Year(), Number: 1, Start: p.Start, End: p.End})
			}
		}
		sort.Slice(periods, func(i, j int) bool { return periods[i].End.Before(periods[j].End) })
	default:
		step := 1
		if *d.MomsPeriod == Quarterly {
			step = 3
		}
		for m := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(to); m = m.AddDate(0, 1, 0) {
			end := m.AddDate(0, 1, -1)
			if int(m.Month())%step != 0 || end.Before(from) || end.After(to) {
				continue
			}
			n := int(m.Month())
			if step == 3 {
				n /= 3
			}
			p, err := Resolve(*d.MomsPeriod, m.Year(), n, nil)
			if err != nil {
				return nil, err
			}
			periods = append(periods, p)
		}
	}
	if len(periods) == 0 {
		return nil, nil
	}
	decs, err := r.declareAll(ctx, company, d, periods)
	if err != nil {
		return nil, err
	}
	settled, err := r.ledger.SettledIn(ctx, company, periods[0].End, periods[len(periods)-1].End)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(periods))
	for i, p := range periods {
		dec := decs[i]
		s := Status{Period: p, Filed: dec.Filing != nil, Net: dec.Return.Exact["49"], Accounts: map[string]money.Amount{}}
		for _, e := range settled {
			s.Settled = s.Settled || e.SourceID == p.SourceID() && !e.Reversed
		}
		for box, list := range dec.Return.Accounts {
			for _, a := range list {
				if a.Account[:2] != "26" {
					continue
				}
				amt := a.Amount
				if box != "48" {
					amt = amt.Neg() // output VAT counts credit as positive
				}
				s.Accounts[a.Account] = s.Accounts[a.Account].Add(amt)
			}
		}
		out = append(out, s)
	}
	return out, nil
}
