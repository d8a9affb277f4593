package invoicing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/peppol"
	"github.com/kontera/kontera/internal/store"
)

// Network is how invoicing reaches Peppol, filled in at composition.
type Network struct {
	// AP is the access point; nil when none is configured.
	AP peppol.AccessPoint
	// Access says whether the company holds the peppol capability now.
	Access func(ctx context.Context, company uuid.UUID) (bool, error)
}

// Readiness is whether an invoice can go as an e-invoice, and why not.
type Readiness struct {
	Invoice         Invoice
	WillIssue       bool
	Sender          peppol.ID
	Recipient       peppol.ID
	RecipientSource string // customer, org_number or "" (none)
	Reachability    peppol.Reachability
	Provider        string // "" without an access point
	Access          bool
	SentCount       int
	Blockers        []peppol.Blocker
}

// Ready reports whether nothing blocks the send.
func (r Readiness) Ready() bool { return len(r.Blockers) == 0 }

// documentType is what Peppol calls inv's kind.
func documentType(inv Invoice) string {
	if inv.CreditedID != nil {
		return "credit_note"
	}
	return inv.DocumentType
}

// gate checks inv (read with its lines) as an e-invoice: the document
// it would be, who sends and receives it, and what blocks it. With
// lookup the access point is asked whether it knows the receiver; a send
// does not ask, since that waits on the network inside its transaction,
// and the network says so anyway.
func (s *Sales) gate(ctx context.Context, inv Invoice, lookup bool) (Readiness, Letter, error) {
	l, err := s.letter(ctx, inv)
	if err != nil {
		return Readiness{}, l, err
	}
	d, err := EInvoice(inv, l)
	if err != nil {
		return Readiness{}, l, err
	}
	ap := s.shelf.Network.AP
	r := Readiness{Invoice: inv, WillIssue: inv.Status == "draft", Sender: d.Seller.Endpoint, Reachability: peppol.Unknown}
	r.Recipient, r.RecipientSource = Recipient(l.Buyer)
	r.Blockers = peppol.Check(d, peppol.Situation{DocumentType: documentType(inv),
		Individual: l.Buyer.Type == "individual", Transport: ap != nil})
	if ap == nil {
		return r, l, nil
	}
	r.Provider = ap.Provider()
	if lookup && !r.Recipient.IsZero() {
		// A lookup that fails says nothing: the send finds out.
		if reach, err := ap.Lookup(ctx, r.Recipient); err == nil {
			r.Reachability = reach
		}
		if r.Reachability == peppol.Unreachable {
			r.Blockers = append(r.Blockers, peppol.Blocker{Code: "PEPPOL_RECIPIENT_NOT_REACHABLE", Field: "customer.peppol_id",
				Message:   "Mottagaren finns inte i Peppol-nätverket för fakturor.",
				MessageEN: "The receiver is not registered in the Peppol network for invoices."})
		}
	}
	return r, l, nil
}

// Readiness answers whether an invoice can be sent as an e-invoice now,
// with the company's access and how many it has sent.
func (s *Sales) Readiness(ctx context.Context, company, id uuid.UUID) (Readiness, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Read)
	if err != nil {
		return Readiness{}, err
	}
	r, _, err := s.gate(ctx, inv, true)
	if err != nil {
		return r, err
	}
	live, err := s.store.LiveDelivery(ctx, company, id)
	if err != nil {
		return r, err
	}
	if live != nil {
		r.Blockers = append(r.Blockers, peppol.Blocker{Code: string(apierr.PeppolAlreadyDelivered), Field: "invoice_id",
			Message: "Fakturan är redan skickad som e-faktura.", MessageEN: "The invoice has been sent as an e-invoice already."})
	}
	if access := s.shelf.Network.Access; access != nil {
		if r.Access, err = access(ctx, company); err != nil {
			return r, err
		}
	}
	r.SentCount, err = s.store.SentCount(ctx, company)
	return r, err
}

// SentPeppol is an invoice handed to the Peppol network.
type SentPeppol struct {
	Issued
	WillIssue bool
	Delivery  Delivery
}

