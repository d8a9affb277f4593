package payables

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// The events payables announces.
const (
	EventRegistered = "supplier_invoice.registered"
	EventApproved   = "supplier_invoice.approved"
	EventPaid       = "supplier_invoice.paid"
)

// The source types of the verifikationer payables posts.
const (
	SourceRegistered  = "supplier_invoice_registered"
	SourcePaid        = "supplier_invoice_paid"
	SourceCashPayment = "supplier_invoice_cash_payment"
)

// Books are what payables needs of the rest of the books, filled in at
// composition.
type Books struct {
	// Supplier answers an active supplier of the company, held (FOR KEY
	// SHARE) until the transaction ends; 404 SUPPLIER_NOT_FOUND for one
	// it does not have or has archived.
	Supplier func(ctx context.Context, company, id uuid.UUID) (Supplier, error)
	// Employee refuses an employee the company does not have (404
	// EMPLOYEE_NOT_FOUND): the one an invoice paid privately is owed to.
	Employee func(ctx context.Context, company, id uuid.UUID) error
	// Facts reads the settings that say how the company books supplier
	// invoices, taking no number.
	Facts func(ctx context.Context, company uuid.UUID) (Facts, error)
	// ArrivalSQL is the company package's statement that takes the
	// company's next arrival number ($1 the company; it answers number),
	// run inside the statement that writes the invoice: the settings row
	// it locks is held from that write to the COMMIT only, and a rollback
	// gives the number back.
	ArrivalSQL string
	// Unlinked refuses a document the company does not have (404
	// DOC_NOT_FOUND) and answers whether it is underlag of a verifikat.
	Linked func(ctx context.Context, company, doc uuid.UUID) (bool, error)
	// Link makes the document underlag of the entry.
	Link func(ctx context.Context, company, doc, entry uuid.UUID) error
	// Postable refuses a day no entry of source could be posted on.
	Postable func(ctx context.Context, company uuid.UUID, day time.Time, source string) error
	// KnownAccounts refuses accounts neither the chart nor BAS has, or the
	// chart has deactivated (ACCOUNTS_NOT_IN_CHART).
	KnownAccounts func(ctx context.Context, company uuid.UUID, numbers []string) error
	// EnsureAccounts adds to the chart those of numbers BAS has and it
	// lacks, refusing as KnownAccounts does: a payment names its account
	// before its verifikat is posted.
	EnsureAccounts func(ctx context.Context, company uuid.UUID, numbers []string) error
	// CheckDimensions holds lines' tags to the dimension register when
	// the company keeps one (DIMENSION_VALIDATION_FAILED).
	CheckDimensions func(ctx context.Context, company uuid.UUID, day time.Time, tags []ledger.Dimensions) error
	// Post books a verifikat in the transaction of ctx (ledger.Store.Post).
	Post func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	// Entry reads a verifikat with its current lines (ledger.Store.Get).
	Entry func(ctx context.Context, company, id uuid.UUID) (ledger.Entry, error)
	// Reverse stornoes a verifikat on day (ledger.Store.Reverse); the
	// ledger then tells payables through Reversed.
	Reverse func(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (ledger.Reversal, error)
	// Strike corrects a verifikat inline, logged (ledger.Store.StrikeLines).
	Strike func(ctx context.Context, company, id uuid.UUID, strike []uuid.UUID, add []ledger.Line) (ledger.Strike, error)
	// Rate is SEK per unit of currency on day: the stored rate, or the
	// one looked up before the transaction (fx); SI_FX_RATE_MISSING when
	// none is known. Nil: none ever is.
	Rate func(ctx context.Context, currency string, day time.Time) (money.Rate, error)
	// CreateAsset adds the asset a registered line becomes to the
	// register. Nil: there is no register (an invoice asking is refused).
	CreateAsset func(ctx context.Context, company uuid.UUID, a AssetLine) error
	// Reserved answers the payment batch (betalfil) that holds an
	// invoice, nil for none. Nil: there are no batches.
	Reserved func(ctx context.Context, company, id uuid.UUID) (*uuid.UUID, error)
	// Inbox is the invoice inbox: an item's document and date, claimed for
	// the invoice being registered. Nil: there is no inbox
	// (INBOX_ITEM_NOT_FOUND).
	Inbox Inbox
}

// Inbox is what payables needs of the invoice inbox.
type Inbox interface {
	// Claim marks item consumed by the supplier invoice inv (held until
	// the transaction ends) and answers its document and the date it
	// read off it; INBOX_ITEM_NOT_FOUND, INBOX_ITEM_ALREADY_CONVERTED.
	Claim(ctx context.Context, company, item, inv uuid.UUID) (doc *uuid.UUID, day *time.Time, err error)
}

// Payables keeps a company's supplier invoices: the rules, the store, the
// audit trail and the events, in the request's unit of work.
type Payables struct {
	store *Store
	db    *store.DB
	books Books
	audit *audit.Store
	now   func() time.Time
}

// New returns the payables service.
func New(db *store.DB, b Books, a *audit.Store, now func() time.Time) *Payables {
	s := NewStore(db)
	s.arrival = b.ArrivalSQL
	return &Payables{store: s, db: db, books: b, audit: a, now: now}
}

// SetAssets gives payables the asset register, made after it.
func (p *Payables) SetAssets(f func(ctx context.Context, company uuid.UUID, a AssetLine) error) {
	p.books.CreateAsset = f
}

// SetInbox gives payables the inbox, made after it (the inbox registers
// its invoices through payables).
func (p *Payables) SetInbox(b Inbox) { p.books.Inbox = b }

// today is the day in Sweden: what overdue is reckoned on.
func (p *Payables) today() time.Time { return ledger.Today(p.now()) }

// Get answers one supplier invoice, with its lines when items.
func (p *Payables) Get(ctx context.Context, company, id uuid.UUID, items bool) (Invoice, error) {
	return p.store.Get(ctx, company, id, p.today(), items, false)
}

// List answers a page of the company's supplier invoices.
func (p *Payables) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Invoice, error) {
	return p.store.List(ctx, company, f, after, limit, p.today())
}

