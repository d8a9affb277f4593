package payables

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// summary is the short form of an invoice the action endpoints answer.
func summary(i Invoice) gen.SupplierInvoiceSummary {
	return gen.SupplierInvoiceSummary{Id: i.ID, ArrivalNumber: i.ArrivalNumber, SupplierInvoiceNumber: i.Number,
		Status: gen.SupplierInvoiceStatus(i.State()), InvoiceDate: date(i.InvoiceDate), DueDate: date(i.DueDate),
		Currency: gen.SupplierInvoiceCurrency(i.Currency), Total: i.Total, RemainingAmount: i.Remaining(),
		RegistrationJournalEntryId: envelope.Nullable(i.EntryID)}
}

// orNull is id, or null on a dry run (nothing was written).
func orNull(ctx context.Context, id *openapi_types.UUID) nullable.Nullable[openapi_types.UUID] {
	if store.IsDryRun(ctx) {
		return nullable.NewNullNullable[openapi_types.UUID]()
	}
	return envelope.Nullable(id)
}

// MarkSupplierInvoiceBankEntered marks or clears 'entered in the internet bank'.
func (h *Handler) MarkSupplierInvoiceBankEntered(ctx context.Context, req gen.MarkSupplierInvoiceBankEnteredRequestObject) (gen.MarkSupplierInvoiceBankEnteredResponseObject, error) {
	inv, err := h.payables.BankEntered(ctx, req.CompanyId, req.SupplierInvoiceId, req.Body.Entered)
	if err != nil {
		return nil, err
	}
	return gen.MarkSupplierInvoiceBankEntered200JSONResponse{Data: gen.SupplierInvoiceBankEntered{SupplierInvoiceId: inv.ID,
		BankEnteredAt: envelope.NullableTime(inv.BankEnteredAt)}, Meta: envelope.Meta(ctx)}, nil
}

// BookSupplierInvoice books a deferred registration.
func (h *Handler) BookSupplierInvoice(ctx context.Context, req gen.BookSupplierInvoiceRequestObject) (gen.BookSupplierInvoiceResponseObject, error) {
	b, err := h.payables.Book(ctx, req.CompanyId, req.SupplierInvoiceId)
	if err != nil {
		return nil, err
	}
	s := summary(b.Invoice)
	s.RegistrationJournalEntryId = orNull(ctx, b.Invoice.EntryID)
	return gen.BookSupplierInvoice200JSONResponse{Data: gen.SupplierInvoiceBooked{SupplierInvoice: s,
		JournalEntryId: orNull(ctx, &b.EntryID), VerifikatLines: ledger.PostingLines(b.Lines)}, Meta: envelope.Meta(ctx)}, nil
}

// CreditSupplierInvoice registers the supplier's credit note, of the whole invoice or part of it.
func (h *Handler) CreditSupplierInvoice(ctx context.Context, req gen.CreditSupplierInvoiceRequestObject) (gen.CreditSupplierInvoiceResponseObject, error) {
	var cd CreditDraft
	if b := req.Body; b != nil {
		cd = CreditDraft{Number: b.SupplierCreditNoteNumber, DocumentID: b.DocumentId, InboxItemID: b.InboxItemId, Amount: b.Amount}
		if b.CreditDate != nil {
			cd.Date = &b.CreditDate.Time
		}
		if b.Lines != nil {
			for _, l := range *b.Lines {
				cd.Lines = append(cd.Lines, CreditLine{ItemID: l.ItemId, Amount: l.Amount})
			}
		}
	}
	c, err := h.payables.Credit(ctx, req.CompanyId, req.SupplierInvoiceId, cd)
	if err != nil {
		return nil, err
	}
	n := c.Note
	return gen.CreditSupplierInvoice200JSONResponse{Data: gen.SupplierInvoiceCredited{CreditNoteId: orNull(ctx, &n.ID),
		OriginalId: c.Original.ID, ArrivalNumber: n.ArrivalNumber, SupplierInvoiceNumber: n.Number,
		InvoiceDate: date(n.InvoiceDate), Status: gen.SupplierInvoiceStatus(n.State()), Total: n.Total,
		RemainingAmount: n.Remaining(), RegistrationJournalEntryId: orNull(ctx, n.EntryID),
		DocumentId: envelope.Nullable(n.DocumentID), InboxItemId: envelope.Nullable(n.InboxItemID),
		VerifikatLines: ledger.PostingLines(c.Lines)}, Meta: envelope.Meta(ctx)}, nil
}

// UncreditSupplierInvoice undoes a credit.
func (h *Handler) UncreditSupplierInvoice(ctx context.Context, req gen.UncreditSupplierInvoiceRequestObject) (gen.UncreditSupplierInvoiceResponseObject, error) {
	u, err := h.payables.Uncredit(ctx, req.CompanyId, req.SupplierInvoiceId)
	if err != nil {
		return nil, err
	}
	data := gen.SupplierInvoiceUncredited{SupplierInvoice: summary(u.Original), Changed: u.Changed,
		ReversalEntryId: orNull(ctx, u.StornoID), ReversedCreditNoteId: nullable.NewNullNullable[openapi_types.UUID]()}
	if u.Note != nil {
		data.ReversedCreditNoteId = nullable.NewNullableWithValue(u.Note.ID)
	}
	return gen.UncreditSupplierInvoice200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

// UpdateSupplierInvoice changes a registered invoice, or its dispute.
func (h *Handler) UpdateSupplierInvoice(ctx context.Context, req gen.UpdateSupplierInvoiceRequestObject) (gen.UpdateSupplierInvoiceResponseObject, error) {
	b := req.Body
	pt := Patch{Number: b.SupplierInvoiceNumber, Disputed: b.Disputed}
	if b.InvoiceDate != nil {
		pt.InvoiceDate = &b.InvoiceDate.Time
	}
	if b.DueDate != nil {
		pt.DueDate = &b.DueDate.Time
	}
	if b.DeliveryDate.IsSpecified() {
		var day *time.Time
		if d := envelope.Optional(b.DeliveryDate); d != nil {
			day = &d.Time
		}
		pt.DeliveryDate = &day
	}
	if b.PaymentReference.IsSpecified() {
		v := envelope.Text(nullableText(b.PaymentReference))
		pt.PaymentReference = &v
	}
	if b.Notes.IsSpecified() {
		v := envelope.Text(nullableText(b.Notes))
		pt.Notes = &v
	}
	inv, err := h.payables.Update(ctx, req.CompanyId, req.SupplierInvoiceId, pt)
	if err != nil {
		return nil, err
	}
	return gen.UpdateSupplierInvoice200JSONResponse{Data: Event(inv), Meta: envelope.Meta(ctx)}, nil
}

// nullableText is a sent text field: nil when null.
func nullableText(n nullable.Nullable[string]) *string {
	if n.IsNull() {
		return nil
	}
	v := n.MustGet()
	return &v
}

// MoveSupplierInvoiceItem moves one line to another account.
func (h *Handler) MoveSupplierInvoiceItem(ctx context.Context, req gen.MoveSupplierInvoiceItemRequestObject) (gen.MoveSupplierInvoiceItemResponseObject, error) {
	m, err := h.payables.MoveItem(ctx, req.CompanyId, req.SupplierInvoiceId, req.ItemId, req.Body.AccountNumber)
	if err != nil {
		return nil, err
	}
	return gen.MoveSupplierInvoiceItem200JSONResponse{Data: gen.SupplierInvoiceItemMoved{Changed: m.Changed,
		Corrected: m.Corrected}, Meta: envelope.Meta(ctx)}, nil
}
