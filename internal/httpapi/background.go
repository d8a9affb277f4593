package httpapi

// The work the server does besides answering requests, which serve runs
// on a clock: accruals, the invoice archive, reminders, e-invoices, mail.

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/mail"
)

// accrualLease names the lease of the accrual release, and lasts long
// enough for a run between renewals: each company renews it.
const (
	accrualLease    = "accrual_release"
	accrualLeaseTTL = 10 * time.Minute
)

// ReleaseAccruals books the months of accrued invoice lines and of prepaid
// supplier invoice lines that are due, each company in a transaction of
// its own (the months marked and their verifikat posted together), as the
// system; one replica at a time, under a lease renewed after each
// company. It answers how many verifikat were posted and the releases the
// ledger refused (a locked period), which wait for a later run; nothing
// when another replica holds the lease.
func (s *Server) ReleaseAccruals(ctx context.Context) (int, []error, error) {
	ctx = audit.WithActor(ctx, audit.System)
	if held, err := s.ops.Lease(ctx, accrualLease, s.id, accrualLeaseTTL); err != nil || !held {
		return 0, nil, err
	}
	defer func() { _ = s.ops.Unlease(context.WithoutCancel(ctx), accrualLease, s.id) }()
	posted := 0
	var refused []error
	for _, side := range []struct {
		due     func(context.Context) ([]uuid.UUID, error)
		release func(context.Context, uuid.UUID, time.Time) (int, []error, error)
	}{{s.sales.Due, s.sales.ReleaseAccruals}, {s.bought.DueAccruals, s.bought.ReleaseAccruals}} {
		companies, err := side.due(ctx)
		if err != nil {
			return posted, refused, err
		}
		for _, c := range companies {
			err := s.db.InTx(ctx, func(ctx context.Context) error {
				n, r, err := side.release(ctx, c, ledger.Today(s.now()))
				posted, refused = posted+n, append(refused, r...)
				return err
			})
			if err != nil {
				return posted, refused, err
			}
			if held, err := s.ops.Lease(ctx, accrualLease, s.id, accrualLeaseTTL); err != nil || !held {
				return posted, refused, err
			}
		}
	}
	return posted, refused, nil
}

// ArchiveInvoices archives the issued invoices' PDFs waiting in the queue,
// each in a transaction of its own; a failure is recorded on its job with
// the time of the next try, and the others go on. It then links the PDFs
// invoices held to the first verifikat they have had since. It answers
// how many it archived and the failures.
func (s *Server) ArchiveInvoices(ctx context.Context) (int, []error, error) {
	ctx = audit.WithActor(ctx, audit.System)
	done := 0
	var failed []error
	for {
		var job *invoicing.ArchiveJob
		err := s.db.InTx(ctx, func(ctx context.Context) error {
			var err error
			job, err = s.sales.ArchiveNext(ctx)
			return err
		})
		if job == nil && err == nil {
			break
		}
		if err != nil {
			if job == nil || ctx.Err() != nil {
				return done, failed, err
			}
			failed = append(failed, err)
			if err := s.db.InTx(ctx, func(ctx context.Context) error {
				return s.sales.RecordArchiveFailure(ctx, *job, err)
			}); err != nil {
				return done, failed, err
			}
			continue
		}
		done++
	}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		_, err := s.sales.LinkHeld(ctx, 100)
		return err
	})
	return done, failed, err
}

// SendReminders queues the payment reminders due today in every company
// that sends them, each company in a transaction of its own (one replica
// at a time: invoicing.Sales.Remind), and answers how many.
func (s *Server) SendReminders(ctx context.Context) (int, error) {
	ctx = audit.WithActor(ctx, audit.System)
	companies, err := s.sales.RemindingCompanies(ctx)
	if err != nil {
		return 0, err
	}
	today, sent := ledger.Today(s.now()), 0
	for _, c := range companies {
		if err := s.db.InTx(ctx, func(ctx context.Context) error {
			n, err := s.sales.Remind(ctx, c, today)
			sent += n
			return err
		}); err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// AnnounceOverdue emits invoice.overdue for the invoices that have
// fallen overdue by today, in one transaction (invoicing.Sales.AnnounceOverdue:
// each once, whichever replica), and answers how many.
func (s *Server) AnnounceOverdue(ctx context.Context) (int, error) {
	ctx = audit.WithActor(ctx, audit.System)
	n := 0
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		var err error
		n, err = s.sales.AnnounceOverdue(ctx, ledger.Today(s.now()))
		return err
	})
	return n, err
}

