package inbox

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Item is an inbox item as stored, with what is derived of it when read.
type Item struct {
	CompanyID              uuid.UUID     `db:"company_id"`
	ID                     uuid.UUID     `db:"id"`
	Status                 string        `db:"status"`
	Source                 string        `db:"source"`
	DocumentID             *uuid.UUID    `db:"document_id"`
	FileName               *string       `db:"file_name"`
	Kind                   string        `db:"kind_hint"`
	VendorName             *string       `db:"vendor_name"`
	Amount                 *money.Amount `db:"amount"`
	Currency               *string       `db:"currency"`
	InvoiceDate            *time.Time    `db:"invoice_date"`
	Extracted              Extracted     `db:"extracted_data"`
	Skipped                bool          `db:"extraction_skipped"`
	MatchedSupplierID      *uuid.UUID    `db:"matched_supplier_id"`
	MatchedTransactionID   *uuid.UUID    `db:"matched_transaction_id"`
	CreatedSupplierInvoice *uuid.UUID    `db:"created_supplier_invoice_id"`
	CreatedEntryID         *uuid.UUID    `db:"created_journal_entry_id"`
	EmailFrom              *string       `db:"email_from"`
	EmailSubject           *string       `db:"email_subject"`
	EmailReceivedAt        *time.Time    `db:"email_received_at"`
	EmailBody              *string       `db:"email_body_text"`
	EmailMessageID         *string       `db:"email_message_id"`
	ErrorMessage           *string       `db:"error_message"`
	CreatedAt              time.Time     `db:"created_at"`
	UpdatedAt              time.Time     `db:"updated_at"`
	// Derived when read: the entry its document is underlag of, whether
	// it is processed, and its underlag status.
	LinkedEntryID  *uuid.UUID `db:"linked_entry_id"`
	Processed      bool       `db:"processed"`
	UnderlagStatus *string    `db:"underlag_status"`
	// MatchedTransactionEntryID is the verifikat that books the matched
	// bank transaction, when one does.
	MatchedTransactionEntryID *uuid.UUID `db:"matched_transaction_entry_id"`
}

// Extracted is a reading as the database keeps it: JSON, passed as text
// (a binary parameter would be taken for jsonb's binary form).
type Extracted []byte

// Value passes the JSON as text; none is NULL.
func (e Extracted) Value() (driver.Value, error) {
	if len(e) == 0 {
		return nil, nil
	}
	return string(e), nil
}

// Scan reads the JSON.
func (e *Extracted) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*e = nil
	case []byte:
		*e = append((*e)[:0], v...)
	case string:
		*e = Extracted(v)
	default:
		return fmt.Errorf("inbox: cannot read %T as extracted data", src)
	}
	return nil
}

// Store holds the SQL of the inbox.
type Store struct{ db *store.DB }

// NewStore returns the inbox store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// read selects items i with what is derived of them.
const read = `SELECT i.*, d.journal_entry_id AS linked_entry_id, bt.journal_entry_id AS matched_transaction_entry_id,
		(i.created_supplier_invoice_id IS NOT NULL OR i.created_journal_entry_id IS NOT NULL
			OR d.journal_entry_id IS NOT NULL) AS processed,
		CASE WHEN i.document_id IS NULL THEN NULL
			WHEN d.id IS NULL THEN 'unknown'
			WHEN d.journal_entry_id IS NULL THEN
				CASE WHEN s.bookkeeping_locked_through IS NOT NULL
					AND coalesce(i.invoice_date, (i.created_at AT TIME ZONE 'Europe/Stockholm')::date) <= s.bookkeeping_locked_through
				THEN 'unlinked_locked' ELSE 'unlinked' END
			WHEN d.journal_entry_id IN (i.created_journal_entry_id, si.registration_journal_entry_id, si.payment_journal_entry_id)
				THEN 'anchored'
			ELSE 'anchored_elsewhere' END AS underlag_status
	FROM inbox_items i
	LEFT JOIN documents d ON d.company_id = i.company_id AND d.id = i.document_id
	LEFT JOIN supplier_invoices si ON si.company_id = i.company_id AND si.id = i.created_supplier_invoice_id
	LEFT JOIN company_settings s ON s.company_id = i.company_id
	LEFT JOIN bank_transactions bt ON bt.company_id = i.company_id AND bt.id = i.matched_transaction_id`

