package banking

import (
	"context"
	"strconv"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
)

// MatchTransactionInvoice settles a customer invoice with money in.
func (h *TxHandler) MatchTransactionInvoice(ctx context.Context, req gen.MatchTransactionInvoiceRequestObject) (gen.MatchTransactionInvoiceResponseObject, error) {
	m, err := h.bank.MatchInvoice(ctx, req.CompanyId, req.TransactionId, req.Body.InvoiceId, flag(req.Body.Force))
	if err != nil {
		return nil, err
	}
	p, e := m.Settled.Parts[0], m.Settled.Entry
	return gen.MatchTransactionInvoice200JSONResponse{Data: gen.TransactionInvoiceMatched{Success: true,
		TransactionId: m.Transaction.ID, InvoiceId: p.InvoiceID, InvoiceStatus: gen.TransactionInvoiceMatchedInvoiceStatus(p.Status),
		PaidAt: envelope.NullableDate(p.PaidAt), PaidAmount: p.Paid, RemainingAmount: p.Remaining, JournalEntryId: e.ID,
		VoucherLabel: e.Voucher(), RoundingSek: m.Settled.Rounding, Lines: ledger.PostingLines(e.Lines)},
		Meta: envelope.Meta(ctx)}, nil
}

// MatchTransactionSupplierInvoice pays a supplier invoice with money out.
func (h *TxHandler) MatchTransactionSupplierInvoice(ctx context.Context, req gen.MatchTransactionSupplierInvoiceRequestObject) (gen.MatchTransactionSupplierInvoiceResponseObject, error) {
	m, err := h.bank.MatchSupplierInvoice(ctx, req.CompanyId, req.TransactionId, req.Body.SupplierInvoiceId, flag(req.Body.Force))
	if err != nil {
		return nil, err
	}
	p, e := m.Settled.Parts[0], m.Settled.Entry
	return gen.MatchTransactionSupplierInvoice200JSONResponse{Data: gen.TransactionSupplierInvoiceMatched{Success: true,
		TransactionId: m.Transaction.ID, SupplierInvoiceId: p.InvoiceID,
		InvoiceStatus: gen.TransactionSupplierInvoiceMatchedInvoiceStatus(p.Status), PaidAt: envelope.NullableDate(p.PaidAt),
		PaidAmount: p.Paid, RemainingAmount: p.Remaining, JournalEntryId: e.ID, VoucherLabel: e.Voucher(),
		BankFeeSek: m.Settled.Fee, RoundingSek: m.Settled.Rounding, Lines: ledger.PostingLines(e.Lines)},
		Meta: envelope.Meta(ctx)}, nil
}

// MatchTransactionBatch settles several invoices of one kind with one
// transaction.
func (h *TxHandler) MatchTransactionBatch(ctx context.Context, req gen.MatchTransactionBatchRequestObject) (gen.MatchTransactionBatchResponseObject, error) {
	allocs := make([]BatchAllocation, len(req.Body.Allocations))
	var issues []apierr.Issue
	for i, a := range req.Body.Allocations {
		at := "allocations[" + strconv.Itoa(i) + "]."
		allocs[i] = BatchAllocation{Kind: string(a.Kind), Amount: a.Amount}
		id, other, want, not := a.InvoiceId, a.SupplierInvoiceId, "invoice_id", "supplier_invoice_id"
		if a.Kind == gen.BatchAllocationKindSupplierInvoice {
			id, other, want, not = a.SupplierInvoiceId, a.InvoiceId, "supplier_invoice_id", "invoice_id"
		}
		switch {
		case id == nil:
			issues = append(issues, apierr.Issue{Field: at + want, In: "body", Rule: "required", Issue: "a " + string(a.Kind) + " names " + want})
		case other != nil:
			issues = append(issues, apierr.Issue{Field: at + not, In: "body", Rule: "absent", Issue: "a " + string(a.Kind) + " names only " + want})
		default:
			allocs[i].InvoiceID = *id
		}
	}
	if len(issues) > 0 {
		return nil, apierr.Validation(issues...)
	}
	m, err := h.bank.MatchBatch(ctx, req.CompanyId, req.TransactionId, allocs, flag(req.Body.Force))
	if err != nil {
		return nil, err
	}
	e := m.Settled.Entry
	out := gen.TransactionBatchMatched{TransactionId: m.Transaction.ID, JournalEntryId: e.ID, VoucherSeries: e.Series,
		VoucherNumber: e.Number, ExpectedLines: ledger.PostingLines(e.Lines), Allocations: []gen.BatchAllocationResult{}}
	for _, p := range m.Settled.Parts {
		r := gen.BatchAllocationResult{Kind: gen.BatchAllocationResultKind(m.Kind), PaymentId: p.PaymentID,
			Status: gen.BatchAllocationResultStatus(p.Status), PaidAmount: p.Paid, RemainingAmount: p.Remaining, Amount: p.Allocated,
			InvoiceId: nullable.NewNullNullable[openapi_types.UUID](), SupplierInvoiceId: nullable.NewNullNullable[openapi_types.UUID]()}
		if m.Kind == CustomerInvoice {
			r.InvoiceId.Set(p.InvoiceID)
		} else {
			r.SupplierInvoiceId.Set(p.InvoiceID)
		}
		out.Allocations = append(out.Allocations, r)
		out.TotalAllocated = out.TotalAllocated.Add(p.Allocated)
	}
	return gen.MatchTransactionBatch200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

func flag(b *bool) bool { return b != nil && *b }
