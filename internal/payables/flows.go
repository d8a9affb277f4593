package payables

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
)

// Booked is an invoice whose deferred registration is posted, with the
// verifikat's lines.
type Booked struct {
	Invoice Invoice
	EntryID uuid.UUID
	Lines   []ledger.Line
}

// Book posts the registration of an invoice whose booking was deferred,
// dated its invoice date; it does not approve it.
func (p *Payables) Book(ctx context.Context, company, id uuid.UUID) (Booked, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), true, true)
	if err != nil {
		return Booked{}, err
	}
	d := map[string]any{"supplier_invoice_id": id, "current_status": inv.State()}
	switch {
	case inv.EntryID != nil:
		d["registration_journal_entry_id"] = *inv.EntryID
		return Booked{}, apierr.New(apierr.SIBookAlreadyBooked, d)
	case inv.Cash:
		return Booked{}, apierr.New(apierr.SIBookCashMethod, d)
	case inv.CreditNote || inv.Status != Registered && inv.Status != Approved:
		return Booked{}, apierr.New(apierr.SIBookInvalidStatus, d)
	}
	old := inv
	entry := uuid.New()
	inv.EntryID = &entry
	saved, err := p.store.Save(ctx, inv, p.today())
	if err != nil {
		return Booked{}, err
	}
	lines, err := p.postRegistration(ctx, saved)
	if err != nil {
		return Booked{}, periodCode(err, apierr.SIBookNoFiscalPeriod, "", inv.InvoiceDate, "invoice_date")
	}
	if err := p.afterRegistration(ctx, saved); err != nil {
		return Booked{}, err
	}
	if err := p.record(ctx, audit.Update, describe(saved)+" bokfördes", saved, &old, &saved); err != nil {
		return Booked{}, err
	}
	return Booked{Invoice: saved, EntryID: entry, Lines: lines}, nil
}

// postRegistration posts the registration verifikat inv names
// (EntryID), dated its invoice date, and answers its lines: last in the
// unit of work unless its document is linked to it after
// (afterRegistration). A day no period covers is
// SI_CREATE_NO_FISCAL_PERIOD.
func (p *Payables) postRegistration(ctx context.Context, inv Invoice) ([]ledger.Line, error) {
	lines := Registration(inv)
	// Not last when lines become assets: the register's rows name the
	// verifikat, which must be written before them.
	last := inv.DocumentID == nil && len(accrual.Due(Schedules(inv), p.today())) == 0 && !inv.makesAssets
	if _, err := p.post(ctx, inv, *inv.EntryID, last, inv.InvoiceDate, SourceRegistered,
		"Leverantörsfaktura "+inv.Number+", "+inv.SupplierName, lines); err != nil {
		return nil, err
	}
	return lines, nil
}

// afterRegistration writes what follows a booked invoice once it is
// written: its accrual schedule, with the months already due released at
// once (an invoice registered late leaves nothing of a month gone by
// waiting on 17xx for the job), and its document as underlag of its
// verifikat.
func (p *Payables) afterRegistration(ctx context.Context, inv Invoice) error {
	months := Schedules(inv)
	if err := p.store.InsertMonths(ctx, inv.CompanyID, months); err != nil {
		return err
	}
	for _, group := range accrual.ByDay(accrual.Due(months, p.today())) {
		if err := p.release(ctx, inv, group); err != nil {
			return err
		}
	}
	if inv.DocumentID != nil {
		return p.books.Link(ctx, inv.CompanyID, *inv.DocumentID, *inv.EntryID)
	}
	return nil
}

// periodCode answers the ledger's refusal of a day in the codes of the
// operation: no period as noPeriod, a locked one as locked (when set).
func periodCode(err error, noPeriod, locked apierr.Code, day time.Time, field string) error {
	ae, ok := apierr.As(err)
	if !ok {
		return err
	}
	switch {
	case ae.Code == apierr.PeriodNotFound || ae.Code == apierr.SICreateNoFiscalPeriod:
		return apierr.New(noPeriod, map[string]any{"date": day.Format(time.DateOnly), "field": field})
	case ae.Code == apierr.PeriodLocked && locked != "":
		d := map[string]any{"field": field}
		for k, v := range ae.Details {
			d[k] = v
		}
		return apierr.New(locked, d)
	}
	return err
}

// BankEntered marks an approved invoice as entered in the internet bank
// (the first time is kept), or clears the mark.
func (p *Payables) BankEntered(ctx context.Context, company, id uuid.UUID, entered bool) (Invoice, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), false, true)
	if err != nil {
		return inv, err
	}
	if inv.Status == Disputed {
		return inv, apierr.New(apierr.Conflict, map[string]any{"reason": "disputed", "supplier_invoice_id": id})
	}
	if !entered {
		if inv.BankEnteredAt == nil {
			return inv, nil
		}
		old := inv
		inv.BankEnteredAt = nil
		saved, err := p.store.Save(ctx, inv, p.today())
		if err != nil {
			return saved, err
		}
		return saved, p.record(ctx, audit.Update, describe(saved)+": markeringen inlagd i internetbanken togs bort", saved, &old, &saved)
	}
	payable := !inv.CreditNote && (inv.Status == Approved || inv.Status == PartiallyPaid || inv.Overdue)
	if !payable {
		return inv, apierr.New(apierr.SIBankEnteredNotPayable, map[string]any{"supplier_invoice_id": id,
			"currentStatus": inv.State(), "current_status": inv.State()})
	}
	if inv.BankEnteredAt != nil {
		return inv, nil
	}
	old := inv
	at := p.now().UTC()
	inv.BankEnteredAt = &at
	saved, err := p.store.Save(ctx, inv, p.today())
	if err != nil {
		return saved, err
	}
	return saved, p.record(ctx, audit.Update, describe(saved)+" lades in i internetbanken", saved, &old, &saved)
}