// Months answers an invoice's accrual schedule.
func (p *Payables) Months(ctx context.Context, company, id uuid.UUID) ([]Month, error) {
	return p.store.Months(ctx, company, id)
}

// Payments answers an invoice's payments.
func (p *Payables) Payments(ctx context.Context, company, id uuid.UUID) ([]Payment, error) {
	return p.store.Payments(ctx, company, id)
}

// Open answers a supplier's open invoices: what keeps it from being
// archived.
func (p *Payables) Open(ctx context.Context, company, supplier uuid.UUID) ([]Invoice, error) {
	return p.store.Open(ctx, company, supplier, p.today())
}

// Created is an invoice registered, with the lines its verifikat posted
// (or, on a dry run, would post); none when nothing is booked.
type Created struct {
	Invoice Invoice
	Lines   []ledger.Line
}

// Create registers a supplier invoice (Plan's rules and the books'):
// the next arrival number, the invoice and its lines, and under
// faktureringsmetoden, unless booking is deferred, its verifikat dated the
// invoice date with the document as underlag, in the request's unit of
// work.
func (p *Payables) Create(ctx context.Context, company uuid.UUID, d Draft) (Created, error) {
	if d.InboxItemID != nil && !d.PrivatelyPaid && !d.Converted {
		return Created{}, invalid("inbox_item_id", "private_only")
	}
	s, err := p.books.Supplier(ctx, company, d.SupplierID)
	if err != nil {
		return Created{}, err
	}
	if existing, err := p.store.Existing(ctx, company, d.SupplierID, d.Number); err != nil || existing != nil {
		if err != nil {
			return Created{}, err
		}
		return Created{}, apierr.New(apierr.SICreateDuplicateInvoiceNumber, map[string]any{"existing": *existing,
			"supplier_id": d.SupplierID, "supplier_invoice_number": d.Number, "field": "supplier_invoice_number"})
	}
	if d.DocumentID != nil {
		if err := p.document(ctx, company, *d.DocumentID); err != nil {
			return Created{}, err
		}
	}
	if d.EmployeeID != nil && d.PrivatelyPaid {
		if err := p.books.Employee(ctx, company, *d.EmployeeID); err != nil {
			return Created{}, apierr.WithField(err, "employee_id")
		}
	}
	if d.Currency == "" {
		d.Currency = s.Currency
	}
	if err := p.rate(ctx, &d); err != nil {
		return Created{}, err
	}
	f, err := p.books.Facts(ctx, company)
	if err != nil {
		return Created{}, err
	}
	inv, err := Plan(d, s, f)
	if err != nil {
		return Created{}, err
	}
	inv.CompanyID, inv.ID = company, uuid.New()
	inv.makesAssets = len(assetLines(inv, d)) > 0
	if d.InboxItemID != nil && !d.Converted {
		if err := p.claimInbox(ctx, &inv); err != nil {
			return Created{}, err
		}
	}
	var lines []ledger.Line
	var payment *Payment
	switch {
	case inv.PrivatelyPaid:
		if lines, payment, err = p.postPrivately(ctx, &inv, d, f); err != nil {
			return Created{}, err
		}
	case !inv.Cash && !inv.BookingDeferred:
		entry := uuid.New()
		inv.EntryID = &entry
		if lines, err = p.postRegistration(ctx, inv); err != nil {
			return Created{}, err
		}
	default:
		if err := p.unbooked(ctx, inv); err != nil {
			return Created{}, err
		}
	}
	// The arrival number is taken by the invoice's own insert, after the
	// posting's draft (which holds the settings row FOR KEY SHARE only,
	// not in the number's way): where nothing after reads the invoice, in
	// the posting's closing statement, so the row is held for that one
	// statement and the COMMIT, as the voucher series is; else last of the
	// writes. Registrations of one company overlap either way.
	var stored Invoice
	joined := false
	assets := assetLines(inv, d)
	if inv.Booked() && inv.DocumentID == nil && payment == nil && len(Schedules(inv)) == 0 && len(assets) == 0 {
		// Nothing after reads it: written in the posting's closing.
		if stored, joined, err = p.store.InsertLast(ctx, inv, p.today(), f.Now); err != nil {
			return Created{}, err
		}
	}
	if !joined {
		if stored, err = p.store.Insert(ctx, inv, p.today()); err != nil {
			return Created{}, err
		}
	}
	if payment != nil {
		if stored, err = p.store.Pay(ctx, stored, *payment, Paid, &payment.Date, p.today()); err != nil {
			return Created{}, err
		}
		stored.Items = inv.Items
	}
	if inv.Booked() && !joined {
		if err := p.afterRegistration(ctx, stored); err != nil {
			return Created{}, err
		}
	}
	for _, a := range assets {
		if p.books.CreateAsset == nil {
			return Created{}, invalid(a.Field, "no_register")
		}
		a.EntryID = stored.EntryID
		if err := p.books.CreateAsset(ctx, company, a); err != nil {
			return Created{}, apierr.WithField(err, a.Field)
		}
	}
	if err := p.record(ctx, audit.Insert, describe(stored)+" registrerades", stored, nil, &stored); err != nil {
		return Created{}, err
	}
	if _, err := outbox.Emit(ctx, p.db, company, EventRegistered, map[string]any{"supplier_invoice": Event(stored)}); err != nil {
		return Created{}, err
	}
	if stored.Status == Paid {
		if _, err := outbox.Emit(ctx, p.db, company, EventPaid, map[string]any{"supplier_invoice": Event(stored)}); err != nil {
			return Created{}, err
		}
	}
	return Created{Invoice: stored, Lines: lines}, nil
}

