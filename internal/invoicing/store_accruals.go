package invoicing

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Accruals answers the schedule of invoice id.
func (s *Store) Accruals(ctx context.Context, company, id uuid.UUID) ([]Accrual, error) {
	out := []Accrual{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+accrualColumns+` FROM invoice_accruals
		WHERE company_id = $1 AND invoice_id = $2 ORDER BY month, item_id`, company, id)
	return out, err
}

// AddAccruals writes the schedule of an invoice's accrued lines.
func (s *Store) AddAccruals(ctx context.Context, company uuid.UUID, rows []Accrual) error {
	in := make([]map[string]any, len(rows))
	for i, r := range rows {
		in[i] = map[string]any{"invoice_id": r.InvoiceID, "item_id": r.ItemID, "month": store.Day(r.Month),
			"release_date": store.Day(r.Day), "amount": r.Amount, "revenue_account": r.Revenue, "balance_account": r.Balance,
			"dimensions": r.Dimensions}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	_, err = s.db.Q(ctx).ExecContext(ctx, `INSERT INTO invoice_accruals (company_id, invoice_id, item_id, month,
			release_date, amount, revenue_account, balance_account, dimensions)
		SELECT $1, x.invoice_id, x.item_id, x.month, x.release_date, x.amount, x.revenue_account, x.balance_account,
			coalesce(x.dimensions, '{}')
		FROM jsonb_to_recordset($2::jsonb) AS x(invoice_id uuid, item_id uuid, month date, release_date date,
			amount numeric, revenue_account text, balance_account text, dimensions jsonb)`, company, string(b))
	return store.Refused(err)
}

const accrualColumns = `invoice_id, item_id, month, release_date, amount, revenue_account, balance_account, dimensions,
	journal_entry_id`

// DueAccruals answers the company's accruals due on or before today and
// neither released nor cancelled, locked (SKIP LOCKED: another release
// running takes the rest), by invoice and day.
func (s *Store) DueAccruals(ctx context.Context, company uuid.UUID, today time.Time) ([]Accrual, error) {
	out := []Accrual{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+accrualColumns+` FROM invoice_accruals
		WHERE company_id = $1 AND release_date <= $2 AND journal_entry_id IS NULL AND NOT cancelled
		ORDER BY release_date, invoice_id, month, item_id FOR UPDATE SKIP LOCKED`, company, store.Day(today))
	return out, err
}

// Waiting lists the company's months released on or before through,
// neither booked nor cancelled, summed by invoice and month.
func (s *Store) Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]accrual.Waiting, error) {
	var rows []struct {
		ID     uuid.UUID    `db:"invoice_id"`
		Number *string      `db:"invoice_number"`
		Month  time.Time    `db:"month"`
		Day    time.Time    `db:"release_date"`
		Amount money.Amount `db:"amount"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.invoice_id, i.invoice_number, a.month, a.release_date,
			sum(a.amount) AS amount
		FROM invoice_accruals a JOIN invoices i ON i.company_id = a.company_id AND i.id = a.invoice_id
		WHERE a.company_id = $1 AND a.release_date <= $2 AND a.journal_entry_id IS NULL AND NOT a.cancelled
		GROUP BY a.invoice_id, i.invoice_number, a.month, a.release_date ORDER BY a.release_date, i.invoice_number`,
		company, store.Day(through))
	out := make([]accrual.Waiting, len(rows))
	for i, r := range rows {
		out[i] = accrual.Waiting{Kind: accrual.Invoice, InvoiceID: r.ID, Month: r.Month.Format("2006-01"),
			ReleaseDate: r.Day.Format(time.DateOnly), Amount: r.Amount}
		if r.Number != nil {
			out[i].InvoiceNumber = *r.Number
		}
	}
	return out, err
}

