package parties

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type fixture struct {
	db      *store.DB
	reg     *Registry
	company uuid.UUID
	books   *Books
}

func newFixture(t *testing.T, key []byte) *fixture {
	t.Helper()
	db := pgtest.New(t)
	var company uuid.UUID
	if err := db.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'Bok AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	box, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, company: company, books: &Books{}}
	f.reg = NewRegistry(NewStore(db, audit.NewStore(db), box), Books{
		OpenCustomerInvoices: func(ctx context.Context, c, id uuid.UUID) ([]OpenInvoice, error) {
			return f.books.OpenCustomerInvoices(ctx, c, id)
		},
		OpenSupplierInvoices: func(ctx context.Context, c, id uuid.UUID) ([]OpenInvoice, error) {
			return f.books.OpenSupplierInvoices(ctx, c, id)
		},
	}, nil, time.Now)
	none := func(context.Context, uuid.UUID, uuid.UUID) ([]OpenInvoice, error) { return nil, nil }
	f.books.OpenCustomerInvoices, f.books.OpenSupplierInvoices = none, none
	return f
}

var key1, key2 = bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)

// The seams for the invoicing domains: an open invoice keeps a customer
// or supplier from being archived.
func TestArchiveRefusedWithOpenInvoices(t *testing.T) {
	f := newFixture(t, key1)
	ctx := context.Background()
	c, _, err := f.reg.CreateCustomer(ctx, f.company, CustomerChange{Name: ptr("Kund AB"), Type: ptr(SwedishBusiness)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.reg.CreateSupplier(ctx, f.company, SupplierChange{Name: ptr("Lev AB"), Type: ptr(SupplierSwedish)})
	if err != nil {
		t.Fatal(err)
	}
	open := func(context.Context, uuid.UUID, uuid.UUID) ([]OpenInvoice, error) {
		return []OpenInvoice{{ID: uuid.New(), Status: "sent"}}, nil
	}
	f.books.OpenCustomerInvoices, f.books.OpenSupplierInvoices = open, open
	if _, err := f.reg.ArchiveCustomer(ctx, f.company, c.ID); code(err) != apierr.CustomerHasInvoices {
		t.Fatalf("customer: %v", err)
	}
	if _, err := f.reg.ArchiveSupplier(ctx, f.company, s.ID); code(err) != apierr.SupplierHasInvoices {
		t.Fatalf("supplier: %v", err)
	}
	if got, _ := f.reg.Supplier(ctx, f.company, s.ID); got.ArchivedAt != nil {
		t.Fatal("archived despite the open invoice")
	}
}

// The personnummer is sealed at rest, opens with the key it was sealed
// with, and answers the catalogue's codes when it cannot.
func TestPersonalNumberSealedAtRest(t *testing.T) {
	f := newFixture(t, key1)
	ctx := context.Background()
	c, _, err := f.reg.CreateCustomer(ctx, f.company, CustomerChange{Name: ptr("Anna"), Type: ptr(Individual), PersonalNumber: set("811218-9876")})
	if err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	if err := f.db.Get(&sealed, `SELECT personal_number_sealed FROM customers WHERE id = $1`, c.ID); err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"811218", "8112189876", "9876"} {
		if bytes.Contains(sealed, []byte(clear)) {
			t.Fatalf("the column holds %q in clear: %x", clear, sealed)
		}
	}
	if pn, err := f.reg.store.PersonalNumber(ctx, f.company, c.ID); err != nil || pn != "811218-9876" {
		t.Fatalf("open: %q %v", pn, err)
	}
	// Another key, or the value copied to another row, cannot open it.
	other := NewStore(f.db, audit.NewStore(f.db), mustBox(t, key2))
	if _, err := other.PersonalNumber(ctx, f.company, c.ID); code(err) != apierr.CustomerPersonalNumberUnreadable {
		t.Fatalf("another key: %v", err)
	}
	b, _, err := f.reg.CreateCustomer(ctx, f.company, CustomerChange{Name: ptr("Bo"), Type: ptr(Individual), PersonalNumber: set("701063-2391")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Exec(`UPDATE customers SET personal_number_sealed = $1 WHERE id = $2`, sealed, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.store.PersonalNumber(ctx, f.company, b.ID); code(err) != apierr.CustomerPersonalNumberUnreadable {
		t.Fatalf("moved value: %v", err)
	}
	n, _, err := f.reg.CreateCustomer(ctx, f.company, CustomerChange{Name: ptr("Cilla"), Type: ptr(Individual)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.store.PersonalNumber(ctx, f.company, n.ID); code(err) != apierr.CustomerNoPersonalNumber {
		t.Fatalf("none: %v", err)
	}
	if _, err := f.reg.store.PersonalNumber(ctx, f.company, uuid.New()); code(err) != apierr.CustomerNotFound {
		t.Fatalf("missing: %v", err)
	}
}

func mustBox(t *testing.T, key []byte) *seal.Box {
	b, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
