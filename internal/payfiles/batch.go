package payfiles

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Totals are a batch's sums per currency, as decimal text.
type Totals map[string]string

// Value stores the totals as a JSON object.
func (t Totals) Value() (driver.Value, error) {
	b, err := json.Marshal(map[string]string(t))
	return string(b), err
}

// Scan reads them back.
func (t *Totals) Scan(src any) error {
	*t = Totals{}
	return store.ScanJSON(src, (*map[string]string)(t))
}

// Payable is a supplier invoice, or an expense claim, as a batch pays it.
type Payable struct {
	ID uuid.UUID
	// Claim: an expense claim, paid to the employee's account; else a
	// supplier invoice.
	Claim     bool
	Number    string
	Supplier  string // or the claimant
	Country   string
	Account   Account
	Remaining money.Amount // in Currency
	Currency  string
	Reference string // the invoice's payment reference: an OCR number or a text
	// Why not, when it cannot be paid: not_approved, nothing_left,
	// credit_note, no_account (an invoice); not_owed, pay_with_salary,
	// on_payslip, not_employee, no_account (a claim); "" when it can.
	Why string
}

// Books are what batches need of the other domains.
type Books struct {
	// Payables answers the supplier invoices of ids in order, held;
	// 404 SUPPLIER_INVOICE_NOT_FOUND naming the first the company lacks.
	Payables func(ctx context.Context, company uuid.UUID, ids []uuid.UUID) ([]Payable, error)
	// Claims answers the expense claims of ids in order, held; 404
	// EXPENSE_CLAIM_NOT_FOUND naming the first the company lacks.
	Claims func(ctx context.Context, company uuid.UUID, ids []uuid.UUID) ([]Payable, error)
	// Payer answers the company paying from the cash account: 404
	// CASH_ACCOUNT_NOT_FOUND, 400 PAYMENT_BATCH_PAYER_ACCOUNT.
	Payer func(ctx context.Context, company, cashAccount uuid.UUID) (Payer, error)
}

// Batch is a row of supplier_payment_batches with its items.
type Batch struct {
	CompanyID     uuid.UUID  `db:"company_id" json:"company_id"`
	ID            uuid.UUID  `db:"id" json:"id"`
	PaymentDate   time.Time  `db:"payment_date" json:"payment_date"`
	CashAccountID uuid.UUID  `db:"cash_account_id" json:"cash_account_id"`
	Format        string     `db:"format" json:"format"`
	Status        string     `db:"status" json:"status"`
	MessageID     string     `db:"message_id" json:"message_id"`
	PaymentCount  int        `db:"payment_count" json:"payment_count"`
	Totals        Totals     `db:"totals" json:"totals"`
	File          []byte     `db:"file" json:"-"`
	CreatedAt     time.Time  `db:"created_at" json:"created_at"`
	CancelledAt   *time.Time `db:"cancelled_at" json:"cancelled_at"`
	Items         []Item     `db:"-" json:"items"`
}

// Item is a payment of a batch: of a supplier invoice or an expense claim.
type Item struct {
	InvoiceID  *uuid.UUID   `db:"supplier_invoice_id" json:"supplier_invoice_id"`
	ClaimID    *uuid.UUID   `db:"expense_claim_id" json:"expense_claim_id"`
	Seq        int          `db:"seq" json:"-"`
	Supplier   string       `db:"supplier_name" json:"supplier_name"`
	Number     *string      `db:"invoice_number" json:"invoice_number"`
	Reference  string       `db:"reference" json:"reference"`
	EndToEndID string       `db:"end_to_end_id" json:"end_to_end_id"`
	Amount     money.Amount `db:"amount" json:"amount"`
	Currency   string       `db:"currency" json:"currency"`
}

// Request is a batch as asked.
type Request struct {
	Invoices    []uuid.UUID
	Claims      []uuid.UUID
	Date        time.Time
	CashAccount uuid.UUID
}

// Batches keeps a company's payment batches, in the request's unit of work.
type Batches struct {
	db    *store.DB
	books Books
	audit *audit.Store
	now   func() time.Time
}

// NewBatches returns the service.
func NewBatches(db *store.DB, b Books, a *audit.Store, now func() time.Time) *Batches {
	return &Batches{db: db, books: b, audit: a, now: now}
}