// Patch is what a PATCH body says; nil leaves a field as it is.
type Patch struct {
	Number           *string
	InvoiceDate      *time.Time
	DueDate          *time.Time
	DeliveryDate     **time.Time // set to nil: cleared
	PaymentReference **string
	Notes            **string
	Disputed         *bool
}

// fields says whether the patch changes more than the dispute.
func (pt Patch) fields() bool {
	return pt.Number != nil || pt.InvoiceDate != nil || pt.DueDate != nil || pt.DeliveryDate != nil ||
		pt.PaymentReference != nil || pt.Notes != nil
}

// Update changes a registered invoice's number, dates, reference and
// notes, and disputes an open invoice or ends its dispute. Unbooked, a
// new date or number is held to rules 1 and 2; booked, they are its
// verifikat's (SI_EDIT_VERIFIKAT_LOCKED); nothing is ever posted again.
func (p *Payables) Update(ctx context.Context, company, id uuid.UUID, pt Patch) (Invoice, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), true, true)
	if err != nil {
		return inv, err
	}
	old := inv
	if pt.fields() {
		if err := p.edit(ctx, &inv, pt); err != nil {
			return inv, err
		}
	}
	if pt.Disputed != nil {
		if err := dispute(&inv, *pt.Disputed); err != nil {
			return inv, err
		}
	}
	saved, err := p.store.Save(ctx, inv, p.today())
	if err != nil {
		return saved, err
	}
	desc := describe(saved) + " ändrades"
	switch {
	case saved.Status == Disputed && old.Status != Disputed:
		desc = describe(saved) + " bestreds"
	case old.Status == Disputed && saved.Status != Disputed:
		desc = describe(saved) + ": bestridandet avslutades"
	}
	return saved, p.record(ctx, audit.Update, desc, saved, &old, &saved)
}

// edit applies a patch's fields to a registered invoice.
func (p *Payables) edit(ctx context.Context, inv *Invoice, pt Patch) error {
	state := inv.Status
	if state == Disputed {
		state = *inv.DisputedFrom
	}
	if state != Registered || inv.CreditNote {
		return apierr.New(apierr.SINotDraft, map[string]any{"supplier_invoice_id": inv.ID, "current_status": inv.State()})
	}
	if pt.Number != nil {
		n := strings.TrimSpace(*pt.Number)
		if n == "" {
			return apierr.Field("supplier_invoice_number", "required", "the supplier's invoice number may not be empty")
		}
		if n != inv.Number {
			if inv.Booked() {
				return apierr.New(apierr.SIEditVerifikatLocked, map[string]any{"supplier_invoice_id": inv.ID,
					"field": "supplier_invoice_number"})
			}
			existing, err := p.store.Existing(ctx, inv.CompanyID, inv.SupplierID, n)
			if err != nil {
				return err
			}
			if existing != nil {
				return apierr.New(apierr.SICreateDuplicateInvoiceNumber, map[string]any{"existing": *existing,
					"supplier_id": inv.SupplierID, "supplier_invoice_number": n, "field": "supplier_invoice_number"})
			}
			inv.Number = n
		}
	}
	if pt.InvoiceDate != nil && !pt.InvoiceDate.Equal(inv.InvoiceDate) {
		if inv.Booked() {
			return apierr.New(apierr.SIEditVerifikatLocked, map[string]any{"supplier_invoice_id": inv.ID, "field": "invoice_date"})
		}
		inv.InvoiceDate = *pt.InvoiceDate
		if err := p.books.Postable(ctx, inv.CompanyID, inv.InvoiceDate, SourceRegistered); err != nil {
			return noPeriod(err, inv.InvoiceDate, "invoice_date")
		}
	}
	if pt.DueDate != nil {
		inv.DueDate = *pt.DueDate
	}
	if inv.DueDate.Before(inv.InvoiceDate) {
		return apierr.Field("due_date", "after_invoice_date", "due_date may not be before invoice_date")
	}
	if pt.DeliveryDate != nil {
		inv.DeliveryDate = *pt.DeliveryDate
	}
	if pt.PaymentReference != nil {
		inv.PaymentReference = *pt.PaymentReference
	}
	if pt.Notes != nil {
		inv.Notes = *pt.Notes
	}
	return nil
}

// dispute puts an open invoice in dispute, remembering where it was, or
// returns a disputed one there.
func dispute(inv *Invoice, on bool) error {
	switch {
	case on && inv.Status == Disputed, !on && inv.Status != Disputed:
		return nil
	case on:
		if inv.CreditNote || inv.Status != Registered && inv.Status != Approved && inv.Status != PartiallyPaid {
			return apierr.New(apierr.Conflict, map[string]any{"reason": "not_open", "field": "disputed",
				"supplier_invoice_id": inv.ID, "current_status": inv.State()})
		}
		from := inv.Status
		inv.Status, inv.DisputedFrom = Disputed, &from
	default:
		inv.Status, inv.DisputedFrom = *inv.DisputedFrom, nil
	}
	return nil
}
