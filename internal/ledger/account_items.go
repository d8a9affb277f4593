package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// AccountItem is one posted verifikat's current lines on one account,
// netted (debit positive): what reconciliation matches against the
// account's outside truth.
type AccountItem struct {
	EntryID     uuid.UUID    `db:"journal_entry_id"`
	Date        time.Time    `db:"entry_date"`
	Series      string       `db:"voucher_series"`
	Number      int          `db:"voucher_number"`
	Description string       `db:"description"`
	Status      string       `db:"status"`
	SourceType  string       `db:"source_type"`
	Amount      money.Amount `db:"amount"`
	ReversesID  *uuid.UUID   `db:"reverses_id"`
	ReversedBy  *uuid.UUID   `db:"reversed_by_id"`
}

// Voucher is the item's voucher label, as Entry.Voucher writes it.
func (i AccountItem) Voucher() string { return Entry{Series: i.Series, Number: i.Number}.Voucher() }

// AccountItems returns the posted verifikat with current lines on
// account dated from..to, one per verifikat with its lines netted,
// opening-balance entries left out, in date and voucher order. It reads
// the general ledger's index range of each period.
func (s *Store) AccountItems(ctx context.Context, company uuid.UUID, account string, from, to time.Time) ([]AccountItem, error) {
	out := []AccountItem{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT p.journal_entry_id, p.entry_date, p.voucher_series, p.voucher_number, p.amount,
			e.description, e.status, e.source_type, e.reverses_id, e.reversed_by_id
		FROM (SELECT journal_entry_id, entry_date, voucher_series, voucher_number,
				sum(debit_amount - credit_amount) AS amount
			FROM ledger_postings
			WHERE company_id = $1 AND account_number = $2 AND entry_date BETWEEN $3 AND $4 AND NOT is_opening
			  AND fiscal_period_id IN (SELECT id FROM fiscal_periods WHERE company_id = $1
				AND period_start <= $4 AND period_end >= $3)
			GROUP BY journal_entry_id, entry_date, voucher_series, voucher_number) p
		JOIN journal_entries e ON e.company_id = $1 AND e.id = p.journal_entry_id
		ORDER BY p.entry_date, p.voucher_series, p.voucher_number`, company, account, store.Day(from), store.Day(to))
	return out, err
}

// EntryHeads returns the entries ids as AccountItem heads (amount zero):
// their voucher, date, status and storno links, for links to verifikat
// outside a window. Unknown ids are left out.
func (s *Store) EntryHeads(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]AccountItem, error) {
	rows := []AccountItem{}
	if len(ids) > 0 {
		if err := s.db.Q(ctx).SelectContext(ctx, &rows, `
			SELECT id AS journal_entry_id, entry_date, voucher_series, voucher_number, 0::numeric AS amount,
				description, status, source_type, reverses_id, reversed_by_id
			FROM journal_entries WHERE company_id = $1 AND id = ANY($2)`, company, pq.Array(ids)); err != nil {
			return nil, err
		}
	}
	out := make(map[uuid.UUID]AccountItem, len(rows))
	for _, r := range rows {
		out[r.EntryID] = r
	}
	return out, nil
}

// AccountBalances are account's balances at the end of each of days
// (debit minus credit), in one query: the opening balance of the latest
// year that has one, and everything posted after it through the day;
// without any opening balance, everything posted through the day.
func (s *Store) AccountBalances(ctx context.Context, company uuid.UUID, account string, days ...time.Time) ([]money.Amount, error) {
	in := make([]string, len(days))
	for i, d := range days {
		in[i] = d.Format(time.DateOnly)
	}
	out := []money.Amount{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT coalesce((SELECT sum(p.debit_amount - p.credit_amount) FROM ledger_postings p
			WHERE p.company_id = $1 AND p.account_number = $2 AND p.entry_date BETWEEN since.start AND d.day
			  AND p.fiscal_period_id IN (SELECT id FROM fiscal_periods WHERE company_id = $1
				AND period_end >= since.start AND period_start <= d.day)), 0)
		FROM unnest($3::date[]) WITH ORDINALITY AS d (day, n)
		CROSS JOIN LATERAL (
			SELECT coalesce(max(f.period_start), '-infinity'::date) AS start FROM fiscal_periods f
			WHERE f.company_id = $1 AND f.period_start <= d.day
			  AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.company_id = $1 AND e.fiscal_period_id = f.id
				AND e.source_type = 'opening_balance' AND e.status = 'posted')) since
		ORDER BY d.n`, company, account, pq.Array(in))
	return out, err
}
