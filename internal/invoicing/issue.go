package invoicing

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// EventSent is announced when an invoice is issued.
const EventSent = "invoice.sent"

// SourceCreated is the source_type of the verifikat that books a sale.
const SourceCreated = "invoice_created"

// Number is the number an invoice is issued with, and the settings that
// say how it is booked, read with it.
type Number struct {
	Prefix       string
	N            int
	ShowOCR      bool
	Cash         bool // kontantmetoden
	DeferBooking bool
	// Seller is the company as the law's check of an invoice sees it,
	// read with the number.
	Seller Party
}

// Ledger is what issuing needs of the books, filled in at composition.
type Ledger struct {
	// TakeNumber takes the company's next invoice number, holding the
	// settings row until the transaction ends.
	TakeNumber func(ctx context.Context, company uuid.UUID) (Number, error)
	// Post books a verifikat in the transaction of ctx (ledger.Store.Post).
	Post func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	// Postable refuses what Post would refuse of an entry dated day by
	// its period alone (ledger.Store.Postable): a document dated there
	// without a verifikat of its own is held to the same lock.
	Postable func(ctx context.Context, company uuid.UUID, day time.Time, source string) error
}

// Issued is an invoice issued, with the lines its verifikat posted (or,
// on a dry run, would post); none when nothing is booked at issue.
type Issued struct {
	Invoice Invoice
	Lines   []ledger.Line
}

// Issue moves a draft to sent (mark-sent; the delivery issue's send and
// send-peppol take the same step): an invoice takes the company's next
// number, and its OCR reference when the settings show one, and under
// faktureringsmetoden, unless booking is deferred, its verifikat is
// posted through the ledger dated the invoice date. The invoice row is
// locked first: of requests issuing the same draft one does it, the
// others find it sent (409 INVOICE_ALREADY_SENT). A customer archived
// since the draft was made is 404 CUSTOMER_NOT_FOUND. A failure gives the
// number back.
func (s *Sales) Issue(ctx context.Context, company, id uuid.UUID) (Issued, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), true, Hold)
	if err != nil {
		return Issued{}, err
	}
	return s.issue(ctx, inv)
}

// issue is Issue of inv, read with its lines and locked.
func (s *Sales) issue(ctx context.Context, inv Invoice) (Issued, error) {
	company, id := inv.CompanyID, inv.ID
	switch {
	case inv.DocumentType == "delivery_note" || inv.DocumentType == "quote":
		return Issued{}, apierr.Field("document_type", "issuable", "a "+inv.DocumentType+" is never sent as an invoice")
	case inv.Status != "draft":
		return Issued{}, apierr.New(apierr.InvoiceAlreadySent, map[string]any{"invoice_id": id, "current_status": inv.State()})
	}
	if inv.DocumentType == "invoice" && inv.Currency != "SEK" && inv.ExchangeRate == nil {
		// The draft named no rate: it is issued at the day's rate of its
		// invoice date, and keeps it.
		rate, err := s.rate(ctx, inv, inv.InvoiceDate, apierr.InvoiceFXRateMissing)
		if err != nil {
			return Issued{}, err
		}
		inv.ExchangeRate = &rate
	}
	// The customer may have been archived since the draft was made; an
	// open invoice keeps it from being archived from now on.
	buyer, err := s.books.HoldCustomer(ctx, company, inv.CustomerID)
	if err != nil {
		return Issued{}, err
	}
	old := inv
	var lines []ledger.Line
	var sale Sale
	if inv.DocumentType == "invoice" {
		n, err := s.ledger.TakeNumber(ctx, company)
		if err != nil {
			return Issued{}, err
		}
		// What the law asks the invoice to say is checked as the parties
		// stand now: the refusal rolls back, and gives the number back.
		if err := LegalContent(inv, n.Seller, buyer).Err(inv); err != nil {
			return Issued{}, err
		}
		number := n.Prefix + strconv.Itoa(n.N)
		inv.Number = &number
		if ocr, ok := identifier.OCR(number); ok && n.ShowOCR {
			inv.OCR = &ocr
		}
		inv.BookingDeferred = n.DeferBooking && !n.Cash
		if !n.Cash && !n.DeferBooking {
			if sale, lines, err = saleLines(inv); err != nil {
				return Issued{}, err
			}
			entry := uuid.New()
			sek := kronorOf(lines)
			inv.EntryID, inv.TotalSEK = &entry, &sek
		}
	}
	sent, err := s.store.MarkSent(ctx, inv, s.now().UTC(), s.today())
	if err != nil {
		return Issued{}, err
	}
	if inv.EntryID != nil {
		// Posted last: the posting's locks are held only until the commit.
		if err := s.postSale(ctx, inv, *inv.EntryID, true, sale, lines); err != nil {
			return Issued{}, err
		}
	}
	sent.Lines = inv.Lines
	if err := s.record(ctx, audit.Update, describe(sent)+" skickades", sent, &old, &sent); err != nil {
		return Issued{}, err
	}
	if _, err := outbox.Emit(ctx, s.store.db, company, EventSent, map[string]any{"invoice": Detail(sent)}); err != nil {
		return Issued{}, err
	}
	return Issued{Invoice: sent, Lines: lines}, nil
}

