package payables

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// The events of a credit and of its undoing.
const (
	EventCredited   = "supplier_invoice.credited"
	EventUncredited = "supplier_invoice.uncredited"
)

// CreditDraft is what a credit body says.
type CreditDraft struct {
	Date        *time.Time
	Number      *string
	DocumentID  *uuid.UUID
	InboxItemID *uuid.UUID
	// Amount, when sent, must be the whole invoice's total.
	Amount *money.Amount
	// Lines are the lines to credit; none, the whole invoice (or, once
	// part of it was credited, what is left of every line).
	Lines []CreditLine
}

// CreditMade is a credit made: the original after it, its credit note and
// the credit verifikat's lines (none when nothing had reached the
// ledger).
type CreditMade struct {
	Original, Note Invoice
	Lines          []ledger.Line
}

// Credit registers the supplier's credit note, with an arrival number of
// its own, dated credit_date (else the inbox item's date, else today).
//
// Whole: what the original still owed is settled by it at once, what had
// been paid stays on it as owed back; what of the original reached the
// ledger is taken back (CreditLines), its prepaid months not yet released
// are cancelled; the original becomes credited.
//
// Partial (lines, or what is left once part was credited): the credit
// note holds the chosen lines (an amount of each, its VAT in proportion),
// each naming the original's line; it settles what the original still
// owes, up to its total, so the original's remaining amount and status
// follow, and the supplier owes the rest back. A booked original's part
// is taken back (D 2440 / C the costs and VAT); under kontantmetoden
// nothing is booked, the later payments book their shares of what is
// left, and the credit may not pass what is owed (SI_CREDIT_PARTIAL,
// reason exceeds_remaining).
func (p *Payables) Credit(ctx context.Context, company, id uuid.UUID, cd CreditDraft) (CreditMade, error) {
	orig, err := p.store.Get(ctx, company, id, p.today(), true, true)
	if err != nil {
		return CreditMade{}, err
	}
	d := map[string]any{"supplier_invoice_id": id, "current_status": orig.State()}
	switch {
	case orig.Status == Credited:
		return CreditMade{}, apierr.New(apierr.SICreditAlreadyCredited, d)
	case orig.CreditNote || orig.Status == Reversed:
		d["reason"] = "not_creditable"
		return CreditMade{}, apierr.New(apierr.Conflict, d)
	case cd.Amount != nil && len(cd.Lines) > 0:
		return CreditMade{}, apierr.Field("amount", "one_of", "a partial credit names its lines; amount is the whole invoice's total")
	case cd.Amount != nil && cd.Amount.Cmp(orig.Total) != 0:
		d["total"], d["field"] = orig.Total, "amount"
		return CreditMade{}, apierr.New(apierr.SICreditPartial, d)
	}
	noteID := uuid.New()
	day, doc := p.today(), cd.DocumentID
	if cd.InboxItemID != nil {
		if p.books.Inbox == nil {
			return CreditMade{}, apierr.New(apierr.InboxItemNotFound, map[string]any{"inbox_item_id": *cd.InboxItemID,
				"field": "inbox_item_id"})
		}
		itemDoc, itemDay, err := p.books.Inbox.Claim(ctx, company, *cd.InboxItemID, noteID)
		if err != nil {
			return CreditMade{}, err
		}
		if doc != nil && (itemDoc == nil || *itemDoc != *doc) {
			return CreditMade{}, apierr.New(apierr.SICreditDocumentMismatch, map[string]any{"document_id": *doc,
				"inbox_item_id": *cd.InboxItemID, "field": "document_id"})
		}
		doc = itemDoc
		if itemDay != nil {
			day = *itemDay
		}
	}
	if cd.Date != nil {
		day = *cd.Date
	}
	if day.Before(orig.InvoiceDate) {
		return CreditMade{}, apierr.Field("credit_date", "not_before_invoice_date",
			"a credit note is not dated before the invoice it credits, "+orig.InvoiceDate.Format(time.DateOnly))
	}
	if doc != nil {
		if err := p.document(ctx, company, *doc); err != nil {
			return CreditMade{}, err
		}
	}
	// A partial credit note settles part of the original, so an original
	// nothing was settled of has none, nor anything credited of a line.
	credited, notes := map[uuid.UUID]Tally{}, 0
	if !orig.PaidAmount.IsZero() {
		if credited, notes, err = p.store.Credited(ctx, company, id); err != nil {
			return CreditMade{}, err
		}
	}
	partial := len(cd.Lines) > 0 || notes > 0
	var lines []ledger.Line
	src := orig
	if partial {
		if src, err = partOf(orig, cd.Lines, credited); err != nil {
			return CreditMade{}, err
		}
		if orig.Booked() {
			lines = partCreditLines(orig, src)
		}
	} else {
		var released map[uuid.UUID]money.Amount
		if orig.Booked() {
			if released, err = p.store.Released(ctx, company, id); err != nil {
				return CreditMade{}, err
			}
		}
		lines = CreditLines(orig, released)
	}
	number := "KREDIT " + orig.Number
	if notes > 0 {
		number = fmt.Sprintf("KREDIT %s-%d", orig.Number, notes+1)
	}
	if cd.Number != nil {
		number = *cd.Number
	}
	note := CreditNote(src, 0, number, day, p.today()) // its arrival number is taken as it is written
	note.ID, note.DocumentID, note.InboxItemID, note.Cash = noteID, doc, cd.InboxItemID, orig.Cash && len(lines) == 0
	if len(lines) > 0 {
		entry := uuid.New()
		note.EntryID = &entry
	}
	stored, err := p.store.Insert(ctx, note, p.today())
	if err != nil {
		return CreditMade{}, err
	}
	if partial {
		// The credit note settles what the original still owes, up to its
		// total; the rest of it the supplier owes back.
		after := orig
		if c, k := settledBy(orig, src); c.Sign() > 0 {
			status, paidAt := PartiallyPaid, (*time.Time)(nil)
			if c.Cmp(src.Total) == 0 {
				status, paidAt = Paid, &day
			}
			if stored, err = p.store.Pay(ctx, stored, Payment{ID: uuid.New(), InvoiceID: note.ID, Date: day, Amount: c.Neg(),
				SEK: k.Neg(), BookedSEK: k.Neg(), Source: SettledByCredit}, status, paidAt, p.today()); err != nil {
				return CreditMade{}, err
			}
			status, paidAt = PartiallyPaid, nil
			if c.Cmp(orig.Remaining()) == 0 {
				status, paidAt = Paid, &day
			}
			if after, err = p.store.Pay(ctx, orig, Payment{ID: uuid.New(), InvoiceID: orig.ID, Date: day, Amount: c, SEK: k,
				BookedSEK: k, Source: SettledByCredit}, status, paidAt, p.today()); err != nil {
				return CreditMade{}, err
			}
		}
		stored.Items = note.Items
		return p.credited(ctx, orig, after, stored, lines, doc, day, number)
	}
	if owed := orig.Remaining(); !owed.IsZero() {
		// What the original still owed is settled by the credit note.
		status, paidAt := PartiallyPaid, (*time.Time)(nil)
		if owed.Cmp(orig.Total) == 0 {
			status, paidAt = Paid, &day
		}
		booked := orig.TotalSEK.Sub(orig.PaidSEK).Neg()
		settle := Payment{ID: uuid.New(), InvoiceID: note.ID, Date: day, Amount: owed.Neg(), SEK: booked, BookedSEK: booked,
			Source: SettledByCredit}
		if stored, err = p.store.Pay(ctx, stored, settle, status, paidAt, p.today()); err != nil {
			return CreditMade{}, err
		}
	}
	stored.Items = note.Items
	old := orig
	orig.Status, orig.DisputedFrom = Credited, nil
	whole, err := p.store.Save(ctx, orig, p.today())
	if err != nil {
		return CreditMade{}, err
	}
	if orig.Booked() {
		if err := p.store.CancelMonths(ctx, company, id, note.ID); err != nil {
			return CreditMade{}, err
		}
	}
	return p.credited(ctx, old, whole, stored, lines, doc, day, number)
}

