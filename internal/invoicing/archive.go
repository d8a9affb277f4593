package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// Shelf is where documents are kept, filled in at composition from the
// documents archive.
type Shelf struct {
	// Seller reads the company as its documents print it.
	Seller func(ctx context.Context, company uuid.UUID) (Seller, error)
	// Buyer reads a customer as a document addressed to them prints them.
	Buyer func(ctx context.Context, company, customer uuid.UUID) (Addressee, error)
	// Keep stores b as a document named name from source (system,
	// e_invoice), audited, in the transaction of ctx, and answers its id.
	Keep func(ctx context.Context, company uuid.UUID, name, mime, source string, b []byte) (uuid.UUID, error)
	// Open answers the bytes of a document.
	Open func(ctx context.Context, company, document uuid.UUID) ([]byte, error)
	// Link makes a document underlag of a verifikat (documents.Archive.Link).
	Link func(ctx context.Context, company, document, entry uuid.UUID) error
	// Mail hands e-mails to the outbox.
	Mail Mailroom
	// Network carries e-invoices.
	Network Network
}

// retryArchive is how long a failed archive job waits, by attempt.
var retryArchive = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}

// RetryAfter is the wait after the n-th failed attempt (n from 1): the
// steps of retryArchive, then the last step again.
func RetryAfter(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	return retryArchive[min(n, len(retryArchive))-1]
}

// Document renders inv (read with its lines) as its PDF: the letter read
// now, so a draft shows the settings as they are.
func (s *Sales) Document(ctx context.Context, inv Invoice) ([]byte, error) {
	l, err := s.letter(ctx, inv)
	if err != nil {
		return nil, err
	}
	return Render(inv, l)
}

// letter reads what a document of inv prints besides the invoice: the
// seller and buyer, the credited invoice's number on a credit note, and
// the buyer's personnummer on a ROT/RUT invoice (Skatteverket's rules
// ask for it in full).
func (s *Sales) letter(ctx context.Context, inv Invoice) (Letter, error) {
	var l Letter
	var err error
	if l.Seller, err = s.shelf.Seller(ctx, inv.CompanyID); err != nil {
		return l, err
	}
	if l.Buyer, err = s.shelf.Buyer(ctx, inv.CompanyID, inv.CustomerID); err != nil {
		return l, err
	}
	if inv.CreditedID != nil {
		orig, err := s.store.Get(ctx, inv.CompanyID, *inv.CreditedID, s.today(), false, Read)
		if err != nil {
			return l, err
		}
		l.Original = text(orig.Number)
	}
	if !inv.DeductionTotal.IsZero() {
		pn, err := s.books.PersonalNumber(ctx, inv.CompanyID, inv.CustomerID)
		if err != nil && !apierr.Is(err, apierr.CustomerNoPersonalNumber) {
			return l, err
		}
		l.PersonalNumber = pn
	}
	return l, nil
}

// PDF answers an invoice's PDF and its file name: an issued invoice's
// archived bytes once the archive has them, else the document rendered
// now (a draft, or an invoice the archive has not reached yet).
func (s *Sales) PDF(ctx context.Context, company, id uuid.UUID) ([]byte, string, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Read)
	if err != nil {
		return nil, "", err
	}
	if !IsDraft(inv) {
		doc, err := s.store.ArchivedDocument(ctx, company, id)
		if err != nil {
			return nil, "", err
		}
		if doc != nil {
			b, err := s.shelf.Open(ctx, company, *doc)
			return b, FileName(inv), err
		}
	}
	b, err := s.Document(ctx, inv)
	return b, FileName(inv), err
}

// ArchiveNext archives the oldest due archive job in the transaction of
// ctx: renders the issued invoice, keeps the PDF as a system document,
// and makes it underlag of the invoice's first verifikat when there is
// one; without one (kontantmetoden, deferred booking) the invoice holds
// it until LinkHeld finds one. It answers the job taken, nil when none
// was due; on an error the caller rolls back and records the failure
// (Store.ArchiveFailed) in a transaction of its own.
func (s *Sales) ArchiveNext(ctx context.Context) (*ArchiveJob, error) {
	j, err := s.store.ClaimArchive(ctx)
	if err != nil || j == nil {
		return j, err
	}
	return j, s.archive(ctx, j)
}

// ArchiveOf archives one invoice's PDF now, in the transaction of ctx,
// unless it is archived already (or not to be): the mail worker does it
// before it attaches the PDF, so the e-mail carries the archived bytes.
func (s *Sales) ArchiveOf(ctx context.Context, company, invoice uuid.UUID) error {
	j, err := s.store.ClaimArchiveOf(ctx, company, invoice)
	if err != nil || j == nil {
		return err
	}
	return s.archive(ctx, j)
}

// archive renders, keeps and links the PDF of claimed job j.
func (s *Sales) archive(ctx context.Context, j *ArchiveJob) error {
	// The invoice's row first: a payment posting its first verifikat
	// holds it, so the entry read below is the one that payment posted.
	inv, err := s.store.Get(ctx, j.CompanyID, j.InvoiceID, s.today(), true, Hold)
	if err != nil {
		return err
	}
	b, err := s.Document(ctx, inv)
	if err != nil {
		return err
	}
	doc, err := s.shelf.Keep(ctx, j.CompanyID, FileName(inv), "application/pdf", "system", b)
	if err != nil {
		return err
	}
	if err := s.store.Archived(ctx, *j, doc); err != nil {
		return err
	}
	entry, err := s.store.FirstEntry(ctx, j.CompanyID, j.InvoiceID)
	if err != nil || entry == nil {
		return err
	}
	return s.link(ctx, j.CompanyID, doc, *entry)
}

// link makes doc underlag of entry. A refusal by the linking rules (the
// period was locked meanwhile) leaves the document held by its invoice:
// the bytes are kept either way, and a bookkeeper can link it by hand.
func (s *Sales) link(ctx context.Context, company, doc, entry uuid.UUID) error {
	err := s.shelf.Link(ctx, company, doc, entry)
	if _, refused := apierr.As(err); refused {
		return nil
	}
	return err
}

// RecordArchiveFailure writes j's failed attempt with its next try.
func (s *Sales) RecordArchiveFailure(ctx context.Context, j ArchiveJob, cause error) error {
	return s.store.ArchiveFailed(ctx, j, cause.Error(), RetryAfter(j.Attempts+1))
}

// LinkHeld links up to limit archived PDFs their invoices held to the
// first verifikat those invoices have since had, in the transaction of
// ctx, and answers how many it linked.
func (s *Sales) LinkHeld(ctx context.Context, limit int) (int, error) {
	held, err := s.store.Held(ctx, limit)
	if err != nil {
		return 0, err
	}
	for _, h := range held {
		if err := s.link(ctx, h.CompanyID, h.DocumentID, h.EntryID); err != nil {
			return 0, err
		}
	}
	return len(held), nil
}