// plan is the batch req asks for, its file made: each invoice's whole
// remaining amount, an OCR reference when it is one, else "Faktura" and
// the supplier's invoice number; each claim's amount owed, with "Utlägg"
// and its description.
func (s *Batches) plan(ctx context.Context, company uuid.UUID, req Request) (Batch, error) {
	if len(req.Invoices)+len(req.Claims) == 0 {
		return Batch{}, apierr.Field("supplier_invoice_ids", "minItems", "name at least one supplier invoice or expense claim")
	}
	if len(req.Invoices)+len(req.Claims) > MaxPayments {
		return Batch{}, apierr.Field("expense_claim_ids", "maxItems", "a batch pays at most 500 invoices and claims together")
	}
	for field, ids := range map[string][]uuid.UUID{"supplier_invoice_ids": req.Invoices, "expense_claim_ids": req.Claims} {
		seen := map[uuid.UUID]bool{}
		for i, id := range ids {
			if seen[id] {
				return Batch{}, apierr.Field(field+"."+strconv.Itoa(i), "uniqueItems", "names one twice")
			}
			seen[id] = true
		}
	}
	payables, err := s.books.Payables(ctx, company, req.Invoices)
	if err != nil {
		return Batch{}, err
	}
	claims, err := s.books.Claims(ctx, company, req.Claims)
	if err != nil {
		return Batch{}, err
	}
	payer, err := s.books.Payer(ctx, company, req.CashAccount)
	if err != nil {
		return Batch{}, err
	}
	reserved, err := s.reserved(ctx, company, append(append([]uuid.UUID{}, req.Invoices...), req.Claims...))
	if err != nil {
		return Batch{}, err
	}
	b := Batch{CompanyID: company, ID: uuid.New(), PaymentDate: req.Date, CashAccountID: req.CashAccount, Format: "pain001",
		Status: "created", Totals: Totals{}}
	b.MessageID = "KONTERA-" + b.ID.String()[:8] + "-" + s.now().UTC().Format("060102150405")
	var payments []Payment
	totals := map[string]money.Amount{}
	for i, p := range append(payables, claims...) {
		details := map[string]any{"index": i, "supplier_invoice_id": p.ID}
		if p.Claim {
			details = map[string]any{"index": i - len(payables), "expense_claim_id": p.ID, "field": "expense_claim_ids"}
		}
		if batch, ok := reserved[p.ID]; ok {
			details["batch_id"] = batch
			return b, apierr.New(apierr.PaymentBatchInvoiceReserved, details)
		}
		if p.Why != "" {
			details["reason"] = p.Why
			return b, apierr.New(apierr.PaymentBatchInvoiceNotPayable, details)
		}
		id, number := p.ID, p.Number
		it := Item{InvoiceID: &id, Seq: i + 1, Supplier: p.Supplier, Number: &number, EndToEndID: endToEnd(b.ID, i+1),
			Amount: p.Remaining, Currency: p.Currency, Reference: p.Reference}
		if p.Claim {
			it.InvoiceID, it.ClaimID, it.Number, it.Reference = nil, &id, nil, clip(p.Reference, 140)
		}
		pay := Payment{EndToEndID: it.EndToEndID, Name: p.Supplier, Country: p.Country, Account: p.Account, Amount: p.Remaining,
			Currency: p.Currency}
		if !p.Claim && identifier.ValidOCR(p.Reference, false) {
			pay.OCR = p.Reference
		} else {
			if it.Reference == "" && !p.Claim {
				it.Reference = "Faktura " + p.Number
			}
			pay.Message = it.Reference
		}
		payments = append(payments, pay)
		b.Items = append(b.Items, it)
		totals[p.Currency] = totals[p.Currency].Add(p.Remaining)
	}
	for c, a := range totals {
		b.Totals[c] = a.String()
	}
	b.PaymentCount = len(b.Items)
	if b.File, err = Build(File{MessageID: b.MessageID, Created: s.now(), Payer: payer,
		Payments: map[time.Time][]Payment{req.Date: payments}}); err != nil {
		return b, err
	}
	return b, nil
}

// MaxPayments is how many invoices and claims one batch pays.
const MaxPayments = 500

// reserved answers which of ids (supplier invoices and expense claims) a
// batch not cancelled holds, and which.
func (s *Batches) reserved(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
	var rows []struct {
		Invoice uuid.UUID `db:"id"`
		Batch   uuid.UUID `db:"batch_id"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT supplier_invoice_id AS id, batch_id FROM supplier_payment_batch_items
		WHERE company_id = $1 AND supplier_invoice_id = ANY($2) AND released_at IS NULL
		UNION ALL
		SELECT expense_claim_id, batch_id FROM supplier_payment_batch_claims
		WHERE company_id = $1 AND expense_claim_id = ANY($2) AND released_at IS NULL`, company, pq.Array(ids))
	out := map[uuid.UUID]uuid.UUID{}
	for _, r := range rows {
		out[r.Invoice] = r.Batch
	}
	return out, err
}

// Reserving answers the batch that holds invoice (or expense claim), nil
// for none: what refuses its deletion.
func (s *Batches) Reserving(ctx context.Context, company, invoice uuid.UUID) (*uuid.UUID, error) {
	m, err := s.reserved(ctx, company, []uuid.UUID{invoice})
	if b, ok := m[invoice]; ok {
		return &b, err
	}
	return nil, err
}

