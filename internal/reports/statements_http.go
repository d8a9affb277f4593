package reports

import (
	"bytes"
	"context"
	"fmt"
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

// Company is what a report's heading names: the company's name, form and
// organisation number.
type Company struct {
	Name, Form       string
	OrgNumber        *string
	AccountingMethod string
}

// window is the days from..to of a report on period per: the period's
// own unless narrowed, and never outside it.
func window(per gen.ReportPeriod, from, to *openapi_types.Date) (time.Time, time.Time, error) {
	f, t := per.Start.Time, per.End.Time
	if from != nil {
		f = from.Time
	}
	if to != nil {
		t = to.Time
	}
	var issues []apierr.Issue
	if f.Before(per.Start.Time) || f.After(per.End.Time) {
		issues = append(issues, apierr.Issue{Field: "from_date", In: "query", Rule: "period", Issue: "must lie within the fiscal period"})
	}
	if t.Before(per.Start.Time) || t.After(per.End.Time) {
		issues = append(issues, apierr.Issue{Field: "to_date", In: "query", Rule: "period", Issue: "must lie within the fiscal period"})
	}
	if len(issues) == 0 && t.Before(f) {
		issues = append(issues, apierr.Issue{Field: "to_date", In: "query", Rule: "order", Issue: "must not be before from_date"})
	}
	if len(issues) > 0 {
		return f, t, apierr.Validation(issues...)
	}
	return f, t, nil
}

// lastYear is the same day a year earlier; a month's last day stays its
// month's last (29 February 2028 is 28 February 2027).
func lastYear(d time.Time) time.Time {
	end := d.AddDate(0, 0, 1).Day() == 1
	first := time.Date(d.Year()-1, d.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	if end || d.Day() > last.Day() {
		return last
	}
	return first.AddDate(0, 0, d.Day()-1)
}

// amounts sums a window's turnover per account as credit minus debit.
func amounts(rows []ledger.MonthTotal) map[string]money.Amount {
	out := map[string]money.Amount{}
	for _, r := range rows {
		out[r.Account] = out[r.Account].Add(r.Credit).Sub(r.Debit)
	}
	return out
}

// dimensionFilter checks dim_no and dim_code: both or neither, of a
// dimension the company has.
func (h *Handler) dimensionFilter(ctx context.Context, company uuid.UUID, no *int, code *string) (*gen.DimensionFilter, error) {
	if no == nil && code == nil {
		return nil, nil
	}
	if no == nil || code == nil {
		field := "dim_code"
		if no == nil {
			field = "dim_no"
		}
		return nil, apierr.Validation(apierr.Issue{Field: field, In: "query", Rule: "together",
			Issue: "dim_no and dim_code go together"})
	}
	register, err := h.dims.Register(ctx, company)
	if err != nil {
		return nil, err
	}
	if _, ok := register[*no]; !ok {
		return nil, apierr.Validation(apierr.Issue{Field: "dim_no", In: "query", Rule: "exists",
			Issue: "the company has no dimension with this number"})
	}
	return &gen.DimensionFilter{DimNo: *no, DimCode: *code}, nil
}

// turnover reads the result accounts' amounts from..to (sheet tells
// them from the balance sheet's), of the lines tagged as filter says when
// it is set.
func (h *Handler) turnover(ctx context.Context, company uuid.UUID, sheet ledger.Sheet, from, to time.Time, filter *gen.DimensionFilter) (map[string]money.Amount, error) {
	var rows []ledger.MonthTotal
	var err error
	if filter != nil {
		rows, err = h.ledger.WindowTagged(ctx, company, from, to, "0000", "9999", filter.DimNo, filter.DimCode)
	} else {
		rows, err = h.ledger.Window(ctx, company, from, to, "0000", "9999", false)
	}
	if err != nil {
		return nil, err
	}
	// The balance sheet's accounts are not the result's.
	return amounts(results(sheet, rows)), nil
}

type incomeQuery struct {
	period   uuid.UUID
	from, to *openapi_types.Date
	dimNo    *int
	dimCode  *string
}

// income computes the income statement q asks for.
func (h *Handler) income(ctx context.Context, company uuid.UUID, q incomeQuery) (gen.IncomeStatement, error) {
	per, names, sheet, err := h.periodNamed(ctx, company, q.period)
	if err != nil {
		return gen.IncomeStatement{}, err
	}
	from, to, err := window(per, q.from, q.to)
	if err != nil {
		return gen.IncomeStatement{}, err
	}
	filter, err := h.dimensionFilter(ctx, company, q.dimNo, q.dimCode)
	if err != nil {
		return gen.IncomeStatement{}, err
	}
	now, err := h.turnover(ctx, company, sheet, from, to, filter)
	if err != nil {
		return gen.IncomeStatement{}, err
	}
	pfrom, pto := lastYear(from), lastYear(to)
	prev, err := h.turnover(ctx, company, sheet, pfrom, pto, filter)
	if err != nil {
		return gen.IncomeStatement{}, err
	}
	s := LayIncome(now, prev)
	out := gen.IncomeStatement{Period: gen.DateWindow{Start: openapi_types.Date{Time: from}, End: openapi_types.Date{Time: to}},
		FiscalPeriod:     per,
		ComparisonPeriod: gen.DateWindow{Start: openapi_types.Date{Time: pfrom}, End: openapi_types.Date{Time: pto}},
		DimensionFilter:  nullable.NewNullNullable[gen.DimensionFilter](), Sections: make([]gen.IncomeStatementSection, len(s.Sections))}
	if filter != nil {
		out.DimensionFilter = nullable.NewNullableWithValue(*filter)
	}
	for i, sec := range s.Sections {
		ws := gen.IncomeStatementSection{Key: gen.IncomeStatementSectionKey(sec.Key), Title: sec.Title,
			Rows: make([]gen.IncomeStatementRow, len(sec.Rows)), Subtotal: nullable.NewNullNullable[gen.StatementSubtotal]()}
		for j, r := range sec.Rows {
			wr := gen.IncomeStatementRow{Field: nullable.NewNullNullable[string](), SruCode: nullable.NewNullNullable[string](),
				Label: r.Field.Label, Amount: r.Amount, PreviousAmount: r.Previous, Accounts: make([]gen.StatementAccount, len(r.Accounts))}
			if r.Field.Field != "" {
				wr.Field, wr.SruCode = nullable.NewNullableWithValue(r.Field.Field), nullable.NewNullableWithValue(r.Field.SRU)
			}
			for k, a := range r.Accounts {
				wr.Accounts[k] = gen.StatementAccount{AccountNumber: a.Account, AccountName: names[a.Account],
					Amount: a.Amount, PreviousAmount: a.Previous}
			}
			ws.Rows[j] = wr
		}
		if sec.Subtotal != nil {
			ws.Subtotal = nullable.NewNullableWithValue(gen.StatementSubtotal{Key: sec.SubtotalKey, Label: sec.SubLabel,
				Amount: sec.Subtotal.Amount, PreviousAmount: sec.Subtotal.Previous})
		}
		out.Sections[i] = ws
	}
	t := s.Totals
	out.Totals = gen.IncomeStatementTotals{Nettoomsattning: t["nettoomsattning"].Amount, TotalRevenue: t["total_revenue"].Amount,
		Rorelseresultat: t["rorelseresultat"].Amount, ResultatEfterFinansiellaPoster: t["resultat_efter_finansiella_poster"].Amount,
		ResultatForeSkatt: t["resultat_fore_skatt"].Amount, AretsResultat: t["arets_resultat"].Amount}
	out.PreviousTotals = gen.IncomeStatementTotals{Nettoomsattning: t["nettoomsattning"].Previous,
		TotalRevenue: t["total_revenue"].Previous, Rorelseresultat: t["rorelseresultat"].Previous,
		ResultatEfterFinansiellaPoster: t["resultat_efter_finansiella_poster"].Previous,
		ResultatForeSkatt:              t["resultat_fore_skatt"].Previous, AretsResultat: t["arets_resultat"].Previous}
	out.NetResult, out.Nettoomsattning, out.TotalRevenue = out.Totals.AretsResultat, out.Totals.Nettoomsattning, out.Totals.TotalRevenue
	return out, nil
}

// GetIncomeStatement answers the income statement of a period.
func (h *Handler) GetIncomeStatement(ctx context.Context, req gen.GetIncomeStatementRequestObject) (gen.GetIncomeStatementResponseObject, error) {
	p := req.Params
	out, err := h.income(ctx, uuid.UUID(req.CompanyId), incomeQuery{p.PeriodId, p.FromDate, p.ToDate, p.DimNo, p.DimCode})
	if err != nil {
		return nil, err
	}
	return gen.GetIncomeStatement200JSONResponse{Body: gen.IncomeStatementResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetIncomeStatementPdf answers the income statement as a PDF.
func (h *Handler) GetIncomeStatementPdf(ctx context.Context, req gen.GetIncomeStatementPdfRequestObject) (gen.GetIncomeStatementPdfResponseObject, error) {
	p := req.Params
	company := uuid.UUID(req.CompanyId)
	out, err := h.income(ctx, company, incomeQuery{p.PeriodId, p.FromDate, p.ToDate, p.DimNo, p.DimCode})
	if err != nil {
		return nil, err
	}
	// A statement on paper fixes the figures: not while an import writes them.
	if err := h.ledger.Held(ctx, company, out.Period.Start.Time, out.Period.End.Time); err != nil {
		return nil, err
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return nil, err
	}
	b, err := IncomeStatementPDF(c, out)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf(`attachment; filename="resultatrakning-%s.pdf"`, out.Period.End.Format("2006-01-02"))
	return gen.GetIncomeStatementPdf200ApplicationpdfResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetIncomeStatementPdf200ResponseHeaders{ContentDisposition: &name}}, nil
}

// balance computes the balance sheet at to (or as_of).
func (h *Handler) balance(ctx context.Context, company, period uuid.UUID, to, asOf *openapi_types.Date) (gen.BalanceSheet, BalanceSheet, error) {
	if to != nil && asOf != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, apierr.Validation(apierr.Issue{Field: "as_of", In: "query", Rule: "exclusive",
			Issue: "as_of is an alias of to_date: send one of them"})
	}
	if asOf != nil {
		to = asOf
	}
	per, names, sheet, err := h.periodNamed(ctx, company, period)
	if err != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, err
	}
	from, day, err := window(per, nil, to)
	if err != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, err
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, err
	}
	_, opening, err := h.openings(ctx, company, period, sheet)
	if err != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, err
	}
	// The change to the day, the closing entry's move of the result to
	// equity among it once the year-end ran.
	rows, err := h.ledger.Window(ctx, company, from, day, "0000", "9999", true)
	if err != nil {
		return gen.BalanceSheet{}, BalanceSheet{}, err
	}
	change := map[string]money.Amount{}
	var result money.Amount
	for _, r := range rows {
		// The result is every account outside the balance sheet: classes
		// 3-8 but those a file declared assets or liabilities, and an
		// internal 0 or 9 account an import kept as one.
		if sheet.Holds(r.Account) {
			change[r.Account] = change[r.Account].Add(r.Debit).Sub(r.Credit)
		} else {
			result = result.Add(r.Credit).Sub(r.Debit)
		}
	}
	b := LayBalance(c.Form, sheet, opening, change, result)
	out := gen.BalanceSheet{Period: gen.DateWindow{Start: openapi_types.Date{Time: from}, End: openapi_types.Date{Time: day}},
		FiscalPeriod: per, Sections: make([]gen.BalanceSheetSection, len(b.Sides)),
		Totals: gen.BalanceSheetTotals{Assets: b.Assets, EquityAndLiabilities: b.EquityAndLiabilities, Difference: b.Difference}}
	for i, s := range b.Sides {
		ws := gen.BalanceSheetSection{Key: gen.BalanceSheetSectionKey(s.Key), Title: s.Title, Total: movement(s.Total),
			Groups: make([]gen.BalanceSheetGroup, len(s.Groups))}
		for j, g := range s.Groups {
			wg := gen.BalanceSheetGroup{Key: gen.BalanceSheetGroupKey(g.Key), Title: g.Title, Total: movement(g.Total),
				Rows: make([]gen.BalanceSheetRow, len(g.Rows))}
			for k, r := range g.Rows {
				wr := gen.BalanceSheetRow{Key: r.Key, Label: r.Label, OpeningBalance: r.Opening, Change: r.Change,
					ClosingBalance: r.Closing, Accounts: make([]gen.BalanceSheetAccount, len(r.Accounts))}
				for l, a := range r.Accounts {
					wr.Accounts[l] = gen.BalanceSheetAccount{AccountNumber: a.Account, AccountName: names[a.Account],
						OpeningBalance: a.Opening, Change: a.Change, ClosingBalance: a.Closing}
				}
				wg.Rows[k] = wr
			}
			ws.Groups[j] = wg
		}
		out.Sections[i] = ws
	}
	return out, b, nil
}

