package payables

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of supplier invoices, their lines and payments.
type Store struct {
	db *store.DB
	// arrival takes the company's next arrival number (Books.ArrivalSQL).
	arrival string
}

// NewStore returns the payables store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// columns reads a row of supplier_invoices i with overdue as of $today.
func columns(today string) string {
	return `i.*, supplier_invoices_overdue(i.status, i.due_date, i.total, i.paid_amount, ` + today + `) AS overdue`
}

// itemsJSON is items as the JSON the insert reads them from.
func itemsJSON(items []Item) (string, error) {
	rows := make([]map[string]any, len(items))
	for k, it := range items {
		rows[k] = map[string]any{"id": it.ID, "sort_order": it.SortOrder, "description": it.Description,
			"account_number": it.Account, "amount": it.Amount, "vat_rate": it.VATRate, "vat_amount": it.VAT,
			"apply_slp": it.SLP, "dimensions": it.Dimensions, "accrual_period_start": store.DayOrNil(it.AccrualStart),
			"accrual_period_end": store.DayOrNil(it.AccrualEnd), "accrual_balance_account": it.AccrualAccount,
			"credited_item_id": it.CreditedItemID}
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// insertCTEs are the statement that writes a registered invoice with its
// lines, taking the company's next arrival number, as the common table
// expressions n (the number), i (the invoice, RETURNING *) and l (the
// lines), each name prefixed; $33 holds the lines as JSON.
func (s *Store) insertCTEs(prefix string) []string {
	n, i, l := prefix+"n", prefix+"i", prefix+"l"
	return []string{n + ` AS (` + s.arrival + `)`,
		i + ` AS (
			INSERT INTO supplier_invoices (company_id, id, supplier_id, supplier_name, arrival_number, supplier_invoice_number,
				is_credit_note, credited_invoice_id, invoice_date, due_date, received_date, delivery_date, currency,
				exchange_rate, vat_treatment, reverse_charge, payment_reference, notes, ore_rounding, subtotal, vat_amount,
				rounding_amount, total, total_sek, cash_method, booking_deferred, registration_journal_entry_id,
				document_id, inbox_item_id, paid_with_private_funds, employee_id, claimant_name, default_dimensions)
			SELECT $1, $2, $3, $4, ` + n + `.number, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
				$21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32 FROM ` + n + `
			RETURNING *)`,
		l + ` AS (
			INSERT INTO supplier_invoice_items (company_id, supplier_invoice_id, id, sort_order, description, account_number,
				amount, vat_rate, vat_amount, apply_slp, dimensions, accrual_period_start, accrual_period_end,
				accrual_balance_account, credited_item_id)
			SELECT i.company_id, i.id, x.id, x.sort_order, x.description, x.account_number, x.amount, x.vat_rate,
				x.vat_amount, x.apply_slp, coalesce(x.dimensions, '{}'), x.accrual_period_start, x.accrual_period_end,
				x.accrual_balance_account, x.credited_item_id
			FROM ` + i + ` i, jsonb_to_recordset($33::jsonb) AS x(id uuid, sort_order int, description text,
				account_number text, amount numeric, vat_rate numeric, vat_amount numeric, apply_slp boolean,
				dimensions jsonb, accrual_period_start date, accrual_period_end date, accrual_balance_account text,
				credited_item_id uuid)
			RETURNING 1)`}
}

// insertArgs are the arguments of insertCTEs for inv received on today.
func insertArgs(inv Invoice, today time.Time) ([]any, error) {
	items, err := itemsJSON(inv.Items)
	return []any{inv.CompanyID, inv.ID, inv.SupplierID, inv.SupplierName, inv.Number, inv.CreditNote,
		inv.CreditedID, inv.InvoiceDate, inv.DueDate, store.Day(today), inv.DeliveryDate, inv.Currency, inv.ExchangeRate,
		inv.Treatment, inv.ReverseCharge, inv.PaymentReference, inv.Notes, inv.OreRounding, inv.Subtotal, inv.VAT,
		inv.Rounding, inv.Total, inv.TotalSEK, inv.Cash, inv.BookingDeferred, inv.EntryID, inv.DocumentID,
		inv.InboxItemID, inv.PrivatelyPaid, inv.EmployeeID, inv.ClaimantName, inv.DefaultDimensions, items}, err
}

// insertRefused answers a unique violation of writing inv as its
// catalogue error (the supplier's number or the credited invoice taken
// meanwhile by another request, the document held); nil for another
// error.
func insertRefused(inv Invoice, err error) error {
	pe := (*pq.Error)(nil)
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return nil
	}
	switch pe.Constraint {
	case "supplier_invoices_number":
		return apierr.New(apierr.SICreateDuplicateInvoiceNumber, map[string]any{"supplier_id": inv.SupplierID,
			"supplier_invoice_number": inv.Number, "field": "supplier_invoice_number"})
	case "supplier_invoices_credit_note":
		return apierr.New(apierr.SICreditAlreadyCredited, map[string]any{"supplier_invoice_id": inv.CreditedID})
	case "supplier_invoices_company_id_document_id_key":
		return invalid("document_id", "document_taken")
	}
	return nil
}

// Insert writes a registered invoice with its lines in one statement,
// taking the company's next arrival number in it, and answers it as read
// on today.
func (s *Store) Insert(ctx context.Context, inv Invoice, today time.Time) (Invoice, error) {
	args, err := insertArgs(inv, today)
	if err != nil {
		return inv, err
	}
	var out Invoice
	err = s.db.Q(ctx).GetContext(ctx, &out, `WITH `+strings.Join(s.insertCTEs(""), ", ")+`
		SELECT `+columns("$10::date")+` FROM i`, args...) // l runs whether read or not
	if refused := insertRefused(inv, err); refused != nil {
		return out, refused
	}
	if err != nil {
		return out, store.Refused(err)
	}
	out.Items = inv.Items
	return out, nil
}

// InsertLast writes inv as Insert does, in the closing statement of the
// unit of work (store.Join) when it has one: the arrival number's lock is
// then held for that statement and the COMMIT only, as the voucher
// series' is. The invoice answered carries a token for its arrival number
// (filled in the unit's rows and response) and the transaction's time
// now; false when there is no closing to join (the caller inserts).
func (s *Store) InsertLast(ctx context.Context, inv Invoice, today, now time.Time) (Invoice, bool, error) {
	args, err := insertArgs(inv, today)
	if err != nil {
		return inv, false, err
	}
	token := store.Token()
	if !store.Join(ctx, store.Lead{CTEs: s.insertCTEs("si_"), Args: args,
		Returning: []string{"(SELECT arrival_number::text FROM si_i)"}, Tokens: []string{strconv.Itoa(token)},
		Refused: func(err error) error { return insertRefused(inv, err) }}) {
		return inv, false, nil
	}
	out := inv
	out.ArrivalNumber, out.ReceivedDate, out.CreatedAt, out.UpdatedAt = token, today, now, now
	out.Overdue = out.Status == Registered && out.DueDate.Before(today) && out.Total.Sign() != 0
	return out, true, nil
}

// Existing answers the invoice of supplier registered under number, if
// any: rule 2's duplicate.
func (s *Store) Existing(ctx context.Context, company, supplier uuid.UUID, number string) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM supplier_invoices
		WHERE company_id = $1 AND supplier_id = $2 AND NOT is_credit_note AND supplier_invoice_number = $3
			AND status <> 'reversed'`,
		company, supplier, number)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// DocumentHeld answers the supplier invoice holding document doc, if any.
func (s *Store) DocumentHeld(ctx context.Context, company, doc uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM supplier_invoices WHERE company_id = $1 AND document_id = $2`,
		company, doc)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// Get answers supplier invoice id of company as read on today, with its
