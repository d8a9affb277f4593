package ledger

import (
	"context"
	"database/sql"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// ExportRow is one line of a verifikat as a file carries it, with its
// entry (series and number name it): current, struck by a rättelse, or added by one (with who signed
// the change). Amount is the line's signed amount (debit positive) as
// text with its two decimals: a file writes it as it is.
type ExportRow struct {
	Series      string
	Number      int
	Date        string // YYYYMMDD
	Description string
	Account     string
	Amount      string
	LineText    sql.NullString
	Dimensions  []byte // JSON object; nil for none
	Struck      bool
	Added       bool
	// Signature is who made the rättelse that struck or added the line:
	// the signature a file brought it with, else the actor's label.
	Signature sql.NullString
}

// ExportPage streams to fn the lines of up to limit posted entries of
// period after (series, number), the opening balance aside (a file gives
// it as #IB) and the year-end's closing entry too when withoutClosing, in
// series, number and line order (the database's order of series, which
// its voucher index keeps). One statement a page, its rows read as they
// come: memory stays a row's, however large the year. A line's order
// within its entry is its sort order, which the ledger keeps unique. It answers the
// last entry's series and number and how many entries the page held.
func (s *Store) ExportPage(ctx context.Context, company, period uuid.UUID, afterSeries string, afterNumber, limit int,
	withoutClosing bool, fn func(r *ExportRow) error) (string, int, int, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `
		SELECT e.voucher_series, e.voucher_number, to_char(e.entry_date, 'YYYYMMDD'), e.description, l.account_number,
			(l.debit_amount - l.credit_amount)::text, l.line_description, nullif(l.dimensions::text, '{}'),
			l.struck_by_rattelse_id IS NOT NULL, l.added_by_rattelse_id IS NOT NULL,
			CASE WHEN l.struck_by_rattelse_id IS NOT NULL OR l.added_by_rattelse_id IS NOT NULL THEN
				(SELECT coalesce(r.external_signature, r.actor_label) FROM journal_rattelser r
				 WHERE r.company_id = l.company_id AND r.id = coalesce(l.struck_by_rattelse_id, l.added_by_rattelse_id)) END
		FROM (SELECT id, voucher_series, voucher_number, entry_date, description FROM journal_entries
			WHERE company_id = $1 AND fiscal_period_id = $2 AND status = 'posted' AND voucher_number > 0
			  AND (voucher_series, voucher_number) > ($3, $4)
			  AND source_type <> 'opening_balance' AND NOT ($5 AND source_type = 'year_end')
			ORDER BY voucher_series, voucher_number LIMIT $6) e
		CROSS JOIN LATERAL (SELECT * FROM journal_lines l WHERE l.company_id = $1 AND l.journal_entry_id = e.id
			ORDER BY l.sort_order) l
		ORDER BY e.voucher_series, e.voucher_number, l.sort_order`,
		company, period, afterSeries, afterNumber, withoutClosing, limit)
	if err != nil {
		return afterSeries, afterNumber, 0, err
	}
	defer rows.Close()
	var r ExportRow
	n := 0
	for rows.Next() {
		if err := rows.Scan(&r.Series, &r.Number, &r.Date, &r.Description, &r.Account, &r.Amount,
			&r.LineText, &r.Dimensions, &r.Struck, &r.Added, &r.Signature); err != nil {
			return afterSeries, afterNumber, n, err
		}
		if n == 0 || r.Number != afterNumber || r.Series != afterSeries {
			n++
			afterSeries, afterNumber = r.Series, r.Number
		}
		if err := fn(&r); err != nil {
			return afterSeries, afterNumber, n, err
		}
	}
	return afterSeries, afterNumber, n, rows.Err()
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
