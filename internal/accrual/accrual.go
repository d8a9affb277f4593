// Package accrual holds what the accrued months of customer invoices
// (29xx to revenue) and of supplier invoices (17xx to cost) share: when a
// month is due and how due months are booked together, the months that
// still wait, and the rule that a period is not locked, nor its year
// ended or closed, while months dated in it wait (ACCRUALS_PENDING).
package accrual

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// Dated is a month of an accrued line, as far as its release goes.
type Dated interface {
	// ReleaseDay is the day the month is moved off its balance account.
	ReleaseDay() time.Time
}

// Due are the months released on or before through.
func Due[T Dated](months []T, through time.Time) []T {
	var out []T
	for _, m := range months {
		if !m.ReleaseDay().After(through) {
			out = append(out, m)
		}
	}
	return out
}

// ByDay groups months of one invoice by release day, in the order met:
// one verifikat each.
func ByDay[T Dated](months []T) [][]T {
	var out [][]T
	at := map[time.Time]int{}
	for _, m := range months {
		i, ok := at[m.ReleaseDay()]
		if !ok {
			i = len(out)
			at[m.ReleaseDay()] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], m)
	}
	return out
}

// The kinds of invoice a month belongs to.
const (
	Invoice         = "invoice"
	SupplierInvoice = "supplier_invoice"
)

// Waiting is a month due on or before a day and not yet booked.
type Waiting struct {
	Kind          string       `json:"kind"`
	InvoiceID     uuid.UUID    `json:"invoice_id"`
	InvoiceNumber string       `json:"invoice_number"`
	Month         string       `json:"month"` // 2026-03
	ReleaseDate   string       `json:"release_date"`
	Amount        money.Amount `json:"amount"`
}

// Side is one register's accrued months.
type Side interface {
	// Waiting lists the company's months released on or before through
	// and not yet booked (nor cancelled).
	Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]Waiting, error)
	// ReleaseAccruals books them, one verifikat per invoice and day; it
	// answers how many were posted and the ones the ledger refused.
	ReleaseAccruals(ctx context.Context, company uuid.UUID, through time.Time) (int, []error, error)
	// ListAccruals lists the register's months as f asks, in list order.
	ListAccruals(ctx context.Context, company uuid.UUID, f Filter) ([]Month, error)
}

// Book is both registers' months.
type Book []Side

// Waiting lists the months of every register waiting through the day.
func (b Book) Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]Waiting, error) {
	var out []Waiting
	for _, s := range b {
		w, err := s.Waiting(ctx, company, through)
		if err != nil {
			return nil, err
		}
		out = append(out, w...)
	}
	return out, nil
}

// ReleaseAccruals books every register's months due through the day.
func (b Book) ReleaseAccruals(ctx context.Context, company uuid.UUID, through time.Time) (int, []error, error) {
	posted := 0
	var refused []error
	for _, s := range b {
		n, r, err := s.ReleaseAccruals(ctx, company, through)
		posted, refused = posted+n, append(refused, r...)
		if err != nil {
			return posted, refused, err
		}
	}
	return posted, refused, nil
}

// Pending is ACCRUALS_PENDING when months dated on or before through wait
// (the months listed, at most limit), nil when none do: a period locked,
// ended or closed with them would strand them on their balance accounts.
func (b Book) Pending(ctx context.Context, company uuid.UUID, through time.Time, action string) error {
	w, err := b.Waiting(ctx, company, through)
	if err != nil || len(w) == 0 {
		return err
	}
	const limit = 100
	listed := w
	if len(listed) > limit {
		listed = listed[:limit]
	}
	return apierr.New(apierr.AccrualsPending, map[string]any{"through": through.Format(time.DateOnly), "action": action,
		"count": len(w), "months": listed,
		"hint": "book them with POST /accruals/release, or send release_accruals: true"})
}

// EventReleaseRefused announces, once per invoice and release day, that
// the ledger refused to book its due months (a locked or closed period,
// the lock date): they stay due, marked refused, until booked.
const EventReleaseRefused = "accrual.release_refused"

// Refusal is the payload of EventReleaseRefused: the invoice, the day,
// the months and their sum, and the ledger's refusal (code and details).
func Refusal(kind string, invoice uuid.UUID, number string, day time.Time, months []time.Time, amount money.Amount,
	err error) map[string]any {
	list := make([]string, len(months))
	for i, m := range months {
		list[i] = m.Format("2006-01")
	}
	out := map[string]any{"kind": kind, "invoice_id": invoice, "invoice_number": number,
		"release_date": day.Format(time.DateOnly), "months": list, "amount": amount, "code": RefusalCode(err),
		"details": map[string]any{}}
	if e, ok := apierr.As(err); ok && e.Details != nil {
		out["details"] = e.Details
	}
	return out
}

// RefusalCode is the catalogue code of the ledger's refusal err.
func RefusalCode(err error) string {
	if e, ok := apierr.As(err); ok {
		return string(e.Code)
	}
	return string(apierr.InternalError)
}