// DeliverPeppol moves due e-invoice deliveries a step each (submitted,
// or followed), at most limit, and answers how many; nothing without an
// access point. Each is leased in one transaction, taken to the access
// point outside any, and its outcome written in another.
func (s *Server) DeliverPeppol(ctx context.Context, limit int) (int, error) {
	ctx = audit.WithActor(ctx, audit.System)
	n := 0
	for n < limit {
		var d *invoicing.Delivery
		if err := s.db.InTx(ctx, func(ctx context.Context) error {
			var err error
			d, err = s.sales.ClaimDelivery(ctx)
			return err
		}); err != nil || d == nil {
			return n, err
		}
		next := s.sales.Advance(ctx, *d)
		if err := s.db.InTx(ctx, func(ctx context.Context) error {
			return s.sales.RecordDelivery(ctx, next)
		}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// DeliverMail sends the outbox's due e-mails (mail.Postman.Deliver),
// answering how many left; nothing when e-mail is off.
func (s *Server) DeliverMail(ctx context.Context) (int, error) {
	if s.postman == nil {
		return 0, nil
	}
	return s.postman.Deliver(audit.WithActor(ctx, audit.System))
}

// attach is the PDF an invoice's e-mail carries: the archived one, which
// is archived first if the archive worker has not reached it yet, so the
// customer gets the bytes the books keep.
func (s *Server) attach(ctx context.Context, e mail.Email) ([]mail.Attachment, error) {
	if e.InvoiceID == nil {
		return nil, nil
	}
	if e.Kind == "reminder" && e.ReminderLevel != nil {
		b, name, err := s.sales.ReminderPDF(ctx, e.CompanyID, *e.InvoiceID, *e.ReminderLevel)
		if err != nil {
			return nil, err
		}
		return []mail.Attachment{{Name: name, ContentType: "application/pdf", Bytes: b}}, nil
	}
	if err := s.db.InTx(ctx, func(ctx context.Context) error {
		return s.sales.ArchiveOf(ctx, e.CompanyID, *e.InvoiceID)
	}); err != nil {
		return nil, err
	}
	b, name, err := s.sales.PDF(ctx, e.CompanyID, *e.InvoiceID)
	if err != nil {
		return nil, err
	}
	return []mail.Attachment{{Name: name, ContentType: "application/pdf", Bytes: b}}, nil
}

// SyncBankConnections syncs the bank connections the daily run is due
// for (banking.Bank.SyncDue): each claimed before its bank is read, so
// replicas share the work and none is synced twice.
func (s *Server) SyncBankConnections(ctx context.Context) (int, []error, error) {
	return s.bank.SyncDue(ctx)
}

// CatchUpDeadlines generates again the deadlines of the aktiebolag whose
// open fiscal years lack an annual report deadline (made before it was
// one), each company in a transaction of its own, as the system: up to
// ten thousand a run, the rest the next. It answers how many companies.
func (s *Server) CatchUpDeadlines(ctx context.Context) (int, error) {
	ctx = audit.WithActor(ctx, audit.System)
	ids, err := s.deadlines.WithoutAnnualReport(ctx, 10000)
	for i, c := range ids {
		if err != nil {
			return i, err
		}
		err = s.db.InTx(ctx, func(ctx context.Context) error { return s.companies.RegenerateDeadlines(ctx, c) })
	}
	if err != nil {
		return max(len(ids)-1, 0), err
	}
	return len(ids), nil
}
