package banking

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of the bank's tables.
type Store struct {
	db    *store.DB
	audit *audit.Store
}

// NewStore returns the banking store on db.
func NewStore(db *store.DB, a *audit.Store) *Store { return &Store{db: db, audit: a} }

const cashColumns = `company_id, id, ledger_account, name, currency, iban, is_primary, enabled, source, balance,
	available_balance, balance_updated_at, voucher_series, invoice_payee, payee, bank_connection_id, created_at, updated_at`

// read fills what the row holds as JSON.
func read(a *CashAccount) error {
	a.Payee = map[string]any{}
	if len(a.PayeeJSON) > 0 {
		return json.Unmarshal(a.PayeeJSON, &a.Payee)
	}
	return nil
}

func readAll(rows []CashAccount) error {
	for i := range rows {
		if err := read(&rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// CashAccounts reads the company's cash accounts, the primary first, then
// by ledger account; only the enabled ones when enabledOnly.
func (s *Store) CashAccounts(ctx context.Context, company uuid.UUID, enabledOnly bool) ([]CashAccount, error) {
	out := []CashAccount{}
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+cashColumns+` FROM cash_accounts
		WHERE company_id = $1 AND (enabled OR NOT $2) ORDER BY is_primary DESC, ledger_account`, company, enabledOnly); err != nil {
		return nil, err
	}
	return out, readAll(out)
}

// CashAccount reads cash account id, locked for a change when lock.
func (s *Store) CashAccount(ctx context.Context, company, id uuid.UUID, lock bool) (CashAccount, error) {
	q := `SELECT ` + cashColumns + ` FROM cash_accounts WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var a CashAccount
	err := s.db.Q(ctx).GetContext(ctx, &a, q, company, id)
	if store.NotFound(err) {
		return a, apierr.New(apierr.CashAccountNotFound, map[string]any{"cash_account_id": id})
	}
	if err != nil {
		return a, err
	}
	return a, read(&a)
}

// Ledgers reads what a new cash account's ledger account is chosen
// among, holding the company's cash accounts against another creation
// until the transaction ends (two at once would pick the same slot).
func (s *Store) Ledgers(ctx context.Context, company uuid.UUID) (Ledgers, error) {
	var rows []struct {
		Kind    string `db:"kind"`
		Account string `db:"account"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		WITH held AS (SELECT pg_advisory_xact_lock(hashtextextended('cash_accounts/' || $1::uuid::text, 0)))
		SELECT 'cash' AS kind, ledger_account AS account FROM cash_accounts, held WHERE company_id = $1
		UNION ALL
		SELECT 'chart', account_number FROM accounts, held
		WHERE company_id = $1 AND account_number BETWEEN '1920' AND '1999'`, company)
	l := Ledgers{Taken: map[string]bool{}, InChart: map[string]bool{}}
	for _, r := range rows {
		if r.Kind == "cash" {
			l.Taken[r.Account] = true
		} else {
			l.InChart[r.Account] = true
		}
	}
	return l, err
}

// WithIBAN answers the cash account of company holding iban in
// currency, nil when none does.
func (s *Store) WithIBAN(ctx context.Context, company uuid.UUID, iban, currency string) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM cash_accounts WHERE company_id = $1 AND iban = $2
		AND currency = $3`, company, iban, currency)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// Insert stores the new cash account a, the company's primary when it is
// its first.
func (s *Store) Insert(ctx context.Context, a CashAccount) (CashAccount, error) {
	payee, err := json.Marshal(a.Payee)
	if err != nil {
		return a, err
	}
	err = s.db.Q(ctx).GetContext(ctx, &a, `INSERT INTO cash_accounts (company_id, ledger_account, name, currency, iban,
			is_primary, invoice_payee, payee)
		SELECT $1, $2, $3, $4, $5, NOT EXISTS (SELECT FROM cash_accounts WHERE company_id = $1 AND is_primary), $6, $7::jsonb
		RETURNING `+cashColumns, a.CompanyID, a.LedgerAccount, a.Name, a.Currency, a.IBAN, a.InvoicePayee, string(payee))
	switch {
	case store.UniqueViolation(err, "cash_accounts_iban"):
		return a, apierr.New(apierr.CashAccountIBANDuplicate, map[string]any{"field": "iban"})
	case store.UniqueViolation(err, ""):
		return a, apierr.New(apierr.CashAccountLedgerTaken, map[string]any{"field": "ledger_account",
			"ledger_account": a.LedgerAccount})
	case err != nil:
		return a, err
	}
	return a, read(&a)
}

// Update stores a's name, state, series and payee.
func (s *Store) Update(ctx context.Context, a CashAccount) (CashAccount, error) {
	payee, err := json.Marshal(a.Payee)
	if err != nil {
		return a, err
	}
	err = s.db.Q(ctx).GetContext(ctx, &a, `UPDATE cash_accounts SET name = $3, enabled = $4, voucher_series = $5,
			invoice_payee = $6, payee = $7::jsonb, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+cashColumns,
		a.CompanyID, a.ID, a.Name, a.Enabled, a.VoucherSeries, a.InvoicePayee, string(payee))
	if err != nil {
		return a, err
	}
	return a, read(&a)
}

// SetPrimary makes cash account id the company's primary, and no other.
func (s *Store) SetPrimary(ctx context.Context, company, id uuid.UUID) (CashAccount, error) {
	q := s.db.Q(ctx)
	if _, err := q.ExecContext(ctx, `UPDATE cash_accounts SET is_primary = false, updated_at = now()
		WHERE company_id = $1 AND is_primary AND id <> $2`, company, id); err != nil {
		return CashAccount{}, err
	}
	var a CashAccount
	if err := q.GetContext(ctx, &a, `UPDATE cash_accounts SET is_primary = true, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+cashColumns, company, id); err != nil {
		return a, err
	}
	return a, read(&a)
}

// SetPayee makes cash account id (nil: none) the one invoices in
// currency print as payee.
func (s *Store) SetPayee(ctx context.Context, company uuid.UUID, currency string, id *uuid.UUID) error {
	var err error
	if id == nil {
		_, err = s.db.Q(ctx).ExecContext(ctx, `DELETE FROM cash_account_payees WHERE company_id = $1 AND currency = $2`,
			company, currency)
	} else {
		_, err = s.db.Q(ctx).ExecContext(ctx, `INSERT INTO cash_account_payees (company_id, currency, cash_account_id)
			VALUES ($1, $2, $3) ON CONFLICT (company_id, currency) DO UPDATE SET cash_account_id = EXCLUDED.cash_account_id`,
			company, currency, *id)
	}
	return err
}

// Payees answers, per currency, the payment details invoices in it print:
// those of the cash account chosen for it, while it is enabled, an
// invoice payee and has any details.
func (s *Store) Payees(ctx context.Context, company uuid.UUID) (map[string]map[string]any, error) {
	var rows []CashAccount
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.* FROM cash_account_payees p
		JOIN cash_accounts a ON a.company_id = p.company_id AND a.id = p.cash_account_id
		WHERE p.company_id = $1 AND a.enabled AND a.invoice_payee AND a.payee <> '{}'`, company); err != nil {
		return nil, err
	}
	if err := readAll(rows); err != nil {
		return nil, err
	}
	out := make(map[string]map[string]any, len(rows))
	for _, a := range rows {
		out[a.Currency] = a.Payee
	}
	return out, nil
}

// PayeeDefaults answers which cash account each currency's invoices print.
func (s *Store) PayeeDefaults(ctx context.Context, company uuid.UUID) (map[string]uuid.UUID, error) {
	var rows []struct {
		Currency string    `db:"currency"`
		ID       uuid.UUID `db:"cash_account_id"`
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT currency, cash_account_id FROM cash_account_payees
		WHERE company_id = $1`, company); err != nil {
		return nil, err
	}
	out := make(map[string]uuid.UUID, len(rows))
	for _, r := range rows {
		out[r.Currency] = r.ID
	}
	return out, nil
}

// BankBalance is what the bank says a cash account held on a day.
type BankBalance struct {
	ID       uuid.UUID `db:"id"`
	Account  string    `db:"ledger_account"`
	Name     string    `db:"name"`
	Currency string    `db:"currency"`
	// Balance is the bank's last balance taken back to the day by the
	// transactions dated after it; nil when the bank never gave one, or
	// gave it before the day.
	Balance *money.Amount `db:"balance_on"`
}

// BalancesOn lists the company's cash accounts with the bank's balance on
// day: the last balance the bank reported less the transactions dated
// after day up to that report.
func (s *Store) BalancesOn(ctx context.Context, company uuid.UUID, day time.Time) ([]BankBalance, error) {
	out := []BankBalance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT a.id, a.ledger_account, a.name, a.currency,
			CASE WHEN a.balance IS NOT NULL AND a.balance_updated_at::date >= $2 THEN
				a.balance - coalesce((SELECT sum(t.amount) FROM bank_transactions t
					WHERE t.company_id = a.company_id AND t.cash_account_id = a.id AND t.date > $2
						AND t.date <= a.balance_updated_at::date), 0) END AS balance_on
		FROM cash_accounts a WHERE a.company_id = $1 ORDER BY a.ledger_account`, company, store.Day(day))
	return out, err
}

// RecordBalance keeps what the bank states cash account id held at the
// end of b.Day; a later statement of the same day replaces it.
func (s *Store) RecordBalance(ctx context.Context, company, id uuid.UUID, b StatementBalance) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO bank_statement_balances (company_id, cash_account_id, day, balance, source)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (company_id, cash_account_id, day) DO UPDATE SET balance = EXCLUDED.balance, source = EXCLUDED.source,
			recorded_at = now()`, company, id, store.Day(b.Day), b.Balance, b.Source)
	return err
}

// StatementBalances returns the balances the bank stated for cash account
// id, oldest first.
func (s *Store) StatementBalances(ctx context.Context, company, id uuid.UUID) ([]StatementBalance, error) {
	out := []StatementBalance{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT day, balance, source FROM bank_statement_balances
		WHERE company_id = $1 AND cash_account_id = $2 ORDER BY day`, company, id)
	return out, err
}

// UnbookedCounts answers, per company of ids that has any, its bank
// transactions neither booked nor ignored: what waits for a bookkeeper.
func (s *Store) UnbookedCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	return store.Counts(ctx, s.db, `SELECT company_id, count(*) AS n FROM bank_transactions
		WHERE company_id = ANY($1) AND journal_entry_id IS NULL AND NOT is_ignored GROUP BY company_id`, pq.Array(ids))
}
