package ledger

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
)

// MonthTotal is what one account turned over in one calendar month: its
// posted debits and credits, the opening balance and the year-end's
// closing entry left out.
type MonthTotal struct {
	Account string       `db:"account_number"`
	Month   time.Time    `db:"month"`
	Debit   money.Amount `db:"debit"`
	Credit  money.Amount `db:"credit"`
}

// Window returns the turnover per account lo..hi (four digits, inclusive)
// and calendar month of the posted lines dated from..to, whatever fiscal
// years the window spans; the year-end's closing entry counts when
// withClosing (a balance sheet after the year-end), never otherwise. A
// month the window holds whole is read from the month balances kept at
// posting time; a month it cuts, from the day totals kept beside them
// (account_day_totals: at most 31 rows an account), or, in a year whose
// day totals are still being summed after an upgrade
// (account_day_totals_pending), from the postings of the days it holds.
// Rows come in account, then month order; accounts that turned nothing
// over are absent.
func (s *Store) Window(ctx context.Context, company uuid.UUID, from, to time.Time, lo, hi string, withClosing bool) ([]MonthTotal, error) {
	out := []MonthTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, windowSQL, company, from, to, lo, hi, withClosing)
	return out, err
}

// windowSQL is Window's statement: $1 the company, $2 and $3 the first
// and last day, $4 and $5 the accounts, $6 whether the closing entry
// counts.
const windowSQL = `
		WITH m AS (
			SELECT b.fiscal_period_id, f.year_end_entry_id, b.account_number, b.month,
				b.debit + CASE WHEN $6 THEN b.closing_debit ELSE 0 END AS debit,
				b.credit + CASE WHEN $6 THEN b.closing_credit ELSE 0 END AS credit,
				(b.month + interval '1 month' - interval '1 day')::date AS last,
				NOT EXISTS (SELECT 1 FROM account_day_totals_pending x
					WHERE x.company_id = b.company_id AND x.fiscal_period_id = b.fiscal_period_id) AS days
			FROM account_balances b
			JOIN fiscal_periods f ON f.company_id = b.company_id AND f.id = b.fiscal_period_id
			WHERE b.company_id = $1 AND f.period_start <= $3 AND f.period_end >= $2
				AND b.account_number BETWEEN $4 AND $5
				AND b.month BETWEEN date_trunc('month', $2::date)::date AND $3
				AND (b.debit <> 0 OR b.credit <> 0 OR $6 AND (b.closing_debit <> 0 OR b.closing_credit <> 0))),
		b AS (
			SELECT m.*, greatest(m.month, $2::date) AS lo, least(m.last, $3::date) AS hi,
				m.month >= $2::date AND m.last <= $3::date AS whole
			FROM m)
		SELECT account_number, month, sum(debit) AS debit, sum(credit) AS credit FROM (
			SELECT account_number, month, debit, credit FROM b WHERE whole
			UNION ALL
			SELECT b.account_number, b.month, x.debit, x.credit FROM b
			CROSS JOIN LATERAL (
				SELECT coalesce(sum(d.debit + CASE WHEN $6 THEN d.closing_debit ELSE 0 END), 0) AS debit,
					coalesce(sum(d.credit + CASE WHEN $6 THEN d.closing_credit ELSE 0 END), 0) AS credit
				FROM account_day_totals d
				WHERE b.days AND d.company_id = $1 AND d.fiscal_period_id = b.fiscal_period_id
					AND d.account_number = b.account_number AND d.day BETWEEN b.lo AND b.hi
				UNION ALL
				SELECT coalesce(sum(p.debit_amount), 0), coalesce(sum(p.credit_amount), 0)
				FROM ledger_postings p
				WHERE NOT b.days AND p.company_id = $1 AND p.fiscal_period_id = b.fiscal_period_id
					AND p.account_number = b.account_number AND p.entry_date BETWEEN b.lo AND b.hi
					AND NOT p.is_opening AND ($6 OR p.journal_entry_id IS DISTINCT FROM b.year_end_entry_id)) x
			WHERE NOT b.whole) t
		GROUP BY account_number, month
		HAVING sum(debit) <> 0 OR sum(credit) <> 0
		ORDER BY account_number, month`

