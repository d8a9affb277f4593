package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// invoiceRow writes, in SQL as the application, an invoice of 10 000 +
// 25 % to customer with one line: a draft, or issued with number and
// due on due when number is not "". It answers the invoice's id.
func (b *partiesBooks) invoiceRow(customer, number, due string) uuid.UUID {
	b.t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	if err := b.db.GetContext(ctx, &id, `INSERT INTO invoices (company_id, document_type, customer_id, customer_name,
			invoice_date, due_date, currency, vat_treatment, subtotal, vat_amount, total)
		VALUES ($1, 'invoice', $2, 'Kund AB', '2026-03-01', $3, 'SEK', 'standard', 10000, 2500, 12500) RETURNING id`,
		b.company, customer, due); err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO invoice_items (company_id, invoice_id, sort_order, description,
			quantity, unit, unit_price, vat_rate, net_amount, vat_amount)
		VALUES ($1, $2, 0, 'Konsulttimmar', 10, 'tim', 1000, 0.25, 10000, 2500)`, b.company, id); err != nil {
		b.t.Fatal(err)
	}
	if number != "" {
		if _, err := b.db.ExecContext(ctx, `UPDATE invoices SET status = 'sent', invoice_number = $3, sent_at = now()
			WHERE company_id = $1 AND id = $2`, b.company, id, number); err != nil {
			b.t.Fatal(err)
		}
	}
	return id
}

// Open invoices hold their customer: a sent or partially paid invoice,
// overdue or not, is embedded by expand=invoices (overdue as the clock
// reads the day in Stockholm) and keeps the customer from being archived
// (409 CUSTOMER_HAS_INVOICES); a draft or a paid invoice does not.
func TestOpenInvoicesHoldTheCustomer(t *testing.T) {
	now := time.Date(2026, 3, 31, 22, 30, 0, 0, time.UTC) // 1 April, 00:30 in Stockholm
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	drafted := b.createCustomer(map[string]any{"name": "Utkast AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.invoiceRow(drafted, "", "2026-03-31")
	if r := b.get(b.path("customers/"+drafted+"?expand=invoices"), b.token).status(t, 200); len(r.list("data.invoices")) != 0 {
		t.Fatalf("a draft is open: %s", r.Body)
	}
	b.write("DELETE", "customers/"+drafted, nil).status(t, 204)

	owing := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.invoiceRow(owing, "2026-0042", "2026-03-31")
	r := b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	open := r.list("data.invoices")
	if len(open) != 1 {
		t.Fatalf("open invoices: %s", r.Body)
	}
	got := open[0].(map[string]any)
	if got["id"] != inv.String() || got["invoice_number"] != "2026-0042" || got["status"] != "overdue" ||
		got["total"] != 12500.0 || got["balance_due"] != 12500.0 || got["due_date"] != "2026-03-31" {
		t.Fatalf("the open invoice: %v", got)
	}
	if e := b.write("DELETE", "customers/"+owing, nil).errorCode(t, 409, "CUSTOMER_HAS_INVOICES"); e.at("error.details.open_invoices") != 1.0 {
		t.Fatalf("refusal: %s", e.Body)
	}

	// 5 000 paid: partially paid, 7 500 due, still open.
	pay := func(amount string) {
		t.Helper()
		if _, err := b.db.Exec(`INSERT INTO accounts (company_id, account_number, account_name, account_type, normal_balance, is_bas)
			VALUES ($1, '1930', 'Företagskonto', 'asset', 'debit', true) ON CONFLICT DO NOTHING`, b.company); err != nil {
			t.Fatal(err)
		}
		if _, err := b.db.Exec(`INSERT INTO invoice_payments (company_id, invoice_id, payment_date, amount, amount_sek, account_number, source)
			VALUES ($1, $2, '2026-04-01', $3, $3, '1930', 'manual')`, b.company, inv, amount); err != nil {
			t.Fatal(err)
		}
		if _, err := b.db.Exec(`UPDATE invoices SET paid_amount = paid_amount + $3::numeric,
				status = CASE WHEN paid_amount + $3::numeric = total THEN 'paid' ELSE 'partially_paid' END
			WHERE company_id = $1 AND id = $2`, b.company, inv, amount); err != nil {
			t.Fatal(err)
		}
	}
	pay("5000")
	r = b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	if open := r.list("data.invoices"); len(open) != 1 || open[0].(map[string]any)["balance_due"] != 7500.0 ||
		open[0].(map[string]any)["status"] != "overdue" {
		t.Fatalf("partly paid: %s", r.Body)
	}
	// Not overdue the day it falls due.
	now = time.Date(2026, 3, 31, 21, 30, 0, 0, time.UTC) // 31 March, 23:30 in Stockholm
	r = b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
	if open := r.list("data.invoices"); len(open) != 1 || open[0].(map[string]any)["status"] != "partially_paid" {
		t.Fatalf("on its due day: %s", r.Body)
	}
	pay("7500")
	if r := b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200); len(r.list("data.invoices")) != 0 {
		t.Fatalf("a paid invoice is open: %s", r.Body)
	}
	b.write("DELETE", "customers/"+owing, nil).status(t, 204)
}

// createInvoice posts a create body with a fresh Idempotency-Key.
func (b *partiesBooks) createInvoice(body map[string]any) *response {
	b.t.Helper()
	return b.write("POST", "invoices", body)
}

// consulting is a create body: ten hours at 1 000 kr for customer.
func consulting(customer string, more map[string]any) map[string]any {
	return mergeMaps(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01",
		"items": []any{map[string]any{"description": "Konsulttimmar, mars", "quantity": 10, "unit": "tim", "unit_price": 1000}}}, more)
}

// euBuyer makes the company VAT-registered (in SQL: the test company has
// no organisation number to register with) and adds a German business
// whose VAT number VIES has validated (in SQL: no VIES here), answering
// its id.
func (b *partiesBooks) euBuyer() string {
	b.t.Helper()
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly' WHERE company_id = $1`,
		b.company); err != nil {
		b.t.Fatal(err)
	}
	eu := b.createCustomer(map[string]any{"name": "Müller GmbH", "customer_type": "eu_business", "country": "DE",
		"vat_number": "DE123456789"}).status(b.t, 201).str("data.id")
	if _, err := b.db.Exec(`UPDATE customers SET vat_number_validated = true WHERE company_id = $1 AND id = $2`, b.company, eu); err != nil {
		b.t.Fatal(err)
	}
	return eu
}

