package banking

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

const txColumns = `company_id, id, cash_account_id, ledger_account, date, description, original_description,
	title_edited_at, amount, currency, amount_sek, exchange_rate, exchange_rate_date, reference, merchant_name,
	counterparty_account, mcc_code, external_id, import_source, bank_file_import_id, journal_entry_id, invoice_id,
	supplier_invoice_id, is_business, category, is_ignored, was_booked, document_id,
	reconciliation_method, created_at, updated_at`

// Settlement is where ingested transactions land: a cash account, or a
// bare ledger account when the company has none.
type Settlement struct {
	CashAccountID *uuid.UUID
	LedgerAccount string
	// ImportID is the bank-file import the rows come from, if any.
	ImportID *uuid.UUID
}

// stagedRow is a transaction as InsertTransactions and CopyTransactions
// hand it to the database: its id time-ordered (new rows go to the end
// of the id indexes), its source resolved, its search text made.
type stagedRow struct {
	ID                  uuid.UUID `json:"id"`
	Date                string    `json:"date"`
	Description         *string   `json:"description"`
	Amount              string    `json:"amount"`
	Currency            string    `json:"currency"`
	ExternalID          string    `json:"external_id"`
	MCC                 *string   `json:"mcc_code"`
	Merchant            *string   `json:"merchant_name"`
	Reference           *string   `json:"reference"`
	CounterpartyAccount *string   `json:"counterparty_account"`
	ImportSource        string    `json:"import_source"`
	Search              string    `json:"search_text"`
}

func staged(r Ingested, source string) (stagedRow, error) {
	id, err := uuid.NewV7()
	if r.ImportSource != nil {
		source = *r.ImportSource
	}
	return stagedRow{ID: id, Date: store.Day(r.Date), Description: r.Description, Amount: r.Amount.String(),
		Currency: r.Currency, ExternalID: r.ExternalID, MCC: r.MCC, Merchant: r.MerchantName, Reference: r.Reference,
		CounterpartyAccount: r.CounterpartyAccount, ImportSource: source,
		Search: searchText(r.Description, r.MerchantName)}, err
}

// insertStaged adds the staged rows r of the row source that follows it
// to $1's account ($2 cash account, $3 ledger account, $4 the file they
// came in): those whose external id the account has already (or a row
// before them in the same source) are left out; it returns the ids added.
const insertStaged = `INSERT INTO bank_transactions (company_id, id, cash_account_id, ledger_account, date,
		description, original_description, amount, currency, amount_sek, external_id, mcc_code, merchant_name,
		reference, counterparty_account, import_source, search_text, bank_file_import_id)
	SELECT $1, r.id, $2, $3, r.date, r.description, r.description, r.amount, r.currency,
		CASE WHEN r.currency = 'SEK' THEN r.amount END, r.external_id, r.mcc_code, r.merchant_name, r.reference,
		r.counterparty_account, r.import_source, r.search_text, $4
	FROM `

const insertStagedEnd = `
	ON CONFLICT (company_id, ledger_account, external_id) DO NOTHING
	RETURNING id`

