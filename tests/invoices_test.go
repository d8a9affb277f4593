package tests

import (
	"context"
	"strings"
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
	t.Parallel()
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
	// The list's filter, the detail and the customer's expand read the
	// same day: overdue in all three, or in none.
	agree := func(state string) {
		t.Helper()
		listed := func(status string) int {
			return len(b.get(b.path("invoices?status="+status+"&customer_id="+owing), b.token).status(t, 200).list("data"))
		}
		other := map[string]string{"overdue": "partially_paid", "partially_paid": "overdue"}[state]
		if listed(state) != 1 || listed(other) != 0 {
			t.Errorf("the list filtered by %s: %d, by %s: %d", state, listed(state), other, listed(other))
		}
		if g := b.get(b.path("invoices/"+inv.String()), b.token).status(t, 200); g.str("data.status") != state {
			t.Errorf("the detail: %s", g.Body)
		}
		r := b.get(b.path("customers/"+owing+"?expand=invoices"), b.token).status(t, 200)
		if open := r.list("data.invoices"); len(open) != 1 || open[0].(map[string]any)["balance_due"] != 7500.0 ||
			open[0].(map[string]any)["status"] != state {
			t.Errorf("the customer's expand: %s", r.Body)
		}
	}
	pay("5000")
	agree("overdue")
	// Not overdue the day it falls due.
	now = time.Date(2026, 3, 31, 21, 30, 0, 0, time.UTC) // 31 March, 23:30 in Stockholm
	agree("partially_paid")
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

// euBuyer makes the company VAT-registered (vatQuarterly) and adds a
// German business whose VAT number VIES has validated (in SQL: no VIES
// here), answering its id.
func (b *partiesBooks) euBuyer() string {
	b.t.Helper()
	b.vatQuarterly()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	b := newPartiesBooks(t)
	b.vatQuarterly()
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
		if code == "" || m["code"] == code && m["message"] != "" && m["message_en"] != "" && rem["description"] != "" {
			return true
		}
	}
	return false
}

// The list: newest first, by type, state, customer and invoice date,
// with the customer and lines on asking; quote_status implies quotes.
func TestInvoiceList(t *testing.T) {
	t.Parallel()
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
	same("in kronor", ids(b.get(b.path("invoices?currency=SEK"), b.token).status(t, 200)), last, quote, first)
	same("in euro", ids(b.get(b.path("invoices?currency=EUR"), b.token).status(t, 200)))
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
