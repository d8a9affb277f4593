package reports

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Handler serves the ledger reports.
type Handler struct {
	ledger  *ledger.Store
	periods *fiscal.Store
	chart   *chart.Store
	dims    *dimensions.Store
	cursors *cursor.Codec
	src     Sources
}

// Sources are what the reports read beyond the ledger, the chart and the
// periods: the company, the clock, and the registers that own the
// invoices.
type Sources struct {
	Company func(ctx context.Context, id uuid.UUID) (Company, error)
	Now     func() time.Time
	// Receivables and Payables list the invoices open on a day.
	Receivables, Payables func(ctx context.Context, company uuid.UUID, day time.Time) ([]Outstanding, error)
	// ReceivablesOpen and PayablesOpen sum in kronor what those list, and
	// what of it was due before the day, without listing it.
	ReceivablesOpen, PayablesOpen func(ctx context.Context, company uuid.UUID, day time.Time) (total, overdue money.Amount, err error)
	// FirstInvoice is the date of the first issued customer invoice.
	FirstInvoice func(ctx context.Context, company uuid.UUID) (*time.Time, error)
	// PaymentDays is the average days to payment of the invoices paid
	// from..to; TopSuppliers the n suppliers bought the most from.
	PaymentDays  func(ctx context.Context, company uuid.UUID, from, to time.Time) (*float64, error)
	TopSuppliers func(ctx context.Context, company uuid.UUID, from, to time.Time, n int) ([]SupplierTotal, error)
	// Signoffs are the reconciliation sign-offs a year closing on a day
	// rests on, per ledger account.
	Signoffs func(ctx context.Context, company uuid.UUID, day time.Time) (map[string]gen.ReconciliationSignoff, error)
	// AccrualsWaiting are the invoice registers' accrued months due on
	// or before a day and not yet booked.
	AccrualsWaiting func(ctx context.Context, company uuid.UUID, through time.Time) ([]accrual.Waiting, error)
	// DepreciationPending lists the fixed assets (any JSON-able rows)
	// with months through a day's month not depreciated.
	DepreciationPending func(ctx context.Context, company uuid.UUID, through time.Time) (int, any, error)
	// VATStatuses are the VAT periods ending from..to; CashBalances the
	// bank's balances on a day.
	VATStatuses  func(ctx context.Context, company uuid.UUID, from, to time.Time) ([]VATStatus, error)
	CashBalances func(ctx context.Context, company uuid.UUID, day time.Time) ([]CashBalance, error)
	// Audit and Operations are the trail and the operations run, read by
	// the processing history.
	Audit      *audit.Store
	Operations *jobs.Store
}

// NewHandler returns the reports handler.
func NewHandler(l *ledger.Store, p *fiscal.Store, c *chart.Store, d *dimensions.Store, cursors *cursor.Codec, src Sources) *Handler {
	return &Handler{ledger: l, periods: p, chart: c, dims: d, cursors: cursors, src: src}
}

func (h *Handler) company(ctx context.Context, id uuid.UUID) (Company, error) {
	return h.src.Company(ctx, id)
}

// Page sizes of the paginated reports.
const (
	ledgerLimit, ledgerMaxLimit     = 500, 1000
	registerLimit, registerMaxLimit = 100, 500
	ledgerList, registerList        = "general-ledger", "journal-register"
)

// period reads the report's fiscal year, PERIOD_NOT_FOUND naming
// period_id when the company has none of that id.
func (h *Handler) period(ctx context.Context, company, id uuid.UUID) (gen.ReportPeriod, error) {
	p, err := h.year(ctx, company, id, "period_id")
	if err != nil {
		return gen.ReportPeriod{}, err
	}
	return reportPeriod(p), nil
}

// year is period as the fiscal package holds it, asked for by the query
// parameter field.
func (h *Handler) year(ctx context.Context, company, id uuid.UUID, field string) (fiscal.Period, error) {
	p, err := h.periods.Get(ctx, company, id)
	if apierr.Is(err, apierr.PeriodNotFound) {
		err = apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": id, "field": field})
	}
	return p, err
}

