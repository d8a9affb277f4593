package invoicing

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Invoice is a row of invoices: a quote, proforma, delivery note,
// invoice or credit note, as stored.
type Invoice struct {
	CompanyID         uuid.UUID   `db:"company_id"`
	ID                uuid.UUID   `db:"id"`
	DocumentType      string      `db:"document_type"`
	Number            *string     `db:"invoice_number"`
	CustomerID        uuid.UUID   `db:"customer_id"`
	CustomerName      string      `db:"customer_name"`
	Status            string      `db:"status"`
	InvoiceDate       time.Time   `db:"invoice_date"`
	DueDate           time.Time   `db:"due_date"`
	DeliveryDate      *time.Time  `db:"delivery_date"`
	ValidUntil        *time.Time  `db:"valid_until"`
	QuoteStatus       *string     `db:"quote_status"`
	QuoteDecidedAt    *time.Time  `db:"quote_decided_at"`
	Currency          string      `db:"currency"`
	ExchangeRate      *money.Rate `db:"exchange_rate"`
	Treatment         Kind        `db:"vat_treatment"`
	TreatmentOverride bool        `db:"vat_treatment_override"`
	DeliveryCountry   *string     `db:"delivery_country"`
	// BuyerVATValidated says, of a sale the buyer accounts for the VAT of,
	// whether VIES had validated the buyer's VAT number when the treatment
	// was decided; nil for any other sale.
	BuyerVATValidated *bool             `db:"buyer_vat_number_validated"`
	OreRounding       bool              `db:"ore_rounding"`
	Subtotal          money.Amount      `db:"subtotal"`
	VAT               money.Amount      `db:"vat_amount"`
	Rounding          money.Amount      `db:"rounding_amount"`
	Total             money.Amount      `db:"total"`
	DeductionTotal    money.Amount      `db:"deduction_total"`
	ROTDeduction      money.Amount      `db:"rot_deduction"` // the ROT part of DeductionTotal
	Housing           *string           `db:"deduction_housing_designation"`
	Apartment         *string           `db:"deduction_apartment_number"`
	BRFOrgNumber      *string           `db:"deduction_brf_org_number"`
	Paid              money.Amount      `db:"paid_amount"`
	TotalSEK          *money.Amount     `db:"total_sek"`
	OCR               *string           `db:"ocr_reference"`
	YourReference     *string           `db:"your_reference"`
	OurReference      *string           `db:"our_reference"`
	Marking           *string           `db:"invoice_marking"`
	Notes             *string           `db:"notes"`
	DefaultDimensions ledger.Dimensions `db:"default_dimensions"`
	BookingDeferred   bool              `db:"booking_deferred"`
	EntryID           *uuid.UUID        `db:"journal_entry_id"`
	CreditedID        *uuid.UUID        `db:"credited_invoice_id"`
	SourceQuoteID     *uuid.UUID        `db:"source_quote_id"`
	SentAt            *time.Time        `db:"sent_at"`
	PaidAt            *time.Time        `db:"paid_at"`
	CancelledAt       *time.Time        `db:"cancelled_at"`
	CreatedAt         time.Time         `db:"created_at"`
	UpdatedAt         time.Time         `db:"updated_at"`
	// Overdue and QuoteExpired are derived on the day the row was read.
	Overdue      bool `db:"overdue"`
	QuoteExpired bool `db:"quote_expired"`

	Lines []Line `db:"-"`
}

// Remaining is what is left to pay: the total less Skatteverket's part
// and what has been paid; on a credit note (negative) what is left to pay
// back.
func (i Invoice) Remaining() money.Amount {
	if i.Status == "credited" {
		return money.Amount{} // its credit note settled it
	}
	return i.Total.Sub(i.DeductionTotal).Sub(i.Paid)
}

