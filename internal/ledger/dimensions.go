package ledger

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// TagUse counts the lines of drafts and posted entries tagged with
// dimension dim — with the value code, when code is not "". A register
// entry in use is never deleted: the books keep their tags.
func (s *Store) TagUse(ctx context.Context, company uuid.UUID, dim int, code string) (int, error) {
	key := strconv.Itoa(dim)
	cond, args := `l.dimensions ? $2`, []any{company, key}
	if code != "" {
		cond, args = `l.dimensions ->> $2 = $3`, append(args, code)
	}
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT count(*) FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND e.status <> 'cancelled' AND `+cond, args...)
	return n, err
}

// DimensionTotal is what one account booked under one value of a
// dimension; Code nil for the lines without a tag of it.
type DimensionTotal struct {
	Account string       `db:"account_number"`
	Code    *string      `db:"code"`
	Debit   money.Amount `db:"debit"`
	Credit  money.Amount `db:"credit"`
}

// DimensionTotals sums the income-statement accounts (classes 3-8) of the
// period's posted, unstruck lines dated from..to, per account and value of
// dimension dim. Opening balances and the year-end's closing entry are
// left out: the one holds no results, the other zeroes them.
func (s *Store) DimensionTotals(ctx context.Context, company, period uuid.UUID, from, to time.Time, dim int) ([]DimensionTotal, error) {
	out := []DimensionTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT p.account_number, l.dimensions ->> $5 AS code, sum(p.debit_amount) AS debit, sum(p.credit_amount) AS credit
		FROM ledger_postings p
		JOIN journal_lines l ON l.company_id = p.company_id AND l.id = p.line_id
		JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
		WHERE p.company_id = $1 AND p.fiscal_period_id = $2 AND p.account_number BETWEEN '3000' AND '8999'
			AND p.entry_date BETWEEN $3 AND $4 AND NOT p.is_opening AND e.source_type <> $6
		GROUP BY p.account_number, l.dimensions ->> $5
		ORDER BY p.account_number, code NULLS FIRST`, company, period, from, to, strconv.Itoa(dim), SourceYearEnd)
	return out, err
}
