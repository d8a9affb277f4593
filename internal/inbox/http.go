package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/payables"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the inbox endpoints.
type Handler struct {
	inbox   *Inbox
	cursors *cursor.Codec
}

// NewHandler returns the inbox handler.
func NewHandler(b *Inbox, c *cursor.Codec) *Handler { return &Handler{inbox: b, cursors: c} }

const listName = "inbox_items"

func date(t *time.Time) nullable.Nullable[openapi_types.Date] {
	if t == nil {
		return nullable.NewNullNullable[openapi_types.Date]()
	}
	return nullable.NewNullableWithValue(openapi_types.Date{Time: *t})
}

func underlag(s *string) nullable.Nullable[gen.UnderlagStatus] {
	if s == nil {
		return nullable.NewNullNullable[gen.UnderlagStatus]()
	}
	return nullable.NewNullableWithValue(gen.UnderlagStatus(*s))
}

// Summary is an item as listed.
func Summary(i Item) gen.InboxItem {
	return gen.InboxItem{InboxItemId: i.ID, Status: gen.InboxItemStatus(i.Status), Source: gen.InboxItemSource(i.Source),
		CreatedAt: i.CreatedAt, DocumentId: envelope.Nullable(i.DocumentID), KindHint: gen.InboxItemKind(i.Kind),
		VendorName: envelope.Nullable(i.VendorName), Amount: envelope.Nullable(i.Amount), Currency: envelope.Nullable(i.Currency),
		InvoiceDate: date(i.InvoiceDate), Processed: i.Processed, MatchedSupplierId: envelope.Nullable(i.MatchedSupplierID),
		MatchedTransactionId:             envelope.Nullable(i.MatchedTransactionID),
		MatchedTransactionJournalEntryId: envelope.Nullable(i.MatchedTransactionEntryID),
		CreatedSupplierInvoiceId:         envelope.Nullable(i.CreatedSupplierInvoice), CreatedJournalEntryId: envelope.Nullable(i.CreatedEntryID),
		UnderlagStatus: underlag(i.UnderlagStatus), EmailFrom: envelope.Nullable(i.EmailFrom),
		EmailSubject: envelope.Nullable(i.EmailSubject), EmailReceivedAt: envelope.NullableTime(i.EmailReceivedAt),
		ErrorMessage: envelope.Nullable(i.ErrorMessage)}
}

// Detail is an item with what it was read to say: its audit snapshot too.
func Detail(i Item) gen.InboxItemDetail {
	s := Summary(i)
	var v gen.InboxItemDetail
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &v)
	v.ExtractedData = nullable.NewNullNullable[gen.InboxReading]()
	if len(i.Extracted) > 0 {
		var r gen.InboxReading
		if json.Unmarshal(i.Extracted, &r) == nil {
			v.ExtractedData = nullable.NewNullableWithValue(r)
		}
	}
	v.ExtractionSkipped, v.EmailBodyText, v.FileName, v.UpdatedAt = i.Skipped, envelope.Nullable(i.EmailBody),
		envelope.Nullable(i.FileName), i.UpdatedAt
	return v
}

