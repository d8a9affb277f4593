package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/parties"
	"github.com/kontera/kontera/internal/payables"
)

// rateLookups are the outside work of the writes that book a foreign
// amount at the day's rate when the caller sends none: the rate is
// fetched before the transaction (fx.Rates.Resolve), so no request holds
// its rows while the Riksbank answers. They run for dry runs too: a
// preview books at the rate the write would.
func rateLookups(rates *fx.Rates, people *parties.Store, bought *payables.Payables, sales *invoicing.Sales,
	bank *banking.Store, now func() time.Time) map[string]outsideWork {
	invoice := func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
		var b struct {
			SupplierID   uuid.UUID       `json:"supplier_id"`
			Currency     *string         `json:"currency"`
			ExchangeRate json.RawMessage `json:"exchange_rate"`
			InvoiceDate  string          `json:"invoice_date"`
		}
		company, err := uuid.Parse(param("companyId"))
		if err != nil || json.Unmarshal(raw, &b) != nil || len(b.ExchangeRate) > 0 && string(b.ExchangeRate) != "null" {
			return ctx
		}
		day, err := time.Parse(time.DateOnly, b.InvoiceDate)
		if err != nil {
			return ctx
		}
		currency := ""
		if b.Currency != nil {
			currency = *b.Currency
		} else if sup, err := people.Supplier(ctx, company, b.SupplierID, false); err == nil {
			currency = sup.Currency
		}
		if !fx.Known(currency) {
			return ctx
		}
		return rates.Resolve(ctx, currency, day)
	}
	payment := func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
		var b struct {
			SEK         json.RawMessage `json:"amount_sek"`
			Difference  json.RawMessage `json:"exchange_rate_difference"`
			PaymentDate string          `json:"payment_date"`
		}
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("supplierInvoiceId"))
		if err1 != nil || err2 != nil || len(raw) > 0 && json.Unmarshal(raw, &b) != nil || len(b.SEK) > 0 || len(b.Difference) > 0 {
			return ctx
		}
		day := ledger.Today(now())
		if b.PaymentDate != "" {
			if day, err1 = time.Parse(time.DateOnly, b.PaymentDate); err1 != nil {
				return ctx
			}
		}
		inv, err := bought.Get(ctx, company, id, false)
		if err != nil || !fx.Known(inv.Currency) {
			return ctx
		}
		return rates.Resolve(ctx, inv.Currency, day)
	}
	transaction := func(ctx context.Context, _ string, _ []byte, param func(string) string) context.Context {
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("transactionId"))
		if err1 != nil || err2 != nil {
			return ctx
		}
		t, err := bank.Transaction(ctx, company, id, false)
		if err != nil || !fx.Known(t.Currency) || t.Booked() {
			return ctx
		}
		return rates.Resolve(ctx, t.Currency, t.Date)
	}
	// A draft in another currency without a rate is issued at its invoice
	// date's rate.
	issue := func(ctx context.Context, company, id uuid.UUID) context.Context {
		inv, err := sales.Get(ctx, company, id, false)
		if err != nil || inv.Status != "draft" || inv.DocumentType != "invoice" || inv.ExchangeRate != nil || !fx.Known(inv.Currency) {
			return ctx
		}
		return rates.Resolve(ctx, inv.Currency, inv.InvoiceDate)
	}
	issueOne := func(ctx context.Context, _ string, _ []byte, param func(string) string) context.Context {
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("invoiceId"))
		if err1 != nil || err2 != nil {
			return ctx
		}
		return issue(ctx, company, id)
	}
	issueMany := func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
		var b struct {
			IDs []uuid.UUID `json:"invoice_ids"`
		}
		company, err := uuid.Parse(param("companyId"))
		if err != nil || json.Unmarshal(raw, &b) != nil || len(b.IDs) > 200 {
			return ctx
		}
		for _, id := range b.IDs {
			ctx = issue(ctx, company, id)
		}
		return ctx
	}
	// A payment of a foreign invoice without amount_sek or exchange_rate
	// is booked at its payment date's rate.
	sale := func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
		var b struct {
			SEK         json.RawMessage `json:"amount_sek"`
			Rate        json.RawMessage `json:"exchange_rate"`
			PaymentDate string          `json:"payment_date"`
		}
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("invoiceId"))
		if err1 != nil || err2 != nil || len(raw) > 0 && json.Unmarshal(raw, &b) != nil || len(b.SEK) > 0 || len(b.Rate) > 0 {
			return ctx
		}
		day := ledger.Today(now())
		if b.PaymentDate != "" {
			if day, err1 = time.Parse(time.DateOnly, b.PaymentDate); err1 != nil {
				return ctx
			}
		}
		inv, err := sales.Get(ctx, company, id, false)
		if err != nil || !fx.Known(inv.Currency) {
			return ctx
		}
		return rates.Resolve(ctx, inv.Currency, day)
	}
	out := map[string]outsideWork{"createSupplierInvoice": invoice, "convertInboxItem": invoice, "markSupplierInvoicePaid": payment,
		"refreshTransactionExchangeRate": transaction}
	if rates.Online() {
		// Offline, the transaction reads the stored rates itself: the
		// invoice's currency is not worth a read of its own before it.
		for op, w := range map[string]outsideWork{"markInvoiceSent": issueOne, "sendInvoice": issueOne,
			"sendInvoicePeppol": issueOne, "bulkBookInvoices": issueMany, "markInvoicePaid": sale} {
			out[op] = w
		}
	}
	return out
}

// closingRates is the outside work of a year-end or a revaluation: the
// rates of the closing day (as_of_date when asOf and sent, else the
// year's last day) for every currency of the foreign items open then,
// fetched before the transaction and kept, so the run (in the request or
// in the worker) reads them stored.
func closingRates(journal *ledger.Store, rates *fx.Rates, asOf bool) outsideWork {
	return func(ctx context.Context, _ string, raw []byte, param func(string) string) context.Context {
		company, err1 := uuid.Parse(param("companyId"))
		id, err2 := uuid.Parse(param("fiscalPeriodId"))
		if err1 != nil || err2 != nil {
			return ctx
		}
		p, err := journal.Period(ctx, company, id)
		if err != nil {
			return ctx
		}
		day := p.End
		var b struct {
			AsOf string `json:"as_of_date"`
		}
		if asOf && len(raw) > 0 && json.Unmarshal(raw, &b) == nil && b.AsOf != "" {
			if day, err = time.Parse(time.DateOnly, b.AsOf); err != nil {
				return ctx
			}
		}
		currencies, err := journal.ForeignCurrencies(ctx, company, day)
		if err != nil {
			return ctx
		}
		for _, c := range currencies {
			if fx.Known(c) {
				ctx = rates.Resolve(ctx, c, day)
			}
		}
		return ctx
	}
}
