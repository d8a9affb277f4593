package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Unbooked lists the invoices kontantmetoden keeps outside the books that
// are open at the end of day, each with the lines of its year-end
// cut-off: 1510 debited with what is left to pay, and revenue and VAT
// credited with their share of it as a payment of it would book them,
// the VAT on its vilande account (2618/2628/2638), outside the return.
func (s *Sales) Unbooked(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	rows, err := s.store.OpenAt(ctx, company, day, false, false)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.OpenItem, 0, len(rows))
	for _, r := range rows {
		sale, err := s.cashSale(ctx, r.Invoice, &day)
		if err != nil {
			return nil, err
		}
		left := r.Total.Sub(r.PaidThen)
		sek := sale.sek(left)
		lines, err := PaymentLines(sale, Receipt{Account: Receivable, Amount: left, SEK: sek,
			Before: r.PaidThen.Sub(sale.CreditedTotal)}, true)
		if err != nil {
			return nil, err
		}
		for i := range lines {
			if d := bas.Dormant(lines[i].Account); d != "" {
				lines[i].Account = d
			}
		}
		out = append(out, ledger.OpenItem{Kind: ledger.CustomerInvoice, ID: r.ID, Number: numberOf(r.Invoice),
			Account: Receivable, Currency: r.Currency, Remaining: left, Booked: sek, Lines: lines})
	}
	return out, nil
}

// Foreign lists the invoices in another currency booked on 1510 and open
// at the end of day: what the customer has left to pay in the currency,
// and the kronor 1510 still holds for it (what was booked less the share
// the payments through day settled).
func (s *Sales) Foreign(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	rows, err := s.store.OpenAt(ctx, company, day, true, true)
	if err != nil {
		return nil, err
	}
	var out []ledger.OpenItem
	for _, r := range rows {
		booked := receivable(r.Invoice)
		if r.Currency == "SEK" || booked == nil {
			continue
		}
		customer := r.Total.Sub(r.DeductionTotal)
		left := customer.Sub(r.PaidThen)
		if left.Sign() <= 0 {
			continue
		}
		held := *booked
		if r.PaidThen.Sign() > 0 {
			settled, err := Share(*booked, customer, money.Amount{}, r.PaidThen)
			if err != nil {
				return nil, err
			}
			held = held.Sub(settled)
		}
		out = append(out, ledger.OpenItem{Kind: ledger.CustomerInvoice, ID: r.ID, Number: numberOf(r.Invoice),
			Account: Receivable, Currency: r.Currency, Remaining: left, Booked: held})
	}
	return out, nil
}

// numberOf is an issued invoice's number.
func numberOf(inv Invoice) string {
	if inv.Number == nil {
		return ""
	}
	return *inv.Number
}