// postPrivately books an invoice the owner, a member or an employee
// paid (rule 8): the one verifikat of its costs against the account the
// company now owes them on, dated payment_date (default the invoice
// date), and the payment of the whole on that account it answers, to be
// written once the invoice is.
func (p *Payables) postPrivately(ctx context.Context, inv *Invoice, d Draft, f Facts) ([]ledger.Line, *Payment, error) {
	day := inv.InvoiceDate
	if d.PaymentDate != nil {
		day = *d.PaymentDate
		if day.Before(inv.InvoiceDate) {
			return nil, nil, apierr.Field("payment_date", "after_invoice_date", "payment_date may not be before invoice_date")
		}
		// Rule 1 holds for the invoice date whatever day it was paid.
		if err := p.books.Postable(ctx, inv.CompanyID, inv.InvoiceDate, SourcePrivate); err != nil {
			return nil, nil, noPeriod(err, inv.InvoiceDate, "invoice_date")
		}
	}
	account := PrivateAccount(*inv, f.EntityType)
	if err := p.books.EnsureAccounts(ctx, inv.CompanyID, []string{account}); err != nil {
		return nil, nil, err
	}
	entry := uuid.New()
	inv.EntryID = &entry
	lines := PrivateLines(*inv, account)
	if _, err := p.post(ctx, *inv, entry, inv.DocumentID == nil, day, SourcePrivate, "Leverantörsfaktura "+inv.Number+", "+
		inv.SupplierName+", betald privat", lines); err != nil {
		return nil, nil, periodCode(err, apierr.SICreateNoFiscalPeriod, "", day, "payment_date")
	}
	pay := Payment{ID: uuid.New(), InvoiceID: inv.ID, Date: day, Amount: inv.Total, SEK: inv.TotalSEK,
		BookedSEK: inv.TotalSEK, ExchangeRate: inv.ExchangeRate, Account: &account, Source: PaidPrivately, EntryID: &entry}
	return lines, &pay, nil
}

