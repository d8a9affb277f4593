package reports

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The accounts the registers reconcile to.
var (
	receivableAccounts = []span{{"1510", "1510"}, {"1513", "1513"}}
	payableAccounts    = []span{{"2440", "2440"}}
)

func numbers(spans []span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.lo
	}
	return out
}

// asOf is the day a ledger report is asked for: today (UTC) unless
// given, from 2000 to the end of next year.
func (h *Handler) asOf(d *openapi_types.Date) (time.Time, error) {
	today := ledger.Today(h.src.Now())
	if d == nil {
		return today, nil
	}
	if d.Year() < 2000 || d.Year() > today.Year()+1 {
		return d.Time, apierr.Validation(apierr.Issue{Field: "as_of_date", In: "query", Rule: "range",
			Issue: "must lie between 2000-01-01 and the end of next year"})
	}
	return d.Time, nil
}

// balanceOn is the balance (debit minus credit) of the accounts in spans
// at the end of day: the opening balance of the fiscal year holding day
// and what moved since; zero outside every fiscal year.
func (h *Handler) balanceOn(ctx context.Context, company uuid.UUID, day time.Time, spans ...span) (money.Amount, error) {
	out, err := h.balancesAt(ctx, company, nil, day, spans...)
	var sum money.Amount
	for _, a := range out {
		sum = sum.Add(a)
	}
	return sum, err
}

// balancesAt is balancesIn on day, in the fiscal year holding it: per
// when day lies in it (no look-up), else the one found (zero outside
// every year).
func (h *Handler) balancesAt(ctx context.Context, company uuid.UUID, per *gen.ReportPeriod, day time.Time, spans ...span) ([]money.Amount, error) {
	if per != nil && !day.Before(per.Start.Time) && !day.After(per.End.Time) {
		return h.balancesIn(ctx, company, per.Id, per.Start.Time, day, spans...)
	}
	p, err := h.periods.Covering(ctx, company, day)
	if err != nil || p.ID == uuid.Nil {
		return make([]money.Amount, len(spans)), err
	}
	return h.balancesIn(ctx, company, p.ID, p.Start, day, spans...)
}

// balancesIn are the balances (debit minus credit) at the end of day of
// the accounts in each span, day lying in the fiscal year period that
// starts on start: its opening balance and what moved since.
func (h *Handler) balancesIn(ctx context.Context, company, period uuid.UUID, start, day time.Time, spans ...span) ([]money.Amount, error) {
	out := make([]money.Amount, len(spans))
	lo, hi := spans[0].lo, spans[0].hi
	for _, s := range spans {
		lo, hi = min(lo, s.lo), max(hi, s.hi)
	}
	add := func(account string, a money.Amount) {
		for i, s := range spans {
			if account >= s.lo && account <= s.hi {
				out[i] = out[i].Add(a)
			}
		}
	}
	balances, err := h.ledger.BalancesOn(ctx, company, period, start, day, lo, hi)
	for _, b := range balances {
		add(b.Account, b.Amount)
	}
	return out, err
}

type agingParty struct {
	id    uuid.UUID
	name  string
	items []gen.AgingItem
	sum   Aging
}

// age groups the open items by party, in the order they come (by name).
func age(items []Outstanding, day time.Time, status func(Outstanding, time.Time) string) ([]agingParty, Aging) {
	var parties []agingParty
	var total Aging
	for _, o := range items {
		if len(parties) == 0 || parties[len(parties)-1].id != o.PartyID {
			parties = append(parties, agingParty{id: o.PartyID, name: o.PartyName})
		}
		p := &parties[len(parties)-1]
		days := DaysPastDue(o.DueDate, day)
		p.items = append(p.items, gen.AgingItem{InvoiceId: o.ID, InvoiceNumber: envelope.Nullable(o.Number),
			IsCreditNote: o.CreditNote, InvoiceDate: openapi_types.Date{Time: o.InvoiceDate},
			DueDate: openapi_types.Date{Time: o.DueDate}, Currency: o.Currency, TotalAmount: o.Total, PaidAmount: o.Paid,
			RemainingAmount: o.Open, RemainingDeduction: o.OpenDeduction, RemainingAmountSek: o.OpenSEK,
			DaysOverdue: days, Bucket: gen.AgingItemBucket(Bucket(days)), Status: gen.AgingItemStatus(status(o, day))})
		p.sum.Add(o.DueDate, day, o.OpenSEK)
		total.Add(o.DueDate, day, o.OpenSEK)
	}
	return parties, total
}

