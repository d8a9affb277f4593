package payables

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Save writes what of inv may change after it is registered (its
// number, dates, reference, notes, state, attest, bank mark and
// verifikat) and answers it as read on today.
func (s *Store) Save(ctx context.Context, inv Invoice, today time.Time) (Invoice, error) {
	var out Invoice
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE supplier_invoices i SET supplier_invoice_number = $3,
			invoice_date = $4, due_date = $5, delivery_date = $6, payment_reference = $7, notes = $8, status = $9,
			disputed_from = $10, approved_at = $11, bank_entered_at = $12, registration_journal_entry_id = $13
		WHERE i.company_id = $1 AND i.id = $2 RETURNING `+columns("$14::date"),
		inv.CompanyID, inv.ID, inv.Number, store.Day(inv.InvoiceDate), store.Day(inv.DueDate), store.DayOrNil(inv.DeliveryDate),
		inv.PaymentReference, inv.Notes, inv.Status, inv.DisputedFrom, inv.ApprovedAt, inv.BankEnteredAt, inv.EntryID,
		store.Day(today))
	if err != nil {
		return out, store.Refused(err)
	}
	out.Items = inv.Items
	return out, nil
}

// CreditNoteOf answers the credit note of invoice id standing or undone
// last, if any.
func (s *Store) CreditNoteOf(ctx context.Context, company, id uuid.UUID, today time.Time) (*Invoice, error) {
	var out []Invoice
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$3::date")+` FROM supplier_invoices i
		WHERE i.company_id = $1 AND i.credited_invoice_id = $2 AND i.status <> 'reversed'`, company, id, store.Day(today))
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// BySource answers the invoice (or credit note) a verifikat of payables
// named as its source, held, if it still is that invoice's registration.
func (s *Store) BySource(ctx context.Context, company, id, entry uuid.UUID, today time.Time) (*Invoice, error) {
	var out []Invoice
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns("$4::date")+` FROM supplier_invoices i
		WHERE i.company_id = $1 AND i.id = $2 AND i.registration_journal_entry_id = $3 FOR UPDATE OF i`,
		company, id, entry, store.Day(today))
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// MoveItem puts line item of inv on account.
func (s *Store) MoveItem(ctx context.Context, inv Invoice, item uuid.UUID, account string) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoice_items SET account_number = $4
		WHERE company_id = $1 AND supplier_invoice_id = $2 AND id = $3`, inv.CompanyID, inv.ID, item, account)
	return store.Refused(err)
}

// InsertMonths writes an accrual schedule.
func (s *Store) InsertMonths(ctx context.Context, company uuid.UUID, months []Month) error {
	if len(months) == 0 {
		return nil
	}
	inv, items, month, day, amount, balance := make([]uuid.UUID, len(months)), make([]uuid.UUID, len(months)),
		make([]string, len(months)), make([]string, len(months)), make([]string, len(months)), make([]string, len(months))
	for i, m := range months {
		inv[i], items[i], month[i], day[i], amount[i], balance[i] = m.InvoiceID, m.ItemID, store.Day(m.Month),
			store.Day(m.Day), m.Amount.String(), m.Balance
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO supplier_invoice_accruals (company_id, supplier_invoice_id, item_id,
			month, release_date, amount, balance_account)
		SELECT $1, * FROM unnest($2::uuid[], $3::uuid[], $4::date[], $5::date[], $6::numeric[], $7::text[])`,
		company, pq.Array(inv), pq.Array(items), pq.Array(month), pq.Array(day), pq.Array(amount), pq.Array(balance))
	return store.Refused(err)
}

// Months answers an invoice's accrual schedule, by line and month.
func (s *Store) Months(ctx context.Context, company, id uuid.UUID) ([]Month, error) {
	out := []Month{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT supplier_invoice_id, item_id, month, release_date, amount,
			balance_account, journal_entry_id, cancelled_by
		FROM supplier_invoice_accruals WHERE company_id = $1 AND supplier_invoice_id = $2 ORDER BY item_id, month`, company, id)
	return out, err
}

// Released sums, per line of invoice id, the kronor its released months
// moved to cost.
func (s *Store) Released(ctx context.Context, company, id uuid.UUID) (map[uuid.UUID]money.Amount, error) {
	months, err := s.Months(ctx, company, id)
	out := map[uuid.UUID]money.Amount{}
	for _, m := range months {
		if m.Released() {
			out[m.ItemID] = out[m.ItemID].Add(m.Amount)
		}
	}
	return out, err
}

// CancelMonths cancels the months of invoice id not yet released, by
// the credit note (or stornoed invoice) by.
func (s *Store) CancelMonths(ctx context.Context, company, id, by uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoice_accruals SET cancelled_by = $3
		WHERE company_id = $1 AND supplier_invoice_id = $2 AND journal_entry_id IS NULL AND cancelled_by IS NULL`,
		company, id, by)
	return store.Refused(err)
}

// RestoreMonths brings back the months the undone credit note by
// cancelled.
func (s *Store) RestoreMonths(ctx context.Context, company, by uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoice_accruals SET cancelled_by = NULL
		WHERE company_id = $1 AND cancelled_by = $2`, company, by)
	return store.Refused(err)
}

