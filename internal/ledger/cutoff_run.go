package ledger

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/money"
)

// RevaluationOperation is the type of the asynchronous currency
// revaluation.
const RevaluationOperation = "fiscal_periods.currency_revaluation"

// revaluationParams are the parameters of a revaluation operation.
type revaluationParams struct {
	PeriodID uuid.UUID `json:"fiscal_period_id"`
	Day      time.Time `json:"as_of_date"`
}

// Revaluation is a currency revaluation of a year at a day: the items
// open then, each at the day's rate, and what it booked.
type Revaluation struct {
	PeriodID uuid.UUID
	Day      time.Time
	Items    []OpenItem
	// Lines are the revaluation of Items; Adjusted is what the books
	// lacked of it, booked (on a dry run, as it would be).
	Lines []Line
	Adjusted
}

// foreignAt lists the foreign-currency items on the books open at the
// end of day in p; a cash account's kronor are its balance in p through
// day, the revaluations of p left out.
func (s *Store) foreignAt(ctx context.Context, company uuid.UUID, p fiscal.Period, day time.Time) ([]OpenItem, error) {
	var items []OpenItem
	for _, r := range s.Registers {
		got, err := r.Foreign(ctx, company, day)
		if err != nil {
			return nil, err
		}
		items = append(items, got...)
	}
	for i := range items {
		if items[i].Kind != CashAccount {
			continue
		}
		if err := s.db.Q(ctx).GetContext(ctx, &items[i].Booked, `
			SELECT coalesce(sum(p.debit_amount - p.credit_amount), 0) FROM ledger_postings p
			WHERE p.company_id = $1 AND p.fiscal_period_id = $2 AND p.account_number = $3 AND p.entry_date <= $4
			  AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.company_id = $1 AND e.id = p.journal_entry_id
			                  AND e.source_type = $5 AND e.source_id = $6)`,
			company, p.ID, items[i].Account, day, SourceRevaluation, p.ID.String()); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Kind != items[j].Kind {
			return items[i].Kind < items[j].Kind
		}
		return items[i].Number < items[j].Number
	})
	return items, nil
}

