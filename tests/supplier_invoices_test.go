package tests

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/documents/samples"
)

// buyerBooks is a VAT-registered aktiebolag on faktureringsmetoden on
// 2026-03-05, with a Swedish and an EU supplier.
type buyerBooks struct {
	*partiesBooks
	se, eu string
}

func newBuyerBooks(t *testing.T, opts ...option) *buyerBooks {
	return newBuyerBooksAt(t, func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }, opts...)
}

// newBuyerBooksAt is newBuyerBooks on the clock now.
func newBuyerBooksAt(t *testing.T, now func() time.Time, opts ...option) *buyerBooks {
	b := newPartiesBooks(t, append([]option{clock(now)}, opts...)...)
	b.vatQuarterly()
	se := b.write("POST", "suppliers", map[string]any{"name": "Kontorsgrossisten AB", "supplier_type": "swedish_business",
		"default_expense_account": "5410"}).status(t, 201).str("data.id")
	eu := b.write("POST", "suppliers", map[string]any{"name": "Beratung GmbH", "supplier_type": "eu_business", "country": "DE",
		"default_currency": "EUR"}).status(t, 201).str("data.id")
	return &buyerBooks{partiesBooks: b, se: se, eu: eu}
}

// cash moves the company to kontantmetoden.
func (b *buyerBooks) cash() {
	if _, err := b.db.Exec(`UPDATE company_settings SET accounting_method = 'cash' WHERE company_id = $1`, b.company); err != nil {
		b.t.Fatal(err)
	}
}

// register posts a supplier invoice of supplier numbered number with
// items and more.
func (b *buyerBooks) register(supplier, number string, more map[string]any, items ...map[string]any) *response {
	b.t.Helper()
	body := map[string]any{"supplier_id": supplier, "supplier_invoice_number": number, "invoice_date": "2026-03-02",
		"due_date": "2026-04-01", "items": items}
	for k, v := range more {
		body[k] = v
	}
	return b.write("POST", "supplier-invoices", body)
}