// DueCompanies answers the companies with accrual months due on or
// before today.
func (s *Store) DueCompanies(ctx context.Context, today time.Time) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT DISTINCT company_id FROM supplier_invoice_accruals
		WHERE release_date <= $1 AND journal_entry_id IS NULL AND cancelled_by IS NULL`, store.Day(today))
	return out, err
}

// Waiting lists the company's months released on or before through,
// neither booked nor cancelled, summed by invoice and month.
func (s *Store) Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]accrual.Waiting, error) {
	var rows []struct {
		ID     uuid.UUID    `db:"supplier_invoice_id"`
		Number string       `db:"supplier_invoice_number"`
		Month  time.Time    `db:"month"`
		Day    time.Time    `db:"release_date"`
		Amount money.Amount `db:"amount"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.supplier_invoice_id, i.supplier_invoice_number, a.month,
			a.release_date, sum(a.amount) AS amount
		FROM supplier_invoice_accruals a
		JOIN supplier_invoices i ON i.company_id = a.company_id AND i.id = a.supplier_invoice_id
		WHERE a.company_id = $1 AND a.release_date <= $2 AND a.journal_entry_id IS NULL AND a.cancelled_by IS NULL
		GROUP BY a.supplier_invoice_id, i.supplier_invoice_number, a.month, a.release_date
		ORDER BY a.release_date, i.supplier_invoice_number`, company, store.Day(through))
	out := make([]accrual.Waiting, len(rows))
	for i, r := range rows {
		out[i] = accrual.Waiting{Kind: accrual.SupplierInvoice, InvoiceID: r.ID, InvoiceNumber: r.Number,
			Month: r.Month.Format("2006-01"), ReleaseDate: r.Day.Format(time.DateOnly), Amount: r.Amount}
	}
	return out, err
}

// ListAccruals lists the company's months as f asks, in list order.
func (s *Store) ListAccruals(ctx context.Context, company uuid.UUID, f accrual.Filter) ([]accrual.Month, error) {
	out := []accrual.Month{}
	if f.Kind != "" && f.Kind != accrual.SupplierInvoice {
		return out, nil
	}
	var rows []struct {
		ID        uuid.UUID    `db:"supplier_invoice_id"`
		Number    string       `db:"supplier_invoice_number"`
		Item      uuid.UUID    `db:"item_id"`
		Month     time.Time    `db:"month"`
		Day       time.Time    `db:"release_date"`
		Amount    money.Amount `db:"amount"`
		Balance   string       `db:"balance_account"`
		Cost      string       `db:"account_number"`
		EntryID   *uuid.UUID   `db:"journal_entry_id"`
		Cancelled bool         `db:"cancelled"`
		Code      *string      `db:"refused_code"`
		At        *time.Time   `db:"refused_at"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.supplier_invoice_id, i.supplier_invoice_number, a.item_id,
			a.month, a.release_date, a.amount, a.balance_account, it.account_number, a.journal_entry_id,
			a.cancelled_by IS NOT NULL AS cancelled, a.refused_code, a.refused_at
		FROM supplier_invoice_accruals a
		JOIN supplier_invoices i ON i.company_id = a.company_id AND i.id = a.supplier_invoice_id
		JOIN supplier_invoice_items it ON it.company_id = a.company_id AND it.id = a.item_id
		WHERE a.company_id = $1 AND `+accrual.ListWhere(accrual.StateSQL("a.journal_entry_id IS NOT NULL",
		"a.cancelled_by IS NOT NULL"), `'`+accrual.SupplierInvoice+`'`)+accrual.ListOrder,
		append([]any{company}, f.Args()...)...)
	for _, r := range rows {
		out = append(out, accrual.Month{Kind: accrual.SupplierInvoice, InvoiceID: r.ID, InvoiceNumber: r.Number,
			ItemID: r.Item, Month: r.Month, ReleaseDate: r.Day, Amount: r.Amount, BalanceAccount: r.Balance, Account: r.Cost,
			EntryID: r.EntryID, Cancelled: r.Cancelled, RefusedCode: r.Code, RefusedAt: r.At})
	}
	return out, err
}

// DueMonths answers a company's accrual months due on or before today,
// held, oldest first.
func (s *Store) DueMonths(ctx context.Context, company uuid.UUID, today time.Time) ([]Month, error) {
	out := []Month{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT supplier_invoice_id, item_id, month, release_date, amount,
			balance_account, journal_entry_id, cancelled_by
		FROM supplier_invoice_accruals WHERE company_id = $1 AND release_date <= $2 AND journal_entry_id IS NULL
			AND cancelled_by IS NULL
		ORDER BY release_date, supplier_invoice_id, item_id, month FOR UPDATE SKIP LOCKED`, company, store.Day(today))
	return out, err
}

// Refused keeps the ledger's refusal code on months not yet released,
// and reports whether it is the first refusal of any of them.
func (s *Store) Refused(ctx context.Context, company uuid.UUID, months []Month, code string) (bool, error) {
	items, month := make([]uuid.UUID, len(months)), make([]string, len(months))
	for i, m := range months {
		items[i], month[i] = m.ItemID, store.Day(m.Month)
	}
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoice_accruals a SET refused_code = $2, refused_at = now()
		FROM unnest($3::uuid[], $4::date[]) AS x(item_id, month)
		WHERE a.company_id = $1 AND a.item_id = x.item_id AND a.month = x.month AND a.refused_at IS NULL
			AND a.journal_entry_id IS NULL`, company, code, pq.Array(items), pq.Array(month))
	if err != nil {
		return false, store.Refused(err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// MarkReleased names the verifikat that released months.
func (s *Store) MarkReleased(ctx context.Context, company uuid.UUID, months []Month, entry uuid.UUID) error {
	items, month := make([]uuid.UUID, len(months)), make([]string, len(months))
	for i, m := range months {
		items[i], month[i] = m.ItemID, store.Day(m.Month)
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoice_accruals a SET journal_entry_id = $2
		FROM unnest($3::uuid[], $4::date[]) AS x(item_id, month)
		WHERE a.company_id = $1 AND a.item_id = x.item_id AND a.month = x.month`,
		company, entry, pq.Array(items), pq.Array(month))
	return store.Refused(err)
}