// rate fills in the exchange rate of a foreign invoice that names none
// (rule 3): the Riksbank's of its invoice date.
func (p *Payables) rate(ctx context.Context, d *Draft) error {
	if d.Currency == "" || d.Currency == "SEK" || d.ExchangeRate != nil || p.books.Rate == nil {
		return nil
	}
	r, err := p.books.Rate(ctx, d.Currency, d.InvoiceDate)
	if err != nil {
		return err
	}
	d.ExchangeRate = &r
	return nil
}

// claimInbox takes the inbox item a privately paid invoice names: its
// document becomes the invoice's, unless the body named one.
func (p *Payables) claimInbox(ctx context.Context, inv *Invoice) error {
	if p.books.Inbox == nil {
		return apierr.New(apierr.InboxItemNotFound, map[string]any{"inbox_item_id": *inv.InboxItemID, "field": "inbox_item_id"})
	}
	doc, _, err := p.books.Inbox.Claim(ctx, inv.CompanyID, *inv.InboxItemID, inv.ID)
	if err != nil {
		return err
	}
	if inv.DocumentID == nil && doc != nil {
		if err := p.document(ctx, inv.CompanyID, *doc); err != nil {
			return err
		}
		inv.DocumentID = doc
	}
	return nil
}

// unbooked checks what posting would have checked of an invoice booked
// later: its day takes postings, its accounts are in the chart, its
// tags in the register.
func (p *Payables) unbooked(ctx context.Context, inv Invoice) error {
	if err := p.books.Postable(ctx, inv.CompanyID, inv.InvoiceDate, SourceRegistered); err != nil {
		return noPeriod(err, inv.InvoiceDate, "invoice_date")
	}
	lines := Registration(inv)
	if err := p.books.KnownAccounts(ctx, inv.CompanyID, ledger.Accounts(lines)); err != nil {
		return err
	}
	tags := make([]ledger.Dimensions, len(lines))
	for i, l := range lines {
		tags[i] = l.Dimensions
	}
	return p.books.CheckDimensions(ctx, inv.CompanyID, inv.InvoiceDate, tags)
}

// noPeriod answers PERIOD_NOT_FOUND as SI_CREATE_NO_FISCAL_PERIOD.
func noPeriod(err error, day time.Time, field string) error {
	if apierr.Is(err, apierr.PeriodNotFound) {
		return apierr.New(apierr.SICreateNoFiscalPeriod, map[string]any{"date": day.Format(time.DateOnly), "field": field})
	}
	return err
}

// document checks rule 7: the company's, underlag of nothing yet, held
// by no other supplier invoice.
func (p *Payables) document(ctx context.Context, company, doc uuid.UUID) error {
	linked, err := p.books.Linked(ctx, company, doc)
	if ae, ok := apierr.As(err); ok && ae.Status == 404 {
		return invalid("document_id", "not_found", "document_id", doc)
	}
	if err != nil {
		return err
	}
	if linked {
		return invalid("document_id", "linked", "document_id", doc)
	}
	held, err := p.store.DocumentHeld(ctx, company, doc)
	if err != nil {
		return err
	}
	if held != nil {
		return invalid("document_id", "document_taken", "document_id", doc, "supplier_invoice_id", *held)
	}
	return nil
}

// post posts a verifikat of inv with the supplier as counterparty.
func (p *Payables) post(ctx context.Context, inv Invoice, entry uuid.UUID, last bool, day time.Time, source, desc string,
	lines []ledger.Line) (ledger.Entry, error) {
	id, supplier, name := inv.ID.String(), inv.SupplierID, inv.SupplierName
	e, err := p.books.Post(ctx, inv.CompanyID, ledger.Input{ID: entry, Last: last, Date: day, Description: desc,
		SourceType: source, SourceID: &id, Counterparty: ledger.Counterparty{CounterpartySupplierID: &supplier,
			CounterpartyName: &name}, Lines: lines})
	field := "invoice_date"
	if source != SourceRegistered {
		field = "payment_date"
	}
	return e, noPeriod(err, day, field)
}