// SendPeppol sends an invoice as a BIS Billing 3.0 e-invoice in one
// transaction: a draft is issued first (as mark-sent issues it), the UBL
// document written from the issued invoice and archived (upload source
// e_invoice, underlag of its verifikat when it has one), and a delivery
// queued that a worker submits after the commit. Nothing changes when no
// access point is configured (503), something blocks it (422, every
// blocker in details) or it was sent already (409).
func (s *Sales) SendPeppol(ctx context.Context, company, id uuid.UUID) (SentPeppol, error) {
	ap := s.shelf.Network.AP
	if ap == nil {
		return SentPeppol{}, apierr.New(apierr.PeppolNotConfigured, map[string]any{"setting": "KONTERA_PEPPOL_AP"})
	}
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Hold)
	if err != nil {
		return SentPeppol{}, err
	}
	if live, err := s.store.LiveDelivery(ctx, company, id); err != nil {
		return SentPeppol{}, err
	} else if live != nil {
		return SentPeppol{}, apierr.New(apierr.PeppolAlreadyDelivered, map[string]any{"invoice_id": id,
			"delivery_id": live.ID, "status": live.Status})
	}
	r, l, err := s.gate(ctx, inv, false)
	if err != nil {
		return SentPeppol{}, err
	}
	if !r.Ready() {
		return SentPeppol{}, apierr.New(apierr.PeppolNotReady, map[string]any{"invoice_id": id, "blockers": r.Blockers})
	}
	out := SentPeppol{WillIssue: r.WillIssue, Issued: Issued{Invoice: inv}}
	if r.WillIssue {
		if out.Issued, err = s.issue(ctx, inv); err != nil { // the issued invoice keeps its lines
			return SentPeppol{}, err
		}
	}
	d, err := EInvoice(out.Invoice, l)
	if err != nil {
		return SentPeppol{}, err
	}
	xml, err := peppol.Marshal(d)
	if err != nil {
		return SentPeppol{}, err
	}
	now := s.now().UTC()
	out.Delivery = Delivery{CompanyID: company, ID: uuid.New(), InvoiceID: id, Status: "queued", Provider: ap.Provider(),
		Sender: r.Sender.String(), Receiver: r.Recipient.String(), DocumentType: documentType(inv), NextAttemptAt: &now,
		CreatedAt: now}
	if store.IsDryRun(ctx) {
		return out, nil // nothing is stored: the blob store is not transactional
	}
	name := fmt.Sprintf("e-faktura-%s.xml", text(out.Invoice.Number))
	if out.Delivery.DocumentID, err = s.shelf.Keep(ctx, company, name, "application/xml", "e_invoice", xml); err != nil {
		return SentPeppol{}, err
	}
	entry, err := s.store.FirstEntry(ctx, company, id)
	if err != nil {
		return SentPeppol{}, err
	}
	if entry != nil {
		if err := s.link(ctx, company, out.Delivery.DocumentID, *entry); err != nil {
			return SentPeppol{}, err
		}
	}
	q, ok, err := s.store.QueueDelivery(ctx, out.Delivery)
	if err != nil {
		return SentPeppol{}, err
	}
	if !ok { // a send of the same invoice committed meanwhile
		return SentPeppol{}, apierr.New(apierr.PeppolAlreadyDelivered, map[string]any{"invoice_id": id})
	}
	out.Delivery = q
	return out, nil
}

// Deliveries answers an invoice's e-invoice deliveries, oldest first.
func (s *Sales) Deliveries(ctx context.Context, company, id uuid.UUID) ([]Delivery, error) {
	if _, err := s.store.Get(ctx, company, id, s.today(), false, Read); err != nil {
		return nil, err
	}
	return s.store.Deliveries(ctx, company, id)
}

// maxSubmits is how often a delivery is tried before it is given up;
// maxFollow how long a submitted one is followed before it is; lease how
// long a claimed one is its worker's.
const (
	maxSubmits = 6
	maxFollow  = 7 * 24 * time.Hour
	lease      = 5 * time.Minute
)

