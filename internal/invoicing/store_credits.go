package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Credit is money a customer paid beyond what an invoice asked: the
// customer's, kept on 2420 (CreditAccount) until applied to a later
// invoice of theirs or paid back.
type Credit struct {
	CompanyID  uuid.UUID    `db:"company_id"`
	ID         uuid.UUID    `db:"id"`
	CustomerID uuid.UUID    `db:"customer_id"`
	InvoiceID  uuid.UUID    `db:"invoice_id"` // the invoice the money was paid for
	Currency   string       `db:"currency"`
	Amount     money.Amount `db:"amount"`
	SEK        money.Amount `db:"amount_sek"` // what 2420 was credited
	Date       time.Time    `db:"credit_date"`
	EntryID    uuid.UUID    `db:"journal_entry_id"`
	CreatedAt  time.Time    `db:"created_at"`
	// Used and UsedSEK are what its uses took, restorings given back.
	Used    money.Amount `db:"used"`
	UsedSEK money.Amount `db:"used_sek"`
}

// Remaining is what is left of the credit, in its currency.
func (c Credit) Remaining() money.Amount { return c.Amount.Sub(c.Used) }

// RemainingSEK is what is left of it on 2420.
func (c Credit) RemainingSEK() money.Amount { return c.SEK.Sub(c.UsedSEK) }

// Use is what took part of a credit: applied to an invoice, refunded,
// reversed with the verifikat that made it, or a use given back
// (restored, negative) when its verifikat was stornoed.
type Use struct {
	CompanyID  uuid.UUID    `db:"company_id"`
	ID         uuid.UUID    `db:"id"`
	CreditID   uuid.UUID    `db:"credit_id"`
	Kind       string       `db:"kind"`
	InvoiceID  *uuid.UUID   `db:"invoice_id"`
	Account    *string      `db:"account_number"`
	Amount     money.Amount `db:"amount"`
	SEK        money.Amount `db:"amount_sek"`
	Date       time.Time    `db:"use_date"`
	EntryID    uuid.UUID    `db:"journal_entry_id"`
	ReversesID *uuid.UUID   `db:"reverses_id"`
	CreatedAt  time.Time    `db:"created_at"`
}

const creditColumns = `c.company_id, c.id, c.customer_id, c.invoice_id, c.currency, c.amount, c.amount_sek, c.credit_date,
	c.journal_entry_id, c.created_at,
	coalesce((SELECT sum(u.amount) FROM customer_credit_uses u WHERE u.company_id = c.company_id AND u.credit_id = c.id), 0) AS used,
	coalesce((SELECT sum(u.amount_sek) FROM customer_credit_uses u WHERE u.company_id = c.company_id AND u.credit_id = c.id), 0) AS used_sek`

// AddCredit writes a new credit and sets its created_at as stored.
func (s *Store) AddCredit(ctx context.Context, c *Credit) error {
	err := s.db.Q(ctx).GetContext(ctx, &c.CreatedAt, `INSERT INTO customer_credits (company_id, id, customer_id, invoice_id,
			currency, amount, amount_sek, credit_date, journal_entry_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		RETURNING created_at`,
		c.CompanyID, c.ID, c.CustomerID, c.InvoiceID, c.Currency, c.Amount, c.SEK, store.Day(c.Date), c.EntryID)
	return store.Refused(err)
}

// Credits answers a customer's credits, oldest first.
func (s *Store) Credits(ctx context.Context, company, customer uuid.UUID) ([]Credit, error) {
	out := []Credit{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+creditColumns+` FROM customer_credits c
		WHERE c.company_id = $1 AND c.customer_id = $2 ORDER BY c.created_at, c.id`, company, customer)
	return out, err
}

// HoldCredit answers a customer's credit, its row held until the
// transaction ends so two uses of it go one after the other; nil when
// the customer has none of that id.
func (s *Store) HoldCredit(ctx context.Context, company, customer, id uuid.UUID) (*Credit, error) {
	var out []Credit
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+creditColumns+` FROM customer_credits c
		WHERE c.company_id = $1 AND c.customer_id = $2 AND c.id = $3 FOR UPDATE OF c`, company, customer, id)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// CreditsBy answers the credits verifikat entry made, held.
func (s *Store) CreditsBy(ctx context.Context, company, entry uuid.UUID) ([]Credit, error) {
	out := []Credit{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+creditColumns+` FROM customer_credits c
		WHERE c.company_id = $1 AND c.journal_entry_id = $2 ORDER BY c.id FOR UPDATE OF c`, company, entry)
	return out, err
}

// AddUse writes a use of a credit; the database refuses one that takes
// more than is left.
func (s *Store) AddUse(ctx context.Context, u Use) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO customer_credit_uses (company_id, id, credit_id, kind, invoice_id,
			account_number, amount, amount_sek, use_date, journal_entry_id, reverses_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		u.CompanyID, u.ID, u.CreditID, u.Kind, u.InvoiceID, u.Account, u.Amount, u.SEK, store.Day(u.Date), u.EntryID, u.ReversesID)
	return store.Refused(err)
}

// UsesBy answers the uses verifikat entry booked that stand (not given
// back yet).
func (s *Store) UsesBy(ctx context.Context, company, entry uuid.UUID) ([]Use, error) {
	out := []Use{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT u.company_id, u.id, u.credit_id, u.kind, u.invoice_id, u.account_number,
			u.amount, u.amount_sek, u.use_date, u.journal_entry_id, u.reverses_id, u.created_at
		FROM customer_credit_uses u WHERE u.company_id = $1 AND u.journal_entry_id = $2 AND u.kind IN ('applied', 'refunded')
		  AND NOT EXISTS (SELECT 1 FROM customer_credit_uses r WHERE r.company_id = u.company_id AND r.reverses_id = u.id)
		ORDER BY u.id`, company, entry)
	return out, err
}

// Uses answers the uses of a credit, oldest first.
func (s *Store) Uses(ctx context.Context, company, credit uuid.UUID) ([]Use, error) {
	out := []Use{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT u.company_id, u.id, u.credit_id, u.kind, u.invoice_id, u.account_number,
			u.amount, u.amount_sek, u.use_date, u.journal_entry_id, u.reverses_id, u.created_at
		FROM customer_credit_uses u WHERE u.company_id = $1 AND u.credit_id = $2 ORDER BY u.created_at, u.id`, company, credit)
	return out, err
}