// InsertTransactions stores rows on at as new transactions from source,
// leaving out those whose external id the account already has, and
// answers the ids of those it stored: one statement, for the few rows of
// a request (a bank file's many go through CopyTransactions).
func (s *Store) InsertTransactions(ctx context.Context, company uuid.UUID, at Settlement, source string, rows []Ingested) ([]uuid.UUID, error) {
	in := make([]stagedRow, len(rows))
	for i, r := range rows {
		var err error
		if in[i], err = staged(r, source); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	ids := []uuid.UUID{}
	err = s.db.Q(ctx).SelectContext(ctx, &ids, insertStaged+`jsonb_to_recordset($5::jsonb) AS r(id uuid, date date,
			description text, amount numeric, currency text, external_id text, mcc_code text, merchant_name text,
			reference text, counterparty_account text, import_source text, search_text text)`+insertStagedEnd,
		company, at.CashAccountID, at.LedgerAccount, at.ImportID, string(raw))
	return ids, err
}

// Transaction reads transaction id, locked for a change when lock.
func (s *Store) Transaction(ctx context.Context, company, id uuid.UUID, lock bool) (Transaction, error) {
	q := `SELECT ` + txColumns + ` FROM bank_transactions WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var t Transaction
	err := s.db.Q(ctx).GetContext(ctx, &t, q, company, id)
	if store.NotFound(err) {
		return t, apierr.New(apierr.TxNotFound, map[string]any{"transaction_id": id})
	}
	return t, err
}

// TxFilter narrows the transaction list.
type TxFilter struct {
	Status        string // booked, unbooked, ignored; "" both booked and unbooked
	Currency      *string
	From, To      *time.Time
	Search        *string
	CashAccountID *uuid.UUID
	After         *cursor.Position
	Limit         int
}

// Transactions reads a page of the company's transactions, newest first.
func (s *Store) Transactions(ctx context.Context, company uuid.UUID, f TxFilter) ([]Transaction, error) {
	var at *time.Time
	var last *uuid.UUID
	if f.After != nil {
		at, last = &f.After.At, &f.After.ID
	}
	var search *string
	if f.Search != nil {
		v := store.EscapeLike(store.Fold(*f.Search))
		search = &v
	}
	out := []Transaction{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+txColumns+` FROM bank_transactions
		WHERE company_id = $1
		  AND CASE $2 WHEN 'booked' THEN journal_entry_id IS NOT NULL
			WHEN 'unbooked' THEN journal_entry_id IS NULL AND NOT is_ignored
			WHEN 'ignored' THEN is_ignored
			ELSE NOT is_ignored END
		  AND ($3::text IS NULL OR currency = $3)
		  AND ($4::date IS NULL OR date >= $4) AND ($5::date IS NULL OR date <= $5)
		  AND ($6::text IS NULL OR search_text LIKE '%' || $6 || '%')
		  AND ($7::uuid IS NULL OR cash_account_id = $7)
		  AND ($8::timestamptz IS NULL OR (created_at, id) < ($8, $9::uuid))
		ORDER BY created_at DESC, id DESC LIMIT $10`,
		company, f.Status, f.Currency, store.DayOrNil(f.From), store.DayOrNil(f.To), search, f.CashAccountID,
		at, last, f.Limit+1)
	return out, err
}

// Save stores what may change of t: its title, account, booking and flags.
func (s *Store) Save(ctx context.Context, t Transaction) (Transaction, error) {
	err := s.db.Q(ctx).GetContext(ctx, &t, `UPDATE bank_transactions SET cash_account_id = $3, ledger_account = $4,
			description = $5, title_edited_at = $6, journal_entry_id = $7, is_business = $8, category = $9,
			is_ignored = $10, was_booked = $11, reconciliation_method = $12, invoice_id = $13, supplier_invoice_id = $14,
			document_id = $15, search_text = $16, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+txColumns,
		t.CompanyID, t.ID, t.CashAccountID, t.LedgerAccount, t.Description, t.TitleEditedAt, t.JournalEntryID,
		t.IsBusiness, t.Category, t.Ignored, t.WasBooked, t.ReconciliationMethod, t.InvoiceID, t.SupplierInvoiceID,
		t.DocumentID, searchText(t.Description, t.MerchantName, t.OriginalDescription))
	return t, err
}

// searchText is what a search looks in: the texts, folded.
func searchText(texts ...*string) string {
	var parts []string
	for _, t := range texts {
		if t != nil && strings.TrimSpace(*t) != "" {
			parts = append(parts, store.Fold(*t))
		}
	}
	return strings.Join(parts, " ")
}

// SaveRate stores t's kronor and the rate they were reckoned at.
func (s *Store) SaveRate(ctx context.Context, t Transaction) (Transaction, error) {
	err := s.db.Q(ctx).GetContext(ctx, &t, `UPDATE bank_transactions SET amount_sek = $3, exchange_rate = $4,
			exchange_rate_date = $5, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+txColumns,
		t.CompanyID, t.ID, t.AmountSEK, t.ExchangeRate, store.DayOrNil(t.ExchangeRateDate))
	return t, err
}

// DeleteTransaction removes transaction id.
func (s *Store) DeleteTransaction(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM bank_transactions WHERE company_id = $1 AND id = $2`, company, id)
	return err
}