// Line is a row of invoice_items, as to_jsonb writes it (linesOf).
type Line struct {
	ID                    uuid.UUID         `json:"id"`
	SortOrder             int               `json:"sort_order"`
	Type                  string            `json:"line_type"`
	Description           string            `json:"description"`
	Quantity              money.Quantity    `json:"quantity"`
	Unit                  string            `json:"unit"`
	UnitPrice             money.Amount      `json:"unit_price"`
	Discount              money.Amount      `json:"discount_percent"`
	VATRate               money.Amount      `json:"vat_rate"` // a fraction: 0.25
	RevenueAccount        *string           `json:"revenue_account"`
	ArticleID             *uuid.UUID        `json:"article_id"` // the article it was made from
	Deduction             *string           `json:"deduction_type"`
	LaborHours            *money.Amount     `json:"labor_hours"`
	WorkType              *string           `json:"work_type"`
	AccrualStart          *time.Time        `json:"-"`
	AccrualEnd            *time.Time        `json:"-"`
	AccrualBalanceAccount *string           `json:"accrual_balance_account"`
	Dimensions            ledger.Dimensions `json:"dimensions"`
	Net                   money.Amount      `json:"net_amount"`
	VAT                   money.Amount      `json:"vat_amount"`
	// CreditedItemID is, on a credit note's line, the original's line it
	// credits.
	CreditedItemID *uuid.UUID `json:"credited_item_id"`
}

// Store holds the SQL of invoices.
type Store struct{ db *store.DB }

// NewStore returns the invoicing store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// columns reads a row of invoices i with what is derived on day $today.
func columns(today string) string {
	return `i.*, invoices_overdue(i.status, i.due_date, i.total, i.deduction_total, i.paid_amount, ` + today + `) AS overdue,
		coalesce(i.quote_status = 'open' AND i.valid_until < ` + today + `, false) AS quote_expired`
}

// Insert writes a new draft with its lines in one statement and answers
// it as stored, as read on today.
func (s *Store) Insert(ctx context.Context, inv Invoice, today time.Time) (Invoice, error) {
	lines, err := linesJSON(inv.Lines)
	if err != nil {
		return inv, err
	}
	var out Invoice
	err = s.db.Q(ctx).GetContext(ctx, &out, `
		WITH i AS (
			INSERT INTO invoices (company_id, id, document_type, invoice_number, customer_id, customer_name, invoice_date,
				due_date, delivery_date, valid_until, quote_status, currency, exchange_rate, vat_treatment,
				vat_treatment_override, delivery_country, ore_rounding, subtotal, vat_amount, rounding_amount, total,
				deduction_total, total_sek, ocr_reference, your_reference, our_reference, invoice_marking, notes,
				default_dimensions, booking_deferred, credited_invoice_id, source_quote_id, rot_deduction,
				deduction_housing_designation, deduction_apartment_number, deduction_brf_org_number, buyer_vat_number_validated)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
				$23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $35, $36, $37, $38, $39)
			RETURNING *),
		l AS (`+itemsFrom("$33")+`
			RETURNING 1)
		SELECT `+columns("$34::date")+` FROM i`, // l runs whether read or not
		inv.CompanyID, inv.ID, inv.DocumentType, inv.Number, inv.CustomerID, inv.CustomerName, inv.InvoiceDate,
		inv.DueDate, inv.DeliveryDate, inv.ValidUntil, inv.QuoteStatus, inv.Currency, inv.ExchangeRate, inv.Treatment,
		inv.TreatmentOverride, inv.DeliveryCountry, inv.OreRounding, inv.Subtotal, inv.VAT, inv.Rounding, inv.Total,
		inv.DeductionTotal, inv.TotalSEK, inv.OCR, inv.YourReference, inv.OurReference, inv.Marking, inv.Notes,
		inv.DefaultDimensions, inv.BookingDeferred, inv.CreditedID, inv.SourceQuoteID, lines, store.Day(today),
		inv.ROTDeduction, inv.Housing, inv.Apartment, inv.BRFOrgNumber, inv.BuyerVATValidated)
	if err != nil {
		return out, store.Refused(err)
	}
	out.Lines = inv.Lines
	return out, nil
}

// Lock is how a read holds the invoice row: every change of an invoice
// takes it first, so of requests changing one invoice one has effect.
type Lock int

// The locks of Get.
const (
	Read  Lock = iota // no lock
	Hold              // FOR UPDATE: wait for the others, then see what they did
	Claim             // FOR UPDATE NOWAIT: another holding it is conflict
)

