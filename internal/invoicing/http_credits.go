package invoicing

import (
	"context"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// ListCustomerCredits answers a customer's credits.
func (h *Handler) ListCustomerCredits(ctx context.Context, req gen.ListCustomerCreditsRequestObject) (gen.ListCustomerCreditsResponseObject, error) {
	credits, err := h.sales.Credits(ctx, req.CompanyId, req.CustomerId)
	if err != nil {
		return nil, err
	}
	out := make([]gen.CustomerCredit, len(credits))
	for i, c := range credits {
		out[i] = creditView(c)
	}
	return gen.ListCustomerCredits200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// ApplyCustomerCredit pays an invoice from a customer's credit.
func (h *Handler) ApplyCustomerCredit(ctx context.Context, req gen.ApplyCustomerCreditRequestObject) (gen.ApplyCustomerCreditResponseObject, error) {
	b := req.Body
	invoice := b.InvoiceId
	spent, err := h.sales.ApplyCredit(ctx, req.CompanyId, req.CustomerId, req.CreditId,
		Spend{Invoice: &invoice, Amount: b.Amount, Date: dateOf(b.PaymentDate)})
	if err != nil {
		return nil, err
	}
	return gen.ApplyCustomerCredit200JSONResponse{Data: usedView(ctx, spent), Meta: envelope.Meta(ctx)}, nil
}

// RefundCustomerCredit pays a customer's credit back.
func (h *Handler) RefundCustomerCredit(ctx context.Context, req gen.RefundCustomerCreditRequestObject) (gen.RefundCustomerCreditResponseObject, error) {
	var sp Spend
	if b := req.Body; b != nil {
		sp.Amount, sp.Date = b.Amount, dateOf(b.PaymentDate)
		if b.PaymentAccount != nil {
			sp.Account = *b.PaymentAccount
		}
	}
	spent, err := h.sales.RefundCredit(ctx, req.CompanyId, req.CustomerId, req.CreditId, sp)
	if err != nil {
		return nil, err
	}
	return gen.RefundCustomerCredit200JSONResponse{Data: usedView(ctx, spent), Meta: envelope.Meta(ctx)}, nil
}

func usedView(ctx context.Context, s Spent) gen.CustomerCreditUsed {
	out := gen.CustomerCreditUsed{Credit: creditView(s.Credit), Invoice: nullable.NewNullNullable[gen.InvoicePaid](),
		JournalEntryId: nullable.NewNullableWithValue(openapi_types.UUID(s.EntryID)), VerifikatLines: ledger.PostingLines(s.Lines)}
	if s.Invoice != nil {
		out.Invoice = nullable.NewNullableWithValue(paidView(ctx, Paid{Invoice: *s.Invoice, Payment: s.Payment, Lines: s.Lines}))
	}
	if store.IsDryRun(ctx) {
		out.JournalEntryId = nullable.NewNullNullable[openapi_types.UUID]()
	}
	return out
}

func creditView(c Credit) gen.CustomerCredit {
	return gen.CustomerCredit{Id: c.ID, CustomerId: c.CustomerID, InvoiceId: c.InvoiceID, Currency: gen.InvoiceCurrency(c.Currency),
		Amount: c.Amount, AmountSek: c.SEK, RemainingAmount: c.Remaining(), RemainingSek: c.RemainingSEK(),
		CreditDate: openapi_types.Date{Time: c.Date}, JournalEntryId: c.EntryID, CreatedAt: c.CreatedAt.UTC()}
}