// reportPeriod is p as a report names it.
func reportPeriod(p fiscal.Period) gen.ReportPeriod {
	return gen.ReportPeriod{Id: p.ID, Name: p.Name, Start: openapi_types.Date{Time: p.Start},
		End: openapi_types.Date{Time: p.End}}
}

// periodNamed is period with the chart's account names, for a report that
// names its accounts, and the balance sheet's exceptions (ledger.Sheet),
// both from one read of the chart.
func (h *Handler) periodNamed(ctx context.Context, company, id uuid.UUID) (gen.ReportPeriod, map[string]string, ledger.Sheet, error) {
	per, err := h.period(ctx, company, id)
	if err != nil {
		return per, nil, nil, err
	}
	accounts, err := h.chart.Labels(ctx, company)
	if err != nil {
		return per, nil, nil, err
	}
	names := make(map[string]string, len(accounts))
	for _, a := range accounts {
		names[a.Number] = a.Name
	}
	return per, names, ledger.SheetOf(accounts), nil
}

// GetTrialBalance answers the trial balance of a period.
func (h *Handler) GetTrialBalance(ctx context.Context, req gen.GetTrialBalanceRequestObject) (gen.GetTrialBalanceResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	per, names, _, err := h.periodNamed(ctx, company, req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	withClosing := req.Params.IncludeClosingEntry != nil && *req.Params.IncludeClosingEntry
	rows, err := h.ledger.Totals(ctx, company, req.Params.PeriodId, "0000", "9999", withClosing)
	if err != nil {
		return nil, err
	}
	out := gen.TrialBalance{Period: per, Rows: make([]gen.TrialBalanceRow, len(rows))}
	for i, r := range rows {
		out.Rows[i] = gen.TrialBalanceRow{Account: r.Account, AccountName: names[r.Account], OpeningBalance: r.Opening,
			PeriodDebit: r.Debit, PeriodCredit: r.Credit, ClosingBalance: r.Closing()}
	}
	t := SumTrial(rows)
	out.Totals = gen.TrialBalanceTotals{OpeningBalance: t.Opening, PeriodDebit: t.Debit, PeriodCredit: t.Credit,
		ClosingBalance: t.Closing}
	out.TotalDebit, out.TotalCredit, out.IsBalanced = t.Debit, t.Credit, t.Balanced()
	return gen.GetTrialBalance200JSONResponse{Body: gen.TrialBalanceResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetGeneralLedger answers a page of the general ledger of a period.
func (h *Handler) GetGeneralLedger(ctx context.Context, req gen.GetGeneralLedgerRequestObject) (gen.GetGeneralLedgerResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	from, to, err := AccountRange(p.AccountFrom, p.AccountTo)
	if err != nil {
		return nil, err
	}
	per, names, _, err := h.periodNamed(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	limit := cursor.Limit(p.Limit, ledgerLimit, ledgerMaxLimit)
	var at *LedgerCursor
	made := LedgerCursor{Period: p.PeriodId.String(), Range: from + "-" + to}
	if c := new(LedgerCursor); h.cursors.DecodeParam(ledgerList, p.Cursor, c) && c.Period == made.Period && c.Range == made.Range {
		at = c
	}
	var after *ledger.PostingPosition
	if at != nil {
		after = &at.After
	}
	// The general ledger lists every posted line, the closing entry's too.
	accounts, err := h.ledger.Totals(ctx, company, p.PeriodId, from, to, true)
	if err != nil {
		return nil, err
	}
	postings, err := h.ledger.Postings(ctx, company, p.PeriodId, from, to, after, limit+1)
	if err != nil {
		return nil, err
	}
	page, next := LedgerPage(accounts, postings, limit, at, from, to)
	out := gen.GeneralLedger{Period: per, Accounts: make([]gen.GeneralLedgerAccount, len(page))}
	for i, a := range page {
		g := gen.GeneralLedgerAccount{Account: a.Account, AccountName: names[a.Account], OpeningBalance: a.Opening,
			PeriodDebit: a.Debit, PeriodCredit: a.Credit, ClosingBalance: a.Closing(), Continued: a.Continued,
			Lines: make([]gen.GeneralLedgerLine, len(a.Lines))}
		for j, l := range a.Lines {
			e := ledger.Entry{Series: l.Series, Number: l.Number}
			g.Lines[j] = gen.GeneralLedgerLine{JournalEntryId: l.EntryID, LineId: l.LineID,
				EntryDate: openapi_types.Date{Time: l.Date}, VoucherSeries: l.Series, VoucherNumber: l.Number,
				Voucher: e.Voucher(), Description: l.Description, LineDescription: envelope.Nullable(l.LineDescription),
				DebitAmount: l.Debit, CreditAmount: l.Credit, Balance: l.Balance}
		}
		out.Accounts[i] = g
	}
	cur := ""
	if next != nil {
		next.Period, next.Range = made.Period, made.Range
		cur = h.cursors.Encode(ledgerList, next)
	}
	return gen.GetGeneralLedger200JSONResponse{Body: gen.GeneralLedgerResponse{Meta: envelope.Page(ctx, cur), Data: out}}, nil
}

// GetJournalRegister answers a page of the journal register of a period.
func (h *Handler) GetJournalRegister(ctx context.Context, req gen.GetJournalRegisterRequestObject) (gen.GetJournalRegisterResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	per, names, _, err := h.periodNamed(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	limit := cursor.Limit(p.Limit, registerLimit, registerMaxLimit)
	var after *ledger.VoucherPosition
	if v := new(ledger.VoucherPosition); h.cursors.DecodeParam(registerList, p.Cursor, v) {
		after = v
	}
	entries, err := h.ledger.Register(ctx, company, p.PeriodId, after, limit+1)
	if err != nil {
		return nil, err
	}
	entries, next := cursor.Next(h.cursors, registerList, entries, limit, func(e ledger.Entry) any {
		return ledger.VoucherPosition{Series: e.Series, Number: e.Number}
	})
	out := gen.JournalRegister{Period: per, Entries: make([]gen.JournalRegisterEntry, len(entries))}
	for i, e := range entries {
		out.Entries[i] = registerEntry(e, names)
	}
	return gen.GetJournalRegister200JSONResponse{Body: gen.JournalRegisterResponse{Meta: envelope.Page(ctx, next), Data: out}}, nil
}

// registerEntry is e as the journal register shows it: reversed once a
// storno undid it, stornos and replacements marked.
func registerEntry(e ledger.Entry, names map[string]string) gen.JournalRegisterEntry {
	d, c := ledger.Totals(e.Lines)
	status := gen.JournalRegisterEntryStatusPosted
	if e.ReversedByID != nil {
		status = gen.JournalRegisterEntryStatusReversed
	}
	r := gen.JournalRegisterEntry{Id: e.ID, VoucherSeries: e.Series, VoucherNumber: e.Number, Voucher: e.Voucher(),
		EntryDate: openapi_types.Date{Time: e.Date}, Description: e.Description, SourceType: gen.SourceType(e.SourceType),
		Status: status, IsStorno: e.ReversesID != nil, IsCorrection: e.CorrectionOfID != nil,
		ReversesId: envelope.Nullable(e.ReversesID), ReversedById: envelope.Nullable(e.ReversedByID),
		CorrectionOfId: envelope.Nullable(e.CorrectionOfID), TotalDebit: d, TotalCredit: c,
		Lines: make([]gen.JournalRegisterLine, len(e.Lines))}
	if e.PostedAt != nil {
		r.PostedAt = e.PostedAt.UTC()
	}
	r.Counterparty, r.PostedBy = ledger.WireCounterparty(e.Counterparty), ledger.WirePoster(e.Poster)
	r.RattelseCount, r.HasRattelse = e.RattelseCount, e.RattelseCount > 0
	r.Rattelser = make([]gen.JournalRegisterRattelse, len(e.Rattelser))
	for i, x := range e.Rattelser {
		r.Rattelser[i] = gen.JournalRegisterRattelse{RattelseId: x.ID, RattelseType: gen.JournalRegisterRattelseRattelseType(x.Type), CreatedAt: x.CreatedAt.UTC(),
			ActorLabel: envelope.Nullable(x.ActorLabel), ActorEmail: envelope.Nullable(x.ActorEmail),
			ActorUserId: envelope.Nullable(x.ActorUserID)}
	}
	// The struck lines stay in the register, legible and marked, in their
	// place among the entry's lines; the totals are of the current ones.
	all := append(append([]ledger.Line{}, e.Lines...), e.Struck...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].SortOrder < all[j].SortOrder })
	r.Lines = make([]gen.JournalRegisterLine, len(all))
	for i, l := range all {
		r.Lines[i] = gen.JournalRegisterLine{AccountNumber: l.Account, AccountName: names[l.Account],
			DebitAmount: l.Debit, CreditAmount: l.Credit, LineDescription: envelope.Nullable(l.Description),
			Struck: l.StruckBy != nil, StruckByRattelseId: envelope.Nullable(l.StruckBy),
			AddedByRattelseId: envelope.Nullable(l.AddedBy)}
	}
	return r
}

// GetDimensionPnl answers the income statement per value of a dimension.
func (h *Handler) GetDimensionPnl(ctx context.Context, req gen.GetDimensionPnlRequestObject) (gen.GetDimensionPnlResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	per, names, sheet, err := h.periodNamed(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	dimNo := 6
	if p.DimNo != nil {
		dimNo = *p.DimNo
	}
	register, err := h.dims.Register(ctx, company)
	if err != nil {
		return nil, err
	}
	dim, ok := register[dimNo]
	if !ok {
		return nil, apierr.Validation(apierr.Issue{Field: "dim_no", In: "query", Rule: "exists",
			Issue: "the company has no dimension with this number"})
	}
	from, to, err := window(per, p.FromDate, p.ToDate)
	if err != nil {
		return nil, err
	}
	totals, err := h.ledger.DimensionTotals(ctx, company, p.PeriodId, from, to, dimNo)
	if err != nil {
		return nil, err
	}
	kept := totals[:0]
	for _, t := range totals {
		if sheet.InResult(t.Account) {
			kept = append(kept, t)
		}
	}
	totals = kept
	values := map[string]string{}
	for _, v := range dim.Values {
		values[v.Code] = v.Name
	}
	r := DimensionPnl(totals, values, names)
	out := gen.DimensionPnl{FiscalPeriod: per, NetTotal: r.NetTotal, NetPerColumn: nonNil(r.NetPerColumn),
		Columns: make([]gen.DimensionPnlColumn, len(r.Columns)), Groups: make([]gen.DimensionPnlGroup, len(r.Groups))}
	out.Dimension.SieDimNo, out.Dimension.Name = dim.Number, dim.Name
	out.Period.Start, out.Period.End = openapi_types.Date{Time: from}, openapi_types.Date{Time: to}
	for i, c := range r.Columns {
		out.Columns[i] = gen.DimensionPnlColumn{Code: envelope.Nullable(c.Code), Name: c.Name}
	}
	for i, g := range r.Groups {
		gg := gen.DimensionPnlGroup{Key: g.Key, Name: g.Name, Totals: g.Totals, Total: g.Total,
			Accounts: make([]gen.DimensionPnlAccount, len(g.Accounts))}
		for j, a := range g.Accounts {
			gg.Accounts[j] = gen.DimensionPnlAccount{AccountNumber: a.Account, AccountName: a.Name, Amounts: a.Amounts, Total: a.Total}
		}
		out.Groups[i] = gg
	}
	return gen.GetDimensionPnl200JSONResponse{Body: gen.DimensionPnlResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// openings are the figures of the period's balance accounts (those the
// company's sheet holds there), the closing entry counted, and their
// opening balances by account.
func (h *Handler) openings(ctx context.Context, company, period uuid.UUID, sheet ledger.Sheet) ([]ledger.AccountTotals, map[string]money.Amount, error) {
	lo, hi := "1000", "2999"
	if len(sheet) > 0 {
		lo, hi = "0000", "9999"
	}
	all, err := h.ledger.Totals(ctx, company, period, lo, hi, true)
	totals := all[:0]
	opening := make(map[string]money.Amount, len(all))
	for _, t := range all {
		if sheet.Holds(t.Account) {
			totals = append(totals, t)
			opening[t.Account] = t.Opening
		}
	}
	return totals, opening, err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// GetContinuityCheck compares a year's opening balance with the closing
// balance of the year before, account by account.
func (h *Handler) GetContinuityCheck(ctx context.Context, req gen.GetContinuityCheckRequestObject) (gen.GetContinuityCheckResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	per, names, _, err := h.periodNamed(ctx, company, req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	out := gen.ContinuityCheck{Period: per, PreviousPeriod: nullable.NewNullNullable[gen.ReportPeriod](),
		NoteCode: nullable.NewNullNullable[gen.ContinuityCheckNoteCode](), Note: nullable.NewNullNullable[string]()}
	note := func(code string) {
		out.NoteCode = nullable.NewNullableWithValue(gen.ContinuityCheckNoteCode(code))
		out.Note = nullable.NewNullableWithValue(NoteText[code])
	}
	prev, err := h.periods.Covering(ctx, company, per.Start.AddDate(0, 0, -1))
	if err != nil {
		return nil, err
	}
	var rows []ledger.ContinuityRow
	compared := false
	if prev.ID == uuid.Nil {
		note(NoteFirstYear)
		// The opening balance alone: the rows of a year with no closing
		// (only balance-sheet accounts open with a balance).
		totals, err := h.ledger.Totals(ctx, company, per.Id, "0000", "9999", false)
		if err != nil {
			return nil, err
		}
		for _, t := range totals {
			if !t.Opening.IsZero() {
				rows = append(rows, ledger.ContinuityRow{Account: t.Account, NextOpening: t.Opening})
			}
		}
	} else {
		out.PreviousPeriod = nullable.NewNullableWithValue(gen.ReportPeriod{Id: prev.ID, Name: prev.Name,
			Start: openapi_types.Date{Time: prev.Start}, End: openapi_types.Date{Time: prev.End}})
		if rows, err = h.ledger.Continuity(ctx, company, prev.ID); err != nil {
			return nil, err
		}
		posted, err := h.ledger.Posted(ctx, company, prev.ID)
		if err != nil {
			return nil, err
		}
		compared = posted > 0
		if !compared {
			note(NoteOutsideKontera)
		}
	}
	c := CheckContinuity(rows, compared)
	out.DimensionDifferences = []gen.ContinuityCheckTagged{}
	if compared {
		tagged, err := h.ledger.TaggedBreaks(ctx, company, prev.ID)
		if err != nil {
			return nil, err
		}
		for _, r := range tagged {
			dims := gen.HeldDimensions{}
			for k, v := range r.Tags {
				dims[k] = v
			}
			out.DimensionDifferences = append(out.DimensionDifferences, gen.ContinuityCheckTagged{
				AccountNumber: r.Account, Dimensions: dims, PreviousClosingBalance: r.Closing,
				OpeningBalance: r.NextOpening, Difference: r.Difference()})
		}
	}
	ok := c.OK() && len(out.DimensionDifferences) == 0
	if !ok && prev.YearEndAt == nil {
		note(NoteYearEndNotRun)
	}
	out.Ok, out.DifferingAccounts = ok, c.Differing
	out.Accounts = make([]gen.ContinuityCheckRow, len(c.Lines))
	for i, l := range c.Lines {
		out.Accounts[i] = gen.ContinuityCheckRow{AccountNumber: l.Account, AccountName: names[l.Account],
			PreviousClosingBalance: envelope.Nullable(l.Previous), OpeningBalance: l.Opening, Difference: l.Difference}
	}
	out.Totals.PreviousClosingBalance = envelope.Nullable(c.Previous)
	out.Totals.OpeningBalance, out.Totals.Difference = c.Opening, c.Difference
	return gen.GetContinuityCheck200JSONResponse{Body: gen.ContinuityCheckResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}
