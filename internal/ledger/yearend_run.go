package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/money"
)

// YearEndOperation is the type of the asynchronous year-end operation.
const YearEndOperation = "fiscal_periods.year_end"

// yearEndParams are the parameters of a year-end operation.
type yearEndParams struct {
	PeriodID uuid.UUID `json:"fiscal_period_id"`
	// ReleaseAccruals books the accrued months waiting in the year
	// before its closing entry.
	ReleaseAccruals bool `json:"release_accruals,omitempty"`
}

// YearEndJob runs a queued year-end operation.
func (s *Store) YearEndJob(ctx context.Context, run *jobs.Run) (any, error) {
	var p yearEndParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, apierr.Wrap(apierr.YearEndFailed, err)
	}
	return s.RunYearEnd(ctx, run.CompanyID, p.PeriodID, p.ReleaseAccruals, func(phase string, current, total int) {
		run.Report(jobs.Progress{Phase: phase, Current: current, Total: total})
	})
}

// yearEnd is what the year-end of a period works from and would post.
type yearEnd struct {
	period   fiscal.Period
	next     fiscal.Period // zero when the next year is still to be opened
	company  Company
	balances []Balance
	sheet    Sheet
	// closing is the closing entry still to post (nil when the result is
	// in equity); ub the closing balances after it.
	closing []Line
	ub      []Balance
	// opening and appropriation are the next year's entries as they
	// should stand; the stale ones in the books are replaced.
	opening, appropriation []Line
	staleOpening           []Entry
	staleAppropriation     []Entry
	// The cash-method cut-off and the revaluation at the year's last
	// day: the items, and the lines the books still lack of each.
	cutoffItems, revaluationItems []OpenItem
	cutoff, revaluation           []Line
	cutoffID, revaluationID       *uuid.UUID
}

// done reports whether the year-end has nothing left to post.
func (y yearEnd) done() bool {
	return y.closing == nil && y.staleOpening == nil && y.staleAppropriation == nil && len(y.cutoff) == 0 &&
		len(y.revaluation) == 0
}

// CheckYearEnd holds the company's period id and checks that its
// year-end may run: locked, not closed, the year before closed
// (YEAR_END_PRIOR_PERIOD_OPEN), its last day after the company's lock
// date (PERIOD_LOCKED), no accrued month waiting in it unless release
// (ACCRUALS_PENDING), something posted (YEAR_END_NO_ACTIVITY), a
// balanced trial balance (YEAR_END_UNBALANCED_TRIAL), and something to do
// when it has run before (YEAR_END_ALREADY_RUN).
func (s *Store) CheckYearEnd(ctx context.Context, company, id uuid.UUID, release bool) error {
	_, err := s.checkYearEnd(ctx, company, id, false, release)
	return err
}

// checkYearEnd checks the year-end of the period id; with plan, or when
// it ran before (to tell whether anything is left to do), it also works
// out what the run posts. A request asking for a first run leaves that
// to the worker: it reads every line of the year. With release the
// accrued months waiting in the year are no refusal: the run (plan)
// books them first.
func (s *Store) checkYearEnd(ctx context.Context, company, id uuid.UUID, plan, release bool) (yearEnd, error) {
	p, err := s.periods.Hold(ctx, company, id)
	y := yearEnd{period: p}
	if err != nil {
		return y, err
	}
	if err := s.held(ctx, company, p); err != nil {
		return y, err
	}
	var prev *fiscal.Period
	if p.PreviousID != nil {
		pp, err := s.periods.Get(ctx, company, *p.PreviousID)
		if err != nil {
			return y, err
		}
		prev = &pp
	}
	if err := fiscal.CheckYearEnd(p, prev, s.today()); err != nil {
		return y, err
	}
	if y.company, err = s.company(ctx, company); err != nil {
		return y, err
	}
	if lock := y.company.LockedThrough; lock != nil && !p.End.After(*lock) {
		return y, apierr.New(apierr.PeriodLocked, map[string]any{"reason": reasonLockDate, "fiscal_period_id": id,
			"locked_through": lock.Format(time.DateOnly),
			"hint":           "the closing entry is dated the year's last day: move the lock date before it"})
	}
	if err := s.noDrafts(ctx, company, id); err != nil {
		return y, err
	}
	switch {
	case release && plan:
		if err := s.releaseInYearEnd(ctx, company, p); err != nil {
			return y, err
		}
	case !release:
		if err := s.pendingAccruals(ctx, company, p, false, "year_end"); err != nil {
			return y, err
		}
	}
	if err := s.adjustments(ctx, company, &y, plan); err != nil {
		return y, err
	}
	posted, err := s.count(ctx, company, id, `status = 'posted'`)
	if err != nil {
		return y, err
	}
	if posted == 0 && len(y.cutoff) == 0 && len(y.revaluation) == 0 {
		// A year of invoices kontantmetoden kept outside the books has
		// activity: the year-end books them.
		return y, apierr.New(apierr.YearEndNoActivity, map[string]any{"fiscal_period_id": id})
	}
	if y.balances, err = s.Balances(ctx, company, id); err != nil {
		return y, err
	}
	if y.sheet, err = s.Sheet(ctx, company); err != nil {
		return y, err
	}
	var sum money.Amount
	for _, b := range y.balances {
		sum = sum.Add(b.Amount)
	}
	if !sum.IsZero() {
		return y, apierr.New(apierr.YearEndUnbalancedTrial, map[string]any{"fiscal_period_id": id, "difference": sum})
	}
	if y.next, err = s.periods.Following(ctx, company, p); err != nil {
		return y, err
	}
	if !plan && p.YearEndAt == nil {
		return y, nil
	}
	if err := s.plan(ctx, company, &y); err != nil {
		return y, err
	}
	if p.YearEndAt != nil && y.done() {
		return y, apierr.New(apierr.YearEndAlreadyRun, map[string]any{"fiscal_period_id": id,
			"year_end_entry_id": p.YearEndEntryID})
	}
	return y, nil
}