// rate is the rate of inv's currency on day (Books.Rate); without one,
// code (INVOICE_FX_RATE_MISSING, MATCH_INVOICE_BOOKING_RATE_MISSING)
// with the reason the lookup gave.
func (s *Sales) rate(ctx context.Context, inv Invoice, day time.Time, code apierr.Code) (money.Rate, error) {
	details := map[string]any{"invoice_id": inv.ID, "currency": inv.Currency, "date": day.Format(time.DateOnly),
		"field": "exchange_rate", "reason": "offline"}
	if code == apierr.MatchInvoiceBookingRateMissing {
		details["field"] = "amount_sek"
	}
	if s.books.Rate == nil {
		return money.Rate{}, apierr.New(code, details)
	}
	r, err := s.books.Rate(ctx, inv.Currency, day)
	if e, ok := apierr.As(err); ok {
		if reason, ok := e.Details["reason"]; ok {
			details["reason"] = reason
		}
		return money.Rate{}, apierr.New(code, details)
	}
	return r, err
}

// book posts the verifikat of an invoice's sale (IssueLines), dated its
// invoice date, in the period holding it, and the schedule of its accrued
// lines.
func (s *Sales) book(ctx context.Context, inv Invoice) (uuid.UUID, []ledger.Line, error) {
	sale, lines, err := saleLines(inv)
	if err != nil {
		return uuid.Nil, nil, err
	}
	entry := uuid.New()
	return entry, lines, s.postSale(ctx, inv, entry, false, sale, lines)
}

// saleLines are an invoice's sale and the lines its verifikat posts.
func saleLines(inv Invoice) (Sale, []ledger.Line, error) {
	sale, err := saleOf(inv)
	if err != nil {
		return Sale{}, nil, err
	}
	lines, err := IssueLines(sale)
	return sale, lines, err
}

// postSale posts the verifikat entry of inv's sale, dated its invoice
// date (last: see post), writes the schedule of its accrued lines and
// releases at once the months already due: a sale booked late leaves
// nothing of a month gone by waiting on 29xx for the job.
func (s *Sales) postSale(ctx context.Context, inv Invoice, entry uuid.UUID, last bool, sale Sale, lines []ledger.Line) error {
	rows := accruals(inv, sale)
	due := accrual.Due(rows, s.today())
	if _, err := s.post(ctx, inv, entry, last && len(due) == 0, inv.InvoiceDate, "invoice_date", SourceCreated,
		"Faktura "+*inv.Number+", "+inv.CustomerName, lines); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if err := s.store.AddAccruals(ctx, inv.CompanyID, rows); err != nil {
		return err
	}
	for _, group := range accrual.ByDay(due) {
		if err := s.release(ctx, inv, group); err != nil {
			return err
		}
	}
	return nil
}

// saleOf is an invoice as its verifikat books it. Its totals are
// reckoned again from its lines, and must be what it says.
func saleOf(inv Invoice) (Sale, error) {
	items := make([]Item, len(inv.Lines))
	accounts := make([]string, len(inv.Lines))
	accrued := make([]string, len(inv.Lines))
	tags := make([]ledger.Dimensions, len(inv.Lines))
	for i, l := range inv.Lines {
		if l.AccrualBalanceAccount != nil {
			accrued[i] = *l.AccrualBalanceAccount
		}
		items[i] = Item{Text: l.Type == "text", Quantity: l.Quantity, UnitPrice: l.UnitPrice, Discount: l.Discount,
			VATRate: int(l.VATRate.InÖre())}
		if l.Deduction != nil {
			items[i].Deduction = Deduction(*l.Deduction)
		}
		if l.RevenueAccount != nil {
			accounts[i] = *l.RevenueAccount
		}
		tags[i] = l.Dimensions
	}
	t, err := Compute(items, Options{OreRounding: inv.OreRounding, Date: inv.InvoiceDate})
	if err != nil {
		return Sale{}, err
	}
	if t.Total.Cmp(inv.Total) != 0 || t.VAT.Cmp(inv.VAT) != 0 || t.Deduction.Cmp(inv.DeductionTotal) != 0 {
		return Sale{}, errors.New("invoicing: invoice " + inv.ID.String() + " does not add up to its lines")
	}
	return Sale{Items: items, Accounts: accounts, Totals: t, Revenue: inv.Treatment.Revenue(), Currency: inv.Currency,
		Rate: inv.ExchangeRate, Default: inv.DefaultDimensions, Lines: tags, Accrued: accrued}, nil
}

// kronorOf is what a sale's verifikat came to in kronor: its debits (1510
// and 1513).
func kronorOf(lines []ledger.Line) money.Amount {
	var sum money.Amount
	for _, l := range lines {
		sum = sum.Add(l.Debit)
	}
	return sum
}
