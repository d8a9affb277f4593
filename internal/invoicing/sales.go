package invoicing

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
)

// The events invoicing announces.
const (
	EventCreated = "invoice.created"
)

// Books are what invoicing needs of the rest of the books, filled in at
// composition.
type Books struct {
	// Customer answers an active customer of the company, 404
	// CUSTOMER_NOT_FOUND for one it does not have or has archived.
	Customer func(ctx context.Context, company, id uuid.UUID) (Customer, error)
	// Settings answers the company's settings an invoice follows.
	Settings func(ctx context.Context, company uuid.UUID) (Settings, error)
	// HoldCustomer refuses an archived or unknown customer
	// (CUSTOMER_NOT_FOUND) and keeps an active one from being archived
	// until the transaction ends; it answers the customer as the law's
	// check of an invoice sees them.
	HoldCustomer func(ctx context.Context, company, id uuid.UUID) (Party, error)
	// Parties answers the company and a customer as the law's check of an
	// invoice sees them (a draft's legal_content).
	Parties func(ctx context.Context, company, customer uuid.UUID) (seller, buyer Party, err error)
	// PersonalNumber answers the customer's personnummer (404
	// CUSTOMER_NO_PERSONAL_NUMBER, 422 CUSTOMER_PERSONAL_NUMBER_UNREADABLE).
	PersonalNumber func(ctx context.Context, company, customer uuid.UUID) (string, error)
	// Rate is SEK per unit of currency on day: the one fetched before the
	// transaction, else a stored one (an imported rate file, an earlier
	// fetch); fx.Rates.Rate. Nil: rates must be given.
	Rate func(ctx context.Context, currency string, day time.Time) (money.Rate, error)
	// Articles looks up the articles of ids, those it finds.
	Articles func(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]LineArticle, error)
	// KnownAccounts refuses (ACCOUNTS_NOT_IN_CHART) accounts neither the
	// chart nor BAS has, or the chart has deactivated.
	KnownAccounts func(ctx context.Context, company uuid.UUID, numbers []string) error
}

// Sales keeps a company's customer invoices: the rules, the store, the
// audit trail and the events, in the request's unit of work.
type Sales struct {
	store  *Store
	books  Books
	ledger Ledger
	audit  *audit.Store
	shelf  Shelf
	now    func() time.Time
}

// NewSales returns the invoicing service.
func NewSales(s *Store, b Books, l Ledger, sh Shelf, a *audit.Store, now func() time.Time) *Sales {
	return &Sales{store: s, books: b, ledger: l, shelf: sh, audit: a, now: now}
}

// today is the day in Sweden: what overdue and expiry are reckoned on.
func (s *Sales) today() time.Time { return ledger.Today(s.now()) }

// series are the own gapless series of the documents numbered when
// created; an invoice is numbered when issued.
var series = map[string]string{"quote": "OF", "proforma": "PF", "delivery_note": "D"}

// Create stores a new draft (Plan's rules) and answers it with the
// warnings that did not fail it. A quote, proforma or delivery note takes
// the next number of its series now; a rollback gives it back.
func (s *Sales) Create(ctx context.Context, company uuid.UUID, d Draft) (Invoice, []Warning, error) {
	c, err := s.books.Customer(ctx, company, d.CustomerID)
	if err != nil {
		return Invoice{}, nil, err
	}
	set, err := s.books.Settings(ctx, company)
	if err != nil {
		return Invoice{}, nil, err
	}
	if err := s.takeArticles(ctx, company, &d); err != nil {
		return Invoice{}, nil, err
	}
	inv, warnings, err := Plan(d, c, set)
	if err != nil {
		return Invoice{}, nil, err
	}
	inv.CompanyID = company
	more, err := s.deductionChecks(ctx, inv)
	if err != nil {
		return Invoice{}, nil, err
	}
	warnings = append(warnings, more...)
	var quote *Invoice
	if d.SourceQuoteID != nil {
		q, err := s.quoteFor(ctx, inv)
		if err != nil {
			return Invoice{}, nil, err
		}
		quote = &q
	}
	if accounts := revenueAccounts(inv.Lines); len(accounts) > 0 {
		if err := s.books.KnownAccounts(ctx, company, accounts); err != nil {
			return Invoice{}, nil, err
		}
	}
	if name, ok := series[inv.DocumentType]; ok {
		n, err := s.store.Next(ctx, company, name)
		if err != nil {
			return Invoice{}, nil, err
		}
		number := name + "-" + strconv.Itoa(n)
		inv.Number = &number
	}
	stored, err := s.store.Insert(ctx, inv, s.today())
	if err != nil {
		return Invoice{}, nil, err
	}
	if err := s.record(ctx, audit.Insert, describe(stored)+" skapades", stored, nil, &stored); err != nil {
		return Invoice{}, nil, err
	}
	if quote != nil && *quote.QuoteStatus == "open" {
		// Invoicing a quote is the customer's yes.
		if _, err := s.decide(ctx, *quote, "accepted", nil); err != nil {
			return Invoice{}, nil, err
		}
	}
	if _, err := outbox.Emit(ctx, s.store.db, company, EventCreated, map[string]any{"invoice": Detail(stored)}); err != nil {
		return Invoice{}, nil, err
	}
	return stored, warnings, nil
}