// adjustments works out the year's cash-method cut-off and currency
// revaluation at its last day, what the books lack of each, and with
// plan books that, before the closing entry reads the result. A rate
// missing for the revaluation refuses the year-end (SI_FX_RATE_MISSING).
func (s *Store) adjustments(ctx context.Context, company uuid.UUID, y *yearEnd, plan bool) error {
	if len(s.Registers) == 0 {
		return nil
	}
	p := y.period
	items, lines, err := s.cutoff(ctx, company, p)
	if err != nil {
		return err
	}
	y.cutoffItems = items
	if y.cutoff, err = s.pending(ctx, company, p, SourceCashCutoff, lines); err != nil {
		return err
	}
	if y.revaluationItems, lines, err = s.revalue(ctx, company, p, p.End); err != nil {
		return err
	}
	if y.revaluation, err = s.pending(ctx, company, p, SourceRevaluation, lines); err != nil {
		return err
	}
	if !plan {
		return nil
	}
	tag := p.ID.String()
	for _, a := range []struct {
		lines        []Line
		source, desc string
		id           **uuid.UUID
	}{{y.cutoff, SourceCashCutoff, cutoffText(p), &y.cutoffID}, {y.revaluation, SourceRevaluation, revaluationText(p.End), &y.revaluationID}} {
		if len(a.lines) == 0 {
			continue
		}
		e, err := s.Post(ctx, company, Input{PeriodID: p.ID, Date: p.End, SourceType: a.source, SourceID: &tag,
			Description: a.desc, Lines: a.lines})
		if err != nil {
			return err
		}
		*a.id = &e.ID
	}
	return nil
}

// plan works out what the year-end of y.period posts: the closing entry
// for the result still open, and the next year's opening balance and
// result appropriation as they follow from the closing balances; the
// entries of an earlier run that no longer agree are marked stale.
func (s *Store) plan(ctx context.Context, company uuid.UUID, y *yearEnd) error {
	equity := ResultAccount(y.company.EntityType)
	y.closing = ClosingLines(y.balances, y.sheet, equity)
	y.ub = After(y.balances, y.closing)
	tagged, err := s.tagged(ctx, company, y.period.ID)
	if err != nil {
		return err
	}
	for _, l := range y.closing {
		tagged = append(tagged, Tagged{Account: l.Account, Amount: l.Debit.Sub(l.Credit)})
	}
	y.opening = OpeningLines(tagged, y.sheet)
	y.appropriation = AppropriationLines(y.ub, equity, RetainedAccount(y.company.EntityType))
	if y.next.ID == uuid.Nil {
		return nil
	}
	ib, err := s.current(ctx, company, y.next.ID, SourceOpeningBalance, nil)
	if err != nil {
		return err
	}
	if !SameNet(entryLines(ib), y.opening) {
		y.staleOpening = append([]Entry{}, ib...)
	}
	source := y.period.ID.String()
	ap, err := s.current(ctx, company, y.next.ID, SourceAppropriation, &source)
	if err != nil {
		return err
	}
	if !SameNet(entryLines(ap), y.appropriation) {
		y.staleAppropriation = append([]Entry{}, ap...)
	}
	return nil
}