// describe names an invoice in the audit trail.
func describe(inv Invoice) string {
	kind := "Leverantörsfaktura"
	if inv.CreditNote {
		kind = "Leverantörskreditnota"
	}
	return kind + " " + inv.Number + " (ankomstnummer " + strconv.Itoa(inv.ArrivalNumber) + ") från " + inv.SupplierName
}

// record writes an audit row of a change of inv.
func (p *Payables) record(ctx context.Context, action audit.Action, desc string, inv Invoice, old, new *Invoice) error {
	view := func(i *Invoice) any {
		if i == nil {
			return nil
		}
		return Event(*i)
	}
	return p.audit.Record(ctx, audit.Change{CompanyID: inv.CompanyID, Action: action, Table: "supplier_invoices",
		RecordID: inv.ID.String(), Description: desc, Old: audit.Of(view(old)), New: audit.Of(view(new))})
}

// Approve attests a registered invoice.
func (p *Payables) Approve(ctx context.Context, company, id uuid.UUID) (Invoice, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), false, true)
	if err != nil {
		return inv, err
	}
	switch {
	case inv.Status == Disputed:
		return inv, apierr.New(apierr.Conflict, map[string]any{"reason": "disputed", "supplier_invoice_id": id})
	case inv.Status != Registered:
		return inv, apierr.New(apierr.SIApproveNotRegistered, map[string]any{"supplier_invoice_id": id,
			"current_status": inv.State()})
	}
	approved, err := p.store.Approve(ctx, inv, p.now().UTC(), p.today())
	if err != nil {
		return approved, err
	}
	if err := p.record(ctx, audit.Update, describe(approved)+" attesterades", approved, &inv, &approved); err != nil {
		return approved, err
	}
	_, err = outbox.Emit(ctx, p.db, company, EventApproved, map[string]any{"supplier_invoice": Event(approved)})
	return approved, err
}

// Delete removes an invoice nothing is booked or paid on; its arrival
// number stays taken, kept by the audit trail.
func (p *Payables) Delete(ctx context.Context, company, id uuid.UUID) (Invoice, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), false, true)
	if err != nil {
		return inv, err
	}
	d := map[string]any{"supplier_invoice_id": id, "current_status": inv.State()}
	switch {
	case inv.CreditNote:
		return inv, apierr.New(apierr.SIDeleteCreditNote, d)
	case inv.EntryID != nil:
		d["reason"] = "registration_journal_entry"
		return inv, apierr.New(apierr.SIDeleteHasBooking, d)
	case !inv.PaidAmount.IsZero():
		d["reason"] = "payments"
		return inv, apierr.New(apierr.SIDeleteHasBooking, d)
	case inv.Status != Registered && inv.Status != Approved:
		return inv, apierr.New(apierr.SIDeleteInvalidStatus, d)
	}
	if p.books.Reserved != nil {
		batch, err := p.books.Reserved(ctx, company, id)
		if err != nil {
			return inv, err
		}
		if batch != nil {
			d["batch_id"] = *batch
			return inv, apierr.New(apierr.SIDeleteInPaymentBatch, d)
		}
	}
	if err := p.store.Delete(ctx, inv); err != nil {
		return inv, err
	}
	return inv, p.record(ctx, audit.Delete, describe(inv)+" togs bort; ankomstnumret används inte igen", inv, &inv, nil)
}

// Payable answers the company's open supplier invoices in currency with
// amount left to pay: what a bank payment of amount likely settles.
func (p *Payables) Payable(ctx context.Context, company uuid.UUID, currency string, amount money.Amount) ([]uuid.UUID, error) {
	return p.store.Payable(ctx, company, currency, amount)
}

// assetLines are the assets inv's lines become, as d asked: each at its
// amount in kronor, on its account, dated the invoice date.
func assetLines(inv Invoice, d Draft) []AssetLine {
	var out []AssetLine
	for i, it := range d.Items {
		if it.Asset == nil || i >= len(inv.Items) {
			continue
		}
		line := inv.Items[i]
		value := line.Amount
		if inv.ExchangeRate != nil && inv.Currency != "SEK" {
			value = inv.ExchangeRate.Convert(line.Amount)
		}
		name := line.Description
		if it.Asset.Name != nil {
			name = *it.Asset.Name
		}
		out = append(out, AssetLine{Draft: *it.Asset, Name: name, Date: inv.InvoiceDate, Value: value, Account: line.Account,
			Dimensions: line.Dimensions, InvoiceID: inv.ID, Field: "items." + strconv.Itoa(i) + ".create_asset"})
	}
	return out
}