// lines writes a response's verifikat_lines as "D 5410 10000.00", sorted.
func postedLines(r *response, path string) string {
	var out []string
	for _, x := range r.list(path) {
		l := x.(map[string]any)
		if d := l["debit_amount"].(float64); d != 0 {
			out = append(out, fmt.Sprintf("D %s %.2f", l["account_number"], d))
		}
		if c := l["credit_amount"].(float64); c != 0 {
			out = append(out, fmt.Sprintf("C %s %.2f", l["account_number"], c))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func wantLines(t *testing.T, what string, r *response, path string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := postedLines(r, path); got != strings.Join(want, ", ") {
		t.Fatalf("%s:\n got %s\nwant %s", what, got, strings.Join(want, ", "))
	}
}

// The bookkeeper's figures: 10 000 + 25 % on 5410, an EU service under
// reverse charge, SLP on a pension premium, öresavrundning; each posted
// with the invoice and numbered in arrival order.
func TestSupplierInvoiceRegistration(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	r := b.register(b.se, "F-1001", nil, map[string]any{"description": "Kontorsmaterial", "amount": 10000}).status(t, 201)
	if r.at("data.arrival_number") != 1.0 || r.at("data.total") != 12500.0 || r.str("data.status") != "registered" ||
		r.str("data.registration_journal_entry_id") == "" || r.str("data.items.0.account_number") != "5410" {
		t.Fatalf("registered: %s", r.Body)
	}
	wantLines(t, "10 000 + 25 %", r, "data.verifikat_lines", "D 5410 10000.00", "D 2641 2500.00", "C 2440 12500.00")
	if b.exact("2440") != "-12500.00" || b.exact("2641") != "2500.00" {
		t.Fatalf("2440 %s 2641 %s", b.exact("2440"), b.exact("2641"))
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'supplier_invoice.registered'`, b.company); n != 1 {
		t.Fatalf("%d events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'supplier_invoices'`, b.company); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	// Rule 2: the supplier's number once.
	dup := b.register(b.se, "F-1001", nil, map[string]any{"description": "Igen", "amount": 1})
	dup.errorCode(t, 409, "SI_CREATE_DUPLICATE_INVOICE_NUMBER")
	if dup.str("error.details.existing") != r.str("data.id") {
		t.Fatalf("existing: %s", dup.Body)
	}

	rc := b.register(b.eu, "RE-7", map[string]any{"reverse_charge": true, "currency": "SEK"},
		map[string]any{"description": "Beratung", "amount": 10000}).status(t, 201)
	if rc.at("data.arrival_number") != 2.0 || rc.at("data.vat_amount") != 0.0 || rc.str("data.vat_treatment") != "reverse_charge" {
		t.Fatalf("reverse charge: %s", rc.Body)
	}
	wantLines(t, "EU service", rc, "data.verifikat_lines", "D 4535 10000.00", "D 2645 2500.00", "C 2614 2500.00", "C 2440 10000.00")
	b.register(b.eu, "RE-8", map[string]any{"reverse_charge": true, "currency": "SEK"},
		map[string]any{"description": "Beratung", "amount": 100, "account_number": "6540"}).errorCode(t, 400, "SI_CREATE_INVALID_INPUT")

	slp := b.register(b.se, "P-1", nil, map[string]any{"description": "Pensionspremie", "amount": 5000, "account_number": "7412",
		"vat_rate": 0, "apply_slp": true}).status(t, 201)
	wantLines(t, "SLP", slp, "data.verifikat_lines", "D 7412 5000.00", "D 7533 1213.00", "C 2514 1213.00", "C 2440 5000.00")
	b.register(b.se, "P-2", nil, map[string]any{"description": "Hyra", "amount": 5000, "account_number": "5010", "apply_slp": true}).
		errorCode(t, 400, "SI_CREATE_SLP_INVALID_ACCOUNT")

	round := b.register(b.se, "R-1", map[string]any{"ore_rounding": true}, map[string]any{"description": "Varor", "amount": 987.68,
		"account_number": "4000"}).status(t, 201)
	if round.at("data.total") != 1235.0 || round.at("data.rounding_amount") != 0.4 {
		t.Fatalf("rounded: %s", round.Body)
	}
	wantLines(t, "1 234.60 rounded", round, "data.verifikat_lines", "D 4000 987.68", "D 2641 246.92", "D 3740 0.40", "C 2440 1235.00")

	// Read back, listed newest first.
	g := b.get(b.path("supplier-invoices/"+r.str("data.id")+"?expand=items,supplier,payments"), b.token).status(t, 200)
	if g.str("data.supplier.name") != "Kontorsgrossisten AB" || len(g.list("data.items")) != 1 || len(g.list("data.payments")) != 0 {
		t.Fatalf("detail: %s", g.Body)
	}
	l := b.get(b.path("supplier-invoices?supplier_id="+b.se), b.token).status(t, 200)
	if got := l.list("data"); len(got) != 3 || got[0].(map[string]any)["supplier_invoice_number"] != "R-1" {
		t.Fatalf("list: %s", l.Body)
	}
	b.get(b.path("supplier-invoices/"+r.str("data.id")+"?expand=lines"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
}

// Rules 1, 3 and 10 and the document rule refuse and change nothing: no
// arrival number is used, no row written.
func TestSupplierInvoiceRefusals(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	line := map[string]any{"description": "Kontorsmaterial", "amount": 100}
	b.register(b.se, "X-1", map[string]any{"invoice_date": "2019-01-02", "due_date": "2019-02-01"}, line).
		errorCode(t, 400, "SI_CREATE_NO_FISCAL_PERIOD")
	if _, err := b.db.Exec(`UPDATE company_settings SET bookkeeping_locked_through = '2026-02-28' WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	b.register(b.se, "X-2", map[string]any{"invoice_date": "2026-02-28"}, line).errorCode(t, 400, "PERIOD_LOCKED")
	b.register(b.eu, "X-3", nil, line).errorCode(t, 400, "SI_FX_RATE_MISSING")
	b.register(b.eu, "X-4", map[string]any{"exchange_rate": 100000}, line).errorCode(t, 400, "VALIDATION_ERROR")
	b.register(b.se, "X-5", map[string]any{"document_id": "3f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f"}, line).errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
	b.register("3f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f", "X-6", nil, line).errorCode(t, 404, "SUPPLIER_NOT_FOUND")
	b.register(b.eu, "X-7", map[string]any{"paid_with_private_funds": true, "reverse_charge": true, "currency": "SEK"}, line).
		errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
	b.register(b.se, "X-7", map[string]any{"inbox_item_id": "3f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f"}, line).
		errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
	dry := b.do(req{Method: "POST", Path: b.path("supplier-invoices?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}, Body: map[string]any{"supplier_id": b.se,
			"supplier_invoice_number": "D-1", "invoice_date": "2026-03-02", "due_date": "2026-04-01", "items": []any{line}}}).status(t, 200)
	if dry.at("data.dry_run") != true || dry.at("data.preview.id") != nil || dry.at("data.preview.arrival_number") != 1.0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM supplier_invoices WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("%d rows after refusals", n)
	}
	// Nothing consumed a number: the first registered is 1.
	if r := b.register(b.se, "X-8", nil, line).status(t, 201); r.at("data.arrival_number") != 1.0 {
		t.Fatalf("first number: %s", r.Body)
	}

	// Rule 10: outside the VAT register there is no input VAT.
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_registered = false, moms_period = NULL WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	b.register(b.se, "X-9", nil, map[string]any{"description": "Moms", "amount": 100, "vat_rate": 0.25}).
		errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
	r := b.register(b.se, "X-10", nil, line).status(t, 201)
	wantLines(t, "no VAT", r, "data.verifikat_lines", "D 5410 100.00", "C 2440 100.00")
}

// A foreign invoice is booked at its rate and its payment's difference
// goes to 3960 or 7960; under kontantmetoden each payment books its share.
func TestSupplierInvoicePayments(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	eur := func(n string) string {
		return b.register(b.eu, n, map[string]any{"exchange_rate": 11.50, "vat_treatment": "exempt"},
			map[string]any{"description": "Licens", "amount": 1000, "account_number": "5420"}).status(t, 201).str("data.id")
	}
	gain, loss := eur("L-1"), eur("L-2")
	p := b.write("POST", "supplier-invoices/"+gain+"/mark-paid", map[string]any{"amount_sek": 11300, "payment_date": "2026-03-20"}).status(t, 200)
	wantLines(t, "paid 11 300", p, "data.verifikat_lines", "D 2440 11500.00", "C 1930 11300.00", "C 3960 200.00")
	if p.str("data.status") != "paid" || p.at("data.remaining_amount") != 0.0 {
		t.Fatalf("paid: %s", p.Body)
	}
	p = b.write("POST", "supplier-invoices/"+loss+"/mark-paid", map[string]any{"exchange_rate_difference": 300, "payment_date": "2026-03-20"}).status(t, 200)
	wantLines(t, "paid 11 800", p, "data.verifikat_lines", "D 2440 11500.00", "C 1930 11800.00", "D 7960 300.00")
	b.write("POST", "supplier-invoices/"+loss+"/mark-paid", nil).errorCode(t, 409, "SI_PAID_ALREADY")
	late := eur("L-3")
	np := b.write("POST", "supplier-invoices/"+late+"/mark-paid", map[string]any{"amount_sek": 11500, "payment_date": "2031-01-02"})
	if np.errorCode(t, 400, "SI_CREATE_NO_FISCAL_PERIOD"); np.str("error.details.field") != "payment_date" {
		t.Fatalf("field: %s", np.Body)
	}
	b.write("POST", "supplier-invoices/"+late+"/mark-paid", map[string]any{"amount_sek": 11500, "exchange_rate_difference": 0}).
		errorCode(t, 400, "VALIDATION_ERROR")
	// 15 000 kronor for 1 000 EUR booked at 11.50 is a typo until forced.
	b.write("POST", "supplier-invoices/"+late+"/mark-paid", map[string]any{"amount_sek": 15000}).
		errorCode(t, 409, "SI_PAID_SEK_UNRESOLVED")
	b.write("POST", "supplier-invoices/"+late+"/mark-paid", map[string]any{"amount_sek": 11500}).status(t, 200)
	if b.exact("2440") != "0.00" {
		t.Fatalf("2440 left at %s", b.exact("2440"))
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'supplier_invoice.paid'`, b.company); n != 3 {
		t.Fatalf("%d paid events", n)
	}

	c := newBuyerBooks(t)
	c.cash()
	r := c.register(c.se, "H-1", nil, map[string]any{"description": "Hyra", "amount": 10000, "account_number": "5010"}).status(t, 201)
	if r.at("data.registration_journal_entry_id") != nil || len(r.list("data.verifikat_lines")) != 0 || c.exact("2440") != "0" {
		t.Fatalf("cash registration: %s", r.Body)
	}
	id := r.str("data.id")
	first := c.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 5000}).status(t, 200)
	wantLines(t, "5 000 of 12 500", first, "data.verifikat_lines", "D 5010 4000.00", "D 2641 1000.00", "C 1930 5000.00")
	if first.str("data.status") != "partially_paid" {
		t.Fatalf("partly: %s", first.Body)
	}
	c.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 5000}).errorCode(t, 409, "SI_PAID_LIKELY_DUPLICATE")
	c.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 7500.01}).errorCode(t, 400, "VALIDATION_ERROR")
	last := c.write("POST", "supplier-invoices/"+id+"/mark-paid", map[string]any{"amount": 7500}).status(t, 200)
	wantLines(t, "the last 7 500", last, "data.verifikat_lines", "D 5010 6000.00", "D 2641 1500.00", "C 1930 7500.00")
	if c.exact("5010") != "10000.00" || c.exact("1930") != "-12500.00" {
		t.Fatalf("5010 %s 1930 %s", c.exact("5010"), c.exact("1930"))
	}
	g := c.get(c.path("supplier-invoices/"+id+"?expand=payments"), c.token).status(t, 200)
	if g.str("data.status") != "paid" || len(g.list("data.payments")) != 2 || g.str("data.paid_at") != "2026-03-05" {
		t.Fatalf("after: %s", g.Body)
	}
}