// credited posts the credit note's verifikat (lines, if any), links its
// document, and records and announces the credit: orig as it was, after
// as it is now, and the credit note stored.
func (p *Payables) credited(ctx context.Context, orig, after, stored Invoice, lines []ledger.Line, doc *uuid.UUID,
	day time.Time, number string) (CreditMade, error) {
	company := orig.CompanyID
	if len(lines) > 0 {
		last := doc == nil
		if _, err := p.post(ctx, stored, *stored.EntryID, last, day, SourceCredit,
			"Kreditnota "+number+" på leverantörsfaktura "+orig.Number+", "+orig.SupplierName, lines); err != nil {
			return CreditMade{}, periodCode(err, apierr.SICreateNoFiscalPeriod, apierr.SICreditPeriodLocked, day, "credit_date")
		}
		if !last {
			if err := p.books.Link(ctx, company, *doc, *stored.EntryID); err != nil {
				return CreditMade{}, err
			}
		}
	}
	if err := p.record(ctx, audit.Insert, describe(stored)+" registrerades", stored, nil, &stored); err != nil {
		return CreditMade{}, err
	}
	if err := p.record(ctx, audit.Update, describe(after)+" krediterades", after, &orig, &after); err != nil {
		return CreditMade{}, err
	}
	_, err := outbox.Emit(ctx, p.db, company, EventCredited, map[string]any{"supplier_invoice": Event(after),
		"credit_note": Event(stored)})
	return CreditMade{Original: after, Note: stored, Lines: lines}, err
}

// Uncredited is a credit undone: the original restored, the credit note
// reversed and the storno of its verifikat, if it had one. Changed is
// false when the invoice was not credited: nothing was done.
type Uncredited struct {
	Original Invoice
	Note     *Invoice
	StornoID *uuid.UUID
	Changed  bool
}

