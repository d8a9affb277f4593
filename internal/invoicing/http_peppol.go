package invoicing

import (
	"context"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// GetInvoicePeppol answers whether an invoice can go as an e-invoice.
func (h *Handler) GetInvoicePeppol(ctx context.Context, req gen.GetInvoicePeppolRequestObject) (gen.GetInvoicePeppolResponseObject, error) {
	r, err := h.sales.Readiness(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	data := gen.PeppolReadiness{InvoiceId: r.Invoice.ID, InvoiceNumber: envelope.Nullable(r.Invoice.Number),
		InvoiceStatus: gen.InvoiceStatus(r.Invoice.State()), Ready: r.Ready(), WillIssueInvoice: r.WillIssue,
		Blockers: []gen.PeppolBlocker{}}
	data.Sender.SetNull()
	if !r.Sender.IsZero() {
		data.Sender.Set(gen.PeppolParticipant{Scheme: r.Sender.Scheme, Identifier: r.Sender.Value})
	}
	data.Recipient.SetNull()
	if !r.Recipient.IsZero() {
		data.Recipient.Set(gen.PeppolRecipient{Scheme: r.Recipient.Scheme, Identifier: r.Recipient.Value,
			Source: gen.PeppolRecipientSource(r.RecipientSource), Reachability: gen.PeppolRecipientReachability(r.Reachability)})
	}
	data.Transport.Available = r.Provider != ""
	data.Transport.Provider, data.Transport.Reason = nullable.NewNullNullable[string](), nullable.NewNullNullable[string]()
	if r.Provider != "" {
		data.Transport.Provider.Set(r.Provider)
	} else {
		data.Transport.Reason.Set("no access point is configured (KONTERA_PEPPOL_AP)")
	}
	data.Access.Status, data.Access.SendEnabled, data.Access.SentCount = "blocked", r.Access, r.SentCount
	if r.Access {
		data.Access.Status = "active"
	}
	data.Access.MaxSends, data.Access.RemainingSends = nullable.NewNullNullable[int](), nullable.NewNullNullable[int]()
	for _, b := range r.Blockers {
		data.Blockers = append(data.Blockers, gen.PeppolBlocker{Code: b.Code, Field: b.Field, Message: b.Message,
			MessageEn: b.MessageEN})
	}
	return gen.GetInvoicePeppol200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

// ListInvoicePeppolDeliveries answers an invoice's e-invoice deliveries.
func (h *Handler) ListInvoicePeppolDeliveries(ctx context.Context, req gen.ListInvoicePeppolDeliveriesRequestObject) (gen.ListInvoicePeppolDeliveriesResponseObject, error) {
	ds, err := h.sales.Deliveries(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	out := make([]gen.PeppolDelivery, len(ds))
	for i, d := range ds {
		out[i] = wireDelivery(d)
	}
	return gen.ListInvoicePeppolDeliveries200JSONResponse{Data: gen.PeppolDeliveries{Deliveries: out},
		Meta: envelope.Meta(ctx)}, nil
}

// SendInvoicePeppol sends an invoice as an e-invoice (Sales.SendPeppol).
func (h *Handler) SendInvoicePeppol(ctx context.Context, req gen.SendInvoicePeppolRequestObject) (gen.SendInvoicePeppolResponseObject, error) {
	sent, err := h.sales.SendPeppol(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	i := sent.Invoice
	data := gen.InvoicePeppolSent{Id: i.ID, InvoiceNumber: text(i.Number), Status: gen.InvoiceStatus(i.State()),
		Total: i.Total, OcrReference: envelope.Nullable(i.OCR), JournalEntryId: envelope.Nullable(i.EntryID),
		BookingDeferred: i.BookingDeferred, VerifikatLines: ledger.PostingLines(sent.Lines), WillIssueInvoice: sent.WillIssue,
		Delivery: wireDelivery(sent.Delivery)}
	if store.IsDryRun(ctx) {
		data.JournalEntryId.SetNull()
		data.Delivery.DocumentId.SetNull()
	}
	return gen.SendInvoicePeppol200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

func wireDelivery(d Delivery) gen.PeppolDelivery {
	out := gen.PeppolDelivery{Id: d.ID, Status: gen.PeppolDeliveryStatus(d.Status), Provider: d.Provider,
		TransmissionId: envelope.Nullable(d.TransmissionID), Sender: d.Sender, Receiver: d.Receiver,
		DocumentType: gen.PeppolDeliveryDocumentType(d.DocumentType), Attempts: d.Attempts,
		ErrorMessage: envelope.Nullable(d.ErrorMessage), NextAttemptAt: envelope.NullableTime(d.NextAttemptAt),
		CreatedAt: d.CreatedAt.UTC(), SubmittedAt: envelope.NullableTime(d.SubmittedAt),
		DeliveredAt: envelope.NullableTime(d.DeliveredAt)}
	out.DocumentId.Set(d.DocumentID)
	out.ErrorCode.SetNull()
	if d.ErrorCode != nil {
		out.ErrorCode.Set(gen.PeppolDeliveryErrorCode(*d.ErrorCode))
	}
	return out
}
