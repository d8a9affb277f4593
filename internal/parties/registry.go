package parties

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/vies"
)

// OpenInvoice is an open invoice of a customer or supplier, as the detail
// embeds it with expand.
type OpenInvoice struct {
	ID          uuid.UUID
	Number      *string
	Status      string
	InvoiceDate time.Time
	DueDate     time.Time
	Currency    string
	Total       money.Amount
	BalanceDue  money.Amount
}

// Books are what the registry needs of the rest of the books.
type Books struct {
	// InvoiceDefaultDays is the company's invoice_default_days setting, nil
	// when unset.
	InvoiceDefaultDays func(ctx context.Context, company uuid.UUID) (*int, error)
	// EnsureAccount makes an account usable for booking as a verifikat's
	// line does (chart.Store.Ensure): a BAS account the chart lacks is
	// added; one neither it nor BAS has, or deactivated, is refused with
	// ACCOUNTS_NOT_IN_CHART.
	EnsureAccount func(ctx context.Context, company uuid.UUID, number string) error
	// OpenCustomerInvoices and OpenSupplierInvoices list a customer's open
	// invoices (sent, partially_paid, overdue) and a supplier's open
	// supplier invoices (registered, approved, partially_paid, overdue,
	// disputed). They are the seam for the invoicing domains: nil until
	// those exist, and there can be no open invoice then.
	OpenCustomerInvoices func(ctx context.Context, company, customer uuid.UUID) ([]OpenInvoice, error)
	OpenSupplierInvoices func(ctx context.Context, company, supplier uuid.UUID) ([]OpenInvoice, error)
}

// Warning is a notice about a write that did not fail it.
type Warning struct{ Code, SV, EN string }

// Registry keeps the company's customer and supplier registers: the rules,
// the VIES check, the store, audit and events, in the request's unit of
// work.
type Registry struct {
	store *Store
	books Books
	vies  vies.Checker
	now   func() time.Time
}

// NewRegistry returns the registry.
func NewRegistry(s *Store, books Books, checker vies.Checker, now func() time.Time) *Registry {
	if checker == nil {
		checker = vies.Offline{}
	}
	return &Registry{store: s, books: books, vies: checker, now: now}
}

// Customer returns a customer; see Store.Customer.
func (r *Registry) Customer(ctx context.Context, company, id uuid.UUID) (Customer, error) {
	return r.store.Customer(ctx, company, id, false)
}

// OpenCustomerInvoices returns the customer's open invoices.
func (r *Registry) OpenCustomerInvoices(ctx context.Context, company, id uuid.UUID) ([]OpenInvoice, error) {
	if r.books.OpenCustomerInvoices == nil {
		return []OpenInvoice{}, nil
	}
	return r.books.OpenCustomerInvoices(ctx, company, id)
}

// OpenSupplierInvoices returns the supplier's open supplier invoices.
func (r *Registry) OpenSupplierInvoices(ctx context.Context, company, id uuid.UUID) ([]OpenInvoice, error) {
	if r.books.OpenSupplierInvoices == nil {
		return []OpenInvoice{}, nil
	}
	return r.books.OpenSupplierInvoices(ctx, company, id)
}

// draft is one customer about to be created: the record, what the rules
// decided, and the VIES answer when one was needed.
type draft struct {
	c       Customer
	out     Outcome
	warning *Warning
}

// paymentTerms is a new customer's default_payment_terms: the company's
// invoice_default_days, else 30.
func (r *Registry) paymentTerms(ctx context.Context, company uuid.UUID) (int, error) {
	if r.books.InvoiceDefaultDays == nil {
		return DefaultPaymentTerms, nil
	}
	days, err := r.books.InvoiceDefaultDays(ctx, company)
	if err != nil || days == nil {
		return DefaultPaymentTerms, err
	}
	return *days, nil
}

// prepareCustomer applies the rules of create to ch.
func prepareCustomer(company uuid.UUID, terms int, ch CustomerChange) (draft, error) {
	c, out, err := ApplyCustomer(Customer{CompanyID: company, ID: uuid.New(), PaymentTerms: terms}, ch, true)
	return draft{c: c, out: out}, err
}