// Created is what became of one draft of a bulk-create: stored, with its
// warnings, or refused.
type Created struct {
	Invoice  Invoice
	Warnings []Warning
	Err      *apierr.Error
}

// BulkCreate stores each draft on its own (Create's rules): a refused one
// is undone alone and the others stand. A quote, and a draft naming its
// own VAT treatment, are refused here. Only an error outside the
// catalogue fails the whole batch.
func (s *Sales) BulkCreate(ctx context.Context, company uuid.UUID, drafts []Draft) ([]Created, error) {
	out := make([]Created, len(drafts))
	for i, d := range drafts {
		at := "invoices." + strconv.Itoa(i) + "."
		var err error
		switch {
		case d.DocumentType == "quote":
			err = apierr.Field(at+"document_type", "bulk", "quotes are created one at a time (POST …/invoices)")
		case d.Treatment != "":
			err = apierr.Field(at+"vat_treatment", "bulk", "a batch decides each invoice's VAT treatment from its customer")
		case d.DeliveryCountry != "":
			err = apierr.Field(at+"delivery_country", "bulk", "a batch decides each invoice's VAT treatment from its customer")
		default:
			err = s.store.db.Attempt(ctx, func(ctx context.Context) error {
				var err error
				out[i].Invoice, out[i].Warnings, err = s.Create(ctx, company, d)
				return err
			})
		}
		if e, ok := apierr.As(err); ok {
			out[i] = Created{Err: e}
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// quoteFor answers the quote inv is made from, held until the
// transaction ends: a quote of the same customer, neither cancelled nor
// declined, not invoiced before (409 INVOICE_QUOTE_ALREADY_INVOICED).
func (s *Sales) quoteFor(ctx context.Context, inv Invoice) (Invoice, error) {
	q, err := s.store.Get(ctx, inv.CompanyID, *inv.SourceQuoteID, s.today(), false, Hold)
	if apierr.Is(err, apierr.InvoiceNotFound) {
		return q, apierr.New(apierr.InvoiceNotFound, map[string]any{"invoice_id": *inv.SourceQuoteID, "field": "source_quote_id"})
	}
	switch {
	case err != nil:
		return q, err
	case inv.DocumentType == "quote":
		return q, apierr.Field("source_quote_id", "quote", "a quote is not made from another quote")
	case q.DocumentType != "quote":
		return q, apierr.New(apierr.InvoiceNotAQuote, map[string]any{"invoice_id": q.ID, "document_type": q.DocumentType,
			"field": "source_quote_id"})
	case q.CustomerID != inv.CustomerID:
		return q, apierr.Field("source_quote_id", "same_customer", "the quote is to another customer")
	case q.Status == "cancelled" || *q.QuoteStatus == "declined":
		return q, apierr.Field("source_quote_id", "quote_open", "the quote is "+map[bool]string{true: "cancelled", false: "declined"}[q.Status == "cancelled"])
	}
	return q, s.notInvoiced(ctx, q)
}

// notInvoiced refuses a quote an invoice was made from: 409
// INVOICE_QUOTE_ALREADY_INVOICED naming the invoice.
func (s *Sales) notInvoiced(ctx context.Context, q Invoice) error {
	made, err := s.store.MadeFrom(ctx, q.CompanyID, q.ID)
	if err != nil || made == nil {
		return err
	}
	return apierr.New(apierr.InvoiceQuoteAlreadyInvoiced, map[string]any{"quote_id": q.ID, "invoice_id": *made})
}

// Get answers one invoice as read today, with its lines when lines.
func (s *Sales) Get(ctx context.Context, company, id uuid.UUID, lines bool) (Invoice, error) {
	return s.store.Get(ctx, company, id, s.today(), lines, Read)
}

// List answers a page of invoices as read today (see Store.List).
func (s *Sales) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Invoice, error) {
	return s.store.List(ctx, company, f, after, limit, s.today())
}

func revenueAccounts(lines []Line) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lines {
		if l.RevenueAccount != nil && !seen[*l.RevenueAccount] {
			seen[*l.RevenueAccount] = true
			out = append(out, *l.RevenueAccount)
		}
	}
	return out
}

// describe names an invoice in the audit trail, in Swedish.
func describe(i Invoice) string {
	kind := map[string]string{"invoice": "Fakturan", "quote": "Offerten", "proforma": "Proformafakturan",
		"delivery_note": "Följesedeln"}[i.DocumentType]
	if i.CreditedID != nil {
		kind = "Kreditfakturan"
	}
	if i.Number != nil {
		return kind + " " + *i.Number
	}
	return kind + " (utkast) till " + i.CustomerName
}

// record audits a change of invoice i: its detail as it was (old) and
// as it is (new), either nil.
func (s *Sales) record(ctx context.Context, action audit.Action, desc string, i Invoice, old, new *Invoice) error {
	view := func(i *Invoice) any {
		if i == nil {
			return nil
		}
		return Detail(*i)
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: i.CompanyID, Action: action, Table: "invoices",
		RecordID: i.ID.String(), Description: desc, Old: audit.Of(view(old)), New: audit.Of(view(new))})
}