// BalancesOn returns the balance (debit minus credit) of each account
// lo..hi at the end of day, day lying in the fiscal year period that
// starts on start: its opening balance and what moved since, the closing
// entry counted (Totals' opening and Window's turnover, in one
// statement). Accounts whose balance is zero are absent.
func (s *Store) BalancesOn(ctx context.Context, company, period uuid.UUID, start, day time.Time, lo, hi string) ([]Balance, error) {
	out := []Balance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT account_number, sum(amount) AS balance FROM (
			SELECT account_number, opening_debit - opening_credit AS amount FROM account_balances
			WHERE company_id = $1 AND fiscal_period_id = $7 AND account_number BETWEEN $4 AND $5
			UNION ALL
			SELECT account_number, debit - credit FROM (`+windowSQL+`) w) t
		GROUP BY account_number
		HAVING sum(amount) <> 0
		ORDER BY account_number`, company, start, day, lo, hi, true, period)
	return out, err
}

// SettlementSource is the source type of the entry that settles a VAT
// period: the 26xx accounts cleared to 2650 (or 1650).
const SettlementSource = "vat_settlement"

// Settlements returns, per account and month, the posted lines dated
// from..to of the entries that settle VAT rather than make it: those of
// source type vat_settlement and their stornos, and any other entry with
// a line on one of vatAccounts and a line on 2650 or 1650 (a settlement
// booked by hand or read from a SIE file), and the cash-method cut-off at
// a year-end with its reversal: kontantmetoden's sales and purchases are
// reported when paid, never when the year-end books them. Opening
// balances and closing entries are not among them; the month balances
// never counted those as turnover.
func (s *Store) Settlements(ctx context.Context, company uuid.UUID, from, to time.Time, vatAccounts []string) ([]MonthTotal, error) {
	out := []MonthTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		WITH f AS (
			SELECT id FROM fiscal_periods WHERE company_id = $1 AND period_start <= $3 AND period_end >= $2),
		candidate AS (
			SELECT p.journal_entry_id AS id FROM ledger_postings p JOIN f ON f.id = p.fiscal_period_id
			WHERE p.company_id = $1 AND p.account_number IN ('1650', '2650') AND p.entry_date BETWEEN $2 AND $3
				AND NOT p.is_opening
			UNION
			SELECT e.id FROM journal_entries e
			WHERE e.company_id = $1 AND e.source_type IN ('vat_settlement', 'cash_method_cutoff') AND e.status = 'posted'
				AND e.entry_date BETWEEN $2 AND $3
			UNION
			SELECT st.id FROM journal_entries o
			JOIN journal_entries st ON st.company_id = o.company_id AND st.reverses_id = o.id
			WHERE o.company_id = $1 AND o.source_type = 'vat_settlement' AND st.status = 'posted'
				AND st.entry_date BETWEEN $2 AND $3),
		settling AS (
			SELECT e.id, date_trunc('month', e.entry_date)::date AS month FROM candidate c
			JOIN journal_entries e ON e.company_id = $1 AND e.id = c.id
			WHERE e.source_type NOT IN ($6, $7)
				AND (e.source_type IN ($5, $8)
					OR EXISTS (SELECT 1 FROM journal_entries o WHERE o.company_id = $1 AND o.id = e.reverses_id
						AND o.source_type = $5)
					OR EXISTS (SELECT 1 FROM journal_lines l WHERE l.company_id = $1 AND l.journal_entry_id = e.id
						AND l.struck_by_rattelse_id IS NULL AND l.account_number = ANY($4))))
		SELECT l.account_number, x.month, sum(l.debit_amount) AS debit, sum(l.credit_amount) AS credit
		FROM settling x JOIN journal_lines l ON l.company_id = $1 AND l.journal_entry_id = x.id
		WHERE l.struck_by_rattelse_id IS NULL
		GROUP BY l.account_number, x.month ORDER BY l.account_number, x.month`,
		company, from, to, pq.Array(vatAccounts), SettlementSource, SourceOpeningBalance, SourceYearEnd, SourceCashCutoff)
	return out, err
}

// Settled is a settlement verifikat of a VAT period.
type Settled struct {
	ID       uuid.UUID `db:"id" json:"journal_entry_id"`
	Series   string    `db:"voucher_series" json:"voucher_series"`
	Number   int       `db:"voucher_number" json:"voucher_number"`
	Date     time.Time `db:"entry_date" json:"entry_date"`
	SourceID string    `db:"source_id" json:"source_id"`
	Reversed bool      `db:"reversed" json:"reversed"`
}