func agingTotals(a Aging) gen.AgingTotals {
	return gen.AgingTotals{NotDue: a.NotDue, Days030: a.Days0To30, Days3160: a.Days31To60, Days6190: a.Days61To90,
		Days90Plus: a.Over90, Total: a.Total, InvoiceCount: a.Count}
}

// reconcile compares the register's total with the ledger accounts on
// day; nil under kontantmetoden. credit says the accounts hold a credit
// balance (payables).
func (h *Handler) reconcile(ctx context.Context, company uuid.UUID, c Company, day time.Time, accounts []span, register money.Amount, credit bool) (nullable.Nullable[gen.LedgerReconciliation], error) {
	if c.AccountingMethod == "cash" {
		return nullable.NewNullNullable[gen.LedgerReconciliation](), nil
	}
	bal, err := h.balanceOn(ctx, company, day, accounts...)
	if credit {
		bal = bal.Neg()
	}
	return nullable.NewNullableWithValue(gen.LedgerReconciliation{Accounts: numbers(accounts), LedgerBalance: bal,
		RegisterTotal: register, Difference: bal.Sub(register)}), err
}

// aged is a register on a day: its open items by party, their totals,
// and the register against its ledger accounts.
type aged struct {
	day     time.Time
	parties []agingParty
	total   Aging
	rec     nullable.Nullable[gen.LedgerReconciliation]
}

// ageRegister reads the register open lists as of the day asked, aged
// with status and reconciled to accounts (credit: a register of debts).
func (h *Handler) ageRegister(ctx context.Context, company uuid.UUID, asked *openapi_types.Date,
	open func(context.Context, uuid.UUID, time.Time) ([]Outstanding, error), status func(Outstanding, time.Time) string,
	accounts []span, credit bool) (aged, error) {
	var a aged
	var err error
	if a.day, err = h.asOf(asked); err != nil {
		return a, err
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return a, err
	}
	items, err := open(ctx, company, a.day)
	if err != nil {
		return a, err
	}
	a.parties, a.total = age(items, a.day, status)
	a.rec, err = h.reconcile(ctx, company, c, a.day, accounts, a.total.Total, credit)
	return a, err
}

// GetArLedger answers the receivables open on a day, aged.
func (h *Handler) GetArLedger(ctx context.Context, req gen.GetArLedgerRequestObject) (gen.GetArLedgerResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	a, err := h.ageRegister(ctx, company, req.Params.AsOfDate, h.src.Receivables, CustomerStatus, receivableAccounts, false)
	if err != nil {
		return nil, err
	}
	out := gen.ArLedger{AsOfDate: openapi_types.Date{Time: a.day}, Customers: make([]gen.ArLedgerCustomer, len(a.parties)),
		Totals: agingTotals(a.total), Reconciliation: a.rec}
	for i, p := range a.parties {
		out.Customers[i] = gen.ArLedgerCustomer{CustomerId: p.id, CustomerName: p.name, Invoices: p.items, Totals: agingTotals(p.sum)}
	}
	first, err := h.src.FirstInvoice(ctx, company)
	if err != nil {
		return nil, err
	}
	out.RegisterCoverage.CoversFrom = nullable.NewNullNullable[openapi_types.Date]()
	before := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	if first != nil {
		out.RegisterCoverage.CoversFrom = nullable.NewNullableWithValue(openapi_types.Date{Time: *first})
		before = *first
	}
	if out.RegisterCoverage.HasPreRegisterInvoices, err = h.ledger.PostedBefore(ctx, company, numbers(receivableAccounts), before); err != nil {
		return nil, err
	}
	return gen.GetArLedger200JSONResponse{Body: gen.ArLedgerResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetSupplierLedger answers the payables open on a day, aged.
func (h *Handler) GetSupplierLedger(ctx context.Context, req gen.GetSupplierLedgerRequestObject) (gen.GetSupplierLedgerResponseObject, error) {
	a, err := h.ageRegister(ctx, uuid.UUID(req.CompanyId), req.Params.AsOfDate, h.src.Payables, SupplierStatus, payableAccounts, true)
	if err != nil {
		return nil, err
	}
	out := gen.SupplierLedger{AsOfDate: openapi_types.Date{Time: a.day}, Suppliers: make([]gen.SupplierLedgerSupplier, len(a.parties)),
		Totals: agingTotals(a.total), Reconciliation: a.rec}
	for i, p := range a.parties {
		out.Suppliers[i] = gen.SupplierLedgerSupplier{SupplierId: p.id, SupplierName: p.name, Invoices: p.items, Totals: agingTotals(p.sum)}
	}
	return gen.GetSupplierLedger200JSONResponse{Body: gen.SupplierLedgerResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}
