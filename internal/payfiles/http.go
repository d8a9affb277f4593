package payfiles

import (
	"bytes"
	"context"
	"sort"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the payment batches' operations.
type Handler struct {
	b       *Batches
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(b *Batches, c *cursor.Codec) *Handler { return &Handler{b: b, cursors: c} }

const list = "supplier_payment_batches"

func request(b gen.SupplierPaymentBatchCreate) Request {
	r := Request{Date: b.PaymentDate.Time, CashAccount: b.CashAccountId}
	if b.SupplierInvoiceIds != nil {
		r.Invoices = *b.SupplierInvoiceIds
	}
	if b.ExpenseClaimIds != nil {
		r.Claims = *b.ExpenseClaimIds
	}
	return r
}

// ListSupplierPaymentBatches lists the company's batches.
func (h *Handler) ListSupplierPaymentBatches(ctx context.Context, req gen.ListSupplierPaymentBatchesRequestObject) (gen.ListSupplierPaymentBatchesResponseObject, error) {
	var after *Position
	if p := new(Position); h.cursors.DecodeParam(list, req.Params.Cursor, p) {
		after = p
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.b.List(ctx, req.CompanyId, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, list, rows, limit, func(b Batch) any { return Position{At: b.CreatedAt, ID: b.ID} })
	out := gen.SupplierPaymentBatchList{SupplierPaymentBatches: make([]gen.SupplierPaymentBatch, len(rows)),
		NextCursor: nullable.NewNullNullable[string]()}
	for i, b := range rows {
		out.SupplierPaymentBatches[i] = view(b)
	}
	if next != "" {
		out.NextCursor = nullable.NewNullableWithValue(next)
	}
	return gen.ListSupplierPaymentBatches200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// CreateSupplierPaymentBatch makes a batch and its file.
func (h *Handler) CreateSupplierPaymentBatch(ctx context.Context, req gen.CreateSupplierPaymentBatchRequestObject) (gen.CreateSupplierPaymentBatchResponseObject, error) {
	b, err := h.b.Create(ctx, req.CompanyId, request(*req.Body))
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateSupplierPaymentBatch200JSONResponse{Data: gen.SupplierPaymentBatchDryRun{DryRun: true, Preview: view(b)},
			Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateSupplierPaymentBatch201JSONResponse{Data: view(b), Meta: envelope.Meta(ctx)}, nil
}

// PreviewSupplierPaymentBatch answers the batch and file asked, unmade.
func (h *Handler) PreviewSupplierPaymentBatch(ctx context.Context, req gen.PreviewSupplierPaymentBatchRequestObject) (gen.PreviewSupplierPaymentBatchResponseObject, error) {
	b, err := h.b.Preview(ctx, req.CompanyId, request(*req.Body))
	if err != nil {
		return nil, err
	}
	return gen.PreviewSupplierPaymentBatch200JSONResponse{Data: gen.SupplierPaymentBatchPreview{Batch: view(b), File: string(b.File)},
		Meta: envelope.Meta(ctx)}, nil
}

// GetSupplierPaymentBatch answers one batch.
func (h *Handler) GetSupplierPaymentBatch(ctx context.Context, req gen.GetSupplierPaymentBatchRequestObject) (gen.GetSupplierPaymentBatchResponseObject, error) {
	b, err := h.b.Get(ctx, req.CompanyId, req.BatchId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetSupplierPaymentBatch200JSONResponse{Data: view(b), Meta: envelope.Meta(ctx)}, nil
}

// CancelSupplierPaymentBatch cancels a batch.
func (h *Handler) CancelSupplierPaymentBatch(ctx context.Context, req gen.CancelSupplierPaymentBatchRequestObject) (gen.CancelSupplierPaymentBatchResponseObject, error) {
	b, err := h.b.Cancel(ctx, req.CompanyId, req.BatchId)
	if err != nil {
		return nil, err
	}
	var data gen.SupplierPaymentBatchOutcome
	if store.IsDryRun(ctx) {
		err = data.FromSupplierPaymentBatchDryRun(gen.SupplierPaymentBatchDryRun{DryRun: true, Preview: view(b)})
	} else {
		err = data.FromSupplierPaymentBatch(view(b))
	}
	return gen.CancelSupplierPaymentBatch200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// GetSupplierPaymentBatchFile answers the batch's file as it was made.
func (h *Handler) GetSupplierPaymentBatchFile(ctx context.Context, req gen.GetSupplierPaymentBatchFileRequestObject) (gen.GetSupplierPaymentBatchFileResponseObject, error) {
	b, err := h.b.Get(ctx, req.CompanyId, req.BatchId, false)
	if err != nil {
		return nil, err
	}
	disp := `attachment; filename="betalfil-` + b.MessageID + `.xml"`
	return gen.GetSupplierPaymentBatchFile200ApplicationxmlResponse{Body: bytes.NewReader(b.File), ContentLength: int64(len(b.File)),
		Headers: gen.GetSupplierPaymentBatchFile200ResponseHeaders{ContentDisposition: &disp}}, nil
}

func view(b Batch) gen.SupplierPaymentBatch {
	v := gen.SupplierPaymentBatch{Id: b.ID, Status: gen.SupplierPaymentBatchStatus(b.Status),
		PaymentDate: openapi_types.Date{Time: b.PaymentDate}, CashAccountId: b.CashAccountID, Format: "pain001",
		MessageId: b.MessageID, PaymentCount: b.PaymentCount, Payments: make([]gen.SupplierPaymentBatchPayment, len(b.Items)),
		Totals:    []gen.SupplierPaymentBatchTotal{},
		CreatedAt: b.CreatedAt.UTC(), CancelledAt: envelope.NullableTime(b.CancelledAt)}
	currencies := make([]string, 0, len(b.Totals))
	for c := range b.Totals {
		currencies = append(currencies, c)
	}
	sort.Strings(currencies)
	for _, c := range currencies {
		a, _ := money.Parse(b.Totals[c])
		v.Totals = append(v.Totals, gen.SupplierPaymentBatchTotal{Currency: c, Amount: a})
	}
	for i, it := range b.Items {
		v.Payments[i] = gen.SupplierPaymentBatchPayment{SupplierInvoiceId: envelope.Nullable(it.InvoiceID),
			ExpenseClaimId: envelope.Nullable(it.ClaimID), SupplierName: it.Supplier, InvoiceNumber: envelope.Nullable(it.Number), Reference: it.Reference, EndToEndId: it.EndToEndID, Amount: it.Amount, Currency: it.Currency}
	}
	return v
}