// SettledIn returns the posted settlement verifikat dated from..to, oldest
// first, each naming its VAT period (source_id) and marked when a storno
// undid it.
func (s *Store) SettledIn(ctx context.Context, company uuid.UUID, from, to time.Time) ([]Settled, error) {
	out := []Settled{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT id, voucher_series, voucher_number, entry_date, coalesce(source_id, '') AS source_id,
			reversed_by_id IS NOT NULL AS reversed
		FROM journal_entries
		WHERE company_id = $1 AND source_type = 'vat_settlement' AND entry_date BETWEEN $2 AND $3 AND status = 'posted'
		ORDER BY posted_at, voucher_number`, company, from, to)
	return out, err
}

// WindowTagged is Window for the lines tagged code in dimension dim: read
// from the lines themselves, as the month balances keep no dimensions.
func (s *Store) WindowTagged(ctx context.Context, company uuid.UUID, from, to time.Time, lo, hi string, dim int, code string) ([]MonthTotal, error) {
	out := []MonthTotal{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT p.account_number, date_trunc('month', p.entry_date)::date AS month,
			sum(p.debit_amount) AS debit, sum(p.credit_amount) AS credit
		FROM ledger_postings p
		JOIN fiscal_periods f ON f.company_id = p.company_id AND f.id = p.fiscal_period_id
		JOIN journal_lines l ON l.company_id = p.company_id AND l.id = p.line_id
		JOIN journal_entries e ON e.company_id = p.company_id AND e.id = p.journal_entry_id
		WHERE p.company_id = $1 AND f.period_start <= $3 AND f.period_end >= $2
			AND p.account_number BETWEEN $4 AND $5 AND p.entry_date BETWEEN $2 AND $3
			AND NOT p.is_opening AND e.source_type <> $8 AND l.dimensions ->> $6 = $7
		GROUP BY 1, 2 ORDER BY 1, 2`, company, from, to, lo, hi, strconv.Itoa(dim), code, SourceYearEnd)
	return out, err
}

// PostedBefore reports whether any of accounts has a posted line, opening
// balances included, dated before day: one index probe per fiscal year
// and account.
func (s *Store) PostedBefore(ctx context.Context, company uuid.UUID, accounts []string, day time.Time) (bool, error) {
	var found bool
	// An account at a time: with the array in the index condition a
	// cached plan scanned the year's postings for the accounts' when none
	// was early enough.
	err := s.db.Q(ctx).GetContext(ctx, &found, `SELECT EXISTS (
		SELECT 1 FROM fiscal_periods f CROSS JOIN unnest($2::text[]) a(account) CROSS JOIN LATERAL (
			SELECT 1 FROM ledger_postings p WHERE p.company_id = $1 AND p.fiscal_period_id = f.id
				AND p.account_number = a.account AND p.entry_date < $3 LIMIT 1) x
		WHERE f.company_id = $1 AND f.period_start < $3)`, company, pq.Array(accounts), day)
	return found, err
}

// Drafts counts the period's drafts.
func (s *Store) Drafts(ctx context.Context, company, period uuid.UUID) (int, error) {
	return s.count(ctx, company, period, `status = 'draft'`)
}

// Gap is a voucher number missing from a series of a period: below the
// series' highest number, yet no posted entry holds it.
type Gap struct {
	Series string `db:"voucher_series"`
	Number int    `db:"voucher_number"`
}

// Gaps lists up to limit missing voucher numbers of the period's series
// that no explanation covers (GapNote), in series and number order.
func (s *Store) Gaps(ctx context.Context, company, period uuid.UUID, limit int) ([]Gap, error) {
	// Every numbered entry is posted (journal_entries' check), so a gap
	// lies between two numbers the period's voucher index holds: one
	// ordered pass over that index finds them, rather than a look-up for
	// every number up to each series' last. Only the series the ledger
	// does not know to be gapless are read (voucher_sequences.gapless;
	// NULL is not known yet), and any whose highest number is not the
	// last the ledger handed out: the books changed behind the ledger's
	// back (a renumbering), which the check exists to show.
	out := []Gap{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		WITH used AS (
			SELECT e.voucher_series, e.voucher_number,
				lag(e.voucher_number, 1, 0) OVER (PARTITION BY e.voucher_series ORDER BY e.voucher_number) AS prev
			FROM voucher_sequences q
			JOIN journal_entries e ON e.company_id = q.company_id AND e.fiscal_period_id = q.fiscal_period_id
				AND e.voucher_series = q.voucher_series AND e.voucher_number > 0
			WHERE q.company_id = $1 AND q.fiscal_period_id = $2
			  AND (q.gapless IS NOT TRUE OR q.last_number IS DISTINCT FROM (SELECT m.voucher_number FROM journal_entries m
				WHERE m.company_id = q.company_id AND m.fiscal_period_id = q.fiscal_period_id AND m.voucher_series = q.voucher_series
					AND m.voucher_number > 0
				ORDER BY m.voucher_number DESC LIMIT 1)))
		SELECT u.voucher_series, n AS voucher_number
		FROM used u CROSS JOIN LATERAL generate_series(u.prev + 1, u.voucher_number - 1) n
		WHERE u.voucher_number > u.prev + 1
		  AND NOT EXISTS (SELECT 1 FROM voucher_gap_explanations x WHERE x.company_id = $1 AND x.fiscal_period_id = $2
			AND x.voucher_series = u.voucher_series AND n BETWEEN x.gap_start AND x.gap_end)
		ORDER BY 1, 2 LIMIT $3`, company, period, limit)
	return out, err
}
