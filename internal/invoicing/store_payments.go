package invoicing

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Payment is a row of invoice_payments: money received (or, on a credit
// note, paid back) and the verifikat that booked it.
type Payment struct {
	ID      uuid.UUID    `db:"id"`
	Date    time.Time    `db:"payment_date"`
	Amount  money.Amount `db:"amount"`
	SEK     money.Amount `db:"amount_sek"`
	Rate    *money.Rate  `db:"exchange_rate"`
	Account *string      `db:"account_number"` // nil for a credit note's offset
	Source  string       `db:"source"`
	Notes   *string      `db:"notes"`
	EntryID *uuid.UUID   `db:"journal_entry_id"`
	// ReversesID names the payment this row undoes (its amounts negated):
	// the payment's verifikat was stornoed.
	ReversesID *uuid.UUID `db:"reverses_id"`
	At         time.Time  `db:"created_at"`
}

// Payments answers the payments of invoice id, oldest first.
func (s *Store) Payments(ctx context.Context, company, id uuid.UUID) ([]Payment, error) {
	out := []Payment{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id, payment_date, amount, amount_sek, exchange_rate,
			account_number, source, notes, journal_entry_id, reverses_id, created_at
		FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 ORDER BY created_at, id`, company, id)
	return out, err
}

// sameKind is the SQL condition on a payment row's source that makes it
// of the kind payout says (Skatteverket's payout, or the customer's
// money): a lookalike is of the same kind, amount and day.
func sameKind(payout bool) string {
	standing := ` AND reverses_id IS NULL AND NOT EXISTS (SELECT 1 FROM invoice_payments u
		WHERE u.company_id = invoice_payments.company_id AND u.reverses_id = invoice_payments.id)`
	if payout {
		return `source = 'rot_rut_payout'` + standing
	}
	return `source IN ('manual', 'bank')` + standing
}

// SamePayment answers a payment of the invoice of amount on day already
// recorded (a payout, when payout), nil when there is none.
func (s *Store) SamePayment(ctx context.Context, company, id uuid.UUID, amount money.Amount, day time.Time, payout bool) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM invoice_payments
		WHERE company_id = $1 AND invoice_id = $2 AND amount = $3 AND payment_date = $4 AND `+sameKind(payout)+` LIMIT 1`,
		company, id, amount, store.Day(day))
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// lookalike is the refusal of a payment written unless a lookalike is
// there (AddPayment, AddPayout), naming the one there is.
func (s *Store) lookalike(ctx context.Context, inv Invoice, p Payment, payout bool) error {
	dup, err := s.SamePayment(ctx, inv.CompanyID, inv.ID, p.Amount, p.Date, payout)
	if err != nil || dup == nil {
		return errors.Join(err, errors.New("invoicing: a payment was not written"))
	}
	return apierr.New(apierr.InvoicePaidLikelyDuplicate, map[string]any{"invoice_id": inv.ID,
		"existing_payment_id": *dup, "amount": p.Amount.Abs(), "payment_date": store.Day(p.Date)})
}

// AddPayment writes p as a payment of inv, and inv paid that much more
// (unlessSame: unless a payment of the same amount on the same day is
// there, 409 INVOICE_PAID_LIKELY_DUPLICATE):
// paid when nothing is left, partially paid else, with the verifikat of
// its sale when it was booked only now. It answers the invoice as read
// today.
func (s *Store) AddPayment(ctx context.Context, inv Invoice, p Payment, today time.Time, unlessSame bool) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH p AS (
			INSERT INTO invoice_payments (company_id, invoice_id, id, payment_date, amount, amount_sek, exchange_rate,
				account_number, source, notes, journal_entry_id)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
			WHERE NOT $12 OR NOT EXISTS (SELECT 1 FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2
				AND amount = $5 AND payment_date = $4 AND `+sameKind(false)+`)
			RETURNING amount)
		UPDATE invoices i SET paid_amount = i.paid_amount + p.amount,
			status = CASE WHEN i.paid_amount + p.amount = i.total - i.deduction_total THEN 'paid' ELSE 'partially_paid' END,
			paid_at = CASE WHEN i.paid_amount + p.amount = i.total - i.deduction_total THEN $4::date ELSE i.paid_at END,
			journal_entry_id = coalesce(i.journal_entry_id, $13), updated_at = now()
		FROM p WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$14::date"),
		inv.CompanyID, inv.ID, p.ID, store.Day(p.Date), p.Amount, p.SEK, p.Rate, p.Account, p.Source, p.Notes, p.EntryID,
		unlessSame, inv.EntryID, store.Day(today))
	if !errors.Is(err, sql.ErrNoRows) {
		return out, store.Refused(err)
	}
	// Nothing written: a lookalike is there.
	return inv, s.lookalike(ctx, inv, p, false)
}