// Insert writes new items.
func (s *Store) Insert(ctx context.Context, items []Item) error {
	for _, it := range items {
		if _, err := sqlx.NamedExecContext(ctx, s.db.Q(ctx), `INSERT INTO inbox_items (company_id, id, status, source,
				document_id, file_name, kind_hint, vendor_name, amount, currency, invoice_date, extracted_data,
				extraction_skipped, matched_supplier_id, email_from, email_subject, email_received_at, email_body_text,
				email_message_id, error_message, created_at, updated_at)
			VALUES (:company_id, :id, :status, :source, :document_id, :file_name, :kind_hint, :vendor_name, :amount,
				:currency, :invoice_date, :extracted_data, :extraction_skipped, :matched_supplier_id, :email_from,
				:email_subject, :email_received_at, :email_body_text, :email_message_id, :error_message, :created_at, :updated_at)`, jsonNull(it)); err != nil {
			return store.Refused(err)
		}
	}
	return nil
}

// jsonNull passes an empty reading as NULL.
func jsonNull(it Item) Item {
	if len(it.Extracted) == 0 {
		it.Extracted = nil
	}
	return it
}

// Get answers item id of company, held (FOR UPDATE) when hold; another
// company's is INBOX_ITEM_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, hold bool) (Item, error) {
	q := read + ` WHERE i.company_id = $1 AND i.id = $2`
	if hold {
		q += ` FOR UPDATE OF i`
	}
	var it Item
	err := s.db.Q(ctx).GetContext(ctx, &it, q, company, id)
	if errors.Is(err, sql.ErrNoRows) {
		return it, apierr.New(apierr.InboxItemNotFound, map[string]any{"inbox_item_id": id})
	}
	return it, err
}

// Filter narrows the list.
type Filter struct {
	Status          *string
	UnprocessedOnly bool
}

// List answers up to limit+1 items after the position after, newest
// first.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Item, error) {
	var at *time.Time
	var id *uuid.UUID
	if after != nil {
		at, id = &after.At, &after.ID
	}
	out := []Item{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM (`+read+` WHERE i.company_id = $1
			AND ($2::text IS NULL OR i.status = $2)
			AND ($4::timestamptz IS NULL OR i.created_at < $4 OR (i.created_at = $4 AND i.id > $5))) l
		WHERE NOT ($3 AND l.processed)
		ORDER BY l.created_at DESC, l.id LIMIT $6`, company, f.Status, f.UnprocessedOnly, at, id, limit+1)
	return out, err
}

// Save writes what of it may change: the reading, the matches and what
// it became.
func (s *Store) Save(ctx context.Context, it Item) error {
	_, err := sqlx.NamedExecContext(ctx, s.db.Q(ctx), `UPDATE inbox_items SET kind_hint = :kind_hint, vendor_name = :vendor_name,
			amount = :amount, currency = :currency, invoice_date = :invoice_date, matched_supplier_id = :matched_supplier_id,
			matched_transaction_id = :matched_transaction_id,
			created_supplier_invoice_id = :created_supplier_invoice_id, created_journal_entry_id = :created_journal_entry_id
		WHERE company_id = :company_id AND id = :id`, it)
	return store.Refused(err)
}

// Delete removes an item.
func (s *Store) Delete(ctx context.Context, it Item) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM inbox_items WHERE company_id = $1 AND id = $2`, it.CompanyID, it.ID)
	return store.Refused(err)
}

// Seen records message id of company as taken and says whether it was
// taken before.
func (s *Store) Seen(ctx context.Context, company uuid.UUID, id string) (bool, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `WITH x AS (INSERT INTO inbox_messages (company_id, message_id) VALUES ($1, $2)
		ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) FROM x`, company, id)
	return n == 0, err
}

// WaitingCounts answers, per company of ids that has any, its inbox items
// nothing has come of yet (no supplier invoice, no verifikat, their
// document linked to none), failed ones too.
func (s *Store) WaitingCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	return store.Counts(ctx, s.db, `SELECT i.company_id, count(*) AS n FROM inbox_items i
		LEFT JOIN documents d ON d.company_id = i.company_id AND d.id = i.document_id
		WHERE i.company_id = ANY($1) AND i.created_supplier_invoice_id IS NULL AND i.created_journal_entry_id IS NULL
		  AND d.journal_entry_id IS NULL
		GROUP BY i.company_id`, pq.Array(ids))
}