// ClaimDelivery leases the most due delivery to the caller, in the
// transaction of ctx; nil when none is due (or no access point is
// configured). The caller moves it on with Advance outside any
// transaction and writes the outcome with RecordDelivery.
func (s *Sales) ClaimDelivery(ctx context.Context) (*Delivery, error) {
	if s.shelf.Network.AP == nil {
		return nil, nil
	}
	return s.store.ClaimDelivery(ctx, s.now(), lease)
}

// RecordDelivery writes where a delivery stands after Advance.
func (s *Sales) RecordDelivery(ctx context.Context, d Delivery) error {
	return s.store.UpdateDelivery(ctx, d)
}

// Advance moves a claimed delivery one step by asking the access point,
// and answers it as it stands then: a queued or failed one is submitted,
// a submitted one followed. An answer the access point gives is kept, a
// temporary failure tried again later (1 m, 5 m, 30 m, 2 h, 12 h), a
// rejection final. It runs outside any transaction: it waits on the
// network.
func (s *Sales) Advance(ctx context.Context, d Delivery) Delivery {
	ap := s.shelf.Network.AP
	now := s.now().UTC()
	fail := func(code, msg string, again *time.Time) {
		d.ErrorCode, d.ErrorMessage, d.NextAttemptAt = &code, &msg, again
	}
	switch d.Status {
	case "queued", "failed":
		doctype := peppol.InvoiceType
		if d.DocumentType == "credit_note" {
			doctype = peppol.CreditNoteType
		}
		sender, _ := peppol.ParseID(d.Sender)
		receiver, _ := peppol.ParseID(d.Receiver)
		d.Attempts++
		var rec peppol.Receipt
		b, err := s.shelf.Open(ctx, d.CompanyID, d.DocumentID)
		if err == nil {
			rec, err = ap.Submit(ctx, peppol.Submission{Sender: sender, Receiver: receiver, DocumentType: doctype,
				Process: peppol.Process, Country: "SE", InstanceID: d.ID.String(), XML: b})
		}
		switch {
		case err == nil:
			d.Status, d.TransmissionID, d.SubmittedAt, d.NextAttemptAt = "submitted", &rec.TransmissionID, &now, &now
			d.ErrorCode, d.ErrorMessage = nil, nil
		case peppol.IsRejection(err):
			d.Status = "rejected"
			fail(string(apierr.PeppolSubmissionRejected), err.Error(), nil)
		default:
			d.Status = "failed"
			var again *time.Time
			if d.Attempts < maxSubmits {
				t := now.Add(RetryAfter(d.Attempts))
				again = &t
			}
			fail(string(apierr.PeppolSubmissionFailed), err.Error(), again)
		}
	case "submitted":
		st, err := ap.Status(ctx, text(d.TransmissionID))
		follow := func() *time.Time {
			since := now.Sub(*d.SubmittedAt)
			t := now.Add(min(max(since/4, 30*time.Second), time.Hour))
			return &t
		}
		switch {
		case err != nil:
			msg := err.Error()
			d.ErrorMessage, d.NextAttemptAt = &msg, follow()
		case st.Status == peppol.Delivered:
			d.Status, d.DeliveredAt, d.NextAttemptAt, d.ErrorCode, d.ErrorMessage = "delivered", &now, nil, nil, nil
		case st.Status == peppol.Rejected:
			d.Status = "rejected"
			fail(string(apierr.PeppolSubmissionRejected), "the network refused it: "+st.Detail, nil)
		case st.Status == peppol.Failed:
			d.Status = "failed"
			fail(string(apierr.PeppolSubmissionFailed), "the access point gave up: "+st.Detail, nil)
		default:
			d.NextAttemptAt = follow()
		}
		if d.Status == "submitted" && now.Sub(*d.SubmittedAt) > maxFollow {
			d.Status = "failed"
			fail(string(apierr.PeppolSubmissionFailed), "the access point said nothing of it for seven days", nil)
		}
	}
	return d
}