// Uncredit undoes the credit of invoice id: its credit note's verifikat
// is stornoed on its own date (the ledger then tells Reversed, which
// restores the invoice), or, when it had none, the credit note is
// reversed here.
func (p *Payables) Uncredit(ctx context.Context, company, id uuid.UUID) (Uncredited, error) {
	orig, err := p.store.Get(ctx, company, id, p.today(), false, true)
	if err != nil || orig.Status != Credited {
		return Uncredited{Original: orig}, err
	}
	note, err := p.store.CreditNoteOf(ctx, company, id, p.today())
	if err != nil {
		return Uncredited{}, err
	}
	out := Uncredited{Note: note, Changed: true}
	if note.EntryID != nil {
		r, err := p.books.Reverse(ctx, company, *note.EntryID, note.InvoiceDate, false)
		if err != nil {
			return out, err
		}
		out.StornoID = &r.Storno.ID
	} else if err := p.undoCredit(ctx, *note); err != nil {
		return out, err
	}
	if out.Original, err = p.store.Get(ctx, company, id, p.today(), false, false); err != nil {
		return out, err
	}
	reversed, err := p.store.Get(ctx, company, note.ID, p.today(), false, false)
	out.Note = &reversed
	return out, err
}

// undoCredit reverses a credit note and restores its original to what
// its payments and attest make it, with its prepaid months. A credit note
// the supplier has paid back on is kept (SI_UNCREDIT_FAILED).
func (p *Payables) undoCredit(ctx context.Context, note Invoice) error {
	payments, err := p.store.Payments(ctx, note.CompanyID, note.ID)
	if err != nil {
		return err
	}
	undone := map[uuid.UUID]bool{}
	for _, pay := range payments {
		if pay.ReversesID != nil {
			undone[pay.ID], undone[*pay.ReversesID] = true, true
		}
	}
	for _, pay := range payments {
		if pay.Source != SettledByCredit && !undone[pay.ID] {
			return apierr.New(apierr.SIUncreditFailed, map[string]any{"reason": "refund_recorded",
				"credit_note_id": note.ID, "payment_id": pay.ID})
		}
	}
	oldNote := note
	note.Status = Reversed
	reversed, err := p.store.Save(ctx, note, p.today())
	if err != nil {
		return err
	}
	orig, err := p.store.Get(ctx, note.CompanyID, *note.CreditedID, p.today(), false, true)
	if err != nil {
		return err
	}
	old := orig
	orig.Status = Restored(orig)
	restored, err := p.store.Save(ctx, orig, p.today())
	if err != nil {
		return err
	}
	if err := p.store.RestoreMonths(ctx, note.CompanyID, note.ID); err != nil {
		return err
	}
	if err := p.record(ctx, audit.Update, describe(reversed)+" ångrades", reversed, &oldNote, &reversed); err != nil {
		return err
	}
	if err := p.record(ctx, audit.Update, describe(restored)+": krediteringen ångrades", restored, &old, &restored); err != nil {
		return err
	}
	_, err = outbox.Emit(ctx, p.db, note.CompanyID, EventUncredited, map[string]any{"supplier_invoice": Event(restored),
		"credit_note": Event(reversed)})
	return err
}

// Reversed is the ledger telling payables that one of its verifikat was
// stornoed, in the storno's unit of work. A credit note's verifikat
// undoes the credit; an invoice's registration (or private payment)
// leaves the invoice reversed, its prepaid months cancelled. A credited
// invoice's registration is not stornoed: its credit is undone first.
func (p *Payables) Reversed(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
	if paymentSources[orig.SourceType] {
		return p.undoPayments(ctx, company, orig, st)
	}
	if orig.SourceID == nil {
		return nil
	}
	id, err := uuid.Parse(*orig.SourceID)
	if err != nil {
		return nil
	}
	switch orig.SourceType {
	case SourceCredit, SourceRegistered, SourcePrivate, ledger.SourceCorrection:
		// A correction keeps the source of what it replaced, and the
		// invoice names it (Replaced).
	default:
		return nil
	}
	inv, err := p.store.BySource(ctx, company, id, orig.ID, p.today())
	if err != nil || inv == nil {
		return err
	}
	if inv.CreditNote {
		return p.undoCredit(ctx, *inv)
	}
	switch inv.Status {
	case Reversed:
		return nil
	case Credited:
		return apierr.New(apierr.Conflict, map[string]any{"reason": "supplier_invoice_credited",
			"supplier_invoice_id": inv.ID, "hint": "undo the credit first: POST …/supplier-invoices/{id}/uncredit"})
	}
	old := *inv
	inv.Status, inv.DisputedFrom = Reversed, nil
	saved, err := p.store.Save(ctx, *inv, p.today())
	if err != nil {
		return err
	}
	if err := p.store.CancelMonths(ctx, company, inv.ID, inv.ID); err != nil {
		return err
	}
	return p.record(ctx, audit.Update, describe(saved)+": verifikationen makulerades genom storno", saved, &old, &saved)
}