// ListInboxItems reads a page of the inbox.
func (h *Handler) ListInboxItems(ctx context.Context, req gen.ListInboxItemsRequestObject) (gen.ListInboxItemsResponseObject, error) {
	p := req.Params
	f := Filter{Status: (*string)(p.Status), UnprocessedOnly: p.UnprocessedOnly != nil && *p.UnprocessedOnly}
	var after *cursor.Position
	if pos := (cursor.Position{}); h.cursors.DecodeParam(listName, p.Cursor, &pos) {
		after = &pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.inbox.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, listName, rows, limit, func(i Item) any { return cursor.Position{At: i.CreatedAt, ID: i.ID} })
	data := gen.InboxItemList{InboxItems: make([]gen.InboxItem, len(rows)), NextCursor: nullable.NewNullNullable[string]()}
	if next != "" {
		data.NextCursor = nullable.NewNullableWithValue(next)
	}
	for i, r := range rows {
		data.InboxItems[i] = Summary(r)
	}
	return gen.ListInboxItems200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

// GetInboxItem reads one item.
func (h *Handler) GetInboxItem(ctx context.Context, req gen.GetInboxItemRequestObject) (gen.GetInboxItemResponseObject, error) {
	it, err := h.inbox.Get(ctx, req.CompanyId, req.InboxItemId)
	if err != nil {
		return nil, err
	}
	return gen.GetInboxItem200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// ConvertInboxItem registers a supplier invoice from an item.
func (h *Handler) ConvertInboxItem(ctx context.Context, req gen.ConvertInboxItemRequestObject) (gen.ConvertInboxItemResponseObject, error) {
	b := req.Body
	d := payables.Draft{SupplierID: b.SupplierId, Number: b.SupplierInvoiceNumber, InvoiceDate: b.InvoiceDate.Time,
		DueDate: b.DueDate.Time, ExchangeRate: b.ExchangeRate, ReverseCharge: b.ReverseCharge,
		PaymentReference: envelope.Text(b.PaymentReference), Notes: envelope.Text(b.Notes)}
	if b.DeliveryDate != nil && *b.DeliveryDate != "" {
		t, err := time.Parse(time.DateOnly, *b.DeliveryDate)
		if err != nil {
			return nil, apierr.Field("delivery_date", "date", "a date (YYYY-MM-DD) or \"\"")
		}
		d.DeliveryDate = &t
	}
	if b.Currency != nil {
		d.Currency = string(*b.Currency)
	}
	if b.VatTreatment != nil {
		d.Treatment = string(*b.VatTreatment)
	}
	for _, it := range b.Items {
		account, rate := it.AccountNumber, it.VatRate
		d.Items = append(d.Items, payables.ItemDraft{Description: it.Description, Amount: it.Amount, Account: &account,
			VATRate: &rate})
	}
	c, item, err := h.inbox.Convert(ctx, req.CompanyId, req.InboxItemId, d)
	if err != nil {
		return nil, err
	}
	inv := c.Invoice
	id, entry := nullable.NewNullableWithValue(inv.ID), envelope.Nullable(inv.EntryID)
	if store.IsDryRun(ctx) {
		id, entry = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[openapi_types.UUID]()
	}
	return gen.ConvertInboxItem200JSONResponse{Data: gen.InboxItemConverted{SupplierInvoiceId: id, ArrivalNumber: inv.ArrivalNumber,
		Status: gen.SupplierInvoiceStatus(inv.State()), Currency: gen.SupplierInvoiceCurrency(inv.Currency), Total: inv.Total,
		TotalSek: inv.TotalSEK, RegistrationJournalEntryId: entry, InboxItemId: item.ID,
		VerifikatLines: ledger.PostingLines(c.Lines)}, Meta: envelope.Meta(ctx)}, nil
}

// MatchInboxItemSupplier sets or clears an item's supplier.
func (h *Handler) MatchInboxItemSupplier(ctx context.Context, req gen.MatchInboxItemSupplierRequestObject) (gen.MatchInboxItemSupplierResponseObject, error) {
	var supplier *uuid.UUID
	if !req.Body.SupplierId.IsNull() {
		v := req.Body.SupplierId.MustGet()
		supplier = &v
	}
	it, err := h.inbox.MatchSupplier(ctx, req.CompanyId, req.InboxItemId, supplier)
	if err != nil {
		return nil, err
	}
	return gen.MatchInboxItemSupplier200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// MatchInboxItemTransaction pairs an item with a bank transaction.
func (h *Handler) MatchInboxItemTransaction(ctx context.Context, req gen.MatchInboxItemTransactionRequestObject) (gen.MatchInboxItemTransactionResponseObject, error) {
	tx := req.Body.TransactionId
	it, err := h.inbox.MatchTransaction(ctx, req.CompanyId, req.InboxItemId, &tx)
	if err != nil {
		return nil, err
	}
	return gen.MatchInboxItemTransaction200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// UnmatchInboxItemTransaction releases an item's bank transaction.
func (h *Handler) UnmatchInboxItemTransaction(ctx context.Context, req gen.UnmatchInboxItemTransactionRequestObject) (gen.UnmatchInboxItemTransactionResponseObject, error) {
	it, err := h.inbox.MatchTransaction(ctx, req.CompanyId, req.InboxItemId, nil)
	if err != nil {
		return nil, err
	}
	return gen.UnmatchInboxItemTransaction200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// StampInboxItem marks an item consumed by a verifikat.
func (h *Handler) StampInboxItem(ctx context.Context, req gen.StampInboxItemRequestObject) (gen.StampInboxItemResponseObject, error) {
	it, err := h.inbox.Stamp(ctx, req.CompanyId, req.InboxItemId, req.Body.JournalEntryId)
	if err != nil {
		return nil, err
	}
	return gen.StampInboxItem200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// UpdateInboxItem corrects an item's reading.
func (h *Handler) UpdateInboxItem(ctx context.Context, req gen.UpdateInboxItemRequestObject) (gen.UpdateInboxItemResponseObject, error) {
	b := req.Body
	var c Correction
	if b.KindHint != nil {
		k := string(*b.KindHint)
		c.Kind = &k
	}
	if b.VendorName.IsSpecified() {
		v := envelope.Text(optional(b.VendorName))
		c.VendorName = &v
	}
	if b.Amount.IsSpecified() {
		v := optional(b.Amount)
		c.Amount = &v
	}
	if b.Currency.IsSpecified() {
		var v *string
		if cur := optional(b.Currency); cur != nil {
			s := string(*cur)
			v = &s
		}
		c.Currency = &v
	}
	if b.InvoiceDate.IsSpecified() {
		var v *time.Time
		if d := optional(b.InvoiceDate); d != nil {
			v = &d.Time
		}
		c.InvoiceDate = &v
	}
	it, err := h.inbox.Correct(ctx, req.CompanyId, req.InboxItemId, c)
	if err != nil {
		return nil, err
	}
	return gen.UpdateInboxItem200JSONResponse{Data: Detail(it), Meta: envelope.Meta(ctx)}, nil
}

// optional is a sent nullable field's value, nil when null.
func optional[T any](n nullable.Nullable[T]) *T {
	if n.IsNull() {
		return nil
	}
	v := n.MustGet()
	return &v
}

// DeleteInboxItem discards an item.
func (h *Handler) DeleteInboxItem(ctx context.Context, req gen.DeleteInboxItemRequestObject) (gen.DeleteInboxItemResponseObject, error) {
	it, err := h.inbox.Delete(ctx, req.CompanyId, req.InboxItemId)
	if err != nil {
		return nil, err
	}
	return gen.DeleteInboxItem200JSONResponse{Data: gen.InboxItemDeleted{InboxItemId: it.ID, Deleted: gen.InboxItemDeletedDeleted(true)}, Meta: envelope.Meta(ctx)}, nil
}

// ReceiveInboundEmail writes what an e-mail brought, read and kept
// before the transaction (the server's streamed reader of the route).
func (h *Handler) ReceiveInboundEmail(ctx context.Context, req gen.ReceiveInboundEmailRequestObject) (gen.ReceiveInboundEmailResponseObject, error) {
	a := ArrivalFrom(ctx)
	if a == nil || a.Message == nil {
		return nil, errors.New("inbox: the message was not read before its transaction")
	}
	ctx = audit.WithActor(ctx, audit.Actor{Type: "system", Label: "inbound e-mail"})
	items, err := h.inbox.Receive(ctx, req.Params.CompanyId, *a)
	if err != nil {
		return nil, err
	}
	ids := make([]openapi_types.UUID, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return gen.ReceiveInboundEmail200JSONResponse{Data: gen.InboundEmailReceived{InboxItemIds: ids, Duplicate: len(items) == 0},
		Meta: envelope.Meta(ctx)}, nil
}