// Reserved answers which of the expense claims ids a batch holds, and
// which: what refuses their payout or deletion otherwise.
func (s *Batches) Reserved(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
	return s.reserved(ctx, company, ids)
}

// Preview answers the batch req would make, storing nothing.
func (s *Batches) Preview(ctx context.Context, company uuid.UUID, req Request) (Batch, error) {
	return s.plan(ctx, company, req)
}

// Create makes the batch and its file, reserving its invoices.
func (s *Batches) Create(ctx context.Context, company uuid.UUID, req Request) (Batch, error) {
	b, err := s.plan(ctx, company, req)
	if err != nil {
		return b, err
	}
	// The batch and every payment in one statement, whatever its size.
	type row struct {
		Item
		Seq int `json:"seq"`
	}
	invoices, claims := []row{}, []row{}
	for _, it := range b.Items {
		if it.ClaimID != nil {
			claims = append(claims, row{it, it.Seq})
		} else {
			invoices = append(invoices, row{it, it.Seq})
		}
	}
	rows, err := json.Marshal(invoices)
	if err != nil {
		return b, err
	}
	owed, err := json.Marshal(claims)
	if err != nil {
		return b, err
	}
	err = s.db.Q(ctx).GetContext(ctx, &b.CreatedAt, `WITH b AS (
			INSERT INTO supplier_payment_batches (company_id, id, payment_date, cash_account_id, message_id, payment_count,
				totals, file)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at),
		i AS (
			INSERT INTO supplier_payment_batch_items (company_id, batch_id, supplier_invoice_id, seq, supplier_name,
				invoice_number, reference, end_to_end_id, amount, currency)
			SELECT $1, $2, x.supplier_invoice_id, x.seq, x.supplier_name, x.invoice_number, x.reference, x.end_to_end_id,
				x.amount, x.currency
			FROM jsonb_to_recordset($9::jsonb) AS x(supplier_invoice_id uuid, seq integer, supplier_name text,
				invoice_number text, reference text, end_to_end_id text, amount numeric, currency text)),
		c AS (
			INSERT INTO supplier_payment_batch_claims (company_id, batch_id, expense_claim_id, seq, claimant_name, reference,
				end_to_end_id, amount, currency)
			SELECT $1, $2, x.expense_claim_id, x.seq, x.supplier_name, x.reference, x.end_to_end_id, x.amount, x.currency
			FROM jsonb_to_recordset($10::jsonb) AS x(expense_claim_id uuid, seq integer, supplier_name text, reference text,
				end_to_end_id text, amount numeric, currency text))
		SELECT created_at FROM b`, company, b.ID, store.Day(b.PaymentDate), b.CashAccountID, b.MessageID, b.PaymentCount,
		b.Totals, b.File, string(rows), string(owed))
	// Plan saw them free; a batch made meanwhile took one.
	switch {
	case store.UniqueViolation(err, "supplier_payment_batch_items_reserved"):
		return b, apierr.New(apierr.PaymentBatchInvoiceReserved, map[string]any{"field": "supplier_invoice_ids"})
	case store.UniqueViolation(err, "supplier_payment_batch_claims_reserved"):
		return b, apierr.New(apierr.PaymentBatchInvoiceReserved, map[string]any{"field": "expense_claim_ids"})
	case err != nil:
		return b, err
	}
	return b, s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "supplier_payment_batches",
		RecordID: b.ID.String(), Description: "Betalfil med " + strconv.Itoa(b.PaymentCount) + " betalningar, betaldag " +
			b.PaymentDate.Format(time.DateOnly), New: audit.Of(b)})
}

// Get answers a batch with its payments, held FOR UPDATE when hold.
func (s *Batches) Get(ctx context.Context, company, id uuid.UUID, hold bool) (Batch, error) {
	q := `SELECT * FROM supplier_payment_batches WHERE company_id = $1 AND id = $2`
	if hold {
		q += ` FOR UPDATE`
	}
	var b Batch
	err := s.db.Q(ctx).GetContext(ctx, &b, q, company, id)
	if store.NotFound(err) {
		return b, apierr.New(apierr.PaymentBatchNotFound, map[string]any{"batch_id": id})
	}
	if err != nil {
		return b, err
	}
	return b, s.items(ctx, []*Batch{&b})
}

