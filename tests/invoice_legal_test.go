package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// legalBooks is a VAT-registered aktiebolag made as a new user makes it:
// an organisation number, no VAT number, no address, no bankgiro.
func legalBooks(t *testing.T) *partiesBooks {
	e := newEnv(t)
	token := e.key("ny@example.se", keySpec{})
	r := e.post("/api/v1/companies", token, map[string]any{"name": "Nystartat AB", "entity_type": "aktiebolag",
		"org_number": "556334-3689", "vat_registered": true, "moms_period": "quarterly", "f_skatt": true}).status(t, 201)
	// The VAT number Skatteverket registers it under: SE, the number, 01.
	if v := r.str("data.vat_number"); v != "SE556334368901" {
		t.Fatalf("vat_number %q, want SE556334368901", v)
	}
	return &partiesBooks{env: e, token: token, company: uuid.MustParse(r.str("data.id"))}
}

// The content mervärdesskattelagen asks of an invoice (17 kap. 24 §),
// checked when it is issued, named item by item; a simplified invoice
// (29 §) at most 4 000 kr needs less.
func TestInvoiceLegalContent(t *testing.T) {
	t.Parallel()
	b := legalBooks(t)
	if v := b.get(b.path("settings"), b.token).status(t, 200).str("data.vat_number"); v != "SE556334368901" {
		t.Fatalf("settings vat_number %q", v)
	}
	bare := b.write("POST", "customers", map[string]any{"name": "Kund AB", "customer_type": "swedish_business",
		"email": "ekonomi@kund.se"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(bare, nil)).status(t, 201).str("data.id") // 12 500 kr
	full := `["company.address","customer.address"]`

	// The draft says what is missing before anyone issues it.
	detail := b.get(b.path("invoices/"+id), b.token).status(t, 200)
	if got := detail.raw("data.legal_content.missing"); got != full || detail.at("data.legal_content.complete") != false ||
		detail.at("data.legal_content.simplified") != false || !strings.Contains(detail.str("data.legal_content.rule"), "17 kap. 24 §") {
		t.Fatalf("legal_content: %s", detail.raw("data.legal_content"))
	}
	// The draft's PDF says so too.
	if text := pdfText(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf")); !strings.Contains(text, "Uppgifter som krävs saknas") ||
		!strings.Contains(text, "säljarens adress") || !strings.Contains(text, "köparens adress") {
		t.Errorf("the draft's PDF does not say what is missing:\n%s", text)
	}
	// The dry run refuses as the issue does; neither takes a number.
	for _, path := range []string{"invoices/" + id + "/mark-sent?dry_run=true", "invoices/" + id + "/mark-sent",
		"invoices/" + id + "/send"} {
		r := b.write("POST", path, nil).errorCode(t, 400, "INVOICE_LEGAL_CONTENT_MISSING")
		if got := r.raw("error.details.missing"); got != full || !strings.Contains(r.str("error.details.rule"), "17 kap. 24 §") {
			t.Errorf("%s: %s", path, r.Body)
		}
	}
	bulk := b.write("POST", "invoices/bulk-book", map[string]any{"invoice_ids": []string{id}}).status(t, 200)
	if bulk.str("data.results.0.error_code") != "INVOICE_LEGAL_CONTENT_MISSING" {
		t.Errorf("bulk-book: %s", bulk.Body)
	}
	if s := b.get(b.path("invoices/"+id), b.token).status(t, 200); s.str("data.status") != "draft" || s.at("data.invoice_number") != nil {
		t.Fatalf("refused, yet changed: %s", s.Body)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("%d verifikat posted by refused issues", n)
	}

	// Each item, once given, leaves the list.
	b.write("PATCH", "settings", map[string]any{"address_line1": "Storgatan 1", "postal_code": "111 22", "city": "Stockholm"}).status(t, 200)
	if got := b.write("POST", "invoices/"+id+"/mark-sent", nil).errorCode(t, 400, "INVOICE_LEGAL_CONTENT_MISSING").
		raw("error.details.missing"); got != `["customer.address"]` {
		t.Fatalf("missing %s", got)
	}
	// A Swedish address needs its postal code.
	b.write("PATCH", "customers/"+bare, map[string]any{"address_line1": "Kundvägen 7", "city": "Göteborg"}).status(t, 200)
	if got := b.get(b.path("invoices/"+id), b.token).status(t, 200).raw("data.legal_content.missing"); got != `["customer.address"]` {
		t.Fatalf("without a postal code: %s", got)
	}
	b.write("PATCH", "customers/"+bare, map[string]any{"postal_code": "411 04"}).status(t, 200)
	if c := b.get(b.path("invoices/"+id), b.token).status(t, 200); c.raw("data.legal_content.missing") != `[]` ||
		c.at("data.legal_content.complete") != true {
		t.Fatalf("complete: %s", c.raw("data.legal_content"))
	}
	// Without the VAT number (here cleared in SQL: every door gives it
	// back) the invoice is refused naming it.
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_number = NULL WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	b.write("POST", "invoices/"+id+"/mark-sent", nil).errorCode(t, 400, "INVOICE_LEGAL_CONTENT_MISSING").
		hasRaw(t, "error.details.missing", `["company.vat_number"]`)
	// PATCH /settings takes it, checked; null gives back the derived one.
	b.write("PATCH", "settings", map[string]any{"vat_number": "SE556334368801"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "settings", map[string]any{"vat_number": "SE556036079301"}).errorCode(t, 400, "VALIDATION_ERROR")
	if v := b.write("PATCH", "settings", map[string]any{"vat_number": nil}).status(t, 200).str("data.vat_number"); v != "SE556334368901" {
		t.Fatalf("vat_number after null: %q", v)
	}

	sent := b.markSent(id).status(t, 200)
	if sent.str("data.invoice_number") != "1" {
		t.Fatalf("the refusals took numbers: %s", sent.Body)
	}
	if got := b.get(b.path("invoices/"+id), b.token).status(t, 200); got.at("data.legal_content") != nil {
		t.Errorf("an issued invoice carries legal_content: %s", got.raw("data.legal_content"))
	}
	text := pdfText(t, b.pdf(id, "faktura-1.pdf"))
	for _, want := range []string{"SE556334368901", "Storgatan 1", "111 22 Stockholm", "Kundvägen 7", "411 04 Göteborg",
		"Godkänd för F-skatt"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, text)
		}
	}
}

// A simplified invoice (17 kap. 29 §): at most 4 000 kr with VAT, it
// names the seller and what was sold, not the addresses.
func TestInvoiceLegalContentSimplified(t *testing.T) {
	t.Parallel()
	b := legalBooks(t)
	bare := b.write("POST", "customers", map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).
		status(t, 201).str("data.id")
	small := func(price float64) string {
		return b.createInvoice(map[string]any{"customer_id": bare, "invoice_date": "2026-03-01", "items": []any{
			map[string]any{"description": "Lunchföreläsning", "quantity": 1, "unit": "st", "unit_price": price}}}).
			status(t, 201).str("data.id")
	}
	// 3 200 kr + 25 % = 4 000 kr: the limit itself.
	at := small(3200)
	d := b.get(b.path("invoices/"+at), b.token).status(t, 200)
	if d.at("data.total") != 4000.0 || d.at("data.legal_content.simplified") != true || d.at("data.legal_content.complete") != true ||
		!strings.Contains(d.str("data.legal_content.rule"), "17 kap. 29 §") {
		t.Fatalf("legal_content at 4 000 kr: %s", d.Body)
	}
	b.markSent(at).status(t, 200)
	// 3 200,01 kr + 25 % = 4 000,01 kr (VAT 800,00 rounded): a full invoice.
	over := small(3200.01)
	r := b.write("POST", "invoices/"+over+"/mark-sent", nil).errorCode(t, 400, "INVOICE_LEGAL_CONTENT_MISSING")
	if r.raw("error.details.missing") != `["company.address","customer.address"]` || r.at("error.details.simplified") != false {
		t.Fatalf("above the limit: %s", r.Body)
	}
}

// hasRaw asserts the JSON at path is want, compact.
func (r *response) hasRaw(t *testing.T, path, want string) *response {
	t.Helper()
	if got := r.raw(path); got != want {
		t.Fatalf("%s is %s, want %s\n%s", path, got, want, clip(r.Body))
	}
	return r
}

// raw is the JSON at path, compact; "null" when there is nothing.
func (r *response) raw(path string) string {
	b, _ := json.Marshal(r.at(path))
	return string(b)
}