// lines when items, held (FOR UPDATE) when hold. Another company's is
// SUPPLIER_INVOICE_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, today time.Time, items, hold bool) (Invoice, error) {
	q := `SELECT ` + columns("$3::date") + `, CASE WHEN $4 THEN (SELECT coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.sort_order), '[]')
			FROM supplier_invoice_items l WHERE l.company_id = i.company_id AND l.supplier_invoice_id = i.id) END AS items_json
		FROM supplier_invoices i WHERE i.company_id = $1 AND i.id = $2`
	if hold {
		q += ` FOR UPDATE OF i`
	}
	var out struct {
		Invoice
		Items []byte `db:"items_json"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &out, q, company, id, store.Day(today), items)
	if errors.Is(err, sql.ErrNoRows) {
		return out.Invoice, apierr.New(apierr.SupplierInvoiceNotFound, map[string]any{"supplier_invoice_id": id})
	}
	if err != nil || !items {
		return out.Invoice, err
	}
	out.Invoice.Items, err = itemsOf(out.Items)
	return out.Invoice, err
}

// itemsOf reads lines from the JSON of their rows.
func itemsOf(b []byte) ([]Item, error) {
	var rows []struct {
		Item
		AccrualStart *string `json:"accrual_period_start"`
		AccrualEnd   *string `json:"accrual_period_end"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	out := make([]Item, len(rows))
	for i, r := range rows {
		out[i] = r.Item
		var err error
		if out[i].AccrualStart, err = store.ParseDay(r.AccrualStart); err != nil {
			return nil, err
		}
		if out[i].AccrualEnd, err = store.ParseDay(r.AccrualEnd); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Filter narrows the list; Status overdue is the derived state, and the
// open states leave the overdue ones out.
type Filter struct {
	Status, Currency *string
	SupplierID       *uuid.UUID
	From, To         *time.Time // invoice_date, inclusive
}

// List answers up to limit+1 invoices after the position after, newest
// first, as read on today.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int, today time.Time) ([]Invoice, error) {
	var at *time.Time
	var id *uuid.UUID
	if after != nil {
		at, id = &after.At, &after.ID
	}
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT * FROM (SELECT `+columns("$2::date")+` FROM supplier_invoices i
			WHERE i.company_id = $1
			  AND ($3::uuid IS NULL OR i.supplier_id = $3)
			  AND ($4::text IS NULL OR i.currency = $4)
			  AND ($5::date IS NULL OR i.invoice_date >= $5)
			  AND ($6::date IS NULL OR i.invoice_date <= $6)
			  AND ($7::timestamptz IS NULL OR i.created_at < $7 OR (i.created_at = $7 AND i.id > $8))) l
		WHERE ($9::text IS NULL OR CASE $9 WHEN 'overdue' THEN l.overdue
				WHEN 'registered' THEN l.status = 'registered' AND NOT l.overdue
				WHEN 'approved' THEN l.status = 'approved' AND NOT l.overdue
				WHEN 'partially_paid' THEN l.status = 'partially_paid' AND NOT l.overdue
				ELSE l.status = $9 END)
		ORDER BY l.created_at DESC, l.id LIMIT $10`,
		company, store.Day(today), f.SupplierID, f.Currency, store.DayOrNil(f.From), store.DayOrNil(f.To), at, id, f.Status, limit+1)
	return out, err
}

// Open answers a supplier's open invoices (registered, approved,
// partially paid, disputed), oldest due first.
func (s *Store) Open(ctx context.Context, company, supplier uuid.UUID, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$3::date")+` FROM supplier_invoices i
		WHERE i.company_id = $1 AND i.supplier_id = $2 AND i.status IN ('registered', 'approved', 'partially_paid', 'disputed')
		ORDER BY i.due_date, i.arrival_number`, company, supplier, store.Day(today))
	return out, err
}

// Payments answers an invoice's payments in the order made.
func (s *Store) Payments(ctx context.Context, company, id uuid.UUID) ([]Payment, error) {
	out := []Payment{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id, supplier_invoice_id, payment_date, amount, amount_sek, booked_sek,
		exchange_rate, account_number, source, notes, journal_entry_id, reverses_id, created_at
		FROM supplier_invoice_payments WHERE company_id = $1 AND supplier_invoice_id = $2 ORDER BY created_at, id`, company, id)
	return out, err
}