// tagged returns the balance-sheet balances of the period per account and
// the dimension tags that carry over years.
func (s *Store) tagged(ctx context.Context, company, period uuid.UUID) ([]Tagged, error) {
	out := []Tagged{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, dimensions, balance
		FROM ledger_dimension_balances($1, $2, false)`, company, period)
	return out, err
}

// entryLines is every line of entries.
func entryLines(entries []Entry) []Line {
	var out []Line
	for _, e := range entries {
		out = append(out, e.Lines...)
	}
	return out
}

// YearEndResult is what a year-end run did.
type YearEndResult struct {
	ClosingEntryID       *uuid.UUID   `json:"closing_entry_id"`
	ClosingVoucherSeries *string      `json:"closing_voucher_series"`
	ClosingVoucherNumber *int         `json:"closing_voucher_number"`
	ResultAccount        string       `json:"result_account"`
	NetResult            money.Amount `json:"net_result"`
	NextPeriodID         uuid.UUID    `json:"next_period_id"`
	NextPeriodCreated    bool         `json:"next_period_created"`
	OpeningEntryID       *uuid.UUID   `json:"opening_entry_id"`
	OpeningVoucherNumber *int         `json:"opening_voucher_number"`
	ReplacedEntryIDs     []uuid.UUID  `json:"replaced_entry_ids"`
	AppropriationEntryID *uuid.UUID   `json:"appropriation_entry_id"`
	// CutoffEntryID books the invoices kontantmetoden left open (Cutoff);
	// RevaluationEntryID revalues the foreign items (Revalued). Their
	// reversals on the next year's first day count among the entries.
	CutoffEntryID         *uuid.UUID `json:"cash_method_cutoff_entry_id"`
	Cutoff                []OpenItem `json:"cash_method_cutoff"`
	RevaluationEntryID    *uuid.UUID `json:"revaluation_entry_id"`
	Revalued              []OpenItem `json:"revaluation"`
	JournalEntriesCreated int        `json:"journal_entries_created"`
	OpeningBalancesSet    int        `json:"opening_balances_set"`
}

// RunYearEnd carries out the year-end (bokslut) of the company's period
// id, in the unit of work of ctx, after the checks of CheckYearEnd. A
// closing entry dated the last day books the result still open on 8999
// Årets resultat against the result account of the company's form; the
// next year is opened when it does not exist; its opening balance (an
// opening_balance entry on its first day) is set to the balance-sheet
// accounts' closing balances, and the result is moved to retained
// earnings (a result_appropriation entry on the same day). When it runs
// again after late postings, the next year's entries that no longer agree
// are reversed by stornos of their own kind and posted anew, all in the
// one transaction. With release the accrued months still waiting in the
// year are booked first, dated in it. report is told how far it has come.
func (s *Store) RunYearEnd(ctx context.Context, company, id uuid.UUID, release bool, report func(phase string, current, total int)) (YearEndResult, error) {
	res := YearEndResult{ReplacedEntryIDs: []uuid.UUID{}}
	y, err := s.checkYearEnd(ctx, company, id, true, release)
	if err != nil {
		return res, err
	}
	p := y.period
	res.ResultAccount = ResultAccount(y.company.EntityType)
	res.NetResult = Result(y.balances, y.sheet)
	res.CutoffEntryID, res.Cutoff, res.RevaluationEntryID, res.Revalued = y.cutoffID, y.cutoffItems, y.revaluationID,
		y.revaluationItems
	for _, id := range []*uuid.UUID{y.cutoffID, y.revaluationID} {
		if id != nil {
			res.JournalEntriesCreated++
		}
	}

	report("closing_entry", 1, 3)
	if y.closing != nil {
		e, err := s.Post(ctx, company, Input{PeriodID: p.ID, Date: p.End, SourceType: SourceYearEnd,
			Description: "Bokslut " + p.Name + ": årets resultat till " + res.ResultAccount, Lines: y.closing})
		if err != nil {
			return res, err
		}
		res.ClosingEntryID, res.ClosingVoucherSeries, res.ClosingVoucherNumber = &e.ID, &e.Series, &e.Number
		res.JournalEntriesCreated++
	} else {
		res.ClosingEntryID = p.YearEndEntryID
	}
	if _, err := s.periods.MarkYearEnd(ctx, company, p, res.ClosingEntryID); err != nil {
		return res, dbError(err)
	}

	report("next_period", 2, 3)
	next := y.next
	if next.ID == uuid.Nil {
		start := p.End.AddDate(0, 0, 1)
		if next, _, err = s.periods.Open(ctx, company, "", fiscal.Span{Start: start, End: start.AddDate(1, 0, -1)}); err != nil {
			return res, err
		}
		if s.PeriodsChanged != nil {
			if err := s.PeriodsChanged(ctx, company); err != nil {
				return res, err
			}
		}
		res.NextPeriodCreated = true
		y.staleOpening, y.staleAppropriation = []Entry{}, []Entry{}
	}
	res.NextPeriodID = next.ID
	reversed, err := s.reverseAdjustments(ctx, company, p, next)
	if err != nil {
		return res, err
	}
	res.JournalEntriesCreated += reversed

	report("opening_balances", 3, 3)
	source := p.ID.String()
	for _, step := range []struct {
		stale  []Entry
		lines  []Line
		source string
		desc   string
		set    func(Entry)
	}{
		{y.staleOpening, y.opening, SourceOpeningBalance, "Ingående balans från " + p.Name, func(e Entry) {
			res.OpeningEntryID, res.OpeningVoucherNumber, res.OpeningBalancesSet = &e.ID, &e.Number, len(e.Lines)
		}},
		{y.staleAppropriation, y.appropriation, SourceAppropriation, "Resultatdisposition: " + p.Name +
			" års resultat till " + RetainedAccount(y.company.EntityType), func(e Entry) { res.AppropriationEntryID = &e.ID }},
	} {
		if step.stale == nil {
			continue // the entries in the books still agree
		}
		for i := range step.stale {
			old := step.stale[i]
			depth, _ := NextDepth(old, true)
			if _, err := s.storno(ctx, company, &old, next.ID, old.Date, depth); err != nil {
				return res, err
			}
			res.ReplacedEntryIDs = append(res.ReplacedEntryIDs, old.ID)
			res.JournalEntriesCreated++
		}
		if step.lines == nil {
			continue
		}
		in := Input{PeriodID: next.ID, Date: next.Start, SourceType: step.source, Description: step.desc, Lines: step.lines}
		if step.source == SourceAppropriation {
			in.SourceID = &source
		}
		e, err := s.Post(ctx, company, in)
		if err != nil {
			return res, err
		}
		step.set(e)
		res.JournalEntriesCreated++
	}
	return res, nil
}

// SetOpeningBalances posts the opening balance (ingående balans) of the
// company's period id by hand, for the first year a company keeps in
// Kontera: an opening_balance entry on the period's first day. The period
// must be open (OB_PERIOD_CLOSED, OB_PERIOD_LOCKED), not follow a year
// whose closing balances fix it (OB_PREVIOUS_YEAR_CLOSED,
// OB_PREVIOUS_YEAR_IN_BOOKS), lie after the company's lock date
// (OB_SET_COMPANY_LOCK_DATE) and have no opening balance already
// (OB_PERIOD_ALREADY_HAS_BALANCES; reverse that one first).
func (s *Store) SetOpeningBalances(ctx context.Context, company, id uuid.UUID, in []OpeningInput) (Entry, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return Entry{}, err
	}
	sheet, err := s.Sheet(ctx, company)
	if err != nil {
		return Entry{}, err
	}
	lines, err := ManualOpeningLines(in, sheet)
	if err != nil {
		return Entry{}, err
	}
	switch p.State() {
	case fiscal.Closed:
		return Entry{}, apierr.New(apierr.OBPeriodClosed, map[string]any{"fiscal_period_id": id})
	case fiscal.Locked:
		return Entry{}, apierr.New(apierr.OBPeriodLocked, map[string]any{"fiscal_period_id": id})
	}
	if err := s.openingSettable(ctx, company, p); err != nil {
		return Entry{}, err
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return Entry{}, err
	}
	if c.LockedThrough != nil && !p.Start.After(*c.LockedThrough) {
		return Entry{}, apierr.New(apierr.OBSetCompanyLockDate, map[string]any{"fiscal_period_id": id,
			"locked_through": c.LockedThrough.Format(time.DateOnly)})
	}
	ib, err := s.current(ctx, company, id, SourceOpeningBalance, nil)
	if err != nil {
		return Entry{}, err
	}
	if len(ib) > 0 {
		return Entry{}, apierr.New(apierr.OBPeriodAlreadyHasBalances, map[string]any{"fiscal_period_id": id,
			"existing_entry_id": ib[0].ID, "existingEntryId": ib[0].ID})
	}
	return s.Post(ctx, company, Input{PeriodID: id, Date: p.Start, SourceType: SourceOpeningBalance,
		Description: "Ingående balans " + p.Name, Lines: lines})
}
