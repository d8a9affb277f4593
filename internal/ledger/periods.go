package ledger

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// LockPeriod locks the company's period id: nothing more is posted into
// it but the year-end and opening-balance entries. Drafts must be
// committed or cancelled first (PERIOD_LOCK_HAS_DRAFTS, with the count),
// and the accrued months dated in it booked (ACCRUALS_PENDING; with
// release they are booked first); a closed period is already final and
// is answered as it is.
func (s *Store) LockPeriod(ctx context.Context, company, id uuid.UUID, release bool) (fiscal.Period, error) {
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
	if err := s.pendingAccruals(ctx, company, p, release, "lock"); err != nil {
		return p, err
	}
	if s.LockBlocked != nil {
		if err := s.LockBlocked(ctx, company, p.Start, p.End); err != nil {
			return p, err
		}
	}
	if err := s.held(ctx, company, p); err != nil {
		return p, err
	}
	out, err := s.periods.Lock(ctx, company, p)
	return out, dbError(err)
}

// held is the imports' hold on period p, if any.
func (s *Store) held(ctx context.Context, company uuid.UUID, p fiscal.Period) error {
	return s.Held(ctx, company, p.Start, p.End)
}

// Held is the imports' hold on the days from..to, if any: what would fix
// them (a VAT filing, an export, a statement) waits for the import.
func (s *Store) Held(ctx context.Context, company uuid.UUID, from, to time.Time) error {
	if s.ImportHold == nil {
		return nil
	}
	return s.ImportHold(ctx, company, from, to)
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
// for good. The year-end must have carried the whole result to equity and
// set the next year's opening balance to this year's closing balance,
// account by account; anything posted since (the period was unlocked
// meanwhile) asks for it to run again: YEAR_END_NOT_RUN or
// OPENING_BALANCE_MISMATCH. The database holds the same rule.
func (s *Store) ClosePeriod(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	if err := fiscal.CheckClose(p, s.today()); err != nil {
		return p, err
	}
	if err := s.pendingAccruals(ctx, company, p, false, "close"); err != nil {
		return p, err
	}
	if err := s.held(ctx, company, p); err != nil {
		return p, err
	}
	bal, err := s.Balances(ctx, company, id)
	if err != nil {
		return p, err
	}
	sheet, err := s.Sheet(ctx, company)
	if err != nil {
		return p, err
	}
	if r := Result(bal, sheet); !r.IsZero() {
		return p, apierr.New(apierr.YearEndNotRun, map[string]any{"fiscal_period_id": id,
			"reason": "result_changed_after_year_end", "unclosed_result": r})
	}
	rows, err := s.Continuity(ctx, company, id)
	if err != nil {
		return p, err
	}
	diffs := breaks(rows)
	if len(diffs) == 0 {
		tagged, err := s.TaggedBreaks(ctx, company, id)
		if err != nil {
			return p, err
		}
		for _, r := range tagged {
			d := r.detail()
			d["dimensions"] = r.Tags
			diffs = append(diffs, d)
		}
	}
	if len(diffs) > 0 {
		next, err := s.periods.Following(ctx, company, p)
		if err != nil {
			return p, err
		}
		return p, apierr.New(apierr.OpeningBalanceMismatch, map[string]any{"fiscal_period_id": id,
			"next_period_id": next.ID, "accounts": diffs})
	}
	out, err := s.periods.Close(ctx, company, p)
	return out, dbError(err)
}

// ContinuityRow is a balance-sheet account's closing balance in a year
// against its opening balance in the year after.
type ContinuityRow struct {
	Account     string       `db:"account_number" json:"account_number"`
	Closing     money.Amount `db:"closing_balance" json:"closing_balance"`
	NextOpening money.Amount `db:"next_opening_balance" json:"next_opening_balance"`
}

// Difference is the next opening balance less the closing balance.
func (r ContinuityRow) Difference() money.Amount { return r.NextOpening.Sub(r.Closing) }

// detail is r as an error's details carry it.
func (r ContinuityRow) detail() map[string]any {
	return map[string]any{"account_number": r.Account, "closing_balance": r.Closing,
		"next_opening_balance": r.NextOpening, "difference": r.Difference()}
}

// breaks returns the rows whose figures differ, with their difference.
func breaks(rows []ContinuityRow) []map[string]any {
	out := []map[string]any{}
	for _, r := range rows {
		if !r.Difference().IsZero() {
			out = append(out, r.detail())
		}
	}
	return out
}

// Continuity returns, for every balance-sheet account with a figure, the
// closing balance of the company's period id and the opening balance of
// the year after it (zero when there is none yet), in account order. The
// database function it reads is the close guard's own definition. A
// year whose year-end has not run yet closes with its result where the
// closing entry will book it (openResult).
func (s *Store) Continuity(ctx context.Context, company, id uuid.UUID) ([]ContinuityRow, error) {
	out := []ContinuityRow{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, closing_balance, next_opening_balance
		FROM ledger_continuity($1, $2)`, company, id)
	if err != nil {
		return out, err
	}
	account, result, err := s.openResult(ctx, company, id, out)
	if err != nil || result.IsZero() {
		return out, err
	}
	i := sort.Search(len(out), func(i int) bool { return out[i].Account >= account })
	if i == len(out) || out[i].Account != account {
		out = slices.Insert(out, i, ContinuityRow{Account: account})
	}
	out[i].Closing = out[i].Closing.Add(result)
	if out[i].Closing.IsZero() && out[i].NextOpening.IsZero() {
		out = slices.Delete(out, i, i+1)
	}
	return out, nil
}

// openResult is the result of the company's period id while its
// year-end has not run (zero once it has), signed as the closing entry
// books it on equity, and the account it closes on as the next year's
// opening balance (rows, per account) shows it: the result account of the
// company's form, where the year-end books it, or retained earnings, when
// the next year opens with it appropriated there already (as other
// programs' files carry it).
func (s *Store) openResult(ctx context.Context, company, id uuid.UUID, rows []ContinuityRow) (string, money.Amount, error) {
	var result money.Amount
	p, err := s.periods.Get(ctx, company, id)
	if err != nil || p.YearEndEntryID != nil {
		return "", result, err
	}
	bal, err := s.Balances(ctx, company, id)
	if err != nil {
		return "", result, err
	}
	sheet, err := s.Sheet(ctx, company)
	if err != nil {
		return "", result, err
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return "", result, err
	}
	equity, retained := ResultAccount(c.EntityType), RetainedAccount(c.EntityType)
	for _, l := range ClosingLines(bal, sheet, equity) {
		if l.Account == equity {
			result = result.Add(l.Debit).Sub(l.Credit)
		}
	}
	var eq, ret ContinuityRow
	for _, r := range rows {
		switch r.Account {
		case equity:
			eq = r
		case retained:
			ret = r
		}
	}
	if eq.NextOpening.IsZero() && !result.IsZero() && ret.NextOpening.Cmp(ret.Closing.Add(result)) == 0 {
		return retained, result, nil
	}
	return equity, result, nil
}

// TaggedBreak is a break of continuity within an account: its balance on
// a set of carried dimension tags (a project) differs between the close
// of a year and the opening of the next.
type TaggedBreak struct {
	ContinuityRow
	Tags Dimensions `db:"dimensions"`
}

// TaggedBreaks returns the accounts and carried dimension tags whose
// closing balance in the company's period id differs from the opening
// balance of the year after it, in account order; a year's open result
// closes untagged where Continuity closes it.
func (s *Store) TaggedBreaks(ctx context.Context, company, id uuid.UUID) ([]TaggedBreak, error) {
	out := []TaggedBreak{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, dimensions, closing_balance,
		next_opening_balance FROM ledger_dimension_breaks($1, $2)`, company, id)
	if err != nil {
		return out, err
	}
	rows := []ContinuityRow{}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT account_number, closing_balance, next_opening_balance
		FROM ledger_continuity($1, $2)`, company, id); err != nil {
		return out, err
	}
	account, result, err := s.openResult(ctx, company, id, rows)
	if err != nil || result.IsZero() {
		return out, err
	}
	found := false
	for i := range out {
		if out[i].Account == account && len(out[i].Tags) == 0 {
			out[i].Closing, found = out[i].Closing.Add(result), true
		}
	}
	if !found {
		out = append(out, TaggedBreak{ContinuityRow: ContinuityRow{Account: account, Closing: result}, Tags: Dimensions{}})
		sort.SliceStable(out, func(i, j int) bool { return out[i].Account < out[j].Account })
	}
	kept := out[:0]
	for _, b := range out {
		if !b.Difference().IsZero() {
			kept = append(kept, b)
		}
	}
	return kept, nil
}

// Balances returns every account's balance in the period, opening
// balance and closing entry included, leaving out accounts at zero; in
// account order.
func (s *Store) Balances(ctx context.Context, company, period uuid.UUID) ([]Balance, error) {
	out := []Balance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT account_number, sum(opening_debit - opening_credit + debit - credit + closing_debit - closing_credit) AS balance
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2
		GROUP BY account_number HAVING sum(opening_debit - opening_credit + debit - credit + closing_debit - closing_credit) <> 0
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

// Entries counts the period's entries, drafts and posted: a year
// without any is empty, its dates still free to move.
func (s *Store) Entries(ctx context.Context, company, period uuid.UUID) (int, error) {
	return s.count(ctx, company, period, `status IN ('draft', 'posted')`)
}

// count counts the period's entries matching where.
func (s *Store) count(ctx context.Context, company, period uuid.UUID, where string) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT count(*) FROM journal_entries
		WHERE company_id = $1 AND fiscal_period_id = $2 AND `+where, company, period)
	return n, err
}