// Deleted is what became of a draft: deleted, or cancelled (makulerad)
// keeping its number.
type Deleted struct {
	Invoice   Invoice
	Cancelled bool
}

// Delete removes an unnumbered draft with its lines, or cancels a numbered
// one, which keeps its number so its series stays gapless. Anything but
// a draft is 409 INVOICE_DELETE_NOT_DRAFT; a draft another request is
// changing at that moment 409 INVOICE_CANCEL_RACE.
func (s *Sales) Delete(ctx context.Context, company, id uuid.UUID) (Deleted, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), false, Claim, apierr.InvoiceCancelRace)
	if err != nil {
		return Deleted{}, err
	}
	if inv.Status != "draft" {
		return Deleted{}, apierr.New(apierr.InvoiceDeleteNotDraft, map[string]any{"invoice_id": id, "current_status": inv.State()})
	}
	if inv.DocumentType == "quote" {
		if err := s.notInvoiced(ctx, inv); err != nil {
			return Deleted{}, err
		}
	}
	if inv.Number == nil {
		if err := s.store.Delete(ctx, company, id); err != nil {
			return Deleted{}, err
		}
		return Deleted{Invoice: inv}, s.record(ctx, audit.Delete, describe(inv)+" togs bort", inv, &inv, nil)
	}
	cancelled, err := s.store.Cancel(ctx, inv, s.now().UTC(), s.today())
	if err != nil {
		return Deleted{}, err
	}
	return Deleted{Invoice: cancelled, Cancelled: true},
		s.record(ctx, audit.Update, describe(inv)+" makulerades", cancelled, &inv, &cancelled)
}

// DecideQuote records the customer's decision on a quote (open takes it
// back) and, with validUntil, moves its validity and due date.
func (s *Sales) DecideQuote(ctx context.Context, company, id uuid.UUID, status string, validUntil *time.Time) (Invoice, error) {
	q, err := s.store.Get(ctx, company, id, s.today(), false, Hold)
	if err != nil {
		return Invoice{}, err
	}
	switch {
	case q.DocumentType != "quote":
		return Invoice{}, apierr.New(apierr.InvoiceNotAQuote, map[string]any{"invoice_id": id, "document_type": q.DocumentType})
	case q.Status != "draft":
		return Invoice{}, apierr.New(apierr.InvoiceQuoteNotDecidable, map[string]any{"invoice_id": id, "current_status": q.State()})
	case validUntil != nil && validUntil.Before(q.InvoiceDate):
		return Invoice{}, apierr.Field("valid_until", "after_invoice_date", "must be on or after the quote's date, "+
			q.InvoiceDate.Format(time.DateOnly))
	}
	if err := s.notInvoiced(ctx, q); err != nil {
		return Invoice{}, err
	}
	return s.decide(ctx, q, status, validUntil)
}

// decide writes the customer's decision on quote q, audited.
func (s *Sales) decide(ctx context.Context, q Invoice, status string, validUntil *time.Time) (Invoice, error) {
	until := *q.ValidUntil
	if validUntil != nil {
		until = *validUntil
	}
	var decided *time.Time
	if status != "open" {
		at := s.now().UTC()
		decided = &at
	}
	out, err := s.store.Decide(ctx, q, status, decided, until, s.today())
	if err != nil {
		return Invoice{}, err
	}
	return out, s.record(ctx, audit.Update, describe(q)+": kundens beslut "+status, out, &q, &out)
}

// takeArticles looks up the articles d's lines name and have not taken
// yet: 404 ARTICLE_NOT_FOUND for one the company lacks, 409
// ARTICLE_ARCHIVED for one archived.
func (s *Sales) takeArticles(ctx context.Context, company uuid.UUID, d *Draft) error {
	var ids []uuid.UUID
	for _, l := range d.Lines {
		if l.ArticleID != nil && l.Article == nil {
			ids = append(ids, *l.ArticleID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	found, err := s.books.Articles(ctx, company, ids)
	if err != nil {
		return err
	}
	for i := range d.Lines {
		l := &d.Lines[i]
		if l.ArticleID == nil || l.Article != nil {
			continue
		}
		details := map[string]any{"field": "items." + strconv.Itoa(i) + ".article_id", "article_id": *l.ArticleID}
		a, ok := found[*l.ArticleID]
		switch {
		case !ok:
			return apierr.New(apierr.ArticleNotFound, details)
		case !a.Active:
			return apierr.New(apierr.ArticleArchived, details)
		}
		l.Article = &a
	}
	return nil
}
