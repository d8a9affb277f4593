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
}

// YearEndJob runs a queued year-end operation.
func (s *Store) YearEndJob(ctx context.Context, run *jobs.Run) (any, error) {
	var p yearEndParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, apierr.Wrap(apierr.YearEndFailed, err)
	}
	return s.RunYearEnd(ctx, run.CompanyID, p.PeriodID, func(phase string, current, total int) {
		run.Report(jobs.Progress{Phase: phase, Current: current, Total: total})
	})
}

// LockPeriod locks the company's period id: nothing more is posted into
// it but the year-end and opening-balance entries. Drafts must be
// committed or cancelled first (PERIOD_LOCK_HAS_DRAFTS, with the count); a
// closed period is already final and is answered as it is.
func (s *Store) LockPeriod(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	noop, err := fiscal.CheckLock(p)
	if noop || err != nil {
		return p, err
	}
	if err := s.noDrafts(ctx, company, id); err != nil {
		return p, err
	}
	// Bank transactions not yet booked will refuse the lock too
	// (PERIOD_HAS_UNBOOKED_TRANSACTIONS) once the bank domain exists.
	out, err := s.periods.Lock(ctx, company, p)
	return out, dbError(err)
}

// UnlockPeriod opens a locked period again; a closed one never
// (PERIOD_UNLOCK_CLOSED).
func (s *Store) UnlockPeriod(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	if err := fiscal.CheckUnlock(p); err != nil {
		return p, err
	}
	out, err := s.periods.Unlock(ctx, company, p)
	return out, dbError(err)
}

// ClosePeriod closes the company's locked period id after its year-end
// for good. When something was posted after the year-end (the period was
// unlocked meanwhile) so that the result is no longer carried to equity,
// the year-end must run again: YEAR_END_NOT_RUN.
func (s *Store) ClosePeriod(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	if err := fiscal.CheckClose(p); err != nil {
		return p, err
	}
	bal, err := s.Balances(ctx, company, id)
	if err != nil {
		return p, err
	}
	if !resultClosed(bal) {
		return p, apierr.New(apierr.YearEndNotRun, map[string]any{"fiscal_period_id": id,
			"reason": "result_changed_after_year_end", "unclosed_result": Result(bal)})
	}
	out, err := s.periods.Close(ctx, company, p)
	return out, dbError(err)
}

// Balances returns every account's balance in the period, opening
// balance included, leaving out accounts at zero; in account order.
func (s *Store) Balances(ctx context.Context, company, period uuid.UUID) ([]Balance, error) {
	out := []Balance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT account_number, sum(opening_debit - opening_credit + debit - credit) AS balance
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2
		GROUP BY account_number HAVING sum(opening_debit - opening_credit + debit - credit) <> 0
		ORDER BY account_number`, company, period)
	return out, err
}

// noDrafts refuses a period with drafts: PERIOD_LOCK_HAS_DRAFTS with the
// count (commit or cancel them first).
func (s *Store) noDrafts(ctx context.Context, company, period uuid.UUID) error {
	drafts, err := s.count(ctx, company, period, `status = 'draft'`)
	if err == nil && drafts > 0 {
		err = apierr.New(apierr.PeriodLockHasDrafts, map[string]any{"fiscal_period_id": period, "draft_count": drafts})
	}
	return err
}

// count counts the period's entries matching where.
func (s *Store) count(ctx context.Context, company, period uuid.UUID, where string) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT count(*) FROM journal_entries
		WHERE company_id = $1 AND fiscal_period_id = $2 AND `+where, company, period)
	return n, err
}