// linesJSON is lines as the JSON the statements read them from.
func linesJSON(lines []Line) (string, error) {
	rows := make([]map[string]any, len(lines))
	for k, l := range lines {
		rows[k] = map[string]any{"id": l.ID, "sort_order": l.SortOrder, "line_type": l.Type,
			"description": l.Description, "quantity": l.Quantity, "unit": l.Unit, "unit_price": l.UnitPrice,
			"discount_percent": l.Discount, "vat_rate": l.VATRate, "revenue_account": l.RevenueAccount,
			"deduction_type": l.Deduction, "labor_hours": l.LaborHours, "work_type": l.WorkType,
			"accrual_period_start": store.DayOrNil(l.AccrualStart), "accrual_period_end": store.DayOrNil(l.AccrualEnd),
			"accrual_balance_account": l.AccrualBalanceAccount, "dimensions": l.Dimensions,
			"net_amount": l.Net, "vat_amount": l.VAT, "credited_item_id": l.CreditedItemID, "article_id": l.ArticleID}
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// itemsFrom is the SELECT that writes the lines of $lines (linesJSON) to
// invoice i.
func itemsFrom(lines string) string {
	return `INSERT INTO invoice_items (company_id, invoice_id, id, sort_order, line_type, description, quantity, unit,
				unit_price, discount_percent, vat_rate, revenue_account, deduction_type, labor_hours, work_type,
				accrual_period_start, accrual_period_end, accrual_balance_account, dimensions, net_amount, vat_amount,
				credited_item_id, article_id)
			SELECT i.company_id, i.id, x.id, x.sort_order, x.line_type, x.description, x.quantity, x.unit, x.unit_price,
				x.discount_percent, x.vat_rate, x.revenue_account, x.deduction_type, x.labor_hours, x.work_type,
				x.accrual_period_start, x.accrual_period_end, x.accrual_balance_account, coalesce(x.dimensions, '{}'),
				x.net_amount, x.vat_amount, x.credited_item_id, x.article_id
			FROM i, jsonb_to_recordset(` + lines + `::jsonb) AS x(id uuid, sort_order int, line_type text, description text,
				quantity numeric, unit text, unit_price numeric, discount_percent numeric, vat_rate numeric,
				revenue_account text, deduction_type text, labor_hours numeric, work_type text,
				accrual_period_start date, accrual_period_end date, accrual_balance_account text, dimensions jsonb,
				net_amount numeric, vat_amount numeric, credited_item_id uuid, article_id uuid)`
}

// Update writes a changed draft, its lines too when lines (the old ones
// deleted), in one statement, and answers it as read today.
func (s *Store) Update(ctx context.Context, inv Invoice, lines bool, at, today time.Time) (Invoice, error) {
	items := "[]"
	if lines {
		var err error
		if items, err = linesJSON(inv.Lines); err != nil {
			return inv, err
		}
	}
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH d AS (DELETE FROM invoice_items WHERE $23 AND company_id = $1 AND invoice_id = $2 RETURNING 1),
		i AS (
			UPDATE invoices SET invoice_date = $3, due_date = $4, delivery_date = $5, valid_until = $6, exchange_rate = $7,
				vat_treatment = $8, vat_treatment_override = $9, delivery_country = $10, ore_rounding = $11, subtotal = $12,
				vat_amount = $13, rounding_amount = $14, total = $15, deduction_total = $16, total_sek = $17,
				your_reference = $18, our_reference = $19, invoice_marking = $20, notes = $21, default_dimensions = $22,
				updated_at = $24, rot_deduction = $27, deduction_housing_designation = $28, deduction_apartment_number = $29,
				deduction_brf_org_number = $30, buyer_vat_number_validated = $31
			WHERE company_id = $1 AND id = $2 AND (SELECT count(*) FROM d) >= 0
			RETURNING *),
		l AS (`+itemsFrom("$25")+` WHERE $23 RETURNING 1)
		SELECT `+columns("$26::date")+` FROM i`,
		inv.CompanyID, inv.ID, inv.InvoiceDate, inv.DueDate, inv.DeliveryDate, inv.ValidUntil, inv.ExchangeRate,
		inv.Treatment, inv.TreatmentOverride, inv.DeliveryCountry, inv.OreRounding, inv.Subtotal, inv.VAT, inv.Rounding,
		inv.Total, inv.DeductionTotal, inv.TotalSEK, inv.YourReference, inv.OurReference, inv.Marking, inv.Notes,
		inv.DefaultDimensions, lines, at, items, store.Day(today), inv.ROTDeduction, inv.Housing, inv.Apartment,
		inv.BRFOrgNumber, inv.BuyerVATValidated)
	if err != nil {
		return out, store.Refused(err)
	}
	out.Lines = inv.Lines
	return out, nil
}

// Get answers invoice id of company as read on today, with its lines
// when lines, locked as lock says; a Claim another request holds is
// conflict (its 409). Another company's invoice is INVOICE_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, today time.Time, lines bool, lock Lock, conflict ...apierr.Code) (Invoice, error) {
	q := `SELECT ` + columns("$3::date") + `, CASE WHEN $4 THEN (SELECT ` + linesJSONOf + `
			FROM invoice_items l WHERE l.company_id = i.company_id AND l.invoice_id = i.id) END AS lines_json
		FROM invoices i WHERE i.company_id = $1 AND i.id = $2`
	switch lock {
	case Hold:
		q += ` FOR UPDATE OF i`
	case Claim:
		q += ` FOR UPDATE OF i NOWAIT`
	}
	var out struct {
		Invoice
		Lines []byte `db:"lines_json"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &out, q, company, id, store.Day(today), lines)
	if errors.Is(err, sql.ErrNoRows) {
		return out.Invoice, apierr.New(apierr.InvoiceNotFound, map[string]any{"invoice_id": id})
	}
	if pe := (*pq.Error)(nil); errors.As(err, &pe) && pe.Code == "55P03" && len(conflict) > 0 {
		return out.Invoice, apierr.New(conflict[0], map[string]any{"invoice_id": id})
	}
	if err != nil || !lines {
		return out.Invoice, err
	}
	out.Invoice.Lines, err = linesOf(out.Lines)
	return out.Invoice, err
}

// linesOf reads the lines of an invoice from the JSON of its rows
// (to_jsonb of invoice_items), read with the invoice in one statement.
func linesOf(b []byte) ([]Line, error) {
	var rows []struct {
		Line
		AccrualStart *string `json:"accrual_period_start"`
		AccrualEnd   *string `json:"accrual_period_end"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	out := make([]Line, len(rows))
	for i, r := range rows {
		out[i] = r.Line
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

// Lines answers the lines of invoice id in their order.
func (s *Store) Lines(ctx context.Context, company, id uuid.UUID) ([]Line, error) {
	by, err := s.LinesOf(ctx, company, []uuid.UUID{id})
	return by[id], err
}

// LinesOf answers the lines of each of the invoices ids, in their order,
// in one statement; an invoice without lines maps to an empty list.
func (s *Store) LinesOf(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]Line, error) {
	var rows []struct {
		InvoiceID uuid.UUID `db:"invoice_id"`
		Lines     []byte    `db:"lines_json"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT l.invoice_id, `+linesJSONOf+` AS lines_json
		FROM invoice_items l WHERE l.company_id = $1 AND l.invoice_id = ANY($2) GROUP BY l.invoice_id`,
		company, pq.Array(ids))
	out := make(map[uuid.UUID][]Line, len(ids))
	for _, id := range ids {
		out[id] = []Line{}
	}
	for _, r := range rows {
		if out[r.InvoiceID], err = linesOf(r.Lines); err != nil {
			return nil, err
		}
	}
	return out, err
}

// linesJSONOf aggregates the rows l of invoice_items into the JSON
// linesOf reads.
const linesJSONOf = `coalesce(jsonb_agg(to_jsonb(l) ORDER BY l.sort_order), '[]')`

// Filter narrows the list. Status "overdue" is the derived state, and
// "sent" and "partially_paid" leave the overdue ones out; QuoteStatus
// "expired" is derived too and implies quotes.
type Filter struct {
	Status, DocumentType, QuoteStatus, Currency *string
	CustomerID                                  *uuid.UUID
	From, To                                    *time.Time // invoice_date, inclusive
}

// List answers up to limit+1 invoices of company matching f after the
// position after, newest first, as read on today: the extra one says
// another page exists.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int, today time.Time) ([]Invoice, error) {
	var at *time.Time
	var id *uuid.UUID
	if after != nil {
		at, id = &after.At, &after.ID
	}
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT * FROM (SELECT `+columns("$2::date")+` FROM invoices i
			WHERE i.company_id = $1
			  AND ($3::uuid IS NULL OR i.customer_id = $3)
			  AND ($4::text IS NULL OR i.document_type = $4)
			  AND ($5::text IS NULL OR i.currency = $5)
			  AND ($6::date IS NULL OR i.invoice_date >= $6)
			  AND ($7::date IS NULL OR i.invoice_date <= $7)
			  AND ($8::timestamptz IS NULL OR i.created_at < $8 OR (i.created_at = $8 AND i.id > $9))) l
		WHERE ($10::text IS NULL OR CASE $10 WHEN 'overdue' THEN l.overdue
				WHEN 'sent' THEN l.status = 'sent' AND NOT l.overdue
				WHEN 'partially_paid' THEN l.status = 'partially_paid' AND NOT l.overdue
				ELSE l.status = $10 END)
		  AND ($11::text IS NULL OR l.document_type = 'quote' AND CASE $11 WHEN 'expired' THEN l.quote_expired
				WHEN 'open' THEN l.quote_status = 'open' AND NOT l.quote_expired
				ELSE l.quote_status = $11 END)
		ORDER BY l.created_at DESC, l.id LIMIT $12`,
		company, store.Day(today), f.CustomerID, f.DocumentType, f.Currency, store.DayOrNil(f.From), store.DayOrNil(f.To), at, id,
		f.Status, f.QuoteStatus, limit+1)
	return out, err
}

// Open answers the customer's open invoices (sent or partially paid,
// overdue among them) as read on today, oldest due first.
func (s *Store) Open(ctx context.Context, company, customer uuid.UUID, today time.Time) ([]Invoice, error) {
	out := []Invoice{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$3::date")+` FROM invoices i
		WHERE i.company_id = $1 AND i.customer_id = $2 AND i.status IN ('sent', 'partially_paid')
		ORDER BY i.due_date, i.created_at, i.id`, company, customer, store.Day(today))
	return out, err
}

// State is the status an invoice is answered with: overdue when it is.
func (i Invoice) State() string {
	if i.Overdue {
		return "overdue"
	}
	return i.Status
}

// Next takes the next number of the company's series (OF, PF or D): one
// more than the last, 1 for the first. The row stays locked until the
// transaction ends, so numbers are gapless; a rollback gives it back.
func (s *Store) Next(ctx context.Context, company uuid.UUID, series string) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `INSERT INTO invoice_series (company_id, series, last_number) VALUES ($1, $2, 1)
		ON CONFLICT (company_id, series) DO UPDATE SET last_number = invoice_series.last_number + 1
		RETURNING last_number`, company, series)
	return n, err
}

// YearDeductions answers the husavdrag, and its ROT part, of the
// customer's invoices of year, issued and not credited (credit notes net
// out), other than invoice id.
func (s *Store) YearDeductions(ctx context.Context, company, customer, id uuid.UUID, year int) (money.Amount, money.Amount, error) {
	var r struct {
		Total money.Amount `db:"total"`
		ROT   money.Amount `db:"rot"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &r, `SELECT coalesce(sum(deduction_total), 0) AS total, coalesce(sum(rot_deduction), 0) AS rot
		FROM invoices WHERE company_id = $1 AND customer_id = $2 AND id <> $3 AND document_type = 'invoice'
		  AND status NOT IN ('draft', 'cancelled') AND extract(year FROM invoice_date) = $4`, company, customer, id, year)
	return r.Total, r.ROT, err
}

// MadeFrom answers the invoice made from quote q, nil when none is.
func (s *Store) MadeFrom(ctx context.Context, company, q uuid.UUID) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM invoices WHERE company_id = $1 AND source_quote_id = $2`, company, q)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return &ids[0], nil
}

// Coverage is what the register answers for (meta.coverage of the list).
type Coverage struct {
	// From is the date of the first issued invoice; nil before any.
	From *time.Time `db:"covers_from"`
	// Before says accounts receivable (151x) were booked before From, or
	// at all when there is no From, by something other than an invoice:
	// an opening balance, an import.
	Before bool `db:"has_pre_register_invoices"`
}

// Coverage answers the company's coverage.
func (s *Store) Coverage(ctx context.Context, company uuid.UUID) (Coverage, error) {
	var c Coverage
	err := s.db.Q(ctx).GetContext(ctx, &c, `
		WITH f AS (SELECT min(invoice_date) AS covers_from FROM invoices
			WHERE company_id = $1 AND document_type = 'invoice' AND status NOT IN ('draft', 'cancelled'))
		SELECT f.covers_from, EXISTS (SELECT 1 FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.company_id = $1 AND l.account_number LIKE '151%' AND e.status = 'posted'
			  AND e.source_type NOT IN ('invoice_created', 'invoice_paid', 'invoice_cash_payment', 'credit_note')
			  AND (f.covers_from IS NULL OR e.entry_date < f.covers_from)) AS has_pre_register_invoices
		FROM f`, company)
	return c, err
}

// MarkSent writes inv issued at at: sent, with its number, OCR reference,
// verifikat and whether its booking waits, and answers it as read today.
func (s *Store) MarkSent(ctx context.Context, inv Invoice, at, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, queueArchive+`UPDATE invoices i SET status = 'sent', invoice_number = $3,
			ocr_reference = $4, journal_entry_id = $5, booking_deferred = $6, sent_at = $7, updated_at = $7, total_sek = $9,
			exchange_rate = $10
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$8::date"),
		inv.CompanyID, inv.ID, inv.Number, inv.OCR, inv.EntryID, inv.BookingDeferred, at, store.Day(today), inv.TotalSEK,
		inv.ExchangeRate)
	return out, store.Refused(err)
}