// A draft: 10 000 + 25 % = 12 500, due on the customer's terms, our
// reference the company's contact person; audited and announced once.
// The detail embeds its lines only when asked; a dry run stores nothing.
func TestInvoiceCreate(t *testing.T) {
	b := newPartiesBooks(t)
	b.write("PATCH", "settings", map[string]any{"contact_person": "Lars Berg"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Byggbolaget i Norrland AB", "customer_type": "swedish_business",
		"default_payment_terms": 20}).status(t, 201).str("data.id")
	r := b.createInvoice(consulting(customer, map[string]any{"your_reference": "Karin Ek",
		"default_dimensions": map[string]any{"6": "P1001"}})).status(t, 201)
	id := r.str("data.id")
	for path, want := range map[string]any{"data.status": "draft", "data.invoice_number": nil, "data.document_type": "invoice",
		"data.subtotal": 10000.0, "data.vat_amount": 2500.0, "data.total": 12500.0, "data.remaining_amount": 12500.0,
		"data.due_date": "2026-03-21", "data.our_reference": "Lars Berg", "data.your_reference": "Karin Ek",
		"data.vat_treatment": "standard", "data.currency": "SEK", "data.total_sek": 12500.0, "data.customer.name": "Byggbolaget i Norrland AB",
		"data.default_dimensions.6": "P1001"} {
		if got := r.at(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	items := r.list("data.items")
	if len(items) != 1 || items[0].(map[string]any)["line_total"] != 10000.0 || items[0].(map[string]any)["vat_amount"] != 2500.0 ||
		items[0].(map[string]any)["vat_rate"] != 0.25 {
		t.Fatalf("items: %v", items)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.created'`, b.company); n != 1 {
		t.Errorf("%d invoice.created events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'invoices' AND action = 'INSERT'`, b.company); n != 1 {
		t.Errorf("%d audit rows", n)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if _, ok := g.JSON["data"].(map[string]any)["items"]; ok || g.str("data.id") != id {
		t.Fatalf("detail without expand: %s", g.Body)
	}
	if g := b.get(b.path("invoices/"+id+"?expand=items,payments"), b.token).status(t, 200); len(g.list("data.items")) != 1 ||
		g.list("data.payments") == nil || len(g.list("data.payments")) != 0 {
		t.Fatalf("expanded: %s", g.Body)
	}
	b.get(b.path("invoices/"+id+"?expand=lines"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	other := newPartiesBooks(t)
	other.get(other.path("invoices/"+id), other.token).errorCode(t, 404, "INVOICE_NOT_FOUND")

	dry := b.do(req{Method: "POST", Path: b.path("invoices?dry_run=true"), Token: b.token, Body: consulting(customer, nil),
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.dry_run") != true || dry.at("data.preview.id") != nil || dry.at("data.preview.total") != 12500.0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company); n != 1 {
		t.Fatalf("%d invoices after a dry run", n)
	}
}

// Three rates, a discount, a text line, öresavrundning and a line's own
// revenue account, reckoned by hand.
func TestInvoiceCreateReckons(t *testing.T) {
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	r := b.createInvoice(consulting(customer, map[string]any{"items": []any{
		map[string]any{"description": "Arbete", "quantity": 1, "unit": "st", "unit_price": 1000, "vat_rate": 0.25},
		map[string]any{"description": "Livsmedel", "quantity": 1, "unit": "st", "unit_price": 500, "vat_rate": 0.12},
		map[string]any{"description": "Böcker", "quantity": 1, "unit": "st", "unit_price": 200, "vat_rate": 0.06},
		map[string]any{"line_type": "text", "description": "Tack för förtroendet"},
	}})).status(t, 201)
	if r.at("data.vat_amount") != 322.0 || r.at("data.total") != 2022.0 || len(r.list("data.items")) != 4 ||
		r.list("data.items")[3].(map[string]any)["line_total"] != 0.0 {
		t.Fatalf("three rates: %s", r.Body)
	}
	// 2.5 h × 850 less 12.5 % = 1 859.375 → 1 859.38; VAT 464.845 → 464.85.
	r = b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Support",
		"quantity": 2.5, "unit": "tim", "unit_price": 850, "discount_percent": 12.5, "revenue_account": "3541"}}})).status(t, 201)
	if r.at("data.subtotal") != 1859.38 || r.at("data.vat_amount") != 464.85 || r.list("data.items")[0].(map[string]any)["revenue_account"] != "3541" {
		t.Fatalf("a discounted line: %s", r.Body)
	}
	// 987.68 + 246.92 = 1 234.60, rounded to 1 235.00.
	r = b.createInvoice(consulting(customer, map[string]any{"ore_rounding": true, "items": []any{map[string]any{
		"description": "Material", "quantity": 1, "unit": "st", "unit_price": 987.68}}})).status(t, 201)
	if r.at("data.total") != 1235.0 || r.at("data.rounding_amount") != 0.4 || r.at("data.vat_amount") != 246.92 {
		t.Fatalf("rounded: %s", r.Body)
	}
}

// Quotes, proformas and delivery notes are numbered at create, each in
// its own gapless series; a quote needs valid_until, its due date; the
// settings may turn quotes off.
func TestInvoiceCreateSeries(t *testing.T) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	quote := func() map[string]any {
		return consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-15"})
	}
	r := b.createInvoice(quote()).status(t, 201)
	if r.at("data.invoice_number") != "OF-1" || r.at("data.quote_status") != "open" || r.at("data.due_date") != "2026-03-15" {
		t.Fatalf("quote: %s", r.Body)
	}
	b.do(req{Method: "POST", Path: b.path("invoices?dry_run=true"), Token: b.token, Body: quote(),
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if r := b.createInvoice(quote()).status(t, 201); r.at("data.invoice_number") != "OF-2" {
		t.Fatalf("the second quote, after a dry run: %s", r.Body)
	}
	if r := b.createInvoice(consulting(customer, map[string]any{"document_type": "proforma"})).status(t, 201); r.at("data.invoice_number") != "PF-1" {
		t.Fatalf("proforma: %s", r.Body)
	}
	if r := b.createInvoice(consulting(customer, map[string]any{"document_type": "delivery_note"})).status(t, 201); r.at("data.invoice_number") != "D-1" {
		t.Fatalf("delivery note: %s", r.Body)
	}
	if e := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote"})).errorCode(t, 400, "VALIDATION_ERROR"); !strings.Contains(string(e.Body), "valid_until") {
		t.Fatalf("a quote without valid_until: %s", e.Body)
	}
	b.write("PATCH", "settings", map[string]any{"quotes_enabled": false}).status(t, 200)
	if e := b.createInvoice(quote()).errorCode(t, 400, "VALIDATION_ERROR"); !strings.Contains(string(e.Body), "document_type") {
		t.Fatalf("quotes turned off: %s", e.Body)
	}
	if n := b.count(`SELECT last_number FROM invoice_series WHERE company_id = $1 AND series = 'OF'`, b.company); n != 2 {
		t.Fatalf("the quote series stands at %d", n)
	}
}

// Bad input is a catalogue error naming the field, and stores nothing.
func TestInvoiceCreateRefuses(t *testing.T) {
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	line := func(k string, v any) map[string]any {
		l := map[string]any{"description": "Arbete", "quantity": 1, "unit": "st", "unit_price": 100}
		l[k] = v
		return consulting(customer, map[string]any{"items": []any{l}})
	}
	for name, c := range map[string]struct {
		body        map[string]any
		status      int
		code, field string
	}{
		"unknown customer":     {consulting(uuid.NewString(), nil), 404, "CUSTOMER_NOT_FOUND", "customer_id"},
		"due before invoiced":  {consulting(customer, map[string]any{"due_date": "2026-02-28"}), 400, "VALIDATION_ERROR", "due_date"},
		"no lines":             {consulting(customer, map[string]any{"items": []any{}}), 400, "VALIDATION_ERROR", "items"},
		"zero quantity":        {line("quantity", 0), 400, "VALIDATION_ERROR", "items.0.quantity"},
		"negative price":       {line("unit_price", -1), 400, "VALIDATION_ERROR", "items.0.unit_price"},
		"20 %":                 {line("vat_rate", 0.2), 400, "VALIDATION_ERROR", "items.0.vat_rate"},
		"discount over 100":    {line("discount_percent", 101), 400, "VALIDATION_ERROR", "items.0.discount_percent"},
		"expense account":      {line("revenue_account", "4010"), 400, "VALIDATION_ERROR", "items.0.revenue_account"},
		"account outside BAS":  {line("revenue_account", "3041"), 400, "ACCOUNTS_NOT_IN_CHART", ""},
		"five decimals":        {line("quantity", 1.23456), 400, "VALIDATION_ERROR", "items.0.quantity"},
		"a rate for kronor":    {consulting(customer, map[string]any{"exchange_rate": 11.5}), 400, "VALIDATION_ERROR", "exchange_rate"},
		"self-billing":         {consulting(customer, map[string]any{"is_self_billed": true}), 400, "VALIDATION_ERROR", "is_self_billed"},
		"an unknown currency":  {consulting(customer, map[string]any{"currency": "JPY"}), 400, "VALIDATION_ERROR", "currency"},
		"valid_until on bills": {consulting(customer, map[string]any{"valid_until": "2026-04-01"}), 400, "VALIDATION_ERROR", "valid_until"},
		"an unknown field":     {consulting(customer, map[string]any{"article_id": "A1"}), 400, "VALIDATION_ERROR", "article_id"},
		"a priced text line": {consulting(customer, map[string]any{"items": []any{map[string]any{"line_type": "text",
			"description": "Text", "unit_price": 5}}}), 400, "VALIDATION_ERROR", "items.0.line_type"},
		"a line without a price": {consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Arbete",
			"quantity": 1, "unit": "st"}}}), 400, "VALIDATION_ERROR", "items.0.unit_price"},
	} {
		e := b.createInvoice(c.body).errorCode(t, c.status, c.code)
		if c.field != "" && !strings.Contains(strings.Join(e.issueFields(), " "), c.field) && e.str("error.details.field") != c.field {
			t.Errorf("%s: %s does not name %s", name, e.Body, c.field)
		}
	}
	if n := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("refusals stored %d invoices", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.created'`, b.company); n != 0 {
		t.Fatalf("refusals announced %d invoices", n)
	}
}

