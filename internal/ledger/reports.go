package ledger

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
)

// AccountTotals are an account's figures in a period: its opening balance
// (debit minus credit of the opening-balance entries) and the period's
// other debits and credits.
type AccountTotals struct {
	Account string       `db:"account_number"`
	Opening money.Amount `db:"opening"`
	Debit   money.Amount `db:"debit"`
	Credit  money.Amount `db:"credit"`
}

// Closing is the account's closing balance.
func (t AccountTotals) Closing() money.Amount { return t.Opening.Add(t.Debit).Sub(t.Credit) }

// Totals returns the figures of every account from..to (inclusive, four
// digits) with anything booked in the period, in account order; the
// closing entry counts in the debits and credits when withClosing. It
// reads the month balances kept at posting time: a few rows per account,
// however many lines the books hold.
func (s *Store) Totals(ctx context.Context, company, period uuid.UUID, from, to string, withClosing bool) ([]AccountTotals, error) {
	out := []AccountTotals{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT account_number, sum(opening_debit - opening_credit) AS opening,
			sum(debit + CASE WHEN $5 THEN closing_debit ELSE 0 END) AS debit,
			sum(credit + CASE WHEN $5 THEN closing_credit ELSE 0 END) AS credit
		FROM account_balances
		WHERE company_id = $1 AND fiscal_period_id = $2 AND account_number BETWEEN $3 AND $4
		GROUP BY account_number
		HAVING sum(opening_debit) <> 0 OR sum(opening_credit) <> 0 OR sum(debit) <> 0 OR sum(credit) <> 0
			OR ($5 AND (sum(closing_debit) <> 0 OR sum(closing_credit) <> 0))
		ORDER BY account_number`, company, period, from, to, withClosing)
	return out, err
}

// Posting is a posted line as the general ledger lists it.
type Posting struct {
	PostingPosition
	EntryID         uuid.UUID    `db:"journal_entry_id"`
	Debit           money.Amount `db:"debit_amount"`
	Credit          money.Amount `db:"credit_amount"`
	Description     string       `db:"description"`
	LineDescription *string      `db:"line_description"`
}

// PostingPosition is where a line stands in the general ledger: account,
// date, voucher, line.
type PostingPosition struct {
	Account string    `db:"account_number" json:"a"`
	Date    time.Time `db:"entry_date" json:"d"`
	Series  string    `db:"voucher_series" json:"s"`
	Number  int       `db:"voucher_number" json:"n"`
	LineID  uuid.UUID `db:"line_id" json:"l"`
}

// Postings returns up to limit posted lines of the period on accounts
// from..to after the position after (nil: from the start), in general-ledger
// order, opening-balance entries left out (they make the opening balance).
// The order is the primary key of ledger_postings, so a page is one index
// range scan however big the books.
func (s *Store) Postings(ctx context.Context, company, period uuid.UUID, from, to string, after *PostingPosition, limit int) ([]Posting, error) {
	start := PostingPosition{Account: from, Date: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}
	if after != nil {
		start = *after
	}
	out := []Posting{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT p.account_number, p.entry_date, p.voucher_series, p.voucher_number, p.line_id, p.journal_entry_id,
			p.debit_amount, p.credit_amount, e.description, l.line_description
		FROM ledger_postings p
		JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
		JOIN journal_lines l ON l.company_id = p.company_id AND l.id = p.line_id
		WHERE p.company_id = $1 AND p.fiscal_period_id = $2 AND p.account_number <= $3 AND NOT p.is_opening
		  AND (p.account_number, p.entry_date, p.voucher_series, p.voucher_number, p.line_id) > ($4, $5, $6, $7, $8)
		ORDER BY p.account_number, p.entry_date, p.voucher_series, p.voucher_number, p.line_id
		LIMIT $9`, company, period, to, start.Account, start.Date, start.Series, start.Number, start.LineID, limit)
	return out, err
}

// VoucherPosition is where an entry stands in the journal register.
type VoucherPosition struct {
	Series string `json:"s"`
	Number int    `json:"n"`
}

// Register returns up to limit posted entries of the period after the
// voucher after (nil: from the first), in voucher order, with their
// current lines, the lines an inline rättelse struck, and the count of
// their rättelser.
func (s *Store) Register(ctx context.Context, company, period uuid.UUID, after *VoucherPosition, limit int) ([]Entry, error) {
	if after == nil {
		after = &VoucherPosition{}
	}
	out := []Entry{}
	q := s.db.Q(ctx)
	if err := q.SelectContext(ctx, &out, `SELECT `+entryColumns+`, `+rattelseCount+` FROM journal_entries e
		WHERE company_id = $1 AND fiscal_period_id = $2 AND voucher_number > 0 AND status = 'posted'
		  AND (voucher_series, voucher_number) > ($3, $4)
		ORDER BY voucher_series, voucher_number LIMIT $5`, company, period, after.Series, after.Number, limit); err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]string, len(out))
	at := make(map[uuid.UUID]int, len(out))
	for i, e := range out {
		ids[i], at[e.ID] = e.ID.String(), i
	}
	var lines []struct {
		Line
		EntryID uuid.UUID `db:"journal_entry_id"`
	}
	if err := q.SelectContext(ctx, &lines, `SELECT `+lineColumns+`, journal_entry_id FROM journal_lines
		WHERE company_id = $1 AND journal_entry_id = ANY($2::uuid[])
		ORDER BY journal_entry_id, sort_order, id`, company, pq.Array(ids)); err != nil {
		return nil, err
	}
	for _, l := range lines {
		e := &out[at[l.EntryID]]
		if l.StruckBy != nil {
			e.Struck = append(e.Struck, l.Line)
		} else {
			e.Lines = append(e.Lines, l.Line)
		}
	}
	// Who made each inline rättelse, oldest first, for the entries that
	// have one.
	var corrected []string
	for _, e := range out {
		if e.RattelseCount > 0 {
			corrected = append(corrected, e.ID.String())
		}
	}
	if len(corrected) == 0 {
		return out, nil
	}
	var rs []Rattelse
	if err := q.SelectContext(ctx, &rs, `SELECT `+rattelseColumns+` FROM journal_rattelser
		WHERE company_id = $1 AND journal_entry_id = ANY($2::uuid[]) ORDER BY created_at, id`,
		company, pq.Array(corrected)); err != nil {
		return nil, err
	}
	for _, r := range rs {
		e := &out[at[r.EntryID]]
		e.Rattelser = append(e.Rattelser, r)
	}
	return out, nil
}

// BalancesAt answers the balances (debit less credit) of accounts at the
// end of day, as the balance sheet of the fiscal year holding day shows
// them: its opening balances and what was posted through day. An
// account with nothing is missing; so is every account of a day no
// fiscal year holds.
func (s *Store) BalancesAt(ctx context.Context, company uuid.UUID, accounts []string, day time.Time) (map[string]money.Amount, error) {
	var rows []struct {
		Account string       `db:"account_number"`
		Balance money.Amount `db:"balance"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT p.account_number, sum(p.debit_amount - p.credit_amount) AS balance
		FROM fiscal_periods f JOIN ledger_postings p ON p.company_id = f.company_id AND p.fiscal_period_id = f.id
		WHERE f.company_id = $1 AND $3::date BETWEEN f.period_start AND f.period_end
		  AND p.account_number = ANY($2) AND p.entry_date <= $3
		GROUP BY p.account_number`, company, pq.Array(accounts), day.Format(time.DateOnly))
	out := make(map[string]money.Amount, len(rows))
	for _, r := range rows {
		out[r.Account] = r.Balance
	}
	return out, err
}
