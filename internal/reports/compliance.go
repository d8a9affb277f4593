package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Finding is one result of a compliance check.
type Finding struct {
	Severity, Code, Message string
	Details                 map[string]any
}

// The severities of a finding.
const (
	Info    = "info"
	Warn    = "warning"
	Blocker = "blocker"
)

// gapFindings turn the missing voucher numbers into a blocker per series.
func gapFindings(gaps []ledger.Gap) []Finding {
	var out []Finding
	bySeries := map[string][]int{}
	var order []string
	for _, g := range gaps {
		if _, ok := bySeries[g.Series]; !ok {
			order = append(order, g.Series)
		}
		bySeries[g.Series] = append(bySeries[g.Series], g.Number)
	}
	for _, s := range order {
		out = append(out, Finding{Severity: Blocker, Code: "VOUCHER_GAP",
			Message: fmt.Sprintf("Serie %s saknar %d verifikationsnummer.", s, len(bySeries[s])),
			Details: map[string]any{"voucher_series": s, "missing_numbers": bySeries[s]}})
	}
	return out
}

// noteFindings say, for information, which gaps are explained and why.
func noteFindings(notes []ledger.GapNote) []Finding {
	out := make([]Finding, len(notes))
	for i, n := range notes {
		out[i] = Finding{Severity: Info, Code: "VOUCHER_GAP_EXPLAINED",
			Message: fmt.Sprintf("Serie %s, nummer %s: förklarad lucka. %s", n.Series, n.Range(), n.Explanation),
			Details: map[string]any{"voucher_series": n.Series, "gap_start": n.From, "gap_end": n.To,
				"explanation": n.Explanation, "voucher_gap_explanation_id": n.ID}}
	}
	return out
}

// maxGaps is how many missing numbers a check lists.
const maxGaps = 100

// GetComplianceCheck answers a compliance check of a fiscal year.
func (h *Handler) GetComplianceCheck(ctx context.Context, req gen.GetComplianceCheckRequestObject) (gen.GetComplianceCheckResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	if p.Type == gen.GetComplianceCheckParamsTypeVatClose {
		return nil, apierr.Validation(apierr.Issue{Field: "type", In: "query", Rule: "supported",
			Issue: "vat_close is not supported; use year_end_readiness or voucher_gaps"})
	}
	year, err := h.year(ctx, company, p.FiscalPeriodId, "fiscal_period_id")
	if err != nil {
		return nil, err
	}
	per := reportPeriod(year)
	gaps, err := h.ledger.Gaps(ctx, company, per.Id, maxGaps)
	if err != nil {
		return nil, err
	}
	notes, err := h.ledger.GapNotes(ctx, company, &per.Id, nil)
	if err != nil {
		return nil, err
	}
	findings := append(gapFindings(gaps), noteFindings(notes)...)
	if p.Type == gen.GetComplianceCheckParamsTypeYearEndReadiness {
		more, err := h.yearEndFindings(ctx, company, year)
		if err != nil {
			return nil, err
		}
		findings = append(findings, more...)
	}
	out := gen.ComplianceCheck{Type: gen.ComplianceCheckType(p.Type), GeneratedAt: h.src.Now().UTC(),
		Findings: make([]gen.ComplianceFinding, len(findings)), Ready: true}
	out.Params.Type, out.Params.FiscalPeriodId = string(p.Type), per.Id
	for i, f := range findings {
		out.Findings[i] = gen.ComplianceFinding{Severity: gen.ComplianceFindingSeverity(f.Severity), Code: f.Code,
			Message: f.Message, Details: envelope.Nullable(&f.Details)}
		switch f.Severity {
		case Blocker:
			out.Summary.Blockers++
			out.Ready = false
		case Warn:
			out.Summary.Warnings++
		default:
			out.Summary.Infos++
		}
	}
	return gen.GetComplianceCheck200JSONResponse{Meta: envelope.Meta(ctx), Data: out}, nil
}