// adjustmentSources are the kinds of entry current reads: those
// journal_entries_adjustments holds.
var adjustmentSources = map[string]bool{SourceOpeningBalance: true, SourceAppropriation: true, SourceCashCutoff: true,
	SourceRevaluation: true}

// current returns the period's posted entries of source that stand: not
// undone by a storno and not themselves a storno; sourceID narrows them
// when set. Each is locked, with its lines.
func (s *Store) current(ctx context.Context, company, period uuid.UUID, source string, sourceID *string) ([]Entry, error) {
	if !adjustmentSources[source] {
		return nil, fmt.Errorf("ledger: %s entries are not kept in journal_entries_adjustments", source)
	}
	// The source is written into the query, not sent: a cached plan of
	// the statement can then use the partial index of these kinds.
	var ids []uuid.UUID
	if err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM journal_entries
		WHERE company_id = $1 AND fiscal_period_id = $2 AND source_type = `+pq.QuoteLiteral(source)+` AND status = 'posted'
		  AND reversed_by_id IS NULL AND reverses_id IS NULL AND ($3::text IS NULL OR source_id = $3)
		ORDER BY voucher_series, voucher_number`, company, period, sourceID); err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ids))
	// Held for the write that replaces them; a read (a report's check of
	// what is pending) holds nothing, and may run where nothing can be
	// held (a read replica).
	hold := store.UnitFrom(ctx) != nil
	for _, id := range ids {
		e, err := s.get(ctx, company, id, hold)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// openingSettable refuses to set, replace or reverse by hand the opening
// balance of period p where it follows from the year before: once that
// year is closed (OB_PREVIOUS_YEAR_CLOSED; only a year closed outside
// Kontera can be re-opened), or while it has bookkeeping here
// (OB_PREVIOUS_YEAR_IN_BOOKS; its year-end sets the opening balance).
func (s *Store) openingSettable(ctx context.Context, company uuid.UUID, p fiscal.Period) error {
	prev, err := s.periods.Covering(ctx, company, p.Start.AddDate(0, 0, -1))
	if err != nil || prev.ID == uuid.Nil {
		return err
	}
	d := map[string]any{"fiscal_period_id": p.ID, "previous_period_id": prev.ID}
	if prev.Closed {
		d["closed_externally"] = prev.ClosedExternally
		return apierr.New(apierr.OBPreviousYearClosed, d)
	}
	posted, err := s.count(ctx, company, prev.ID, `status = 'posted'`)
	if err != nil {
		return err
	}
	if posted > 0 {
		return apierr.New(apierr.OBPreviousYearInBooks, d)
	}
	return nil
}

// CloseExternally marks the company's period id as a year whose books
// were kept and closed outside Kontera: it must have ended before today
// and hold no bookkeeping here, drafts included
// (FISCAL_PERIOD_CLOSE_EXTERNAL_NATIVE_BOOKKEEPING: such a year is closed
// by its year-end). The next year's opening balance is fixed from then on.
func (s *Store) CloseExternally(ctx context.Context, company, id uuid.UUID, today time.Time) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	if err := fiscal.CheckCloseExternally(p, today); err != nil {
		return p, err
	}
	n, err := s.count(ctx, company, id, `status IN ('draft', 'posted')`)
	if err != nil {
		return p, err
	}
	if n > 0 {
		return p, apierr.New(apierr.FiscalPeriodCloseExternalNativeBookkeeping, map[string]any{
			"fiscal_period_id": id, "journal_entries": n})
	}
	out, err := s.periods.CloseExternally(ctx, company, p)
	return out, dbError(err)
}

// ReopenExternal re-opens the company's period id, closed outside
// Kontera, so that the opening balance of the year after it can be set
// again by hand; a year closed here never re-opens.
func (s *Store) ReopenExternal(ctx context.Context, company, id uuid.UUID) (fiscal.Period, error) {
	p, err := s.periods.Hold(ctx, company, id)
	if err != nil {
		return p, err
	}
	if err := fiscal.CheckReopen(p); err != nil {
		return p, err
	}
	out, err := s.periods.Reopen(ctx, company, p)
	return out, dbError(err)
}

// Posted counts the posted entries of the company's period: whether the
// year has bookkeeping in Kontera.
func (s *Store) Posted(ctx context.Context, company, period uuid.UUID) (int, error) {
	return s.count(ctx, company, period, `status = 'posted'`)
}
