package invoicing

import (
	"context"
	"strconv"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// UpdateInvoice changes a draft.
func (h *Handler) UpdateInvoice(ctx context.Context, req gen.UpdateInvoiceRequestObject) (gen.UpdateInvoiceResponseObject, error) {
	b := *req.Body
	p := Patch{Items: b.Items != nil, Treatment: b.VatTreatment.IsSpecified() || b.DeliveryCountry.IsSpecified(),
		Apply: func(d *Draft) {
			if b.CustomerId != nil {
				d.CustomerID = *b.CustomerId
			}
			if b.Currency != nil {
				d.Currency = string(*b.Currency)
			}
			if b.DocumentType != nil {
				d.DocumentType = string(*b.DocumentType)
			}
			if b.InvoiceDate != nil {
				d.InvoiceDate = b.InvoiceDate.Time
			}
			if b.DueDate != nil {
				d.DueDate = dateOf(b.DueDate)
			}
			if b.DeliveryDate.IsSpecified() {
				d.DeliveryDate = dateOf(envelope.Optional(b.DeliveryDate))
			}
			if b.ValidUntil.IsSpecified() {
				d.ValidUntil = dateOf(envelope.Optional(b.ValidUntil))
			}
			if b.ExchangeRate.IsSpecified() {
				d.ExchangeRate = envelope.Optional(b.ExchangeRate)
			}
			for _, f := range []struct {
				to   **string
				from nullable.Nullable[string]
			}{{&d.YourReference, b.YourReference}, {&d.OurReference, b.OurReference}, {&d.Marking, b.InvoiceMarking},
				{&d.Notes, b.Notes}, {&d.Housing, b.DeductionHousingDesignation}, {&d.Apartment, b.DeductionApartmentNumber},
				{&d.BRFOrgNumber, b.DeductionBrfOrgNumber}} {
				if f.from.IsSpecified() {
					*f.to = envelope.Optional(f.from)
				}
			}
			if b.OreRounding != nil {
				d.OreRounding = b.OreRounding
			}
			if b.DefaultDimensions != nil {
				d.DefaultDimensions = ledger.Dimensions(*b.DefaultDimensions)
			}
			if b.VatTreatment.IsSpecified() || b.DeliveryCountry.IsSpecified() {
				d.Treatment, d.DeliveryCountry = "", ""
				if t := envelope.Optional(b.VatTreatment); t != nil {
					d.Treatment = Treatment(*t)
				}
				if c := envelope.Optional(b.DeliveryCountry); c != nil {
					d.DeliveryCountry = *c
				}
			}
			if b.Items != nil {
				d.Lines = draftLines(*b.Items)
			}
		}}
	inv, warnings, err := h.sales.Update(ctx, req.CompanyId, req.InvoiceId, p)
	if err != nil {
		return nil, err
	}
	return gen.UpdateInvoice200JSONResponse{Data: Detail(inv), Meta: withWarnings(envelope.Meta(ctx), warnings, "")}, nil
}

// withWarnings adds the VAT warnings of a draft to the meta of an answer,
// each message prefixed (the item of a batch).
func withWarnings(m gen.Meta, warnings []Warning, prefix string) gen.Meta {
	for _, w := range warnings {
		m = envelope.WithAdvice(m, w.Code, prefix+w.Message, prefix+w.MessageEN, w.Remediation)
	}
	return m
}

// BookInvoice books an issued invoice whose booking was deferred.
func (h *Handler) BookInvoice(ctx context.Context, req gen.BookInvoiceRequestObject) (gen.BookInvoiceResponseObject, error) {
	b, err := h.sales.Book(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, Failed(err)
	}
	i := b.Invoice
	entry := envelope.Nullable(i.EntryID)
	if store.IsDryRun(ctx) {
		entry = nullable.NewNullNullable[openapi_types.UUID]()
	}
	return gen.BookInvoice200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.InvoiceBooked{
		Invoice: gen.InvoiceBookedInvoice{Id: i.ID, InvoiceNumber: *i.Number, Status: gen.InvoiceStatus(i.State()),
			InvoiceDate: date(i.InvoiceDate), DueDate: date(i.DueDate), Currency: gen.InvoiceCurrency(i.Currency),
			Total: i.Total, JournalEntryId: entry},
		JournalEntryId: entry, VerifikatLines: ledger.PostingLines(b.Lines)}}, nil
}