// yearEndFindings are what stands between the year and its year-end,
// beyond the voucher gaps.
func (h *Handler) yearEndFindings(ctx context.Context, company uuid.UUID, year fiscal.Period) ([]Finding, error) {
	var out []Finding
	per := reportPeriod(year)
	drafts, err := h.ledger.Drafts(ctx, company, per.Id)
	if err != nil {
		return nil, err
	}
	if drafts > 0 {
		out = append(out, Finding{Severity: Blocker, Code: "YEAR_END_DRAFTS_PRESENT",
			Message: fmt.Sprintf("Det finns %d utkast i räkenskapsåret.", drafts), Details: map[string]any{"draft_count": drafts}})
	}
	rows, err := h.ledger.Totals(ctx, company, per.Id, "0000", "9999", false)
	if err != nil {
		return nil, err
	}
	if t := SumTrial(rows); !t.Balanced() {
		out = append(out, Finding{Severity: Blocker, Code: "YEAR_END_UNBALANCED_TRIAL", Message: "Råbalansen balanserar inte.",
			Details: map[string]any{"total_debit": t.Debit, "total_credit": t.Credit, "opening_sum": t.Opening}})
	}
	if h.src.AccrualsWaiting != nil {
		waiting, err := h.src.AccrualsWaiting(ctx, company, per.End.Time)
		if err != nil {
			return nil, err
		}
		if len(waiting) > 0 {
			out = append(out, Finding{Severity: Blocker, Code: "ACCRUALS_PENDING",
				Message: fmt.Sprintf("%d periodiseringar daterade i räkenskapsåret är inte bokförda.", len(waiting)),
				Details: map[string]any{"count": len(waiting), "months": waiting}})
		}
	}
	if h.src.DepreciationPending != nil {
		n, assets, err := h.src.DepreciationPending(ctx, company, per.End.Time)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, Finding{Severity: Blocker, Code: "DEPRECIATION_PENDING",
				Message: fmt.Sprintf("%d anläggningstillgångar har månader i räkenskapsåret som inte är avskrivna.", n),
				Details: map[string]any{"count": n, "assets": assets}})
		}
	}
	adj, err := h.ledger.Adjustments(ctx, company, year)
	if err != nil {
		return nil, err
	}
	out = append(out, adjustmentFindings(adj)...)
	prev, err := h.periods.Covering(ctx, company, per.Start.AddDate(0, 0, -1))
	if err != nil {
		return nil, err
	}
	if prev.ID != uuid.Nil {
		if !prev.Closed {
			out = append(out, Finding{Severity: Warn, Code: "PRIOR_FISCAL_YEAR_STILL_OPEN",
				Message: "Föregående räkenskapsår är inte stängt.", Details: map[string]any{"fiscal_period_id": prev.ID}})
		}
		posted, err := h.ledger.Posted(ctx, company, prev.ID)
		if err != nil {
			return nil, err
		}
		if posted > 0 {
			cont, err := h.ledger.Continuity(ctx, company, prev.ID)
			if err != nil {
				return nil, err
			}
			if c := CheckContinuity(cont, true); !c.OK() {
				out = append(out, Finding{Severity: Warn, Code: "CONTINUITY_DIFFERENCE",
					Message: "Ingående balanser skiljer sig från föregående års utgående.", Details: map[string]any{"accounts": c.Differing}})
			}
		}
	}
	today := ledger.Today(h.src.Now())
	day := per.End.Time
	if today.Before(day) {
		day = today
	}
	statuses, err := h.src.VATStatuses(ctx, company, per.Start.Time, day)
	if err != nil {
		return nil, err
	}
	for _, s := range statuses {
		if !s.End.Before(today) {
			continue
		}
		if !s.Filed {
			out = append(out, Finding{Severity: Warn, Code: "VAT_PERIOD_NOT_FILED",
				Message: "Momsperioden " + s.TaxPeriod + " är inte deklarerad.", Details: map[string]any{"tax_period": s.TaxPeriod}})
		}
		if !s.Settled && len(s.Accounts) > 0 {
			out = append(out, Finding{Severity: Warn, Code: "VAT_PERIOD_NOT_SETTLED",
				Message: "Momsperioden " + s.TaxPeriod + " är inte avräknad mot 2650.", Details: map[string]any{"tax_period": s.TaxPeriod}})
		}
	}
	c, err := h.company(ctx, company)
	if err != nil || c.AccountingMethod == "cash" { // kontantmetoden keeps no register on 1510/2440
		return out, err
	}
	registers := []struct {
		code     string
		accounts []span
		credit   bool
		open     func(context.Context, uuid.UUID, time.Time) (money.Amount, money.Amount, error)
	}{{"AR_LEDGER_MISMATCH", receivableAccounts, false, h.src.ReceivablesOpen}, {"AP_LEDGER_MISMATCH", payableAccounts, true, h.src.PayablesOpen}}
	// Both registers' accounts in one read of the ledger.
	var spans []span
	for _, l := range registers {
		spans = append(spans, l.accounts...)
	}
	bal, err := h.balancesAt(ctx, company, &per, day, spans...)
	if err != nil {
		return nil, err
	}
	for _, l := range registers {
		register, _, err := l.open(ctx, company, day)
		if err != nil {
			return nil, err
		}
		var ledger money.Amount
		for _, b := range bal[:len(l.accounts)] {
			ledger = ledger.Add(b)
		}
		bal = bal[len(l.accounts):]
		if l.credit {
			ledger = ledger.Neg()
		}
		if diff := ledger.Sub(register); !diff.IsZero() {
			out = append(out, Finding{Severity: Warn, Code: l.code,
				Message: "Reskontran stämmer inte med bokföringen på " + day.Format(time.DateOnly) + ".",
				Details: map[string]any{"accounts": numbers(l.accounts), "ledger_balance": ledger,
					"register_total": register, "difference": diff}})
		}
	}
	return out, nil
}

// adjustmentFindings are what the year-end books beyond its closing
// entry, for the accountant to see first: the invoices kontantmetoden
// keeps outside the books (the year-end books them, info), the open
// foreign items not yet revalued (the year-end revalues them, warning),
// and a closing rate nobody can fetch (blocker; with a rate source the
// year-end fetches it, a warning until then).
func adjustmentFindings(a ledger.Adjustments) []Finding {
	var out []Finding
	if a.CutoffPending {
		out = append(out, Finding{Severity: Info, Code: "CASH_METHOD_OPEN_INVOICES",
			Message: fmt.Sprintf("%d obetalda fakturor (kontantmetoden) bokförs vid bokslutet på 1510/2440 med vilande moms och återförs nästa år.",
				len(a.Cutoff)), Details: map[string]any{"count": len(a.Cutoff), "items": a.Cutoff}})
	}
	if a.RevaluationPending {
		out = append(out, Finding{Severity: Warn, Code: "CURRENCY_REVALUATION_MISSING",
			Message: fmt.Sprintf("%d öppna poster i utländsk valuta är inte omvärderade till balansdagens kurs; bokslutet omvärderar dem.",
				len(a.Foreign)), Details: map[string]any{"count": len(a.Foreign), "items": a.Foreign}})
	}
	if a.RatesMissing != nil {
		sev := Warn
		if reason, _ := a.RatesMissing.Details["reason"].(string); reason == "offline" {
			sev = Blocker
		}
		out = append(out, Finding{Severity: sev, Code: "FX_CLOSING_RATE_UNAVAILABLE",
			Message: "Valutakurs för balansdagen saknas; utan den kan posterna inte omvärderas.", Details: a.RatesMissing.Details})
	}
	return out
}
