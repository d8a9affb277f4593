package payables

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
)

// Unbooked lists the supplier invoices kontantmetoden keeps outside the
// books that are open at the end of day, each with the lines of its
// year-end cut-off: the costs of what is left to pay as a payment of it
// would book them, their VAT on 2648 vilande ingående moms (outside the
// return), against 2440.
func (p *Payables) Unbooked(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	rows, err := p.store.OpenAt(ctx, company, day, false, false)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.OpenItem, 0, len(rows))
	for _, r := range rows {
		left := r.Total.Sub(r.PaidThen)
		if err := p.withCredits(ctx, &r.Invoice, &day); err != nil {
			return nil, err
		}
		rest, before := r.Invoice.rest(), r.PaidThen
		if r.Less != nil {
			before = before.Sub(r.Less.Total)
		}
		lines := CashLines(rest, before, left)
		sek := net(lines)
		for i := range lines {
			if d := bas.Dormant(lines[i].Account); d != "" {
				lines[i].Account = d
			}
		}
		lines = append(lines, payableLine(r.Invoice, sek, left, true))
		out = append(out, ledger.OpenItem{Kind: ledger.SupplierInvoice, ID: r.ID, Number: r.Number, Account: Payable,
			Currency: r.Currency, Remaining: left, Booked: sek, Lines: lines})
	}
	return out, nil
}

// Foreign lists the supplier invoices in another currency booked on 2440
// and open at the end of day: what is left to pay in the currency, and
// the kronor 2440 still holds for it.
func (p *Payables) Foreign(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	rows, err := p.store.OpenAt(ctx, company, day, true, true)
	if err != nil {
		return nil, err
	}
	var out []ledger.OpenItem
	for _, r := range rows {
		if r.Currency == "SEK" {
			continue
		}
		out = append(out, ledger.OpenItem{Kind: ledger.SupplierInvoice, ID: r.ID, Number: r.Number, Account: Payable,
			Currency: r.Currency, Remaining: r.Total.Sub(r.PaidThen), Booked: r.TotalSEK.Sub(r.BookedThen)})
	}
	return out, nil
}