// Approve once; delete only what nothing is booked or paid on; an open
// invoice keeps its supplier; arrival numbers are gapless under load and
// never given again; the database refuses changes to what is registered.
func TestSupplierInvoiceLifecycle(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	line := map[string]any{"description": "Kontorsmaterial", "amount": 100}
	id := b.register(b.se, "A-1", nil, line).status(t, 201).str("data.id")
	a := b.write("POST", "supplier-invoices/"+id+"/approve", nil).status(t, 200)
	if a.str("data.status") != "approved" || a.str("data.approved_at") == "" {
		t.Fatalf("approved: %s", a.Body)
	}
	b.write("POST", "supplier-invoices/"+id+"/approve", nil).errorCode(t, 400, "SI_APPROVE_NOT_REGISTERED")
	b.write("DELETE", "supplier-invoices/"+id, nil).errorCode(t, 400, "SI_DELETE_HAS_BOOKING")
	b.write("DELETE", "suppliers/"+b.se, nil).errorCode(t, 409, "SUPPLIER_HAS_INVOICES")
	if got := b.get(b.path("suppliers/"+b.se+"?expand=supplier_invoices"), b.token).status(t, 200).list("data.supplier_invoices"); len(got) != 1 {
		t.Fatalf("open invoices: %v", got)
	}
	refusedByTheBooks(t, b.db, "a registered total", `UPDATE supplier_invoices SET total = 1 WHERE id = $1`, id)
	refusedByTheBooks(t, b.db, "a registered line", `UPDATE supplier_invoice_items SET amount = 1 WHERE supplier_invoice_id = $1`, id)

	b.cash()
	gone := b.register(b.se, "A-2", nil, line).status(t, 201)
	d := b.write("DELETE", "supplier-invoices/"+gone.str("data.id"), nil).status(t, 200)
	if d.at("data.deleted") != true || d.at("data.arrival_number") != 2.0 {
		t.Fatalf("deleted: %s", d.Body)
	}
	b.get(b.path("supplier-invoices/"+gone.str("data.id")), b.token).errorCode(t, 404, "SUPPLIER_INVOICE_NOT_FOUND")

	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.register(b.se, fmt.Sprintf("C-%d", i), nil, line).status(t, 201)
		}()
	}
	wg.Wait()
	var numbers []int
	if err := b.db.Select(&numbers, `SELECT arrival_number FROM supplier_invoices WHERE company_id = $1 ORDER BY 1`, b.company); err != nil {
		t.Fatal(err)
	}
	if len(numbers) != 51 || numbers[0] != 1 || numbers[1] != 3 || numbers[50] != 52 {
		t.Fatalf("arrival numbers %v", numbers)
	}
	for i := 1; i < len(numbers); i++ {
		if numbers[i] != i+2 {
			t.Fatalf("gap at %d: %v", i, numbers)
		}
	}
}