// ForeignCurrencies are the currencies of the company's foreign items
// open at the end of day: the rates a revaluation on day needs, to fetch
// before its transaction.
func (s *Store) ForeignCurrencies(ctx context.Context, company uuid.UUID, day time.Time) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, r := range s.Registers {
		got, err := r.Foreign(ctx, company, day)
		if err != nil {
			return nil, err
		}
		for _, it := range got {
			if !seen[it.Currency] {
				seen[it.Currency] = true
				out = append(out, it.Currency)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// revalue is the revaluation of p at day: its open foreign items, each
// at the day's rate, and its lines.
func (s *Store) revalue(ctx context.Context, company uuid.UUID, p fiscal.Period, day time.Time) ([]OpenItem, []Line, error) {
	items, err := s.foreignAt(ctx, company, p, day)
	if err != nil || len(items) == 0 {
		return []OpenItem{}, nil, err
	}
	rates := map[string]money.Rate{}
	var missing []string
	why := "no_rate"
	for _, it := range items {
		if _, ok := rates[it.Currency]; ok || slices.Contains(missing, it.Currency) {
			continue
		}
		if s.Rates == nil {
			missing, why = append(missing, it.Currency), "offline"
			continue
		}
		r, err := s.Rates.Rate(ctx, it.Currency, day)
		if e, ok := apierr.As(err); ok {
			missing = append(missing, it.Currency)
			if reason, _ := e.Details["reason"].(string); reason != "" {
				why = reason
			}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		rates[it.Currency] = r
	}
	if len(missing) > 0 {
		return nil, nil, apierr.New(apierr.FXClosingRateUnavailable, map[string]any{"missingRates": missing,
			"date": day.Format(time.DateOnly), "reason": why})
	}
	if err := Revalue(items, func(c string) (money.Rate, error) { return rates[c], nil }); err != nil {
		return nil, nil, err
	}
	return items, RevaluationLines(items), nil
}

// cutoff is what kontantmetoden left outside the books of p and is open
// at its last day, and the lines of its cut-off.
func (s *Store) cutoff(ctx context.Context, company uuid.UUID, p fiscal.Period) ([]OpenItem, []Line, error) {
	items := []OpenItem{}
	for _, r := range s.Registers {
		got, err := r.Unbooked(ctx, company, p.End)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, got...)
	}
	return items, CutoffLines(items), nil
}

// pending is what an adjustment of kind source of p lacks for lines.
func (s *Store) pending(ctx context.Context, company uuid.UUID, p fiscal.Period, source string, lines []Line) ([]Line, error) {
	tag := p.ID.String()
	have, err := s.current(ctx, company, p.ID, source, &tag)
	if err != nil || len(have) == 0 {
		return lines, err
	}
	return difference(lines, entryLines(have)), nil
}

// RevaluationDay is the day a revaluation of p asked for day (nil: the
// period's last day) is made on, or why not: a day outside p, or after
// today (400 naming as_of_date).
func (s *Store) RevaluationDay(p fiscal.Period, day *time.Time) (time.Time, error) {
	d := p.End
	if day != nil {
		d = *day
	}
	if !p.Span().Contains(d) {
		return d, apierr.Field("as_of_date", "in_period", "as_of_date must lie in the fiscal year, "+
			p.Start.Format(time.DateOnly)+" – "+p.End.Format(time.DateOnly))
	}
	if today := s.today(); d.After(today) {
		return d, apierr.Field("as_of_date", "not_after_today", "a revaluation takes the day's published rate: as_of_date is at most today, "+
			today.Format(time.DateOnly))
	}
	return d, nil
}

// CheckRevaluation holds period id and checks that a revaluation on day
// may be booked in it: not closed, not on or before the lock date
// (PERIOD_LOCKED), day in it and not after today. A locked year takes it:
// the revaluation is year-end work.
func (s *Store) CheckRevaluation(ctx context.Context, company, id uuid.UUID, day *time.Time) (fiscal.Period, time.Time, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, time.Time{}, err
	}
	if err := s.held(ctx, company, p); err != nil {
		return p, time.Time{}, err
	}
	d, err := s.RevaluationDay(p, day)
	if err != nil {
		return p, d, err
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return p, d, err
	}
	if p.Closed {
		return p, d, apierr.New(apierr.FXPeriodClosed, map[string]any{"fiscal_period_id": id})
	}
	return p, d, Postable(p, c.LockedThrough, d, SourceRevaluation)
}

// RunRevaluation revalues the company's foreign-currency items open at
// the end of day in period id (its last day when nil) at that day's rate:
// one currency_revaluation verifikat on day books what the books lack of
// it (nothing when a revaluation already agrees), reversed on the next
// year's first day when that year is open (else by the year-end that
// opens it).
func (s *Store) RunRevaluation(ctx context.Context, company, id uuid.UUID, day *time.Time) (Revaluation, error) {
	p, d, err := s.CheckRevaluation(ctx, company, id, day)
	out := Revaluation{PeriodID: id, Day: d, Items: []OpenItem{}}
	if err != nil {
		return out, err
	}
	if out.Items, out.Lines, err = s.revalue(ctx, company, p, d); err != nil {
		return out, err
	}
	next, err := s.periods.Following(ctx, company, p)
	if err != nil {
		return out, err
	}
	out.Adjusted, err = s.adjust(ctx, company, p, next, d, SourceRevaluation, revaluationText(d), out.Lines)
	return out, err
}

// RevaluationJob runs a queued revaluation.
func (s *Store) RevaluationJob(ctx context.Context, run *jobs.Run) (any, error) {
	var p revaluationParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, apierr.Wrap(apierr.InternalError, err)
	}
	r, err := s.RunRevaluation(ctx, run.CompanyID, p.PeriodID, &p.Day)
	if err != nil {
		return nil, err
	}
	return WireRevaluation(r), nil
}

// WireItems are open items as the API answers them.
func WireItems(items []OpenItem) []gen.YearEndOpenItem {
	out := make([]gen.YearEndOpenItem, len(items))
	for i, it := range items {
		out[i] = gen.YearEndOpenItem{Kind: gen.YearEndOpenItemKind(it.Kind), Id: it.ID, Number: it.Number,
			Account: it.Account, Currency: it.Currency, Remaining: it.Remaining, BookedSek: it.Booked, Rate: it.Rate,
			RevaluedSek: it.Revalued, Difference: it.Difference}
	}
	return out
}

// WireRevaluation is a revaluation as the API answers it.
func WireRevaluation(r Revaluation) gen.CurrencyRevaluation {
	out := gen.CurrencyRevaluation{FiscalPeriodId: r.PeriodID, AsOfDate: openapi_types.Date{Time: r.Day},
		Items: WireItems(r.Items), VerifikatLines: PostingLines(r.Adjusted.Lines),
		RevaluationEntryId: nullable.NewNullNullable[openapi_types.UUID](),
		ReversalEntryId:    nullable.NewNullNullable[openapi_types.UUID]()}
	if r.EntryID != nil {
		out.RevaluationEntryId = nullable.NewNullableWithValue(*r.EntryID)
	}
	if r.ReversalID != nil {
		out.ReversalEntryId = nullable.NewNullableWithValue(*r.ReversalID)
	}
	return out
}

// Period answers the company's fiscal period id.
func (s *Store) Period(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	return s.periods.Get(ctx, company, id)
}

// Adjustments is what the year-end of a period would book beyond its
// closing entry, for the readiness check: the invoices of the cash-method
// cut-off and whether the books lack any of it, the open foreign items
// and whether the books lack any of their revaluation, and why that
// revaluation cannot be worked out yet (a rate not known).
type Adjustments struct {
	Cutoff             []OpenItem
	CutoffPending      bool
	Foreign            []OpenItem
	RevaluationPending bool
	RatesMissing       *apierr.Error
}

// Adjustments works out the Adjustments of the company's period p on its
// last day (today while the year runs).
func (s *Store) Adjustments(ctx context.Context, company uuid.UUID, p fiscal.Period) (Adjustments, error) {
	var out Adjustments
	if len(s.Registers) == 0 {
		return out, nil
	}
	day := p.End
	if today := s.today(); today.Before(day) {
		day = today
	}
	var lines []Line
	var err error
	if out.Cutoff, lines, err = s.cutoff(ctx, company, p); err != nil {
		return out, err
	}
	if lines, err = s.pending(ctx, company, p, SourceCashCutoff, lines); err != nil {
		return out, err
	}
	out.CutoffPending = len(lines) > 0
	if out.Foreign, err = s.foreignAt(ctx, company, p, day); err != nil || len(out.Foreign) == 0 {
		return out, err
	}
	items, lines, err := s.revalue(ctx, company, p, day)
	if e, ok := apierr.As(err); ok && e.Code == apierr.FXClosingRateUnavailable {
		out.RatesMissing = e
		out.RevaluationPending = true
		return out, nil
	}
	if err != nil {
		return out, err
	}
	out.Foreign = items
	if lines, err = s.pending(ctx, company, p, SourceRevaluation, lines); err != nil {
		return out, err
	}
	out.RevaluationPending = len(lines) > 0
	return out, nil
}
