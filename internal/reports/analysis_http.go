package reports

import (
	"context"
	"sort"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// SupplierTotal is what the company bought of a supplier in a window.
type SupplierTotal struct {
	ID    uuid.UUID
	Name  string
	Total money.Amount
	Count int
}

// months reads the period's result accounts (those sheet does not hold)
// month by month, of the lines tagged as filter says when it is set.
func (h *Handler) months(ctx context.Context, company uuid.UUID, per gen.ReportPeriod, sheet ledger.Sheet, filter *gen.DimensionFilter) ([]Month, []ledger.MonthTotal, error) {
	var rows []ledger.MonthTotal
	var err error
	from, to := per.Start.Time, per.End.Time
	if filter != nil {
		rows, err = h.ledger.WindowTagged(ctx, company, from, to, "3000", "8999", filter.DimNo, filter.DimCode)
	} else {
		rows, err = h.ledger.Window(ctx, company, from, to, "3000", "8999", false)
	}
	if err != nil {
		return nil, nil, err
	}
	rows = results(sheet, rows)
	return Months(rows, from, to), rows, nil
}

// results keeps of rows the result's accounts: not classes 1-2, nor the
// accounts of classes 3-8 sheet holds on the balance sheet (an SIE file
// declared them so).
func results(sheet ledger.Sheet, rows []ledger.MonthTotal) []ledger.MonthTotal {
	kept := rows[:0]
	for _, r := range rows {
		if sheet.InResult(r.Account) {
			kept = append(kept, r)
		}
	}
	return kept
}

func wireMonths(ms []Month) ([]gen.MonthFigures, gen.MonthTotals) {
	out := make([]gen.MonthFigures, len(ms))
	var t gen.MonthTotals
	for i, m := range ms {
		out[i] = gen.MonthFigures{Month: m.Month.Format("2006-01"), Start: openapi_types.Date{Time: m.Month},
			End: openapi_types.Date{Time: m.Month.AddDate(0, 1, -1)}, Revenue: m.Revenue, Expenses: m.Expenses, Net: m.Net,
			OperatingResult: m.OperatingResult}
		t.Revenue, t.Expenses, t.Net = t.Revenue.Add(m.Revenue), t.Expenses.Add(m.Expenses), t.Net.Add(m.Net)
		t.OperatingResult = t.OperatingResult.Add(m.OperatingResult)
	}
	return out, t
}

func wireFilter(f *gen.DimensionFilter) nullable.Nullable[gen.DimensionFilter] {
	if f == nil {
		return nullable.NewNullNullable[gen.DimensionFilter]()
	}
	return nullable.NewNullableWithValue(*f)
}

// GetMonthlyBreakdown answers the income statement month by month.
func (h *Handler) GetMonthlyBreakdown(ctx context.Context, req gen.GetMonthlyBreakdownRequestObject) (gen.GetMonthlyBreakdownResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	per, err := h.period(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	filter, err := h.dimensionFilter(ctx, company, p.DimNo, p.DimCode)
	if err != nil {
		return nil, err
	}
	sheet, err := h.ledger.Sheet(ctx, company)
	if err != nil {
		return nil, err
	}
	ms, _, err := h.months(ctx, company, per, sheet, filter)
	if err != nil {
		return nil, err
	}
	out := gen.MonthlyBreakdown{Period: gen.DateWindow{Start: per.Start, End: per.End}, FiscalPeriod: per,
		DimensionFilter: wireFilter(filter)}
	out.Months, out.Totals = wireMonths(ms)
	return gen.GetMonthlyBreakdown200JSONResponse{Body: gen.MonthlyBreakdownResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

var classLabels = map[int]string{
	4: "Varor, material och tjänster", 5: "Övriga externa kostnader (lokal, fastighet m.m.)",
	6: "Övriga externa kostnader", 7: "Personal, av- och nedskrivningar m.m.",
}

// GetKpi answers the key figures of a period.
func (h *Handler) GetKpi(ctx context.Context, req gen.GetKpiRequestObject) (gen.GetKpiResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	per, names, sheet, err := h.periodNamed(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	filter, err := h.dimensionFilter(ctx, company, p.DimNo, p.DimCode)
	if err != nil {
		return nil, err
	}
	ms, rows, err := h.months(ctx, company, per, sheet, filter)
	if err != nil {
		return nil, err
	}
	today := ledger.Today(h.src.Now())
	day := per.End.Time
	if today.Before(day) {
		day = today
	}
	if day.Before(per.Start.Time) {
		day = per.Start.Time
	}
	out := gen.Kpi{Period: gen.DateWindow{Start: per.Start, End: per.End}, FiscalPeriod: per, DimensionFilter: wireFilter(filter),
		AsOfDate: openapi_types.Date{Time: day}, PeriodComplete: today.After(per.End.Time)}
	out.Months, _ = wireMonths(ms)
	byClass := map[int]money.Amount{}
	var cogs money.Amount
	for _, m := range ms {
		out.NetResult, out.TotalRevenue = out.NetResult.Add(m.Net), out.TotalRevenue.Add(m.Revenue)
		for c, a := range m.OperatingExpensesByClass {
			byClass[c] = byClass[c].Add(a)
			out.TotalExpenses = out.TotalExpenses.Add(a)
			if c == 4 {
				cogs = cogs.Add(a)
			}
		}
	}
	out.GrossMargin = envelope.Nullable(Ratio(out.TotalRevenue.Sub(cogs), out.TotalRevenue))
	out.ExpenseRatio = envelope.Nullable(Ratio(out.TotalExpenses, out.TotalRevenue))
	out.ExpenseComposition = []gen.KpiExpenseClass{}
	for c := 4; c <= 7; c++ {
		if a := byClass[c]; !a.IsZero() {
			out.ExpenseComposition = append(out.ExpenseComposition, gen.KpiExpenseClass{Class: c, Label: classLabels[c],
				Amount: a, Share: envelope.Nullable(Ratio(a, out.TotalExpenses))})
		}
	}
	costs := map[string]money.Amount{}
	for _, r := range rows {
		if r.Account >= "4000" && r.Account < "8000" {
			costs[r.Account] = costs[r.Account].Add(r.Debit).Sub(r.Credit)
		}
	}
	out.TopExpenseAccounts = top(costs, names, 5)
	bal, err := h.balancesIn(ctx, company, per.Id, per.Start.Time, day, span{"1900", "1999"}, span{"2600", "2699"})
	if err != nil {
		return nil, err
	}
	out.CashPosition, out.VatLiability = bal[0], bal[1].Neg()
	out.OutstandingReceivables, out.OverdueReceivables, err = h.src.ReceivablesOpen(ctx, company, day)
	if err != nil {
		return nil, err
	}
	days, err := h.src.PaymentDays(ctx, company, per.Start.Time, per.End.Time)
	if err != nil {
		return nil, err
	}
	out.AvgPaymentDays = envelope.Nullable(days)
	suppliers, err := h.src.TopSuppliers(ctx, company, per.Start.Time, per.End.Time, 5)
	if err != nil {
		return nil, err
	}
	out.TopSuppliers = make([]gen.KpiSupplier, len(suppliers))
	for i, s := range suppliers {
		out.TopSuppliers[i] = gen.KpiSupplier{SupplierId: s.ID, Name: s.Name, Total: s.Total, InvoiceCount: s.Count}
	}
	return gen.GetKpi200JSONResponse{Body: gen.KpiResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// top is the n accounts with the largest amounts, largest first.
func top(amounts map[string]money.Amount, names map[string]string, n int) []gen.KpiExpenseAccount {
	out := []gen.KpiExpenseAccount{}
	for a, amt := range amounts {
		if amt.Sign() > 0 {
			out = append(out, gen.KpiExpenseAccount{AccountNumber: a, AccountName: names[a], Amount: amt})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].Amount.Cmp(out[j].Amount); c != 0 {
			return c > 0
		}
		return out[i].AccountNumber < out[j].AccountNumber
	})
	return out[:min(n, len(out))]
}

// GetCashFlowStatement answers the cash flow statement of a period.
func (h *Handler) GetCashFlowStatement(ctx context.Context, req gen.GetCashFlowStatementRequestObject) (gen.GetCashFlowStatementResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	per, err := h.period(ctx, company, req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	sheet, err := h.ledger.Sheet(ctx, company)
	if err != nil {
		return nil, err
	}
	_, opening, err := h.openings(ctx, company, per.Id, sheet)
	if err != nil {
		return nil, err
	}
	rows, err := h.ledger.Window(ctx, company, per.Start.Time, per.End.Time, "1000", "8989", false)
	if err != nil {
		return nil, err
	}
	change := map[string]money.Amount{}
	for _, r := range rows {
		change[r.Account] = change[r.Account].Add(r.Debit).Sub(r.Credit)
	}
	c, err := Cash(sheet, opening, change)
	if err != nil {
		return nil, err
	}
	out := gen.CashFlowStatement{FiscalPeriodId: per.Id, PeriodStart: per.Start, PeriodEnd: per.End,
		Lopande: gen.CashFlowOperating{ResultatEfterFinansiellaPoster: c.ResultAfterFinancial, Avskrivningar: c.Depreciation,
			ForandringAvsattningar: c.Provisions, BetaldSkatt: c.TaxPaid, ForandringVarulager: c.Inventories,
			ForandringKortfristigaFordringar: c.Receivables, ForandringKortfristigaSkulder: c.CurrentLiabilities,
			OvrigaPoster: c.Unclassified, Total: c.Operating},
		Investerings: gen.CashFlowInvesting{MateriellaOchImmateriellaAnlaggningstillgangar: c.FixedAssets,
			FinansiellaAnlaggningstillgangar: c.FinancialAssets, KortfristigaPlaceringar: c.ShortTermInvestments, Total: c.Investing},
		Finansierings: gen.CashFlowFinancing{EgetKapital: c.Equity, ObeskattadeReserverOchBokslutsdispositioner: c.UntaxedReserves,
			LangfristigaSkulder: c.LongTermDebt, Total: c.Financing},
		TotalCashFlow: c.Total, UnclassifiedAccounts: c.UnclassifiedAccounts,
		Reconciliation: gen.CashFlowReconciliation{OpeningCash: c.OpeningCash, ClosingCash: c.ClosingCash,
			ChangeInCash: c.ClosingCash.Sub(c.OpeningCash), IsReconciled: c.Mismatch.IsZero(), MismatchAmount: c.Mismatch}}
	return gen.GetCashFlowStatement200JSONResponse{Body: gen.CashFlowStatementResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}
