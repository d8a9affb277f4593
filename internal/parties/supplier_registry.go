package parties

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/outbox"
)

// Supplier returns a supplier; see Store.Supplier.
func (r *Registry) Supplier(ctx context.Context, company, id uuid.UUID) (Supplier, error) {
	return r.store.Supplier(ctx, company, id, false)
}

// checkExpenseAccount makes default_expense_account usable as the
// accounts of a verifikat are: a BAS account the chart lacks is added to
// it; one neither the chart nor BAS has, or one the chart deactivated, is
// refused naming the field.
func (r *Registry) checkExpenseAccount(ctx context.Context, s Supplier, old *string) error {
	if s.ExpenseAccount == nil || same(s.ExpenseAccount, old) || r.books.EnsureAccount == nil {
		return nil
	}
	err := r.books.EnsureAccount(ctx, s.CompanyID, *s.ExpenseAccount)
	if !apierr.Is(err, apierr.AccountsNotInChart) {
		return err
	}
	return apierr.Validation(apierr.Issue{Field: "default_expense_account", In: "body", Rule: "chart",
		Issue: "is neither an active account of the company's chart nor a BAS account"})
}

// CreateSupplier creates a supplier from ch.
func (r *Registry) CreateSupplier(ctx context.Context, company uuid.UUID, ch SupplierChange) (Supplier, error) {
	s, err := ApplySupplier(Supplier{CompanyID: company, ID: uuid.New()}, ch, true)
	if err != nil {
		return s, err
	}
	if err := r.checkExpenseAccount(ctx, s, nil); err != nil {
		return s, err
	}
	if s, err = r.store.InsertSupplier(ctx, s); err != nil {
		return s, err
	}
	_, err = outbox.Emit(ctx, r.store.db, company, "supplier.created", map[string]any{"supplier": supplierView(s)})
	return s, err
}

// BulkCreateSuppliers creates each item on its own, as
// BulkCreateCustomers does.
func (r *Registry) BulkCreateSuppliers(ctx context.Context, company uuid.UUID, items []SupplierChange) ([]BulkItem[Supplier], error) {
	out := make([]BulkItem[Supplier], len(items))
	for i, ch := range items {
		out[i].Index = i
		err := r.store.db.Attempt(ctx, func(ctx context.Context) error {
			s, err := r.CreateSupplier(ctx, company, ch)
			out[i].Record = s
			return err
		})
		if e, ok := apierr.As(err); ok {
			out[i].Err = e
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UpdateSupplier applies ch to the company's supplier id.
func (r *Registry) UpdateSupplier(ctx context.Context, company, id uuid.UUID, ch SupplierChange) (Supplier, error) {
	old, err := r.store.Supplier(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	s, err := ApplySupplier(old, ch, false)
	if err != nil {
		return old, err
	}
	if err := r.checkExpenseAccount(ctx, s, old.ExpenseAccount); err != nil {
		return old, err
	}
	desc := "Leverantören " + s.Name + " ändrades"
	if old.ArchivedAt != nil && s.ArchivedAt == nil {
		desc = "Leverantören " + s.Name + " återställdes från arkivet"
	}
	return r.store.UpdateSupplier(ctx, old, s, desc)
}

// ArchiveSupplier archives the supplier; an archived one is left as it
// is. A supplier with open supplier invoices stays (409
// SUPPLIER_HAS_INVOICES).
func (r *Registry) ArchiveSupplier(ctx context.Context, company, id uuid.UUID) (Supplier, error) {
	old, err := r.store.Supplier(ctx, company, id, true)
	if err != nil || old.ArchivedAt != nil {
		return old, err
	}
	open, err := r.OpenSupplierInvoices(ctx, company, id)
	if err != nil {
		return old, err
	}
	if len(open) > 0 {
		return old, apierr.New(apierr.SupplierHasInvoices, map[string]any{"open_invoices": len(open)})
	}
	s, at := old, r.now().UTC()
	s.ArchivedAt = &at
	return r.store.UpdateSupplier(ctx, old, s, "Leverantören "+s.Name+" arkiverades")
}