// VAT by the customer: a VIES-validated EU business outside Sweden gets
// reverse charge on services; one the registry has not confirmed gets
// Swedish VAT and a warning that says why; a delivery country makes it
// goods, which take only 0 % lines.
func TestInvoiceCreateVAT(t *testing.T) {
	b := newPartiesBooks(t)
	// A company registered for VAT (set in SQL: the test company has no
	// organisation number to register with).
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly' WHERE company_id = $1`,
		b.company); err != nil {
		t.Fatal(err)
	}
	eu := b.createCustomer(map[string]any{"name": "Müller GmbH", "customer_type": "eu_business", "country": "DE",
		"vat_number": "DE123456789"}).status(t, 201).str("data.id")
	r := b.createInvoice(consulting(eu, nil)).status(t, 201)
	if r.at("data.vat_treatment") != "standard" || r.at("data.vat_amount") != 2500.0 || !hasWarning(r, "EU_BUSINESS_VAT_NUMBER_NOT_VALIDATED") {
		t.Fatalf("not validated: %s", r.Body)
	}
	if _, err := b.db.Exec(`UPDATE customers SET vat_number_validated = true WHERE company_id = $1 AND id = $2`, b.company, eu); err != nil {
		t.Fatal(err)
	}
	r = b.createInvoice(consulting(eu, nil)).status(t, 201)
	if r.at("data.vat_treatment") != "eu_services" || r.at("data.vat_amount") != 0.0 || r.at("data.total") != 10000.0 ||
		r.list("data.items")[0].(map[string]any)["vat_rate"] != 0.0 || hasWarning(r, "") {
		t.Fatalf("reverse charge: %s", r.Body)
	}
	r = b.createInvoice(consulting(eu, map[string]any{"items": []any{map[string]any{"description": "Arbete", "quantity": 1,
		"unit": "st", "unit_price": 100, "vat_rate": 0.25}}})).status(t, 201)
	if r.at("data.vat_treatment") != "standard" || !hasWarning(r, "SWEDISH_VAT_TO_REVERSE_CHARGE_CUSTOMER") {
		t.Fatalf("a Swedish rate for a reverse-charge customer: %s", r.Body)
	}
	r = b.createInvoice(consulting(eu, map[string]any{"delivery_country": "DE"})).status(t, 201)
	if r.at("data.vat_treatment") != "eu_goods" || r.at("data.delivery_country") != "DE" {
		t.Fatalf("goods to Germany: %s", r.Body)
	}
	b.createInvoice(consulting(eu, map[string]any{"delivery_country": "DE", "items": []any{map[string]any{"description": "Maskin",
		"quantity": 1, "unit": "st", "unit_price": 100, "vat_rate": 0.25}}})).errorCode(t, 400, "VALIDATION_ERROR")
	b.createInvoice(consulting(eu, map[string]any{"vat_treatment": "export", "delivery_country": "DE"})).
		errorCode(t, 400, "INVOICE_VAT_TREATMENT_DELIVERY_COUNTRY_MISMATCH")
	swede := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	if e := b.createInvoice(consulting(swede, map[string]any{"vat_treatment": "reverse_charge"})).
		errorCode(t, 400, "INVOICE_VAT_TREATMENT_BUYER_VAT_NUMBER_REQUIRED"); e.str("error.details.reason") != "not_eu_business" {
		t.Fatalf("reverse charge to a Swede: %s", e.Body)
	}
	r = b.createInvoice(consulting(swede, map[string]any{"delivery_country": "NO"})).status(t, 201)
	if r.at("data.vat_treatment") != "export_goods" || r.at("data.total") != 10000.0 {
		t.Fatalf("goods to Norway: %s", r.Body)
	}
}