// QuoteSent stamps a quote sent at at (the first time), and answers it as
// read today.
func (s *Store) QuoteSent(ctx context.Context, q Invoice, at, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE invoices i SET sent_at = coalesce(sent_at, $3), updated_at = $3
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$4::date"), q.CompanyID, q.ID, at, store.Day(today))
	return out, store.Refused(err)
}

// Book names the verifikat that booked inv's sale, and answers it as read
// today.
func (s *Store) Book(ctx context.Context, inv Invoice, entry uuid.UUID, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE invoices i SET journal_entry_id = $3, updated_at = now()
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$4::date"), inv.CompanyID, inv.ID, entry, store.Day(today))
	return out, store.Refused(err)
}

// Credit writes inv credited at at, and answers it as read today.
func (s *Store) Credit(ctx context.Context, inv Invoice, at, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE invoices i SET status = 'credited', updated_at = $3
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$4::date"), inv.CompanyID, inv.ID, at, store.Day(today))
	return out, store.Refused(err)
}

// Delete removes an unnumbered draft; its lines go with it.
func (s *Store) Delete(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM invoices WHERE company_id = $1 AND id = $2`, company, id)
	return store.Refused(err)
}

// Cancel writes a numbered draft cancelled (makulerad) at at, and answers
// it as read today.
func (s *Store) Cancel(ctx context.Context, inv Invoice, at, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE invoices i SET status = 'cancelled', cancelled_at = $3, updated_at = $3
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$4::date"), inv.CompanyID, inv.ID, at, store.Day(today))
	return out, store.Refused(err)
}

// Decide writes a quote's decision and validity (its due date with it)
// and answers it as read today.
func (s *Store) Decide(ctx context.Context, q Invoice, status string, decided *time.Time, until, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE invoices i SET quote_status = $3, quote_decided_at = $4,
			valid_until = $5, due_date = $5, updated_at = now()
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$6::date"),
		q.CompanyID, q.ID, status, decided, store.Day(until), store.Day(today))
	return out, store.Refused(err)
}

// Payable answers the company's open invoice in currency a payment most
// likely settles: the one with OCR reference ocr, else the only one with
// amount left to pay; nil when none, or more than one, fits.
func (s *Store) Payable(ctx context.Context, company uuid.UUID, ocr *string, currency string, amount money.Amount) (*uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &ids, `SELECT id FROM invoices
		WHERE company_id = $1 AND document_type = 'invoice' AND status IN ('sent', 'partially_paid') AND currency = $3
		  AND CASE WHEN $2::text IS NOT NULL AND EXISTS (SELECT FROM invoices o WHERE o.company_id = $1
				AND o.status IN ('sent', 'partially_paid') AND o.ocr_reference = $2)
			THEN ocr_reference = $2 ELSE total - deduction_total - paid_amount = $4 END
		ORDER BY id LIMIT 2`, company, ocr, currency, amount)
	if err != nil || len(ids) != 1 {
		return nil, err
	}
	return &ids[0], nil
}
