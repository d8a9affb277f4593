package ledger

import (
	"context"
	"database/sql"
	"strings"

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
	// SourceID is the entry's source_id: an import's sie:<series>:<number>.
	SourceID   sql.NullString
	Account    string
	Amount     string
	LineText   sql.NullString
	Dimensions []byte // JSON object; nil for none
	Struck     bool
	Added      bool
	// Signature is who made the rättelse that struck or added the line:
	// the signature a file brought it with, else the actor's label.
	Signature sql.NullString
}

// cancelledByImport is true for an entry of journal_entries that an
// import wrote and the same import cancelled: an original its undo (or
// its replacement) reversed, or that storno. Such pairs leave nothing in
// the year's figures, so an export leaves them out and reads as the year
// did before the import; the journal register and the audit trail keep
// them.
const cancelledByImport = `(journal_entries.import_id IS NOT NULL
	AND coalesce(journal_entries.reversed_by_id, journal_entries.reverses_id) IS NOT NULL
	AND EXISTS (SELECT 1 FROM journal_entries o WHERE o.company_id = journal_entries.company_id
		AND o.id = coalesce(journal_entries.reversed_by_id, journal_entries.reverses_id)
		AND o.import_id = journal_entries.import_id))`

// ExportPage streams to fn the lines of up to limit posted entries of
// period after (series, number), the opening balance aside (a file gives
// it as #IB), what an import wrote and cancelled itself aside, and the
// year-end's closing entry too when withoutClosing, in
// series, number and line order (the database's order of series, which
// its voucher index keeps). One statement a page, its rows read as they
// come: memory stays a row's, however large the year. A line's order
// within its entry is its sort order, which the ledger keeps unique. It answers the
// last entry's series and number and how many entries the page held.
func (s *Store) ExportPage(ctx context.Context, company, period uuid.UUID, afterSeries string, afterNumber, limit int,
	withoutClosing bool, fn func(r *ExportRow) error) (string, int, int, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `
		SELECT e.voucher_series, e.voucher_number, to_char(e.entry_date, 'YYYYMMDD'), e.description, e.source_id, l.account_number,
			(l.debit_amount - l.credit_amount)::text, l.line_description, nullif(l.dimensions::text, '{}'),
			l.struck_by_rattelse_id IS NOT NULL, l.added_by_rattelse_id IS NOT NULL,
			CASE WHEN l.struck_by_rattelse_id IS NOT NULL OR l.added_by_rattelse_id IS NOT NULL THEN
				(SELECT coalesce(r.external_signature, r.actor_label) FROM journal_rattelser r
				 WHERE r.company_id = l.company_id AND r.id = coalesce(l.struck_by_rattelse_id, l.added_by_rattelse_id)) END
		FROM (SELECT id, voucher_series, voucher_number, entry_date, description, source_id FROM journal_entries
			WHERE company_id = $1 AND fiscal_period_id = $2 AND status = 'posted' AND voucher_number > 0
			  AND (voucher_series, voucher_number) > ($3, $4)
			  AND source_type <> 'opening_balance' AND NOT ($5 AND source_type = 'year_end')
			  AND NOT `+cancelledByImport+`
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
		if err := rows.Scan(&r.Series, &r.Number, &r.Date, &r.Description, &r.SourceID, &r.Account, &r.Amount,
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
	// Gross is every debit and credit the account's lines hold in the
	// year, however they net.
	Gross money.Amount `db:"gross"`
}

// YearBalances returns every account's opening, period and closing
// figures (debit positive) in period, in account order.
func (s *Store) YearBalances(ctx context.Context, company, period uuid.UUID) ([]YearBalance, error) {
	out := []YearBalance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, sum(opening_debit - opening_credit) AS opening,
			sum(debit - credit) AS period, sum(closing_debit - closing_credit) AS closing,
			sum(opening_debit + opening_credit + debit + credit + closing_debit + closing_credit) AS gross
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2
		GROUP BY account_number ORDER BY account_number`, company, period)
	return out, err
}

// MonthBalances returns each account's turnover per month of period
// (debit positive), the opening balance left out, the year-end's closing
// entry counted in its month when withClosing.
func (s *Store) MonthBalances(ctx context.Context, company, period uuid.UUID, withClosing bool) ([]MonthTotal, error) {
	out := []MonthTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, month,
			debit + CASE WHEN $3 THEN closing_debit ELSE 0 END AS debit,
			credit + CASE WHEN $3 THEN closing_credit ELSE 0 END AS credit
		FROM account_balances WHERE company_id = $1 AND fiscal_period_id = $2
		  AND (debit <> 0 OR credit <> 0 OR ($3 AND (closing_debit <> 0 OR closing_credit <> 0)))
		ORDER BY account_number, month`, company, period, withClosing)
	return out, err
}

// TagsUsed returns the dimension tags (dimension number to value codes)
// the lines of period carry, those an import cancelled itself aside.
func (s *Store) TagsUsed(ctx context.Context, company, period uuid.UUID) (map[string][]string, error) {
	var rows []struct {
		Dim  string `db:"key"`
		Code string `db:"value"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT DISTINCT t.key, t.value
		FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id AND l.journal_entry_id = e.id,
			jsonb_each_text(l.dimensions) AS t
		WHERE e.company_id = $1 AND e.fiscal_period_id = $2 AND e.status = 'posted' AND l.dimensions <> '{}'
		  AND NOT `+strings.ReplaceAll(cancelledByImport, "journal_entries.", "e.")+`
		ORDER BY 1, 2`, company, period)
	out := map[string][]string{}
	for _, r := range rows {
		out[r.Dim] = append(out[r.Dim], r.Code)
	}
	return out, err
}

// CancelledGross returns, per account, the debits and credits of period
// that entries an import wrote and cancelled itself hold: with
// YearBalance.Gross, whether anything else uses the account.
func (s *Store) CancelledGross(ctx context.Context, company, period uuid.UUID) (map[string]money.Amount, error) {
	var rows []struct {
		Account string       `db:"account_number"`
		Gross   money.Amount `db:"gross"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT l.account_number, sum(l.debit_amount + l.credit_amount) AS gross
		FROM journal_entries JOIN journal_lines l ON l.company_id = journal_entries.company_id
			AND l.journal_entry_id = journal_entries.id AND l.struck_by_rattelse_id IS NULL
		WHERE journal_entries.company_id = $1 AND journal_entries.fiscal_period_id = $2
		  AND journal_entries.status = 'posted' AND `+cancelledByImport+`
		GROUP BY 1`, company, period)
	out := make(map[string]money.Amount, len(rows))
	for _, r := range rows {
		out[r.Account] = r.Gross
	}
	return out, err
}