// SamePayment answers the payments of the invoice of the same amount on
// the same day: the likely duplicates of a new one.
func (s *Store) SamePayment(ctx context.Context, company, id uuid.UUID, day time.Time, amount money.Amount) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id FROM supplier_invoice_payments
		WHERE company_id = $1 AND supplier_invoice_id = $2 AND payment_date = $3 AND amount = $4 AND `+standing("supplier_invoice_payments"),
		company, id, store.Day(day), amount)
	return out, err
}

// Pay writes payment p of inv and moves the invoice to what it makes of
// it, in one statement, and answers the invoice as read on today.
func (s *Store) Pay(ctx context.Context, inv Invoice, p Payment, status string, paidAt *time.Time, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH p AS (
			INSERT INTO supplier_invoice_payments (company_id, supplier_invoice_id, id, payment_date, amount, amount_sek,
				booked_sek, exchange_rate, account_number, source, notes, journal_entry_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING amount, booked_sek),
		i AS (
			UPDATE supplier_invoices i SET paid_amount = i.paid_amount + p.amount, paid_booked_sek = i.paid_booked_sek + p.booked_sek,
				status = $13, paid_at = $14, payment_journal_entry_id = coalesce($12, i.payment_journal_entry_id)
			FROM p WHERE i.company_id = $1 AND i.id = $2 RETURNING i.*)
		SELECT `+columns("$15::date")+` FROM i`,
		inv.CompanyID, inv.ID, p.ID, store.Day(p.Date), p.Amount, p.SEK, p.BookedSEK, p.ExchangeRate, p.Account, p.Source,
		p.Notes, p.EntryID, status, store.DayOrNil(paidAt), store.Day(today))
	if err != nil {
		return out, store.Refused(err)
	}
	return out, nil
}