// hasWarning reports whether meta.warnings carries code, fully worded;
// "" asks whether there is any warning at all.
func hasWarning(r *response, code string) bool {
	ws, _ := r.at("meta.warnings").([]any)
	for _, w := range ws {
		m := w.(map[string]any)
		rem, _ := m["remediation"].(map[string]any)
		if code == "" || m["code"] == code && m["message_sv"] != "" && m["message_en"] != "" && rem["description"] != "" {
			return true
		}
	}
	return false
}

// The list: newest first, by type, state, customer and invoice date,
// with the customer and lines on asking; quote_status implies quotes.
func TestInvoiceList(t *testing.T) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	other := b.createCustomer(map[string]any{"name": "Annan AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	first := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	quote := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-31",
		"invoice_date": "2026-03-10"})).status(t, 201).str("data.id")
	last := b.createInvoice(consulting(other, map[string]any{"invoice_date": "2026-04-01"})).status(t, 201).str("data.id")
	ids := func(r *response) []string {
		var out []string
		for _, it := range r.list("data") {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	same := func(what string, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	r := b.get(b.path("invoices"), b.token).status(t, 200)
	same("all", ids(r), last, quote, first)
	if r.at("meta.coverage.covers_from") != nil || r.at("meta.coverage.has_pre_register_invoices") != false {
		t.Errorf("coverage: %s", r.Body)
	}
	if _, ok := r.list("data")[0].(map[string]any)["items"]; ok {
		t.Error("items without expand")
	}
	same("quotes", ids(b.get(b.path("invoices?document_type=quote"), b.token).status(t, 200)), quote)
	same("open quotes", ids(b.get(b.path("invoices?quote_status=open"), b.token).status(t, 200)), quote)
	same("by customer", ids(b.get(b.path("invoices?customer_id="+other), b.token).status(t, 200)), last)
	same("by date", ids(b.get(b.path("invoices?date_from=2026-03-05&date_to=2026-03-31"), b.token).status(t, 200)), quote)
	same("drafts", ids(b.get(b.path("invoices?status=draft&document_type=invoice"), b.token).status(t, 200)), last, first)
	same("sent", ids(b.get(b.path("invoices?status=sent"), b.token).status(t, 200)))
	b.get(b.path("invoices?quote_status=open&document_type=invoice"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("invoices?expand=payments"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("invoices?status=late"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	e := b.get(b.path("invoices?expand=customer,items&limit=2"), b.token).status(t, 200)
	page := e.list("data")
	if len(page) != 2 || page[0].(map[string]any)["customer"].(map[string]any)["name"] != "Annan AB" ||
		len(page[0].(map[string]any)["items"].([]any)) != 1 {
		t.Fatalf("expanded page: %s", e.Body)
	}
	next := e.str("meta.next_cursor")
	same("the next page", ids(b.get(b.path("invoices?limit=2&cursor="+next), b.token).status(t, 200)), first)
}

// markSent issues invoice id without e-mail.
func (b *partiesBooks) markSent(id string) *response {
	b.t.Helper()
	return b.write("POST", "invoices/"+id+"/mark-sent", nil)
}

// lines writes a verifikat's lines as "D 1510 12500" in order.
func lines(r *response, path string) string {
	var out []string
	for _, l := range r.list(path) {
		m := l.(map[string]any)
		side, a := "D", m["debit_amount"]
		if m["credit_amount"] != 0.0 {
			side, a = "C", m["credit_amount"]
		}
		out = append(out, fmt.Sprintf("%s %s %.2f", side, m["account_number"], a))
	}
	return strings.Join(out, ", ")
}

// Issuing takes the next number and its OCR reference and books the sale
// dated the invoice date: 10 000 + 25 % is D 1510 12 500 / C 3001 10 000,
// C 2611 2 500. Issued once; a dry run shows the lines and changes
// nothing; a failure gives the number back.
func TestInvoiceMarkSent(t *testing.T) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings", map[string]any{"invoice_prefix": "2026-00", "next_invoice_number": 42,
		"invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"default_dimensions": map[string]any{"6": "P1"}})).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if r.str("data.invoice_number") != "2026-0042" || r.str("data.ocr_reference") != "2026004206" || r.str("data.status") != "sent" ||
		r.at("data.journal_entry_id") == nil || r.at("data.booking_deferred") != false {
		t.Fatalf("issued: %s", r.Body)
	}
	if got := lines(r, "data.verifikat_lines"); got != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("verifikat: %s", got)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.status") != "posted" || je.str("data.source_type") != "invoice_created" || je.str("data.entry_date") != "2026-03-01" ||
		lines(je, "data.lines") != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("the verifikat: %s", je.Body)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if g.str("data.status") != "sent" || g.str("data.invoice_number") != "2026-0042" || g.str("data.journal_entry_id") != r.str("data.journal_entry_id") {
		t.Fatalf("read back: %s", g.Body)
	}
	if e := b.markSent(id).errorCode(t, 409, "INVOICE_ALREADY_SENT"); e.str("error.details.current_status") != "sent" {
		t.Fatalf("again: %s", e.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.sent'`, b.company); n != 1 {
		t.Errorf("%d invoice.sent events", n)
	}

	// A dry run shows the lines and changes nothing.
	next := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + next + "/mark-sent?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.journal_entry_id") != nil || lines(dry, "data.verifikat_lines") != "D 1510 12500.00, C 3001 10000.00, C 2611 2500.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if g := b.get(b.path("invoices/"+next), b.token).status(t, 200); g.str("data.status") != "draft" {
		t.Fatalf("after a dry run: %s", g.Body)
	}
	// No fiscal year for the date: refused, and the number is not used.
	late := b.createInvoice(consulting(customer, map[string]any{"invoice_date": "2031-01-10"})).status(t, 201).str("data.id")
	b.markSent(late).errorCode(t, 400, "INVOICE_BOOK_NO_FISCAL_PERIOD")
	if r := b.markSent(next).status(t, 200); r.str("data.invoice_number") != "2026-0043" {
		t.Fatalf("the next number: %s", r.Body)
	}
	// The settings may move the next number on, never back.
	if e := b.write("PATCH", "settings", map[string]any{"next_invoice_number": 43}).errorCode(t, 400, "VALIDATION_ERROR"); !strings.Contains(strings.Join(e.issueFields(), " "), "next_invoice_number") {
		t.Fatalf("lowered: %s", e.Body)
	}
	b.write("PATCH", "settings", map[string]any{"next_invoice_number": 100}).status(t, 200)
	// Quotes and delivery notes are never issued.
	quote := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-31"})).status(t, 201).str("data.id")
	b.markSent(quote).errorCode(t, 400, "VALIDATION_ERROR")
	note := b.createInvoice(consulting(customer, map[string]any{"document_type": "delivery_note"})).status(t, 201).str("data.id")
	b.markSent(note).errorCode(t, 400, "VALIDATION_ERROR")
	b.markSent(uuid.NewString()).errorCode(t, 404, "INVOICE_NOT_FOUND")
}

// 1 000 EUR of services to a VIES-validated German business at 11.50:
// 11 500 on 1510 (carrying the euros) and on 3308. Without a rate the
// draft is not issued.
func TestInvoiceMarkSentForeign(t *testing.T) {
	b := newPartiesBooks(t)
	eu := b.euBuyer()
	eur := func(more map[string]any) map[string]any {
		return consulting(eu, mergeMaps(map[string]any{"currency": "EUR", "items": []any{map[string]any{"description": "Rådgivning",
			"quantity": 1, "unit": "st", "unit_price": 1000}}}, more))
	}
	bare := b.createInvoice(eur(nil)).status(t, 201).str("data.id")
	b.markSent(bare).errorCode(t, 400, "INVOICE_FX_RATE_MISSING")
	id := b.createInvoice(eur(map[string]any{"exchange_rate": 11.5})).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1510 11500.00, C 3308 11500.00" {
		t.Fatalf("verifikat: %s", got)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	l := je.list("data.lines")[0].(map[string]any)
	if l["currency"] != "EUR" || l["amount_in_currency"] != 1000.0 || l["exchange_rate"] != 11.5 {
		t.Fatalf("1510 in euros: %v", l)
	}
}

func mergeMaps(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// Kontantmetoden books nothing at issue; the number is taken all the same.
func TestInvoiceMarkSentCashMethod(t *testing.T) {
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	r := b.markSent(id).status(t, 200)
	if r.str("data.invoice_number") != "1" || r.at("data.journal_entry_id") != nil || len(r.list("data.verifikat_lines")) != 0 {
		t.Fatalf("cash method: %s", r.Body)
	}
}

// Issued one at a time: fifty drafts issued at once take the numbers 1 to
// 50, each once; eight requests on one draft issue it once, with one
// verifikat.
func TestInvoiceMarkSentConcurrent(t *testing.T) {
	b := newPartiesBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	}
	numbers := make([]string, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-sent"), Token: b.token,
				Header: map[string]string{"Idempotency-Key": newKey()}})
			if r.Status == 200 {
				numbers[i] = r.str("data.invoice_number")
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, n := range numbers {
		seen[n] = true
	}
	for n := 1; n <= 50; n++ {
		if !seen[strconv.Itoa(n)] {
			t.Errorf("number %d not taken: %v", n, numbers)
		}
	}
	one := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.do(req{Method: "POST", Path: b.path("invoices/" + one + "/mark-sent"), Token: b.token,
				Header: map[string]string{"Idempotency-Key": newKey()}}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == 200 {
			ok++
		} else if s != 409 {
			t.Errorf("status %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d requests issued one draft", ok)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'invoice_created' AND source_id = $2`,
		b.company, one); n != 1 {
		t.Fatalf("%d verifikat for one invoice", n)
	}
}

// markPaid records a payment of invoice id.
func (b *partiesBooks) markPaid(id string, body map[string]any) *response {
	b.t.Helper()
	return b.write("POST", "invoices/"+id+"/mark-paid", body)
}

// issued creates and issues an invoice for customer, answering its id.
func (b *partiesBooks) issued(customer string, more map[string]any) string {
	b.t.Helper()
	id := b.createInvoice(consulting(customer, more)).status(b.t, 201).str("data.id")
	b.markSent(id).status(b.t, 200)
	return id
}

// A sale of 10 000 + 25 % paid 5 000 and then the 7 500 left: each
// payment settles its part of 1510, a row of its own; the second makes
// it paid and is announced. A likely duplicate waits for force; more than
// is left, or a payment of a draft or a paid invoice, is refused.
func TestInvoiceMarkPaid(t *testing.T) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)

	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-paid?dry_run=true"), Token: b.token,
		Body: map[string]any{"amount": 5000}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.payment_id") != nil || lines(dry, "data.verifikat_lines") != "D 1930 5000.00, C 1510 5000.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	r := b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	if r.str("data.status") != "partially_paid" || r.at("data.remaining_amount") != 7500.0 || r.at("data.paid_amount") != 5000.0 ||
		lines(r, "data.verifikat_lines") != "D 1930 5000.00, C 1510 5000.00" || r.at("data.journal_entry_id") == nil {
		t.Fatalf("first payment: %s", r.Body)
	}
	b.markPaid(id, map[string]any{"amount": 7500.01}).errorCode(t, 400, "VALIDATION_ERROR")
	r = b.markPaid(id, map[string]any{}).status(t, 200) // what is left, today
	if r.str("data.status") != "paid" || r.at("data.remaining_amount") != 0.0 || r.str("data.paid_at") != "2026-03-25" ||
		lines(r, "data.verifikat_lines") != "D 1930 7500.00, C 1510 7500.00" {
		t.Fatalf("second payment: %s", r.Body)
	}
	b.markPaid(id, map[string]any{"amount": 1}).errorCode(t, 409, "CONFLICT")
	g := b.get(b.path("invoices/"+id+"?expand=payments"), b.token).status(t, 200)
	if ps := g.list("data.payments"); len(ps) != 2 || ps[0].(map[string]any)["amount"] != 5000.0 || ps[1].(map[string]any)["date"] != "2026-03-25" {
		t.Fatalf("payments: %s", g.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.paid'
			AND (payload->>'paymentAmount')::numeric = 7500 AND payload->>'paymentDate' = '2026-03-25'`, b.company); n != 1 {
		t.Errorf("%d invoice.paid events", n)
	}
	if n := b.count(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::int FROM journal_lines l
			JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
			WHERE l.company_id = $1 AND l.account_number = '1510' AND e.status = 'posted'`, b.company); n != 0 {
		t.Errorf("1510 stands at %d after the invoice is paid", n)
	}

	// The same amount on the same day looks like the same payment.
	other := b.issued(customer, nil)
	b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20"}).status(t, 200)
	e := b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20"}).errorCode(t, 409, "INVOICE_PAID_LIKELY_DUPLICATE")
	if e.str("error.details.existing_payment_id") == "" {
		t.Fatalf("duplicate: %s", e.Body)
	}
	b.markPaid(other, map[string]any{"amount": 1000, "payment_date": "2026-03-20", "force": true}).status(t, 200)

	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	if e := b.markPaid(draft, map[string]any{}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "not_payable" {
		t.Fatalf("a draft: %s", e.Body)
	}
	b.markPaid(other, map[string]any{"amount_sek": 100}).errorCode(t, 400, "VALIDATION_ERROR")
}

// Kontantmetoden: nothing at issue; each payment books its share of the
// sale: 5 000 is 4 000 + 1 000, the 7 500 left 6 000 + 1 500.
func TestInvoiceMarkPaidCashMethod(t *testing.T) {
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)
	r := b.markPaid(id, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 5000.00, C 3001 4000.00, C 2611 1000.00" {
		t.Fatalf("first payment: %s", r.Body)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.source_type") != "invoice_cash_payment" || je.str("data.entry_date") != "2026-03-20" {
		t.Fatalf("its verifikat: %s", je.Body)
	}
	r = b.markPaid(id, map[string]any{"payment_date": "2026-03-28"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 7500.00, C 3001 6000.00, C 2611 1500.00" || r.str("data.status") != "paid" {
		t.Fatalf("second payment: %s", r.Body)
	}
}

// 1 000 EUR of services booked at 11.50: paid at 11.30 it is 200.00 short,
// an exchange loss; at 11.80 300.00 over, a gain.
func TestInvoiceMarkPaidForeign(t *testing.T) {
	b := newPartiesBooks(t)
	eu := b.euBuyer()
	eur := consulting(eu, map[string]any{"currency": "EUR", "exchange_rate": 11.5, "items": []any{map[string]any{
		"description": "Rådgivning", "quantity": 1, "unit": "st", "unit_price": 1000}}})
	short := b.createInvoice(eur).status(t, 201).str("data.id")
	b.markSent(short).status(t, 200)
	b.markPaid(short, map[string]any{"payment_date": "2026-03-20"}).errorCode(t, 400, "VALIDATION_ERROR")
	r := b.markPaid(short, map[string]any{"payment_date": "2026-03-20", "exchange_rate": 11.3}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1930 11300.00, C 1510 11500.00, D 7960 200.00" {
		t.Fatalf("paid at 11.30: %s", got)
	}
	over := b.createInvoice(eur).status(t, 201).str("data.id")
	b.markSent(over).status(t, 200)
	r = b.markPaid(over, map[string]any{"payment_date": "2026-03-20", "amount_sek": 11800}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "D 1930 11800.00, C 1510 11500.00, C 3960 300.00" {
		t.Fatalf("paid at 11.80: %s", got)
	}
}

// With defer_invoice_booking, issuing books nothing; the payment books
// the sale first, then itself.
func TestInvoiceMarkPaidDeferred(t *testing.T) {
	b := newPartiesBooks(t)
	b.write("PATCH", "settings/tax-profile", map[string]any{"defer_invoice_booking": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	s := b.markSent(id).status(t, 200)
	if s.at("data.booking_deferred") != true || s.at("data.journal_entry_id") != nil {
		t.Fatalf("deferred: %s", s.Body)
	}
	r := b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	if lines(r, "data.verifikat_lines") != "D 1930 12500.00, C 1510 12500.00" {
		t.Fatalf("payment: %s", r.Body)
	}
	g := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	sale := g.str("data.journal_entry_id")
	if sale == "" || sale == r.str("data.journal_entry_id") {
		t.Fatalf("the sale's verifikat: %s", g.Body)
	}
	if je := b.get(b.path("journal-entries/"+sale), b.token).status(t, 200); je.str("data.source_type") != "invoice_created" ||
		je.str("data.entry_date") != "2026-03-01" {
		t.Fatalf("booked at payment: %s", je.Body)
	}
}

// An unnumbered draft is deleted with its lines; a numbered one (OF-1) is
// cancelled and keeps its number, the next quote taking OF-2; an issued
// invoice is not deleted.
func TestInvoiceDelete(t *testing.T) {
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	dry := b.do(req{Method: "DELETE", Path: b.path("invoices/" + draft + "?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.deleted") != true {
		t.Fatalf("dry run: %s", dry.Body)
	}
	b.get(b.path("invoices/"+draft), b.token).status(t, 200)
	if r := b.write("DELETE", "invoices/"+draft, nil).status(t, 200); r.at("data.deleted") != true || r.at("data.cancelled") != false {
		t.Fatalf("deleted: %s", r.Body)
	}
	b.get(b.path("invoices/"+draft), b.token).errorCode(t, 404, "INVOICE_NOT_FOUND")
	b.write("DELETE", "invoices/"+draft, nil).errorCode(t, 404, "INVOICE_NOT_FOUND")
	if n := b.count(`SELECT count(*) FROM invoice_items WHERE company_id = $1 AND invoice_id = $2`, b.company, draft); n != 0 {
		t.Fatalf("%d lines left", n)
	}

	quote := func() map[string]any {
		return consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-31"})
	}
	first := b.createInvoice(quote()).status(t, 201).str("data.id")
	r := b.write("DELETE", "invoices/"+first, nil).status(t, 200)
	if r.at("data.cancelled") != true || r.str("data.invoice_number") != "OF-1" {
		t.Fatalf("cancelled: %s", r.Body)
	}
	if g := b.get(b.path("invoices/"+first), b.token).status(t, 200); g.str("data.status") != "cancelled" || g.str("data.invoice_number") != "OF-1" {
		t.Fatalf("the cancelled quote: %s", g.Body)
	}
	if r := b.createInvoice(quote()).status(t, 201); r.str("data.invoice_number") != "OF-2" {
		t.Fatalf("the next quote: %s", r.Body)
	}
	if e := b.write("DELETE", "invoices/"+first, nil).errorCode(t, 409, "INVOICE_DELETE_NOT_DRAFT"); e.str("error.details.current_status") != "cancelled" {
		t.Fatalf("again: %s", e.Body)
	}
	sent := b.issued(customer, nil)
	b.write("DELETE", "invoices/"+sent, nil).errorCode(t, 409, "INVOICE_DELETE_NOT_DRAFT")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'invoices' AND action = 'DELETE'`, b.company); n != 1 {
		t.Fatalf("%d deletions audited", n)
	}
}

// The customer's decision on a quote: accepted (timed), taken back (open),
// its validity moved with its due date; expired is derived from the
// clock; an invoice or a cancelled quote takes no decision.
func TestQuoteStatus(t *testing.T) {
	now := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	quote := b.createInvoice(consulting(customer, map[string]any{"document_type": "quote", "valid_until": "2026-03-15"})).status(t, 201).str("data.id")
	decide := func(id string, body map[string]any) *response {
		t.Helper()
		return b.write("POST", "invoices/"+id+"/quote-status", body)
	}
	r := decide(quote, map[string]any{"status": "accepted"}).status(t, 200)
	if r.str("data.quote_status") != "accepted" || r.str("data.effective_quote_status") != "accepted" ||
		r.str("data.quote_decided_at") != "2026-03-05T09:00:00Z" || r.str("data.invoice_number") != "OF-1" {
		t.Fatalf("accepted: %s", r.Body)
	}
	if l := b.get(b.path("invoices?quote_status=accepted"), b.token).status(t, 200); len(l.list("data")) != 1 {
		t.Fatalf("accepted quotes: %s", l.Body)
	}
	r = decide(quote, map[string]any{"status": "open", "valid_until": "2026-03-20"}).status(t, 200)
	if r.at("data.quote_decided_at") != nil || r.str("data.valid_until") != "2026-03-20" {
		t.Fatalf("taken back: %s", r.Body)
	}
	if g := b.get(b.path("invoices/"+quote), b.token).status(t, 200); g.str("data.due_date") != "2026-03-20" {
		t.Fatalf("the due date follows: %s", g.Body)
	}
	decide(quote, map[string]any{"status": "open", "valid_until": "2026-02-01"}).errorCode(t, 400, "VALIDATION_ERROR")
	decide(quote, map[string]any{"status": "expired"}).errorCode(t, 400, "VALIDATION_ERROR")
	now = time.Date(2026, 3, 21, 9, 0, 0, 0, time.UTC)
	if r := decide(quote, map[string]any{"status": "open"}).status(t, 200); r.str("data.effective_quote_status") != "expired" ||
		r.str("data.quote_status") != "open" {
		t.Fatalf("expired: %s", r.Body)
	}
	invoice := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	decide(invoice, map[string]any{"status": "accepted"}).errorCode(t, 400, "INVOICE_NOT_A_QUOTE")
	b.write("DELETE", "invoices/"+quote, nil).status(t, 200)
	decide(quote, map[string]any{"status": "accepted"}).errorCode(t, 400, "INVOICE_QUOTE_NOT_DECIDABLE")
}