// BulkBookInvoices books many invoices, each with its own outcome.
func (h *Handler) BulkBookInvoices(ctx context.Context, req gen.BulkBookInvoicesRequestObject) (gen.BulkBookInvoicesResponseObject, error) {
	results, err := h.sales.BulkBook(ctx, req.CompanyId, req.Body.InvoiceIds)
	if err != nil {
		return nil, Failed(err)
	}
	out := gen.InvoiceBulkBookResult{Results: make([]gen.InvoiceBulkBookItem, len(results)),
		Summary: gen.InvoiceBulkBookSummary{Total: len(results)}}
	for k, r := range results {
		it := gen.InvoiceBulkBookItem{Id: r.ID, Status: gen.InvoiceBulkBookItemStatusBooked}
		if r.Err != nil {
			code := gen.ErrorCode(r.Err.Code)
			details := r.Err.Details
			if details == nil {
				details = map[string]any{}
			}
			it.Status, it.ErrorCode, it.Error, it.ErrorEn, it.ErrorDetails = gen.InvoiceBulkBookItemStatusFailed, &code, &r.Err.Message,
				&r.Err.MessageEn, &details
			out.Summary.Failed++
		} else {
			i := r.Booked.Invoice
			lines := ledger.PostingLines(r.Booked.Lines)
			it.InvoiceNumber, it.VerifikatLines = i.Number, &lines
			it.JournalEntryId = envelope.Nullable(i.EntryID)
			if store.IsDryRun(ctx) {
				it.JournalEntryId = nullable.NewNullNullable[openapi_types.UUID]()
			}
			out.Summary.Booked++
		}
		out.Results[k] = it
	}
	return gen.BulkBookInvoices200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// BulkCreateInvoices creates up to 50 drafts, each on its own.
func (h *Handler) BulkCreateInvoices(ctx context.Context, req gen.BulkCreateInvoicesRequestObject) (gen.BulkCreateInvoicesResponseObject, error) {
	if req.Body.AllOrNothing != nil && *req.Body.AllOrNothing {
		return nil, envelope.AllOrNothing("created")
	}
	drafts := make([]Draft, len(req.Body.Invoices))
	for i, b := range req.Body.Invoices {
		drafts[i] = draftOf(b)
	}
	results, err := h.sales.BulkCreate(ctx, req.CompanyId, drafts)
	if err != nil {
		return nil, err
	}
	m := envelope.Meta(ctx)
	out := gen.InvoiceBulkCreateResult{Results: make([]gen.InvoiceBulkCreateItem, len(results)),
		Summary: gen.BulkSummary{Total: len(results)}}
	for k, r := range results {
		it := gen.InvoiceBulkCreateItem{Ok: r.Err == nil, RequestIndex: k}
		if r.Err != nil {
			it.Error = envelope.ItemError(r.Err)
		} else {
			m = withWarnings(m, r.Warnings, "invoices["+strconv.Itoa(k)+"]: ")
			id := nullable.NewNullableWithValue(r.Invoice.ID)
			if store.IsDryRun(ctx) {
				id = nullable.NewNullNullable[openapi_types.UUID]()
			}
			it.Data = &gen.InvoiceBulkCreated{Id: id, InvoiceNumber: envelope.Nullable(r.Invoice.Number),
				Status: gen.InvoiceStatus(r.Invoice.State()), Total: r.Invoice.Total}
			out.Summary.Succeeded++
		}
		out.Results[k] = it
	}
	out.Summary.Failed = out.Summary.Total - out.Summary.Succeeded
	return gen.BulkCreateInvoices200JSONResponse{Data: out, Meta: m}, nil
}
