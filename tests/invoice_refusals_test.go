package tests

import (
	"testing"
	"time"
)

// A change of an invoice another request holds at that moment is 409:
// INVOICE_CANCEL_RACE for DELETE, INVOICE_BOOK_CONFLICT for book, and
// nothing changes.
func TestInvoiceRaces(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"defer_invoice_booking": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	sent := b.issued(customer, nil)
	tx, err := b.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT 1 FROM invoices WHERE company_id = $1 AND id = ANY(ARRAY[$2, $3]::uuid[]) FOR UPDATE`,
		b.company, draft, sent); err != nil {
		t.Fatal(err)
	}
	b.write("DELETE", "invoices/"+draft, nil).errorCode(t, 409, "INVOICE_CANCEL_RACE")
	b.write("POST", "invoices/"+sent+"/book", nil).errorCode(t, 409, "INVOICE_BOOK_CONFLICT")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	b.write("POST", "invoices/"+sent+"/book", nil).status(t, 200)
	b.write("DELETE", "invoices/"+draft, nil).status(t, 200)
}

// A locked period refuses the verifikat of an issue or a payment dated in
// it (PERIOD_LOCKED) and nothing changes; a date no fiscal year holds is
// INVOICE_BOOK_NO_FISCAL_PERIOD naming the field.
func TestInvoicePeriods(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	sent := b.issued(customer, nil)
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-03-21"}).status(t, 200)
	b.markSent(draft).errorCode(t, 400, "PERIOD_LOCKED")
	b.markPaid(sent, map[string]any{"payment_date": "2026-03-20"}).errorCode(t, 400, "PERIOD_LOCKED")
	if g := b.get(b.path("invoices/"+draft), b.token).status(t, 200); g.str("data.status") != "draft" || g.at("data.invoice_number") != nil {
		t.Fatalf("a refused issue changed the draft: %s", g.Body)
	}
	e := b.markPaid(sent, map[string]any{"payment_date": "2031-03-20"}).errorCode(t, 400, "INVOICE_BOOK_NO_FISCAL_PERIOD")
	if e.str("error.details.field") != "payment_date" {
		t.Fatalf("no fiscal year: %s", e.Body)
	}
	b.markPaid(sent, map[string]any{"payment_date": "2026-03-24"}).status(t, 200)
}

// Dimensions tag the sale's lines, a line's winning per key; with the
// register on, a code the company does not have refuses the issue.
func TestInvoiceDimensions(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"default_dimensions": map[string]any{"1": "K1", "6": "P1"},
		"items": []any{map[string]any{"description": "Konsult", "quantity": 1, "unit": "st", "unit_price": 1000,
			"dimensions": map[string]any{"6": "P2"}}}})).status(t, 201).str("data.id")
	s := b.markSent(id).status(t, 200)
	if s.str("data.verifikat_lines.0.dimensions.6") != "P1" || s.str("data.verifikat_lines.1.account_number") != "3001" ||
		s.str("data.verifikat_lines.1.dimensions.6") != "P2" || s.str("data.verifikat_lines.1.dimensions.1") != "K1" {
		t.Fatalf("tags: %s", s.Body)
	}
	b.write("PATCH", "settings", map[string]any{"dimensions_enabled": true}).status(t, 200)
	other := b.createInvoice(consulting(customer, map[string]any{"default_dimensions": map[string]any{"6": "NOSUCH"}})).
		status(t, 201).str("data.id")
	b.markSent(other).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
}

// A personnummer that cannot be opened is 422, not a deduction.
func TestInvoiceROTUnreadable(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	customer := b.rotCustomer()
	if _, err := b.db.Exec(`UPDATE customers SET personal_number_sealed = '\x00ff'::bytea WHERE company_id = $1 AND id = $2`,
		b.company, customer); err != nil {
		t.Fatal(err)
	}
	b.createInvoice(renovation(customer, nil)).errorCode(t, 422, "CUSTOMER_PERSONAL_NUMBER_UNREADABLE")
}