// checkVAT sets vat_number_validated from the VIES answer looked up
// before the transaction (LookupVAT) when the rules want one and the
// change will be committed: a dry run never asks (rule 5). No answer, an
// unknown number or no EU prefix leaves it false with a warning; never a
// reason to refuse the write.
func (r *Registry) checkVAT(ctx context.Context, c *Customer, out Outcome) *Warning {
	if !out.CheckVAT || store.IsDryRun(ctx) {
		return nil
	}
	w, asked := answersFrom(ctx)[vatKey(*c.VATNumber)]
	if !asked {
		w = &warnUnavailable
	}
	c.VATValidated = w == nil
	return w
}

// CreateCustomer creates a customer from ch.
func (r *Registry) CreateCustomer(ctx context.Context, company uuid.UUID, ch CustomerChange) (Customer, *Warning, error) {
	terms, err := r.paymentTerms(ctx, company)
	if err != nil {
		return Customer{}, nil, err
	}
	d, err := prepareCustomer(company, terms, ch)
	if err != nil {
		return Customer{}, nil, err
	}
	d.warning = r.checkVAT(ctx, &d.c, d.out)
	c, err := r.insertCustomer(ctx, d)
	return c, d.warning, err
}

func (r *Registry) insertCustomer(ctx context.Context, d draft) (Customer, error) {
	c, err := r.store.InsertCustomer(ctx, d.c, d.out.PersonalNumber)
	if err != nil {
		return c, err
	}
	_, err = outbox.Emit(ctx, r.store.db, c.CompanyID, "customer.created", map[string]any{"customer": customerView(c)})
	return c, err
}

// BulkItem is the fate of one item of a bulk create.
type BulkItem[T any] struct {
	Index   int
	Record  T
	Err     *apierr.Error
	Warning *Warning
}

// BulkCreateCustomers creates each item on its own: a failed item is
// undone alone and the others stand; an unanswered VIES lookup never fails
// its item. Only an error outside the catalogue fails the whole request.
func (r *Registry) BulkCreateCustomers(ctx context.Context, company uuid.UUID, items []CustomerChange) ([]BulkItem[Customer], error) {
	terms, err := r.paymentTerms(ctx, company)
	if err != nil {
		return nil, err
	}
	out := make([]BulkItem[Customer], len(items))
	for i, ch := range items {
		out[i].Index = i
		d, err := prepareCustomer(company, terms, ch)
		if err == nil {
			d.warning = r.checkVAT(ctx, &d.c, d.out)
			out[i].Warning = d.warning
			err = r.store.db.Attempt(ctx, func(ctx context.Context) error {
				c, err := r.insertCustomer(ctx, d)
				out[i].Record = c
				return err
			})
		}
		if e, ok := apierr.As(err); ok {
			out[i].Err = e
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UpdateCustomer applies ch to the company's customer id.
func (r *Registry) UpdateCustomer(ctx context.Context, company, id uuid.UUID, ch CustomerChange) (Customer, *Warning, error) {
	old, err := r.store.Customer(ctx, company, id, true)
	if err != nil {
		return old, nil, err
	}
	c, out, err := ApplyCustomer(old, ch, false)
	if err != nil {
		return old, nil, err
	}
	w := r.checkVAT(ctx, &c, out)
	desc := "Kunden " + c.Name + " ändrades"
	if old.ArchivedAt != nil && c.ArchivedAt == nil {
		desc = "Kunden " + c.Name + " återställdes från arkivet"
	}
	c, err = r.store.UpdateCustomer(ctx, old, c, out, desc)
	return c, w, err
}

// ArchiveCustomer archives the customer; an archived one is left as it
// is. A customer with open invoices stays (409 CUSTOMER_HAS_INVOICES).
func (r *Registry) ArchiveCustomer(ctx context.Context, company, id uuid.UUID) (Customer, error) {
	old, err := r.store.Customer(ctx, company, id, true)
	if err != nil || old.ArchivedAt != nil {
		return old, err
	}
	open, err := r.OpenCustomerInvoices(ctx, company, id)
	if err != nil {
		return old, err
	}
	if len(open) > 0 {
		return old, apierr.New(apierr.CustomerHasInvoices, map[string]any{"open_invoices": len(open)})
	}
	c, at := old, r.now().UTC()
	c.ArchivedAt = &at
	return r.store.UpdateCustomer(ctx, old, c, Outcome{}, "Kunden "+c.Name+" arkiverades")
}

// Party returns the party id of the company.
func (r *Registry) Party(ctx context.Context, company, id uuid.UUID) (Party, error) {
	return r.store.Party(ctx, company, id)
}
