package invoicing

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func qty(s string) money.Quantity {
	q, err := money.ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func draft(company, customer uuid.UUID, typ string, date string) Invoice {
	d, _ := time.Parse(time.DateOnly, date)
	inv := Invoice{CompanyID: company, ID: uuid.New(), DocumentType: typ, CustomerID: customer, CustomerName: "Kund AB",
		InvoiceDate: d, DueDate: d.AddDate(0, 0, 30), Currency: "SEK", Treatment: SwedishSale,
		Subtotal: money.MustParse("10000"), VAT: money.MustParse("2500"), Total: money.MustParse("12500"),
		DefaultDimensions: ledger.Dimensions{"6": "P1"},
		Lines: []Line{
			{ID: uuid.New(), Type: "product", Description: "Konsulttimmar", Quantity: qty("10"), Unit: "tim",
				UnitPrice: money.MustParse("1000"), VATRate: money.MustParse("0.25"),
				Net: money.MustParse("10000"), VAT: money.MustParse("2500"), Dimensions: ledger.Dimensions{"1": "KS1"}},
			{ID: uuid.New(), SortOrder: 1, Type: "text", Description: "Enligt avtal", Quantity: qty("1"), Unit: "st"},
		}}
	if typ == "quote" {
		open, until := "open", d.AddDate(0, 0, 14)
		inv.QuoteStatus, inv.ValidUntil = &open, &until
	}
	return inv
}

// A draft goes in with its lines in one statement and comes out as it
// went; another company's is not found.
func TestStoreInsertGet(t *testing.T) {
	d := pgtest.New(t)
	s := NewStore(d)
	ctx := context.Background()
	company, customer := seller(t, d)
	today := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	in := draft(company, customer, "invoice", "2026-03-01")
	got, err := s.Insert(ctx, in, today)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "draft" || got.Total.String() != "12500.00" || got.Number != nil || got.DefaultDimensions["6"] != "P1" {
		t.Fatalf("stored: %+v", got)
	}
	read, err := s.Get(ctx, company, in.ID, today, true, Read)
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Lines) != 2 || read.Lines[0].Quantity.String() != "10" || read.Lines[0].VATRate.String() != "0.25" ||
		read.Lines[0].Dimensions["1"] != "KS1" || read.Lines[1].Type != "text" || read.Lines[0].ID != in.Lines[0].ID {
		t.Fatalf("lines: %+v", read.Lines)
	}
	other, _ := seller(t, d)
	if _, err := s.Get(ctx, other, in.ID, today, false, Read); !apierr.Is(err, apierr.InvoiceNotFound) {
		t.Fatalf("another company's invoice: %v", err)
	}
	// The database's refusals come out as catalogue errors.
	if _, err := d.Exec(`UPDATE invoices SET status = 'sent', invoice_number = '1', sent_at = now() WHERE id = $1`, in.ID); err != nil {
		t.Fatal(err)
	}
	_, err = d.Exec(`UPDATE invoices SET notes = 'x' WHERE id = $1`, in.ID)
	if !apierr.Is(store.Refused(err), apierr.InvoiceUpdateNotDraft) {
		t.Fatalf("a change to a sent invoice: %v", err)
	}
}

// The list: newest first, paged; overdue derived on the day asked, and
// status sent leaving it out; quotes by their derived state.
func TestStoreList(t *testing.T) {
	d := pgtest.New(t)
	s := NewStore(d)
	ctx := context.Background()
	company, customer := seller(t, d)
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	ids := map[string]uuid.UUID{}
	for _, c := range []struct{ name, typ, date string }{
		{"early", "invoice", "2026-01-10"}, {"late", "invoice", "2026-03-01"}, {"quote", "quote", "2026-02-01"},
		{"draft", "invoice", "2026-01-05"},
	} {
		inv, err := s.Insert(ctx, draft(company, customer, c.typ, c.date), day("2026-01-01"))
		if err != nil {
			t.Fatal(err)
		}
		ids[c.name] = inv.ID
	}
	for _, name := range []string{"early", "late"} {
		if _, err := d.Exec(`UPDATE invoices SET status = 'sent', invoice_number = $2, sent_at = now() WHERE id = $1`,
			ids[name], name); err != nil {
			t.Fatal(err)
		}
	}
	list := func(f Filter, today string) []uuid.UUID {
		t.Helper()
		rows, err := s.List(ctx, company, f, nil, 50, day(today))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]uuid.UUID, len(rows))
		for i, r := range rows {
			out[i] = r.ID
		}
		return out
	}
	str := func(s string) *string { return &s }
	same := func(what string, got []uuid.UUID, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d rows, want %v", what, len(got), want)
			return
		}
		for i, w := range want {
			if got[i] != ids[w] {
				t.Errorf("%s: row %d is not %s", what, i, w)
			}
		}
	}
	// "early" falls due 2026-02-09, "late" 2026-03-31.
	same("overdue on 2026-02-10", list(Filter{Status: str("overdue")}, "2026-02-10"), "early")
	same("sent on 2026-02-10", list(Filter{Status: str("sent")}, "2026-02-10"), "late")
	same("sent on 2026-02-09", list(Filter{Status: str("sent")}, "2026-02-09"), "late", "early")
	same("drafts", list(Filter{Status: str("draft")}, "2026-02-10"), "draft", "quote")
	same("quotes open", list(Filter{QuoteStatus: str("open")}, "2026-02-15"), "quote")
	same("quotes expired", list(Filter{QuoteStatus: str("expired")}, "2026-02-16"), "quote")
	same("quotes open, later", list(Filter{QuoteStatus: str("open")}, "2026-02-16"))
	from, to := day("2026-01-06"), day("2026-02-01")
	same("by invoice date", list(Filter{From: &from, To: &to}, "2026-02-10"), "quote", "early")
	same("by type", list(Filter{DocumentType: str("quote")}, "2026-02-10"), "quote")

	// Newest first, the next page after the last row.
	all, err := s.List(ctx, company, Filter{}, nil, 2, day("2026-02-10"))
	if err != nil || len(all) != 3 {
		t.Fatalf("first page: %d rows (%v)", len(all), err)
	}
	rest, err := s.List(ctx, company, Filter{}, &cursor.Position{At: all[1].CreatedAt, ID: all[1].ID}, 2, day("2026-02-10"))
	if err != nil || len(rest) != 2 {
		t.Fatalf("second page: %d rows (%v)", len(rest), err)
	}
	if !all[0].CreatedAt.After(rest[1].CreatedAt) && all[0].CreatedAt != rest[1].CreatedAt {
		t.Error("not newest first")
	}
	seen := map[uuid.UUID]bool{}
	for _, r := range append(all[:2], rest...) {
		if seen[r.ID] {
			t.Errorf("%s on two pages", r.ID)
		}
		seen[r.ID] = true
	}
	if len(seen) != 4 {
		t.Errorf("%d invoices over the pages, want 4", len(seen))
	}
}