// ListAccruals lists the company's months as f asks, in list order.
func (s *Store) ListAccruals(ctx context.Context, company uuid.UUID, f accrual.Filter) ([]accrual.Month, error) {
	out := []accrual.Month{}
	if f.Kind != "" && f.Kind != accrual.Invoice {
		return out, nil
	}
	var rows []struct {
		ID        uuid.UUID    `db:"invoice_id"`
		Number    *string      `db:"invoice_number"`
		Item      uuid.UUID    `db:"item_id"`
		Month     time.Time    `db:"month"`
		Day       time.Time    `db:"release_date"`
		Amount    money.Amount `db:"amount"`
		Balance   string       `db:"balance_account"`
		Revenue   string       `db:"revenue_account"`
		EntryID   *uuid.UUID   `db:"journal_entry_id"`
		Cancelled bool         `db:"cancelled"`
		Code      *string      `db:"refused_code"`
		At        *time.Time   `db:"refused_at"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.invoice_id, i.invoice_number, a.item_id, a.month,
			a.release_date, a.amount, a.balance_account, a.revenue_account, a.journal_entry_id, a.cancelled,
			a.refused_code, a.refused_at
		FROM invoice_accruals a JOIN invoices i ON i.company_id = a.company_id AND i.id = a.invoice_id
		WHERE a.company_id = $1 AND `+accrual.ListWhere(accrual.StateSQL("a.journal_entry_id IS NOT NULL", "a.cancelled"),
		`'`+accrual.Invoice+`'`)+accrual.ListOrder, append([]any{company}, f.Args()...)...)
	for _, r := range rows {
		m := accrual.Month{Kind: accrual.Invoice, InvoiceID: r.ID, ItemID: r.Item, Month: r.Month, ReleaseDate: r.Day,
			Amount: r.Amount, BalanceAccount: r.Balance, Account: r.Revenue, EntryID: r.EntryID, Cancelled: r.Cancelled,
			RefusedCode: r.Code, RefusedAt: r.At}
		if r.Number != nil {
			m.InvoiceNumber = *r.Number
		}
		out = append(out, m)
	}
	return out, err
}

// AccrualsDue answers the companies with accruals due on or before today.
func (s *Store) AccrualsDue(ctx context.Context, today time.Time) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT DISTINCT company_id FROM invoice_accruals
		WHERE release_date <= $1 AND journal_entry_id IS NULL AND NOT cancelled`, store.Day(today))
	return out, err
}

// Released names the verifikat that released rows.
func (s *Store) Released(ctx context.Context, company uuid.UUID, rows []Accrual, entry uuid.UUID) error {
	items, months := make([]uuid.UUID, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		items[i], months[i] = r.ItemID, store.Day(r.Month)
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoice_accruals a SET journal_entry_id = $2
		FROM unnest($3::uuid[], $4::date[]) AS x(item_id, month)
		WHERE a.company_id = $1 AND a.item_id = x.item_id AND a.month = x.month`,
		company, entry, pq.Array(items), pq.Array(months))
	return store.Refused(err)
}

// Refused keeps the ledger's refusal code on rows not yet released, and
// reports whether it is the first refusal of any of them.
func (s *Store) Refused(ctx context.Context, company uuid.UUID, rows []Accrual, code string) (bool, error) {
	items, months := make([]uuid.UUID, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		items[i], months[i] = r.ItemID, store.Day(r.Month)
	}
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoice_accruals a SET refused_code = $2, refused_at = now()
		FROM unnest($3::uuid[], $4::date[]) AS x(item_id, month)
		WHERE a.company_id = $1 AND a.item_id = x.item_id AND a.month = x.month AND a.refused_at IS NULL
			AND a.journal_entry_id IS NULL`, company, code, pq.Array(items), pq.Array(months))
	if err != nil {
		return false, store.Refused(err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// NumberOf answers the number of the company's invoice id ("" for none).
func (s *Store) NumberOf(ctx context.Context, company, id uuid.UUID) (string, error) {
	var n *string
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT invoice_number FROM invoices WHERE company_id = $1 AND id = $2`,
		company, id)
	if n == nil {
		return "", err
	}
	return *n, err
}

// CancelAccruals cancels the months of invoice id not yet released.
func (s *Store) CancelAccruals(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoice_accruals SET cancelled = true
		WHERE company_id = $1 AND invoice_id = $2 AND journal_entry_id IS NULL AND NOT cancelled`, company, id)
	return store.Refused(err)
}
