package parties

import (
	"context"
	"strconv"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

const customerList = "customers"

// ListCustomers lists the company's customers.
func (h *Handler) ListCustomers(ctx context.Context, req gen.ListCustomersRequestObject) (gen.ListCustomersResponseObject, error) {
	p := req.Params
	var typ *string
	if p.CustomerType != nil {
		s := string(*p.CustomerType)
		typ = &s
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.reg.store.Customers(ctx, req.CompanyId, filter(typ, p.Search, p.IncludeArchived), h.page(customerList, p.Cursor), limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, customerList, rows, limit, func(c Customer) any {
		return cursor.Position{At: c.CreatedAt, ID: c.ID}
	})
	data := make([]gen.CustomerListItem, len(rows))
	for i, c := range rows {
		data[i] = gen.CustomerListItem{Id: c.ID, Name: c.Name, CustomerType: gen.CustomerType(c.Type),
			Email: envelope.Nullable(c.Email), OrgNumber: envelope.Nullable(c.OrgNumber), VatNumber: envelope.Nullable(c.VATNumber),
			DefaultPaymentTerms: c.PaymentTerms, PartyId: nullableID(c.PartyID), ArchivedAt: envelope.NullableTime(c.ArchivedAt),
			CreatedAt: c.CreatedAt.UTC()}
		if c.SoleTrader() {
			// The org number of a sole trader is the owner's personnummer.
			data[i].OrgNumber, data[i].VatNumber = nullable.NewNullNullable[string](), nullable.NewNullNullable[string]()
		}
	}
	return gen.ListCustomers200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetCustomer returns one customer, archived ones too.
func (h *Handler) GetCustomer(ctx context.Context, req gen.GetCustomerRequestObject) (gen.GetCustomerResponseObject, error) {
	expand, err := envelope.Expand(req.Params.Expand, "invoices", "party")
	if err != nil {
		return nil, err
	}
	c, err := h.reg.Customer(ctx, req.CompanyId, req.CustomerId)
	if err != nil {
		return nil, err
	}
	v := customerView(c)
	if expand["party"] {
		if v.Party, err = h.embedParty(ctx, c.CompanyID, c.PartyID); err != nil {
			return nil, err
		}
	}
	if expand["invoices"] {
		open, err := h.reg.OpenCustomerInvoices(ctx, c.CompanyID, c.ID)
		if err != nil {
			return nil, err
		}
		v.Invoices = invoicesView(open)
	}
	return gen.GetCustomer200JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// CreateCustomer registers a customer.
func (h *Handler) CreateCustomer(ctx context.Context, req gen.CreateCustomerRequestObject) (gen.CreateCustomerResponseObject, error) {
	c, w, err := h.reg.CreateCustomer(ctx, req.CompanyId, createChange(*req.Body))
	if err != nil {
		return nil, failed(apierr.CustomerCreateFailed, err)
	}
	meta := withWarning(envelope.Meta(ctx), w, "")
	if store.IsDryRun(ctx) {
		return gen.CreateCustomer200JSONResponse{Meta: meta,
			Data: gen.CustomerCreateDryRun{DryRun: true, Preview: customerPreview(c)}}, nil
	}
	return gen.CreateCustomer201JSONResponse{Meta: meta, Data: customerView(c)}, nil
}

// BulkCreateCustomers registers up to 50 customers, each on its own.
func (h *Handler) BulkCreateCustomers(ctx context.Context, req gen.BulkCreateCustomersRequestObject) (gen.BulkCreateCustomersResponseObject, error) {
	if req.Body.AllOrNothing != nil && *req.Body.AllOrNothing {
		return nil, envelope.AllOrNothing("created")
	}
	changes := make([]CustomerChange, len(req.Body.Customers))
	for i, b := range req.Body.Customers {
		changes[i] = createChange(b)
	}
	items, err := h.reg.BulkCreateCustomers(ctx, req.CompanyId, changes)
	if err != nil {
		return nil, failed(apierr.CustomerCreateFailed, err)
	}
	meta := envelope.Meta(ctx)
	for _, it := range items {
		meta = withWarning(meta, it.Warning, "customers["+strconv.Itoa(it.Index)+"]: ")
	}
	var data gen.CustomerBulkOutcome
	if store.IsDryRun(ctx) {
		results := make([]gen.CustomerBulkPreviewItem, len(items))
		for i, it := range items {
			results[i] = gen.CustomerBulkPreviewItem{Ok: it.Err == nil, RequestIndex: it.Index}
			if it.Err != nil {
				results[i].Error = envelope.ItemError(it.Err)
			} else {
				p := customerPreview(it.Record)
				results[i].Data = &p
			}
		}
		err = data.FromCustomerBulkDryRun(gen.CustomerBulkDryRun{DryRun: true,
			Preview: gen.CustomerBulkPreview{Results: results, Summary: summary(items)}})
	} else {
		results := make([]gen.CustomerBulkItem, len(items))
		for i, it := range items {
			results[i] = gen.CustomerBulkItem{Ok: it.Err == nil, RequestIndex: it.Index}
			if it.Err != nil {
				results[i].Error = envelope.ItemError(it.Err)
			} else {
				v := customerView(it.Record)
				results[i].Data = &v
			}
		}
		err = data.FromCustomerBulkResult(gen.CustomerBulkResult{Results: results, Summary: summary(items)})
	}
	return gen.BulkCreateCustomers200JSONResponse{Data: data, Meta: meta}, err
}

// UpdateCustomer changes the fields a body sends.
func (h *Handler) UpdateCustomer(ctx context.Context, req gen.UpdateCustomerRequestObject) (gen.UpdateCustomerResponseObject, error) {
	c, w, err := h.reg.UpdateCustomer(ctx, req.CompanyId, req.CustomerId, patchChange(*req.Body))
	if err != nil {
		return nil, failed(apierr.CustomerUpdateFailed, err)
	}
	var data gen.CustomerOutcome
	if store.IsDryRun(ctx) {
		err = data.FromCustomerDryRun(gen.CustomerDryRun{DryRun: true, Preview: customerView(c)})
	} else {
		err = data.FromCustomer(customerView(c))
	}
	return gen.UpdateCustomer200JSONResponse{Data: data, Meta: withWarning(envelope.Meta(ctx), w, "")}, err
}

// ArchiveCustomer archives a customer (soft delete).
func (h *Handler) ArchiveCustomer(ctx context.Context, req gen.ArchiveCustomerRequestObject) (gen.ArchiveCustomerResponseObject, error) {
	c, err := h.reg.ArchiveCustomer(ctx, req.CompanyId, req.CustomerId)
	if err != nil {
		return nil, failed(apierr.CustomerDeleteFailed, err)
	}
	if store.IsDryRun(ctx) {
		return gen.ArchiveCustomer200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.CustomerDryRun{DryRun: true, Preview: customerView(c)}}, nil
	}
	return gen.ArchiveCustomer204Response{}, nil
}

// failed names an unexpected failure of a customer write by the write's
// own catalogue code (still a 500, logged with its cause); a catalogue
// error passes as it is.
func failed(code apierr.Code, err error) error {
	if _, ok := apierr.As(err); ok {
		return err
	}
	return apierr.Wrap(code, err)
}

// createChange reads a create body: every field counts as sent.
func createChange(b gen.CustomerCreate) CustomerChange {
	t := b.CustomerType
	return patchChange(gen.CustomerPatch{Name: &b.Name, CustomerType: &t, CustomerNumber: b.CustomerNumber,
		ContactPerson: b.ContactPerson, Email: b.Email, Phone: b.Phone, InvoiceEmailCcAddresses: b.InvoiceEmailCcAddresses,
		InvoiceEmailBccAddresses: b.InvoiceEmailBccAddresses, AddressLine1: b.AddressLine1, AddressLine2: b.AddressLine2,
		PostalCode: b.PostalCode, City: b.City, Country: b.Country, OrgNumber: b.OrgNumber, VatNumber: b.VatNumber, PeppolId: b.PeppolId,
		PersonalNumber: b.PersonalNumber, Language: b.Language, DefaultPaymentTerms: b.DefaultPaymentTerms, Notes: b.Notes})
}

func patchChange(b gen.CustomerPatch) CustomerChange {
	ch := CustomerChange{Name: b.Name, Number: field(b.CustomerNumber), ContactPerson: field(b.ContactPerson),
		Email: field(b.Email), Phone: field(b.Phone), CC: field(b.InvoiceEmailCcAddresses), BCC: field(b.InvoiceEmailBccAddresses),
		AddressLine1: field(b.AddressLine1), AddressLine2: field(b.AddressLine2), PostalCode: field(b.PostalCode),
		City: field(b.City), Country: b.Country, OrgNumber: field(b.OrgNumber), VATNumber: field(b.VatNumber), PeppolID: field(b.PeppolId),
		PersonalNumber: field(b.PersonalNumber), PaymentTerms: b.DefaultPaymentTerms, Notes: field(b.Notes),
		Unarchive: unarchive(b.ArchivedAt)}
	if b.CustomerType != nil {
		t := CustomerType(*b.CustomerType)
		ch.Type = &t
	}
	if b.Language != nil {
		l := string(*b.Language)
		ch.Language = &l
	}
	return ch
}

// customerView is the customer as every answer and event shows it: the
// personnummer masked.
func customerView(c Customer) gen.Customer {
	return gen.Customer{Id: c.ID, Name: c.Name, CustomerType: gen.CustomerType(c.Type), CustomerNumber: envelope.Nullable(c.Number),
		ContactPerson: envelope.Nullable(c.ContactPerson), Email: envelope.Nullable(c.Email), Phone: envelope.Nullable(c.Phone),
		InvoiceEmailCcAddresses: addresses(c.CC), InvoiceEmailBccAddresses: addresses(c.BCC),
		AddressLine1: envelope.Nullable(c.Line1), AddressLine2: envelope.Nullable(c.Line2),
		PostalCode: envelope.Nullable(c.PostalCode), City: envelope.Nullable(c.City), Country: c.Country,
		OrgNumber: envelope.Nullable(shown(c.OrgNumber)), VatNumber: envelope.Nullable(shown(c.VATNumber)), VatNumberValidated: c.VATValidated, PeppolId: envelope.Nullable(c.PeppolID),
		PersonalNumber: envelope.Nullable(c.MaskedPersonalNumber()), Language: gen.Language(c.Language),
		DefaultPaymentTerms: c.PaymentTerms, Notes: envelope.Nullable(c.Notes), PartyId: nullableID(c.PartyID),
		ArchivedAt: envelope.NullableTime(c.ArchivedAt), CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

// customerPreview is a dry run's customer: nothing was stored, so it has
// no id and no timestamps.
func customerPreview(c Customer) gen.CustomerPreview {
	p := envelope.Reshape[gen.CustomerPreview](customerView(c))
	p.Id, p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	p.PartyId = nullableID(nil)
	return p
}

func addresses(a Addresses) nullable.Nullable[[]string] {
	if a == nil {
		return nullable.NewNullNullable[[]string]()
	}
	return nullable.NewNullableWithValue([]string(a))
}
