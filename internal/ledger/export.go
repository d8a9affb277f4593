package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
)

// ExportLine is a line of a verifikat as a file carries it: current,
// struck by a rättelse, or added by one (with who signed the change).
type ExportLine struct {
	EntryID     uuid.UUID    `db:"journal_entry_id"`
	SortOrder   int          `db:"sort_order"`
	Account     string       `db:"account_number"`
	Debit       money.Amount `db:"debit_amount"`
	Credit      money.Amount `db:"credit_amount"`
	Description *string      `db:"line_description"`
	Dimensions  Dimensions   `db:"dimensions"`
	Struck      bool         `db:"struck"`
	Added       bool         `db:"added"`
	// Signature is who made the rättelse that struck or added the line:
	// the signature a file brought it with, else the actor's label.
	Signature *string `db:"signature"`
}

// ExportEntry is a posted verifikat with every line it ever had.
type ExportEntry struct {
	ID          uuid.UUID `db:"id"`
	Series      string    `db:"voucher_series"`
	Number      int       `db:"voucher_number"`
	Date        time.Time `db:"entry_date"`
	Description string    `db:"description"`
	Lines       []ExportLine
}

// ExportEntries returns up to limit posted entries of period after
// (series, number), the opening balance aside (a file gives it as #IB),
// in series then number order (the database's order
// of series, which its voucher index keeps), each with all its lines in
// order; the year-end's closing
// entry left out when withoutClosing. A keyset page: memory stays the
// page's, however large the year.
func (s *Store) ExportEntries(ctx context.Context, company, period uuid.UUID, afterSeries string, afterNumber, limit int,
	withoutClosing bool) ([]ExportEntry, error) {
	out := []ExportEntry{}
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id, voucher_series, voucher_number, entry_date, description
		FROM journal_entries
		WHERE company_id = $1 AND fiscal_period_id = $2 AND status = 'posted'
		  AND (voucher_series, voucher_number) > ($3, $4)
		  AND source_type <> 'opening_balance' AND NOT ($5 AND source_type = 'year_end')
		ORDER BY voucher_series, voucher_number LIMIT $6`,
		company, period, afterSeries, afterNumber, withoutClosing, limit); err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]uuid.UUID, len(out))
	at := make(map[uuid.UUID]int, len(out))
	for i, e := range out {
		ids[i], at[e.ID] = e.ID, i
	}
	var lines []ExportLine
	if err := s.db.Q(ctx).SelectContext(ctx, &lines, `SELECT l.journal_entry_id, l.sort_order, l.account_number,
			l.debit_amount, l.credit_amount, l.line_description, l.dimensions,
			l.struck_by_rattelse_id IS NOT NULL AS struck, l.added_by_rattelse_id IS NOT NULL AS added,
			coalesce(r.external_signature, r.actor_label) AS signature
		FROM journal_lines l
		LEFT JOIN journal_rattelser r ON r.company_id = l.company_id
			AND r.id = coalesce(l.struck_by_rattelse_id, l.added_by_rattelse_id)
		WHERE l.company_id = $1 AND l.journal_entry_id = ANY($2)
		ORDER BY l.journal_entry_id, l.sort_order, l.id`, company, pq.Array(ids)); err != nil {
		return nil, err
	}
	for _, l := range lines {
		e := &out[at[l.EntryID]]
		e.Lines = append(e.Lines, l)
	}
	return out, nil
}

// YearBalance is an account's figures for a year: what it opened with,
// what the year's verifikationer moved, and what the closing entry did.
type YearBalance struct {
	Account string       `db:"account_number"`
	Opening money.Amount `db:"opening"`
	Period  money.Amount `db:"period"`
	Closing money.Amount `db:"closing"`
}

// YearBalances returns every account's opening, period and closing
// figures (debit positive) in period, in account order.
func (s *Store) YearBalances(ctx context.Context, company, period uuid.UUID) ([]YearBalance, error) {
	out := []YearBalance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, sum(opening_debit - opening_credit) AS opening,
			sum(debit - credit) AS period, sum(closing_debit - closing_credit) AS closing
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2
		GROUP BY account_number ORDER BY account_number`, company, period)
	return out, err
}

// MonthBalances returns each account's turnover per month of period
// (debit positive), the opening balance and the closing entry left out.
func (s *Store) MonthBalances(ctx context.Context, company, period uuid.UUID) ([]MonthTotal, error) {
	out := []MonthTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, month, debit, credit
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2 AND (debit <> 0 OR credit <> 0)
		ORDER BY account_number, month`, company, period)
	return out, err
}

// TagsUsed returns the dimension tags (dimension number to value codes)
// the lines of period carry.
func (s *Store) TagsUsed(ctx context.Context, company, period uuid.UUID) (map[string][]string, error) {
	var rows []struct {
		Dim  string `db:"key"`
		Code string `db:"value"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT DISTINCT t.key, t.value
		FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id AND l.journal_entry_id = e.id,
			jsonb_each_text(l.dimensions) AS t
		WHERE e.company_id = $1 AND e.fiscal_period_id = $2 AND e.status = 'posted' AND l.dimensions <> '{}'
		ORDER BY 1, 2`, company, period)
	out := map[string][]string{}
	for _, r := range rows {
		out[r.Dim] = append(out[r.Dim], r.Code)
	}
	return out, err
}