// PaidOut answers what Skatteverket has paid out of the invoice's
// deduction.
func (s *Store) PaidOut(ctx context.Context, company, id uuid.UUID) (money.Amount, error) {
	var sum money.Amount
	err := s.db.Q(ctx).GetContext(ctx, &sum, `SELECT coalesce(sum(amount), 0) FROM invoice_payments
		WHERE company_id = $1 AND invoice_id = $2 AND source = 'rot_rut_payout'`, company, id)
	return sum, err
}

// AddPayout writes p, Skatteverket's payout of inv's deduction (unlessSame:
// as AddPayment), naming the verifikat of its sale when it was booked only
// now; what the customer has paid stays. It answers the invoice as read today.
func (s *Store) AddPayout(ctx context.Context, inv Invoice, p Payment, today time.Time, unlessSame bool) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH p AS (INSERT INTO invoice_payments (company_id, invoice_id, id, payment_date, amount, amount_sek,
				account_number, source, notes, journal_entry_id)
			SELECT $1, $2, $3, $4, $5, $5, $6, 'rot_rut_payout', $7, $8
			WHERE NOT $11 OR NOT EXISTS (SELECT 1 FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2
				AND amount = $5 AND payment_date = $4 AND `+sameKind(true)+`)
			RETURNING 1)
		UPDATE invoices i SET journal_entry_id = coalesce(i.journal_entry_id, $9), updated_at = now()
		FROM p WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$10::date"),
		inv.CompanyID, inv.ID, p.ID, store.Day(p.Date), p.Amount, p.Account, p.Notes, p.EntryID, inv.EntryID, store.Day(today),
		unlessSame)
	if !errors.Is(err, sql.ErrNoRows) {
		return out, store.Refused(err)
	}
	return inv, s.lookalike(ctx, inv, p, true)
}

// PaidBy answers the invoices verifikat entry paid, through payments not
// undone, held against another change.
func (s *Store) PaidBy(ctx context.Context, company, entry uuid.UUID, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$3::date")+` FROM invoices i
		WHERE i.company_id = $1 AND i.id IN (SELECT p.invoice_id FROM invoice_payments p
			WHERE p.company_id = $1 AND p.journal_entry_id = $2 AND p.reverses_id IS NULL
			  AND NOT EXISTS (SELECT 1 FROM invoice_payments u WHERE u.company_id = $1 AND u.reverses_id = p.id))
		ORDER BY i.id FOR UPDATE OF i`, company, entry, store.Day(today))
	return out, err
}

// UndoPayments undoes every payment verifikat entry booked, with rows of
// their own dated day and naming storno (the verifikat that undid them),
// and moves each invoice back to what is then paid of it, in one
// statement. It answers the invoices as read on today.
func (s *Store) UndoPayments(ctx context.Context, company, entry, storno uuid.UUID, day, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		WITH r AS (
			INSERT INTO invoice_payments (company_id, invoice_id, id, payment_date, amount, amount_sek, exchange_rate,
				account_number, source, journal_entry_id, reverses_id)
			SELECT p.company_id, p.invoice_id, gen_random_uuid(), $4, -p.amount, -p.amount_sek, p.exchange_rate,
				p.account_number, p.source, $3, p.id
			FROM invoice_payments p WHERE p.company_id = $1 AND p.journal_entry_id = $2 AND p.reverses_id IS NULL
			  AND p.source <> 'credit_note'
			  AND NOT EXISTS (SELECT 1 FROM invoice_payments u WHERE u.company_id = $1 AND u.reverses_id = p.id)
			RETURNING invoice_id, amount, source),
		d AS (SELECT invoice_id, coalesce(sum(amount) FILTER (WHERE source <> 'rot_rut_payout'), 0) AS amount
			FROM r GROUP BY invoice_id)
		UPDATE invoices i SET paid_amount = i.paid_amount + d.amount,
			status = CASE WHEN i.paid_amount + d.amount = 0 THEN 'sent'
				WHEN i.paid_amount + d.amount = i.total - i.deduction_total THEN 'paid' ELSE 'partially_paid' END,
			paid_at = CASE WHEN i.paid_amount + d.amount = i.total - i.deduction_total THEN i.paid_at END,
			updated_at = now()
		FROM d WHERE i.company_id = $1 AND i.id = d.invoice_id RETURNING `+columns("$5::date"),
		company, entry, storno, store.Day(day), store.Day(today))
	return out, store.Refused(err)
}
