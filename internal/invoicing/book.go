package invoicing

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
)

// Booked is an invoice whose sale was booked, with the lines posted.
type Booked struct {
	Invoice Invoice
	Lines   []ledger.Line
}

// Bookable says why an invoice's sale cannot be booked later (book),
// nil when it can: an invoice (not a credit note) issued with its booking
// deferred and not booked yet, sent or partially paid.
func Bookable(inv Invoice) error {
	switch {
	case inv.DocumentType != "invoice" || inv.CreditedID != nil:
		return apierr.New(apierr.InvoiceBookNotBookable, map[string]any{"invoice_id": inv.ID,
			"document_type": inv.DocumentType, "credited_invoice_id": inv.CreditedID})
	case inv.EntryID != nil:
		return apierr.New(apierr.InvoiceBookAlreadyBooked, map[string]any{"invoice_id": inv.ID,
			"journal_entry_id": *inv.EntryID})
	case inv.Status != "sent" && inv.Status != "partially_paid":
		return apierr.New(apierr.InvoiceBookInvalidStatus, map[string]any{"invoice_id": inv.ID,
			"current_status": inv.State(), "currentStatus": inv.State()})
	case !inv.BookingDeferred:
		// Issued under kontantmetoden: each payment books its share.
		return apierr.New(apierr.InvoiceBookCashMethod, map[string]any{"invoice_id": inv.ID})
	}
	return nil
}

// Book posts the sale of an invoice issued with its booking deferred,
// dated its invoice date (Bookable's rules). The invoice row is claimed:
// another request changing it at that moment is 409 INVOICE_BOOK_CONFLICT.
func (s *Sales) Book(ctx context.Context, company, id uuid.UUID) (Booked, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Claim, apierr.InvoiceBookConflict)
	if err != nil {
		return Booked{}, err
	}
	return s.bookDeferred(ctx, inv)
}

// bookDeferred is Book of inv, read with its lines and claimed.
func (s *Sales) bookDeferred(ctx context.Context, inv Invoice) (Booked, error) {
	if err := Bookable(inv); err != nil {
		return Booked{}, err
	}
	sale, lines, err := saleLines(inv)
	if err != nil {
		return Booked{}, err
	}
	entry := uuid.New()
	booked, err := s.store.Book(ctx, inv, entry, s.today())
	if err != nil {
		return Booked{}, err
	}
	if err := s.postSale(ctx, inv, entry, true, sale, lines); err != nil {
		return Booked{}, err
	}
	if err := s.record(ctx, audit.Update, describe(booked)+" bokfördes", booked, &inv, &booked); err != nil {
		return Booked{}, err
	}
	return Booked{Invoice: booked, Lines: lines}, nil
}

// BookResult is what became of one invoice of a bulk-book: booked (its
// verifikat in Booked), or the catalogue error that refused it.
type BookResult struct {
	ID     uuid.UUID
	Booked Booked
	Err    *apierr.Error
}

// BulkBook books each invoice on its own, in the order asked, each
// named once: a draft is issued and booked as mark-sent would (with
// booking deferred that is INVOICE_BOOK_DEFERRED_DRAFT), a deferred one
// booked (Book). A failed item is undone alone. Under kontantmetoden
// nothing is booked at all: 400 INVOICE_BOOK_CASH_METHOD.
func (s *Sales) BulkBook(ctx context.Context, company uuid.UUID, ids []uuid.UUID) ([]BookResult, error) {
	set, err := s.books.Settings(ctx, company)
	if err != nil {
		return nil, err
	}
	if set.Cash {
		return nil, apierr.New(apierr.InvoiceBookCashMethod, map[string]any{"field": "invoice_ids"})
	}
	var out []BookResult
	for _, id := range ids {
		if slices.ContainsFunc(out, func(r BookResult) bool { return r.ID == id }) {
			continue
		}
		r := BookResult{ID: id}
		err := s.store.db.Attempt(ctx, func(ctx context.Context) error {
			inv, err := s.store.Get(ctx, company, id, s.today(), true, Claim, apierr.InvoiceBookConflict)
			if err != nil {
				return err
			}
			if inv.Status != "draft" {
				r.Booked, err = s.bookDeferred(ctx, inv)
				return err
			}
			if inv.DocumentType != "invoice" {
				return Bookable(inv)
			}
			if set.DeferBooking {
				return apierr.New(apierr.InvoiceBookDeferredDraft, map[string]any{"invoice_id": id})
			}
			is, err := s.issue(ctx, inv)
			r.Booked = Booked{Invoice: is.Invoice, Lines: is.Lines}
			return err
		})
		if e, ok := apierr.As(err); ok {
			r.Err = e
		} else if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Failed is an unexpected failure of booking: INVOICE_BOOK_FAILED, the
// cause kept for the logs; a catalogue error passes as it is.
func Failed(err error) error {
	if _, ok := apierr.As(err); ok || err == nil {
		return err
	}
	return apierr.Wrap(apierr.InvoiceBookFailed, err)
}