// openingEntry returns the period's posted opening balance that no storno
// has undone, if any.
func (s *Store) openingEntry(ctx context.Context, company, period uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM journal_entries
		WHERE company_id = $1 AND fiscal_period_id = $2 AND source_type = 'opening_balance'
		  AND status = 'posted' AND reversed_by_id IS NULL ORDER BY voucher_number LIMIT 1`, company, period)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// yearEnd is what the year-end of a period works from.
type yearEnd struct {
	period   fiscal.Period
	next     fiscal.Period // zero when the next year is still to be opened
	balances []Balance
}

// CheckYearEnd holds the company's period id and checks that its
// year-end may run: locked, not closed, the year before closed
// (YEAR_END_PRIOR_PERIOD_OPEN), something posted (YEAR_END_NO_ACTIVITY), a
// balanced trial balance (YEAR_END_UNBALANCED_TRIAL), not run already with
// nothing left to close (YEAR_END_ALREADY_RUN), and no opening balance yet
// in the next year (YEAR_END_NEXT_PERIOD_HAS_IB).
func (s *Store) CheckYearEnd(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.checkYearEnd(ctx, company, id)
	return err
}

func (s *Store) checkYearEnd(ctx context.Context, company, id uuid.UUID) (yearEnd, error) {
	p, err := s.periods.Hold(ctx, company, id)
	y := yearEnd{period: p}
	if err != nil {
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
	if err := fiscal.CheckYearEnd(p, prev); err != nil {
		return y, err
	}
	if err := s.noDrafts(ctx, company, id); err != nil {
		return y, err
	}
	posted, err := s.count(ctx, company, id, `status = 'posted'`)
	if err != nil {
		return y, err
	}
	if posted == 0 {
		return y, apierr.New(apierr.YearEndNoActivity, map[string]any{"fiscal_period_id": id})
	}
	if y.balances, err = s.Balances(ctx, company, id); err != nil {
		return y, err
	}
	var sum money.Amount
	for _, b := range y.balances {
		sum = sum.Add(b.Amount)
	}
	if !sum.IsZero() {
		return y, apierr.New(apierr.YearEndUnbalancedTrial, map[string]any{"fiscal_period_id": id, "difference": sum})
	}
	if p.YearEndAt != nil && resultClosed(y.balances) {
		return y, apierr.New(apierr.YearEndAlreadyRun, map[string]any{"fiscal_period_id": id,
			"year_end_entry_id": p.YearEndEntryID})
	}
	if y.next, err = s.periods.Following(ctx, company, p); err != nil || y.next.ID == uuid.Nil {
		return y, err
	}
	ib, err := s.openingEntry(ctx, company, y.next.ID)
	if err != nil {
		return y, err
	}
	if ib != nil {
		return y, apierr.New(apierr.YearEndNextPeriodHasIB, map[string]any{"fiscal_period_id": id,
			"next_period_id": y.next.ID, "opening_entry_id": *ib})
	}
	return y, nil
}

// YearEndResult is what a year-end run did.
type YearEndResult struct {
	ClosingEntryID        *uuid.UUID   `json:"closing_entry_id"`
	ClosingVoucherSeries  *string      `json:"closing_voucher_series"`
	ClosingVoucherNumber  *int         `json:"closing_voucher_number"`
	ResultAccount         string       `json:"result_account"`
	NetResult             money.Amount `json:"net_result"`
	NextPeriodID          uuid.UUID    `json:"next_period_id"`
	NextPeriodCreated     bool         `json:"next_period_created"`
	OpeningEntryID        *uuid.UUID   `json:"opening_entry_id"`
	OpeningVoucherNumber  *int         `json:"opening_voucher_number"`
	JournalEntriesCreated int          `json:"journal_entries_created"`
	OpeningBalancesSet    int          `json:"opening_balances_set"`
}

// RunYearEnd carries out the year-end (bokslut) of the company's period
// id, in the unit of work of ctx, after the checks of CheckYearEnd: a
// closing entry dated the last day zeroes every income-statement account
// onto the result account of the company's form, the next year is opened
// when it does not exist, and the balance-sheet accounts' closing
// balances become its opening balance (an opening_balance entry on its
// first day). report is told how far it has come.
func (s *Store) RunYearEnd(ctx context.Context, company, id uuid.UUID, report func(phase string, current, total int)) (YearEndResult, error) {
	var res YearEndResult
	y, err := s.checkYearEnd(ctx, company, id)
	if err != nil {
		return res, err
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return res, err
	}
	p := y.period
	res.ResultAccount = ResultAccount(c.EntityType)
	res.NetResult = Result(y.balances)

	report("closing_entry", 1, 3)
	if lines := ClosingLines(y.balances, res.ResultAccount); lines != nil {
		e, err := s.Post(ctx, company, Input{PeriodID: p.ID, Date: p.End, SourceType: SourceYearEnd,
			Description: "Bokslut " + p.Name + ": årets resultat till " + res.ResultAccount, Lines: lines})
		if err != nil {
			return res, err
		}
		res.ClosingEntryID, res.ClosingVoucherSeries, res.ClosingVoucherNumber = &e.ID, &e.Series, &e.Number
		res.JournalEntriesCreated++
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
	}
	res.NextPeriodID = next.ID

	report("opening_balances", 3, 3)
	after, err := s.Balances(ctx, company, p.ID)
	if err != nil {
		return res, err
	}
	if lines := OpeningLines(after); lines != nil {
		e, err := s.Post(ctx, company, Input{PeriodID: next.ID, Date: next.Start, SourceType: SourceOpeningBalance,
			Description: "Ingående balans från " + p.Name, Lines: lines})
		if err != nil {
			return res, err
		}
		res.OpeningEntryID, res.OpeningVoucherNumber = &e.ID, &e.Number
		res.JournalEntriesCreated++
		res.OpeningBalancesSet = len(lines)
	}
	return res, nil
}

// SetOpeningBalances posts the opening balance (ingående balans) of the
// company's period id by hand, for the first year a company keeps in
// Kontera: an opening_balance entry on the period's first day. The period
// must be open (OB_PERIOD_CLOSED, OB_PERIOD_LOCKED), after the company's
// lock date (OB_SET_COMPANY_LOCK_DATE) and without an opening balance
// already (OB_PERIOD_ALREADY_HAS_BALANCES; reverse that one first).
func (s *Store) SetOpeningBalances(ctx context.Context, company, id uuid.UUID, in []OpeningInput) (Entry, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return Entry{}, err
	}
	lines, err := ManualOpeningLines(in)
	if err != nil {
		return Entry{}, err
	}
	switch p.State() {
	case fiscal.Closed:
		return Entry{}, apierr.New(apierr.OBPeriodClosed, map[string]any{"fiscal_period_id": id})
	case fiscal.Locked:
		return Entry{}, apierr.New(apierr.OBPeriodLocked, map[string]any{"fiscal_period_id": id})
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return Entry{}, err
	}
	if c.LockedThrough != nil && !p.Start.After(*c.LockedThrough) {
		return Entry{}, apierr.New(apierr.OBSetCompanyLockDate, map[string]any{"fiscal_period_id": id,
			"locked_through": c.LockedThrough.Format(time.DateOnly)})
	}
	ib, err := s.openingEntry(ctx, company, id)
	if err != nil {
		return Entry{}, err
	}
	if ib != nil {
		return Entry{}, apierr.New(apierr.OBPeriodAlreadyHasBalances, map[string]any{"fiscal_period_id": id,
			"existing_entry_id": *ib, "existingEntryId": *ib})
	}
	return s.Post(ctx, company, Input{PeriodID: id, Date: p.Start, SourceType: SourceOpeningBalance,
		Description: "Ingående balans " + p.Name, Lines: lines})
}
