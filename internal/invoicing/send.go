package invoicing

import (
	"context"
	"fmt"
	netmail "net/mail"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/mail"
)

// Mailroom is how invoicing hands e-mails on, filled in at composition.
type Mailroom struct {
	// Mode is the transport: smtp, drop (stored, not sent) or off.
	Mode string
	// From is the address every e-mail is sent from (KONTERA_MAIL_FROM).
	From string
	// Queue writes an e-mail to the outbox in the transaction of ctx.
	Queue func(ctx context.Context, e mail.Email) (mail.Email, error)
	// OfInvoice and Requeue read and retry an invoice's e-mails.
	OfInvoice func(ctx context.Context, company, invoice uuid.UUID) ([]mail.Email, error)
	Requeue   func(ctx context.Context, company, invoice, id uuid.UUID) (*mail.Email, bool, error)
}

// SendRequest is what POST /send asks for.
type SendRequest struct {
	CC, BCC []string
	// Subject and Body replace the texts of the settings when given.
	Subject, Body *string
	// MayCopy says the caller is an owner or admin, who alone may add
	// recipients of their own.
	MayCopy bool
}

// Sent is an invoice sent: issued (a quote only stamped), with its e-mail.
type Sent struct {
	Issued
	Email mail.Email
}

// Send e-mails a draft to its customer in one transaction: the invoice
// is issued as mark-sent issues it (a quote only gets sent_at) and its
// e-mail queued, sent after the commit with the archived PDF. Nothing is
// changed when e-mail is off (503), the customer has no address, or the
// issue is refused.
func (s *Sales) Send(ctx context.Context, company, id uuid.UUID, r SendRequest) (Sent, error) {
	if s.shelf.Mail.Mode == "off" {
		return Sent{}, apierr.New(apierr.InvoiceSendEmailNotConfigured, map[string]any{"transport": "off"})
	}
	if !r.MayCopy {
		for field, list := range map[string][]string{"additional_cc": r.CC, "additional_bcc": r.BCC} {
			if len(list) > 0 {
				return Sent{}, apierr.New(apierr.Forbidden, map[string]any{"field": field,
					"reason": "only an owner or admin adds recipients of their own", "required_roles": []string{"owner", "admin"}})
			}
		}
	}
	if err := checkAddresses(r); err != nil {
		return Sent{}, err
	}
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Hold)
	if err != nil {
		return Sent{}, err
	}
	if inv.DocumentType == "delivery_note" {
		return Sent{}, apierr.Field("document_type", "sendable", "a delivery note goes with the goods; it is not e-mailed")
	}
	buyer, err := s.shelf.Buyer(ctx, company, inv.CustomerID)
	if err != nil {
		return Sent{}, err
	}
	if buyer.Email == "" {
		return Sent{}, apierr.New(apierr.InvoiceSendNoCustomerEmail, map[string]any{"customer_id": inv.CustomerID,
			"field": "customer.email"})
	}
	seller, err := s.shelf.Seller(ctx, company)
	if err != nil {
		return Sent{}, err
	}
	var out Sent
	if inv.DocumentType == "quote" {
		if out.Invoice, err = s.quoteSent(ctx, inv); err != nil {
			return Sent{}, err
		}
	} else if out.Issued, err = s.issue(ctx, inv); err != nil {
		return Sent{}, err
	}
	e := s.letterMail(out.Invoice, seller, buyer, r)
	out.Email, err = s.shelf.Mail.Queue(ctx, e)
	return out, err
}

// checkAddresses refuses additional recipients that are not addresses.
func checkAddresses(r SendRequest) error {
	var issues []apierr.Issue
	for field, list := range map[string][]string{"additional_cc": r.CC, "additional_bcc": r.BCC} {
		for i, a := range list {
			if p, err := netmail.ParseAddress(a); err != nil || p.Address != strings.TrimSpace(a) {
				issues = append(issues, apierr.Issue{Field: fmt.Sprintf("%s.%d", field, i), In: "body", Rule: "email",
					Issue: "must be an e-mail address such as ekonomi@example.se"})
			}
		}
	}
	if len(issues) > 0 {
		slices.SortFunc(issues, func(a, b apierr.Issue) int { return strings.Compare(a.Field, b.Field) })
		return apierr.Validation(issues...)
	}
	return nil
}