// Unbooked is a transaction as unbooking left it, and as it was before.
type Unbooked struct {
	Transaction
	Before json.RawMessage `db:"before"`
}

// Unbook returns every transaction verifikat entry booked to the to-book
// list, its history kept (was_booked), in one statement: a storno of any
// verifikat asks, and most book none.
func (s *Store) Unbook(ctx context.Context, company, entry uuid.UUID) ([]Unbooked, error) {
	out := []Unbooked{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `UPDATE bank_transactions t SET journal_entry_id = NULL, is_business = NULL,
			category = NULL, reconciliation_method = NULL, invoice_id = NULL, supplier_invoice_id = NULL, was_booked = true,
			updated_at = now()
		FROM (SELECT id, to_jsonb(b) - 'search_text' AS before FROM bank_transactions b
			WHERE company_id = $1 AND journal_entry_id = $2 FOR UPDATE) o
		WHERE t.company_id = $1 AND t.id = o.id
		RETURNING `+prefixed("t.", txColumns)+`, o.before`, company, entry)
	return out, err
}

// prefixed is columns, a comma-separated list, each under alias p.
func prefixed(p, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// Unbooked answers how many transactions dated from..to wait to be booked
// or ignored, and the ids of a few of them.
func (s *Store) Unbooked(ctx context.Context, company uuid.UUID, from, to time.Time) (int, []uuid.UUID, error) {
	var rows []struct {
		ID    uuid.UUID `db:"id"`
		Count int       `db:"n"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT id, count(*) OVER () AS n FROM bank_transactions
		WHERE company_id = $1 AND journal_entry_id IS NULL AND NOT is_ignored AND date BETWEEN $2 AND $3
		ORDER BY date, id LIMIT 5`, company, store.Day(from), store.Day(to))
	if err != nil || len(rows) == 0 {
		return 0, nil, err
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return rows[0].Count, ids, nil
}

// ByLedger answers the company's cash account on ledger account a.
func (s *Store) ByLedger(ctx context.Context, company uuid.UUID, a string) (*CashAccount, error) {
	var rows []CashAccount
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+cashColumns+` FROM cash_accounts
		WHERE company_id = $1 AND ledger_account = $2`, company, a); err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], read(&rows[0])
}

// Primary answers the company's primary cash account, nil when it has none.
func (s *Store) Primary(ctx context.Context, company uuid.UUID) (*CashAccount, error) {
	var rows []CashAccount
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+cashColumns+` FROM cash_accounts
		WHERE company_id = $1 AND is_primary`, company); err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], read(&rows[0])
}

// Held reads the company's transactions among ids, locked, in id order
// (two bulk-books of overlapping rows wait for each other, never deadlock).
func (s *Store) Held(ctx context.Context, company uuid.UUID, ids []uuid.UUID) ([]Transaction, error) {
	out := []Transaction{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+txColumns+` FROM bank_transactions
		WHERE company_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE`, company, pq.Array(ids))
	return out, err
}

// LastOf reads the company's last categorized transaction of merchant or
// counterparty account, other than not; nil when there is none.
func (s *Store) LastOf(ctx context.Context, company uuid.UUID, merchant, account *string, not uuid.UUID) (*Transaction, error) {
	var rows []Transaction
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+txColumns+` FROM bank_transactions
		WHERE company_id = $1 AND journal_entry_id IS NOT NULL AND reconciliation_method = 'categorized' AND id <> $4
		  AND (merchant_name = $2 OR counterparty_account = $3)
		ORDER BY updated_at DESC, id LIMIT 1`, company, merchant, account, not)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], nil
}

// ReferencedDebits answers the transactions of ids that are money out,
// unbooked and carry a reference, oldest first.
func (s *Store) ReferencedDebits(ctx context.Context, company uuid.UUID, ids []uuid.UUID) ([]Transaction, error) {
	var out []Transaction
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+txColumns+` FROM bank_transactions WHERE company_id = $1 AND id = ANY($2)
		AND amount < 0 AND reference IS NOT NULL AND journal_entry_id IS NULL AND NOT is_ignored ORDER BY date, id`,
		company, pq.Array(ids))
	return out, err
}
