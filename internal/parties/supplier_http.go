package parties

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

const supplierList = "suppliers"

// ListSuppliers lists the company's suppliers.
func (h *Handler) ListSuppliers(ctx context.Context, req gen.ListSuppliersRequestObject) (gen.ListSuppliersResponseObject, error) {
	p := req.Params
	var typ *string
	if p.SupplierType != nil {
		s := string(*p.SupplierType)
		typ = &s
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.reg.store.Suppliers(ctx, req.CompanyId, filter(typ, p.Search, p.IncludeArchived), h.page(supplierList, p.Cursor), limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, supplierList, rows, limit, func(s Supplier) any {
		return cursor.Position{At: s.CreatedAt, ID: s.ID}
	})
	data := make([]gen.SupplierListItem, len(rows))
	for i, s := range rows {
		data[i] = gen.SupplierListItem{Id: s.ID, Name: s.Name, SupplierType: gen.SupplierType(s.Type),
			Email: envelope.Nullable(s.Email), OrgNumber: envelope.Nullable(shown(s.OrgNumber)), VatNumber: envelope.Nullable(shown(s.VATNumber)),
			DefaultPaymentTerms: s.PaymentTerms, DefaultCurrency: gen.SupplierCurrency(s.Currency), PartyId: nullableID(s.PartyID),
			ArchivedAt: envelope.NullableTime(s.ArchivedAt), CreatedAt: s.CreatedAt.UTC()}
	}
	return gen.ListSuppliers200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetSupplier returns one supplier, archived ones too.
func (h *Handler) GetSupplier(ctx context.Context, req gen.GetSupplierRequestObject) (gen.GetSupplierResponseObject, error) {
	expand, err := envelope.Expand(req.Params.Expand, "supplier_invoices", "party")
	if err != nil {
		return nil, err
	}
	s, err := h.reg.Supplier(ctx, req.CompanyId, req.SupplierId)
	if err != nil {
		return nil, err
	}
	v := supplierView(s)
	if expand["party"] {
		if v.Party, err = h.embedParty(ctx, s.CompanyID, s.PartyID); err != nil {
			return nil, err
		}
	}
	if expand["supplier_invoices"] {
		open, err := h.reg.OpenSupplierInvoices(ctx, s.CompanyID, s.ID)
		if err != nil {
			return nil, err
		}
		v.SupplierInvoices = invoicesView(open)
	}
	return gen.GetSupplier200JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// CreateSupplier registers a supplier.
func (h *Handler) CreateSupplier(ctx context.Context, req gen.CreateSupplierRequestObject) (gen.CreateSupplierResponseObject, error) {
	s, err := h.reg.CreateSupplier(ctx, req.CompanyId, supplierCreateChange(*req.Body))
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateSupplier200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.SupplierCreateDryRun{DryRun: true, Preview: supplierPreview(s)}}, nil
	}
	return gen.CreateSupplier201JSONResponse{Meta: envelope.Meta(ctx), Data: supplierView(s)}, nil
}

// BulkCreateSuppliers registers up to 50 suppliers, each on its own.
func (h *Handler) BulkCreateSuppliers(ctx context.Context, req gen.BulkCreateSuppliersRequestObject) (gen.BulkCreateSuppliersResponseObject, error) {
	if req.Body.AllOrNothing != nil && *req.Body.AllOrNothing {
		return nil, envelope.AllOrNothing("created")
	}
	changes := make([]SupplierChange, len(req.Body.Suppliers))
	for i, b := range req.Body.Suppliers {
		changes[i] = supplierCreateChange(b)
	}
	items, err := h.reg.BulkCreateSuppliers(ctx, req.CompanyId, changes)
	if err != nil {
		return nil, err
	}
	var data gen.SupplierBulkOutcome
	if store.IsDryRun(ctx) {
		results := make([]gen.SupplierBulkPreviewItem, len(items))
		for i, it := range items {
			results[i] = gen.SupplierBulkPreviewItem{Ok: it.Err == nil, RequestIndex: it.Index}
			if it.Err != nil {
				results[i].Error = envelope.ItemError(it.Err)
			} else {
				p := supplierPreview(it.Record)
				results[i].Data = &p
			}
		}
		err = data.FromSupplierBulkDryRun(gen.SupplierBulkDryRun{DryRun: true,
			Preview: gen.SupplierBulkPreview{Results: results, Summary: summary(items)}})
	} else {
		results := make([]gen.SupplierBulkItem, len(items))
		for i, it := range items {
			results[i] = gen.SupplierBulkItem{Ok: it.Err == nil, RequestIndex: it.Index}
			if it.Err != nil {
				results[i].Error = envelope.ItemError(it.Err)
			} else {
				v := supplierView(it.Record)
				results[i].Data = &v
			}
		}
		err = data.FromSupplierBulkResult(gen.SupplierBulkResult{Results: results, Summary: summary(items)})
	}
	return gen.BulkCreateSuppliers200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// UpdateSupplier changes the fields a body sends.
func (h *Handler) UpdateSupplier(ctx context.Context, req gen.UpdateSupplierRequestObject) (gen.UpdateSupplierResponseObject, error) {
	s, err := h.reg.UpdateSupplier(ctx, req.CompanyId, req.SupplierId, supplierPatchChange(*req.Body))
	if err != nil {
		return nil, err
	}
	var data gen.SupplierOutcome
	if store.IsDryRun(ctx) {
		err = data.FromSupplierDryRun(gen.SupplierDryRun{DryRun: true, Preview: supplierView(s)})
	} else {
		err = data.FromSupplier(supplierView(s))
	}
	return gen.UpdateSupplier200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// ArchiveSupplier archives a supplier (soft delete).
func (h *Handler) ArchiveSupplier(ctx context.Context, req gen.ArchiveSupplierRequestObject) (gen.ArchiveSupplierResponseObject, error) {
	s, err := h.reg.ArchiveSupplier(ctx, req.CompanyId, req.SupplierId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.ArchiveSupplier200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.SupplierDryRun{DryRun: true, Preview: supplierView(s)}}, nil
	}
	return gen.ArchiveSupplier204Response{}, nil
}

func supplierCreateChange(b gen.SupplierCreate) SupplierChange {
	t := b.SupplierType
	return supplierPatchChange(gen.SupplierPatch{Name: &b.Name, SupplierType: &t, Email: b.Email, Phone: b.Phone,
		AddressLine1: b.AddressLine1, AddressLine2: b.AddressLine2, PostalCode: b.PostalCode, City: b.City,
		Country: b.Country, OrgNumber: b.OrgNumber, VatNumber: b.VatNumber, Bankgiro: b.Bankgiro, Plusgiro: b.Plusgiro,
		BankAccount: b.BankAccount, Iban: b.Iban, Bic: b.Bic, ClearingNumber: b.ClearingNumber,
		AccountNumber: b.AccountNumber, DefaultExpenseAccount: b.DefaultExpenseAccount,
		DefaultPaymentTerms: b.DefaultPaymentTerms, DefaultCurrency: b.DefaultCurrency, Notes: b.Notes})
}

func supplierPatchChange(b gen.SupplierPatch) SupplierChange {
	ch := SupplierChange{Name: b.Name, Email: field(b.Email), Phone: field(b.Phone),
		AddressLine1: field(b.AddressLine1), AddressLine2: field(b.AddressLine2), PostalCode: field(b.PostalCode),
		City: field(b.City), Country: b.Country, OrgNumber: field(b.OrgNumber), VATNumber: field(b.VatNumber),
		Bankgiro: field(b.Bankgiro), Plusgiro: field(b.Plusgiro), BankAccount: field(b.BankAccount), IBAN: field(b.Iban),
		BIC: field(b.Bic), ClearingNumber: field(b.ClearingNumber), AccountNumber: field(b.AccountNumber),
		ExpenseAccount: field(b.DefaultExpenseAccount), PaymentTerms: b.DefaultPaymentTerms, Notes: field(b.Notes),
		Unarchive: unarchive(b.ArchivedAt)}
	if b.SupplierType != nil {
		t := SupplierType(*b.SupplierType)
		ch.Type = &t
	}
	if cur := field(b.DefaultCurrency); cur.Set {
		ch.Currency.Set = true
		if cur.Value != nil {
			s := string(*cur.Value)
			ch.Currency.Value = &s
		}
	}
	return ch
}

func supplierView(s Supplier) gen.Supplier {
	return gen.Supplier{Id: s.ID, Name: s.Name, SupplierType: gen.SupplierType(s.Type), Email: envelope.Nullable(s.Email),
		Phone: envelope.Nullable(s.Phone), AddressLine1: envelope.Nullable(s.Line1), AddressLine2: envelope.Nullable(s.Line2),
		PostalCode: envelope.Nullable(s.PostalCode), City: envelope.Nullable(s.City), Country: s.Country,
		OrgNumber: envelope.Nullable(shown(s.OrgNumber)), VatNumber: envelope.Nullable(shown(s.VATNumber)),
		Bankgiro: envelope.Nullable(s.Bankgiro), Plusgiro: envelope.Nullable(s.Plusgiro),
		BankAccount: envelope.Nullable(s.BankAccount), Iban: envelope.Nullable(s.IBAN), Bic: envelope.Nullable(s.BIC),
		ClearingNumber: envelope.Nullable(s.ClearingNumber), AccountNumber: envelope.Nullable(s.AccountNumber),
		DefaultExpenseAccount: envelope.Nullable(s.ExpenseAccount), DefaultPaymentTerms: s.PaymentTerms,
		DefaultCurrency: gen.SupplierCurrency(s.Currency), Notes: envelope.Nullable(s.Notes), PartyId: nullableID(s.PartyID),
		ArchivedAt: envelope.NullableTime(s.ArchivedAt), CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

func supplierPreview(s Supplier) gen.SupplierPreview {
	p := envelope.Reshape[gen.SupplierPreview](supplierView(s))
	p.Id, p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	p.PartyId = nullableID(nil)
	return p
}
