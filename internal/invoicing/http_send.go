package invoicing

import (
	"context"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/store"
)

// SendInvoice issues a draft and queues its e-mail (Sales.Send).
func (h *Handler) SendInvoice(ctx context.Context, req gen.SendInvoiceRequestObject) (gen.SendInvoiceResponseObject, error) {
	r := SendRequest{}
	if a := auth.AccessFrom(ctx); a != nil {
		r.MayCopy = a.SeesSnapshots() // owners and admins
	}
	if b := req.Body; b != nil {
		if b.AdditionalCc != nil {
			for _, a := range *b.AdditionalCc {
				r.CC = append(r.CC, string(a))
			}
		}
		if b.AdditionalBcc != nil {
			for _, a := range *b.AdditionalBcc {
				r.BCC = append(r.BCC, string(a))
			}
		}
		r.Subject, r.Body = envelope.Optional(b.EmailSubject), envelope.Optional(b.EmailBody)
	}
	sent, err := h.sales.Send(ctx, req.CompanyId, req.InvoiceId, r)
	if err != nil {
		return nil, err
	}
	i, e := sent.Invoice, sent.Email
	data := gen.InvoiceMailed{Id: i.ID, Status: gen.InvoiceStatus(i.State()), Total: i.Total,
		OcrReference: envelope.Nullable(i.OCR), JournalEntryId: envelope.Nullable(i.EntryID),
		BookingDeferred: i.BookingDeferred, VerifikatLines: ledger.PostingLines(sent.Lines), SentTo: e.To,
		CcAddresses: append([]string{}, e.Cc...), Email: gen.InvoiceEmailRef{Id: e.ID, Status: gen.OutgoingEmailStatus(e.Status)}}
	if i.Number != nil {
		data.InvoiceNumber = *i.Number
	}
	if len(e.Cc) > 0 {
		data.Cc.Set(e.Cc[0])
	} else {
		data.Cc.SetNull()
	}
	data.MessageId.SetNull()
	if store.IsDryRun(ctx) {
		data.JournalEntryId.SetNull()
	}
	meta := envelope.Meta(ctx)
	if h.sales.shelf.Mail.Mode == "drop" {
		meta = envelope.WithWarning(meta, "MAIL_NOT_CONFIGURED",
			"Ingen e-postserver är konfigurerad: mejlet sparas på servern men skickas inte. Fakturan är utfärdad.",
			"No mail server is configured: the e-mail is stored on the server, not sent. The invoice is issued.")
	}
	return gen.SendInvoice200JSONResponse{Data: data, Meta: meta}, nil
}

// ListInvoiceEmails answers an invoice's e-mails.
func (h *Handler) ListInvoiceEmails(ctx context.Context, req gen.ListInvoiceEmailsRequestObject) (gen.ListInvoiceEmailsResponseObject, error) {
	emails, err := h.sales.Emails(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	out := make([]gen.OutgoingEmail, len(emails))
	for i, e := range emails {
		out[i] = wireEmail(e)
	}
	return gen.ListInvoiceEmails200JSONResponse{Data: gen.InvoiceEmails{Emails: out}, Meta: envelope.Meta(ctx)}, nil
}

// RetryInvoiceEmail queues a failed e-mail again.
func (h *Handler) RetryInvoiceEmail(ctx context.Context, req gen.RetryInvoiceEmailRequestObject) (gen.RetryInvoiceEmailResponseObject, error) {
	e, err := h.sales.RetryEmail(ctx, req.CompanyId, req.InvoiceId, req.EmailId)
	if err != nil {
		return nil, err
	}
	return gen.RetryInvoiceEmail200JSONResponse{Data: wireEmail(e), Meta: envelope.Meta(ctx)}, nil
}

// wireEmail is an e-mail as the API shows it: no Bcc, and the Message-ID
// once the e-mail has left.
func wireEmail(e mail.Email) gen.OutgoingEmail {
	out := gen.OutgoingEmail{Id: e.ID, Kind: gen.OutgoingEmailKind(e.Kind), Status: gen.OutgoingEmailStatus(e.Status),
		To: e.To, Cc: append([]string{}, e.Cc...), Subject: e.Subject, Attempts: e.Attempts,
		ReminderLevel: envelope.Nullable(e.ReminderLevel), ReplyTo: envelope.Nullable(e.ReplyTo),
		Transport: envelope.Nullable(e.Transport), LastError: envelope.Nullable(e.LastError),
		CreatedAt: e.CreatedAt.UTC(), SentAt: envelope.Nullable(utc(e.SentAt))}
	out.MessageId.SetNull()
	if e.Status == "sent" || e.Status == "dropped" {
		out.MessageId.Set(e.MessageID)
	}
	out.NextAttemptAt.SetNull()
	if e.Status == "queued" {
		out.NextAttemptAt.Set(e.NextAttemptAt.UTC())
	}
	return out
}

// utc is t in UTC, nil for nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// ListInvoiceReminders answers an invoice's payment reminders.
func (h *Handler) ListInvoiceReminders(ctx context.Context, req gen.ListInvoiceRemindersRequestObject) (gen.ListInvoiceRemindersResponseObject, error) {
	rs, err := h.sales.Reminders(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	out := make([]gen.InvoiceReminder, len(rs))
	for i, r := range rs {
		out[i] = gen.InvoiceReminder{Level: r.Level, SentOn: openapi_types.Date{Time: r.SentOn}, DaysOverdue: r.DaysOverdue,
			Remaining: r.Remaining, Fee: r.Fee, Interest: r.Interest, InterestRate: envelope.Nullable(r.Rate),
			EmailId: envelope.Nullable(r.EmailID)}
		out[i].EmailStatus.SetNull()
		if r.EmailStatus != nil {
			out[i].EmailStatus.Set(gen.OutgoingEmailStatus(*r.EmailStatus))
		}
	}
	return gen.ListInvoiceReminders200JSONResponse{Data: gen.InvoiceReminders{Reminders: out}, Meta: envelope.Meta(ctx)}, nil
}