// Rule 5: the default tags and a line's own (the line's win per key) tag
// the cost lines; with the register enabled an unknown code is refused,
// booked now or later. Rule 7: the document becomes underlag of the
// registration and is no other invoice's.
func TestSupplierInvoiceTagsAndDocument(t *testing.T) {
	t.Parallel()
	b := newBuyerBooks(t)
	base := "/api/v1/companies/" + b.company.String()
	b.do(req{Method: "PATCH", Path: base + "/settings", Token: b.token, Body: map[string]any{"dimensions_enabled": true},
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	var six string
	for _, x := range b.get(base+"/dimensions", b.token).status(t, 200).list("data.dimensions") {
		if d := x.(map[string]any); d["sie_dim_no"] == 6.0 {
			six = d["id"].(string)
		}
	}
	for _, code := range []string{"P100", "P200"} {
		b.write("POST", "dimensions/"+six+"/values", map[string]any{"code": code, "name": "Projekt " + code}).status(t, 201)
	}
	r := b.register(b.se, "T-1", map[string]any{"default_dimensions": map[string]any{"6": "P100"}},
		map[string]any{"description": "Allmänt", "amount": 100},
		map[string]any{"description": "Eget", "amount": 200, "account_number": "5460", "dimensions": map[string]any{"6": "P200"}}).status(t, 201)
	var tags []string
	if err := b.db.Select(&tags, `SELECT l.account_number || ':' || coalesce(l.dimensions->>'6', '-') FROM journal_lines l
		WHERE l.company_id = $1 AND l.journal_entry_id = $2 ORDER BY 1`, b.company, r.str("data.registration_journal_entry_id")); err != nil {
		t.Fatal(err)
	}
	if strings.Join(tags, " ") != "2440:- 2641:- 5410:P100 5460:P200" {
		t.Fatalf("tags %v", tags)
	}
	unknown := map[string]any{"description": "Okänt", "amount": 100, "dimensions": map[string]any{"6": "P999"}}
	b.register(b.se, "T-2", nil, unknown).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
	b.cash()
	b.register(b.se, "T-3", nil, unknown).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")

	d := newBuyerBooks(t)
	up := (&ledgerBooks{env: d.env, token: d.token, base: "/api/v1/companies/" + d.company.String()}).
		upload(form{name: "faktura.pdf", partType: "application/pdf", data: samples.PDF()}, "").status(t, 201)
	doc := up.str("data.id")
	line := map[string]any{"description": "Kontorsmaterial", "amount": 100}
	reg := d.register(d.se, "U-1", map[string]any{"document_id": doc}, line).status(t, 201)
	if reg.str("data.document_id") != doc {
		t.Fatalf("document: %s", reg.Body)
	}
	if n := d.count(`SELECT count(*) FROM documents WHERE company_id = $1 AND id = $2 AND journal_entry_id = $3`, d.company, doc,
		reg.str("data.registration_journal_entry_id")); n != 1 {
		t.Fatal("the document is not underlag of the registration")
	}
	d.register(d.se, "U-2", map[string]any{"document_id": doc}, line).errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
	// A document of another company is not found here.
	b.register(b.se, "U-3", map[string]any{"document_id": doc}, line).errorCode(t, 400, "SI_CREATE_INVALID_INPUT")
}