func (s *Batches) items(ctx context.Context, batches []*Batch) error {
	if len(batches) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(batches))
	at := map[uuid.UUID]*Batch{}
	for i, b := range batches {
		ids[i], at[b.ID] = b.ID, b
	}
	var rows []struct {
		Batch uuid.UUID `db:"batch_id"`
		Item
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT batch_id, supplier_invoice_id, expense_claim_id, seq,
			supplier_name, invoice_number, reference, end_to_end_id, amount, currency FROM (`+itemRows+`) i
		WHERE company_id = $1 AND batch_id = ANY($2) ORDER BY batch_id, seq`, batches[0].CompanyID, pq.Array(ids)); err != nil {
		return err
	}
	for _, r := range rows {
		at[r.Batch].Items = append(at[r.Batch].Items, r.Item)
	}
	return nil
}

// List answers the company's batches, newest first, a page at a time.
func (s *Batches) List(ctx context.Context, company uuid.UUID, after *Position, limit int) ([]Batch, error) {
	at, id := time.Now().AddDate(100, 0, 0), uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	var out []Batch
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM supplier_payment_batches WHERE company_id = $1
		AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC LIMIT $4`, company, at, id, limit+1); err != nil {
		return nil, err
	}
	ptrs := make([]*Batch, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	return out, s.items(ctx, ptrs)
}

// Position is where a page of batches ends.
type Position struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

// Cancel cancels a batch not yet cancelled and releases its invoices.
func (s *Batches) Cancel(ctx context.Context, company, id uuid.UUID) (Batch, error) {
	b, err := s.Get(ctx, company, id, true)
	if err != nil {
		return b, err
	}
	if b.Status == "cancelled" {
		return b, apierr.New(apierr.PaymentBatchCancelled, map[string]any{"batch_id": id})
	}
	old := b
	q := s.db.Q(ctx)
	if err := q.GetContext(ctx, &b.CancelledAt, `UPDATE supplier_payment_batches SET status = 'cancelled', cancelled_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING cancelled_at`, company, id); err != nil {
		return b, err
	}
	b.Status = "cancelled"
	if _, err := q.ExecContext(ctx, `WITH c AS (UPDATE supplier_payment_batch_claims SET released_at = now()
			WHERE company_id = $1 AND batch_id = $2 AND released_at IS NULL)
		UPDATE supplier_payment_batch_items SET released_at = now()
		WHERE company_id = $1 AND batch_id = $2 AND released_at IS NULL`, company, id); err != nil {
		return b, err
	}
	return b, s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "supplier_payment_batches",
		RecordID: b.ID.String(), Description: "Betalfilen makulerades; fakturorna släpptes", Old: audit.Of(old), New: audit.Of(b)})
}

// endToEnd is a payment's id in its file, which the bank's statement
// gives back: the batch's id (24 hex digits of it) and the payment's
// place, unique however many batches an invoice has been in.
func endToEnd(batch uuid.UUID, seq int) string {
	return "K" + strings.ReplaceAll(batch.String(), "-", "")[:24] + "-" + strconv.Itoa(seq)
}

// Payments answers, by the references given, the payments of batches not
// cancelled they name: by end-to-end id, or by the OCR number paid (what
// a statement carries instead when the creditor's reference is
// structured). A reference two payments share names neither.
func (s *Batches) Payments(ctx context.Context, company uuid.UUID, refs []string) (map[string]banking.BatchPayment, error) {
	var rows []struct {
		Item
		Batch uuid.UUID `db:"batch_id"`
		Key   string    `db:"key"`
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT i.batch_id, i.supplier_invoice_id, i.expense_claim_id, i.seq,
			i.supplier_name, i.invoice_number, i.reference, i.end_to_end_id, i.amount, i.currency, k AS key
		FROM (`+itemRows+`) i, LATERAL (VALUES (i.end_to_end_id), (i.reference)) AS r(k)
		WHERE i.company_id = $1 AND i.released_at IS NULL AND k = ANY($2)`, company, pq.Array(refs)); err != nil {
		return nil, err
	}
	out := map[string]banking.BatchPayment{}
	twice := map[string]bool{}
	for _, r := range rows {
		if _, ok := out[r.Key]; ok {
			twice[r.Key] = true
		}
		out[r.Key] = banking.BatchPayment{BatchID: r.Batch, InvoiceID: r.InvoiceID, ClaimID: r.ClaimID, Amount: r.Amount,
			Currency: r.Currency}
	}
	for k := range twice {
		delete(out, k)
	}
	return out, nil
}

// itemRows are the payments of every batch, of invoices and of claims,
// in one shape.
const itemRows = `SELECT company_id, batch_id, supplier_invoice_id, NULL::uuid AS expense_claim_id, seq, supplier_name,
		invoice_number, reference, end_to_end_id, amount, currency, released_at FROM supplier_payment_batch_items
	UNION ALL
	SELECT company_id, batch_id, NULL, expense_claim_id, seq, claimant_name, NULL, reference, end_to_end_id, amount, currency,
		released_at FROM supplier_payment_batch_claims`