// quoteSent stamps a quote sent: it stays a draft the customer decides on.
func (s *Sales) quoteSent(ctx context.Context, q Invoice) (Invoice, error) {
	if q.Status != "draft" {
		return Invoice{}, apierr.New(apierr.InvoiceAlreadySent, map[string]any{"invoice_id": q.ID, "current_status": q.State()})
	}
	sent, err := s.store.QuoteSent(ctx, q, s.now().UTC(), s.today())
	if err != nil {
		return Invoice{}, err
	}
	sent.Lines = q.Lines
	return sent, s.record(ctx, audit.Update, describe(sent)+" skickades", sent, &q, &sent)
}

// letterMail is the e-mail that carries inv to its customer: To the
// customer, Cc and Bcc the customer's, the settings' and the request's
// (once each), Reply-To the company, From the server's address named as
// the company (sending from the company's own domain would fail SPF and
// DMARC), in the customer's language.
func (s *Sales) letterMail(inv Invoice, seller Seller, buyer Addressee, r SendRequest) mail.Email {
	due := inv.DueDate
	if inv.ValidUntil != nil {
		due = *inv.ValidUntil
	}
	rr := renderer{inv: inv}
	p := Placeholders{Number: text(inv.Number), Customer: buyer.Name, FirstName: firstName(buyer), Company: seller.Name,
		Due: due.Format(time.DateOnly), Amount: rr.amount(inv.Total.Sub(inv.DeductionTotal)), Document: Title(inv)}
	subject, body := Wording(buyer.Language, seller.Mail.Texts, p, r.Subject, r.Body)
	id := uuid.New()
	e := mail.Email{CompanyID: inv.CompanyID, ID: id, InvoiceID: &inv.ID, Kind: "invoice", FromName: seller.Name,
		To: buyer.Email, Cc: distinct(buyer.Email, buyer.CC, seller.Mail.CC, r.CC),
		Subject: subject, Body: body, MessageID: mail.MessageID(id.String(), s.shelf.Mail.From)}
	e.Bcc = distinct(buyer.Email, buyer.BCC, seller.Mail.BCC, r.BCC)
	e.Bcc = slices.DeleteFunc(e.Bcc, func(a string) bool { return slices.Contains(e.Cc, a) })
	if seller.Mail.ReplyTo != "" {
		e.ReplyTo = &seller.Mail.ReplyTo
	}
	return e
}

// distinct joins lists of addresses, each once (case-insensitively), and
// leaves out the To address.
func distinct(to string, lists ...[]string) []string {
	seen := map[string]bool{strings.ToLower(to): true}
	out := []string{}
	for _, l := range lists {
		for _, a := range l {
			if k := strings.ToLower(strings.TrimSpace(a)); k != "" && !seen[k] {
				seen[k] = true
				out = append(out, strings.TrimSpace(a))
			}
		}
	}
	return out
}

// Emails answers an invoice's e-mails, oldest first.
func (s *Sales) Emails(ctx context.Context, company, id uuid.UUID) ([]mail.Email, error) {
	if _, err := s.store.Get(ctx, company, id, s.today(), false, Read); err != nil {
		return nil, err
	}
	return s.shelf.Mail.OfInvoice(ctx, company, id)
}

// RetryEmail queues a failed e-mail of an invoice again.
func (s *Sales) RetryEmail(ctx context.Context, company, id, email uuid.UUID) (mail.Email, error) {
	if s.shelf.Mail.Mode == "off" {
		return mail.Email{}, apierr.New(apierr.InvoiceSendEmailNotConfigured, map[string]any{"transport": "off"})
	}
	if _, err := s.store.Get(ctx, company, id, s.today(), false, Read); err != nil {
		return mail.Email{}, err
	}
	e, queued, err := s.shelf.Mail.Requeue(ctx, company, id, email)
	switch {
	case err != nil:
		return mail.Email{}, err
	case e == nil:
		return mail.Email{}, apierr.New(apierr.InvoiceEmailNotFound, map[string]any{"invoice_id": id, "email_id": email})
	case !queued:
		return *e, apierr.New(apierr.InvoiceEmailNotFailed, map[string]any{"email_id": email, "status": e.Status})
	}
	return *e, nil
}