func movement(m Movement) gen.Movement {
	return gen.Movement{OpeningBalance: m.Opening, Change: m.Change, ClosingBalance: m.Closing}
}

// GetBalanceSheet answers the balance sheet of a period.
func (h *Handler) GetBalanceSheet(ctx context.Context, req gen.GetBalanceSheetRequestObject) (gen.GetBalanceSheetResponseObject, error) {
	p := req.Params
	out, _, err := h.balance(ctx, uuid.UUID(req.CompanyId), p.PeriodId, p.ToDate, p.AsOf)
	if err != nil {
		return nil, err
	}
	return gen.GetBalanceSheet200JSONResponse{Body: gen.BalanceSheetResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetBalanceSheetPdf answers the balance sheet as a PDF, refusing books
// whose sides differ by a krona or more.
func (h *Handler) GetBalanceSheetPdf(ctx context.Context, req gen.GetBalanceSheetPdfRequestObject) (gen.GetBalanceSheetPdfResponseObject, error) {
	p := req.Params
	company := uuid.UUID(req.CompanyId)
	out, b, err := h.balance(ctx, company, p.PeriodId, p.ToDate, p.AsOf)
	if err != nil {
		return nil, err
	}
	if !b.Balanced() {
		return nil, apierr.New(apierr.ReportGenerationFailed, map[string]any{"report": "balance-sheet",
			"assets": b.Assets, "equity_and_liabilities": b.EquityAndLiabilities, "difference": b.Difference})
	}
	if err := h.ledger.Held(ctx, company, out.Period.Start.Time, out.Period.End.Time); err != nil {
		return nil, err
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return nil, err
	}
	pdf, err := BalanceSheetPDF(c, out)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf(`attachment; filename="balansrakning-%s.pdf"`, out.Period.End.Format("2006-01-02"))
	return gen.GetBalanceSheetPdf200ApplicationpdfResponse{Body: bytes.NewReader(pdf), ContentLength: int64(len(pdf)),
		Headers: gen.GetBalanceSheetPdf200ResponseHeaders{ContentDisposition: &name}}, nil
}