// Approve marks inv approved at at and answers it as read on today.
func (s *Store) Approve(ctx context.Context, inv Invoice, at, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE supplier_invoices i SET status = 'approved', approved_at = $3
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$4::date"), inv.CompanyID, inv.ID, at, store.Day(today))
	return out, store.Refused(err)
}

// Delete removes inv with its lines.
func (s *Store) Delete(ctx context.Context, inv Invoice) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM supplier_invoices WHERE company_id = $1 AND id = $2`, inv.CompanyID, inv.ID)
	return store.Refused(err)
}

// Payable answers the company's open supplier invoices in currency with
// amount left to pay (a payment that looks like theirs), at most five.
func (s *Store) Payable(ctx context.Context, company uuid.UUID, currency string, amount money.Amount) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT id FROM supplier_invoices
		WHERE company_id = $1 AND currency = $2 AND status IN ('registered', 'approved', 'partially_paid')
		  AND total > 0 AND total - paid_amount = $3
		ORDER BY due_date, arrival_number LIMIT 5`, company, currency, amount)
	return out, err
}

// standing is the SQL condition that payment row p is neither an undoing
// nor undone.
func standing(p string) string {
	return p + `.reverses_id IS NULL AND NOT EXISTS (SELECT 1 FROM supplier_invoice_payments u
		WHERE u.company_id = ` + p + `.company_id AND u.reverses_id = ` + p + `.id)`
}

// PaidBy answers the supplier invoices verifikat entry paid, through
// payments not undone, held against another change.
func (s *Store) PaidBy(ctx context.Context, company, entry uuid.UUID, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$3::date")+` FROM supplier_invoices i
		WHERE i.company_id = $1 AND i.id IN (SELECT p.supplier_invoice_id FROM supplier_invoice_payments p
			WHERE p.company_id = $1 AND p.journal_entry_id = $2 AND `+standing("p")+`)
		ORDER BY i.id FOR UPDATE OF i`, company, entry, store.Day(today))
	return out, err
}

// UndoPayments undoes every payment verifikat entry booked, with rows of
// their own dated day naming storno (the verifikat that undid them), and
// moves each invoice back to what is then paid of it (approved or
// registered when nothing is), its payment verifikat the last one
// standing, in one statement. It answers the invoices as read on today.
func (s *Store) UndoPayments(ctx context.Context, company, entry, storno uuid.UUID, day, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		WITH r AS (
			INSERT INTO supplier_invoice_payments (company_id, supplier_invoice_id, id, payment_date, amount, amount_sek,
				booked_sek, exchange_rate, account_number, source, journal_entry_id, reverses_id)
			SELECT p.company_id, p.supplier_invoice_id, gen_random_uuid(), $4, -p.amount, -p.amount_sek, -p.booked_sek,
				p.exchange_rate, p.account_number, p.source, $3, p.id
			FROM supplier_invoice_payments p WHERE p.company_id = $1 AND p.journal_entry_id = $2
			  AND p.source NOT IN ('credit_note', 'private') AND `+standing("p")+`
			RETURNING supplier_invoice_id, amount, booked_sek),
		d AS (SELECT supplier_invoice_id, sum(amount) AS amount, sum(booked_sek) AS booked FROM r GROUP BY supplier_invoice_id),
		i AS (
			UPDATE supplier_invoices i SET paid_amount = i.paid_amount + d.amount, paid_booked_sek = i.paid_booked_sek + d.booked,
				status = CASE WHEN i.status = 'reversed' THEN 'reversed'
					WHEN i.paid_amount + d.amount = i.total THEN 'paid'
					WHEN i.paid_amount + d.amount <> 0 THEN 'partially_paid'
					WHEN i.approved_at IS NOT NULL THEN 'approved' ELSE 'registered' END,
				paid_at = CASE WHEN i.paid_amount + d.amount = i.total AND i.status <> 'reversed' THEN i.paid_at END,
				payment_journal_entry_id = (SELECT p.journal_entry_id FROM supplier_invoice_payments p
					WHERE p.company_id = $1 AND p.supplier_invoice_id = i.id AND p.journal_entry_id <> $2
					  AND p.source <> 'credit_note' AND `+standing("p")+` ORDER BY p.created_at DESC, p.id LIMIT 1)
			FROM d WHERE i.company_id = $1 AND i.id = d.supplier_invoice_id RETURNING i.*)
		SELECT `+columns("$5::date")+` FROM i`, company, entry, storno, store.Day(day), store.Day(today))
	return out, store.Refused(err)
}
