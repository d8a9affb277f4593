package tests

import (
	"strings"
	"testing"
)

// An EU business whose VAT number VIES has not validated (no VIES here):
// left to itself the invoice charges Swedish VAT with a warning; asked for
// reverse charge in so many words it gets it, records that the number was
// not validated, and the EU sales list reports the sale with a warning.
// Without the number the draft says what is missing and is not issued.
func TestInvoiceReverseChargeUnvalidated(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.vatQuarterly()
	eu := b.createCustomer(map[string]any{"name": "Müller GmbH", "customer_type": "eu_business", "country": "DE",
		"vat_number": "DE123456789"}).status(t, 201)
	if eu.at("data.vat_number_validated") != false {
		t.Fatalf("validated without VIES: %s", eu.Body)
	}
	customer := eu.str("data.id")
	item := []any{map[string]any{"description": "Rådgivning", "quantity": 10, "unit": "tim", "unit_price": 1000}}
	swedish := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01", "items": item}).status(t, 201)
	if swedish.str("data.vat_treatment") != "standard" || swedish.str("meta.warnings.0.code") != "EU_BUSINESS_VAT_NUMBER_NOT_VALIDATED" ||
		swedish.at("data.buyer_vat_number_validated") != nil {
		t.Fatalf("the default: %s", swedish.Body)
	}
	asked := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01", "items": item,
		"vat_treatment": "reverse_charge"}).status(t, 201)
	if asked.str("data.vat_treatment") != "eu_services" || asked.at("data.buyer_vat_number_validated") != false ||
		asked.str("meta.warnings.0.code") != "REVERSE_CHARGE_VAT_NUMBER_NOT_VALIDATED" || asked.at("data.vat_amount") != 0.0 {
		t.Fatalf("reverse charge asked for: %s", asked.Body)
	}
	id := asked.str("data.id")
	sent := b.markSent(id).status(t, 200)
	if lines(sent, "data.verifikat_lines") != "D 1510 10000.00, C 3308 10000.00" {
		t.Fatalf("issued: %s", sent.Body)
	}
	if got := b.get(b.path("invoices/"+id), b.token).status(t, 200); got.at("data.buyer_vat_number_validated") != false {
		t.Fatalf("the detail: %s", got.Body)
	}
	// Issued, the record stands.
	if _, err := b.db.Exec(`UPDATE invoices SET buyer_vat_number_validated = true WHERE company_id = $1 AND id = $2`,
		b.company, id); err == nil {
		t.Fatal("an issued invoice's buyer_vat_number_validated was changed")
	}
	list := b.get(b.path("reports/periodisk-sammanstallning?period_type=quarterly&year=2026&period=1"), b.token).status(t, 200)
	if list.str("data.rows.0.buyer_vat_number") != "DE123456789" || list.at("data.rows.0.services") != 10000.0 ||
		list.str("data.warnings.0.code") != "BUYER_VAT_NUMBER_NOT_VALIDATED" || list.str("data.warnings.0.invoice_ids.0") != id ||
		len(list.list("data.errors")) != 0 {
		t.Fatalf("EU sales list: %s", list.Body)
	}

	// The number gone since the draft was made: the draft says so, and
	// issuing it is refused naming it.
	draft := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-02", "items": item,
		"vat_treatment": "reverse_charge"}).status(t, 201).str("data.id")
	b.write("PATCH", "customers/"+customer, map[string]any{"vat_number": nil}).status(t, 200)
	if got := b.get(b.path("invoices/"+draft), b.token).status(t, 200).raw("data.legal_content.missing"); got != `["customer.vat_number"]` {
		t.Fatalf("legal_content: %s", got)
	}
	b.markSent(draft).errorCode(t, 400, "INVOICE_LEGAL_CONTENT_MISSING").hasRaw(t, "error.details.missing", `["customer.vat_number"]`)
	// And reverse charge is no longer to be had for it.
	b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-02", "items": item,
		"vat_treatment": "reverse_charge"}).errorCode(t, 400, "INVOICE_VAT_TREATMENT_BUYER_VAT_NUMBER_REQUIRED")
}

// Trepartshandel as the middle party: goods bought in Germany go straight
// to a Finnish buyer, who accounts for the VAT. 20 000 kr: D 1510 / C 3107
// (Kontera's account for ruta 38, taken into the chart), ruta 38 of the
// VAT return and the EU sales list's triangulation column, and the PDF
// says why there is no VAT.
func TestInvoiceTriangulation(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.vatQuarterly()
	fi := b.createCustomer(map[string]any{"name": "Oy Kauppa Ab", "customer_type": "eu_business", "country": "FI",
		"vat_number": "FI12345678"}).status(t, 201).str("data.id")
	if _, err := b.db.Exec(`UPDATE customers SET vat_number_validated = true WHERE company_id = $1 AND id = $2`, b.company, fi); err != nil {
		t.Fatal(err)
	}
	body := func(more map[string]any) map[string]any {
		return mergeMaps(map[string]any{"customer_id": fi, "invoice_date": "2026-03-10", "vat_treatment": "triangulation",
			"items": []any{map[string]any{"description": "Maskindelar", "quantity": 4, "unit": "st", "unit_price": 5000}}}, more)
	}
	b.createInvoice(body(nil)).errorCode(t, 400, "INVOICE_VAT_TREATMENT_DELIVERY_COUNTRY_REQUIRED")
	b.createInvoice(body(map[string]any{"delivery_country": "SE"})).errorCode(t, 400, "INVOICE_VAT_TREATMENT_DELIVERY_COUNTRY_MISMATCH")
	r := b.createInvoice(body(map[string]any{"delivery_country": "FI"})).status(t, 201)
	if r.str("data.vat_treatment") != "eu_triangulation" || r.at("data.vat_amount") != 0.0 || r.at("data.total") != 20000.0 ||
		r.at("data.buyer_vat_number_validated") != true {
		t.Fatalf("created: %s", r.Body)
	}
	id := r.str("data.id")
	sent := b.markSent(id).status(t, 200)
	if lines(sent, "data.verifikat_lines") != "D 1510 20000.00, C 3107 20000.00" {
		t.Fatalf("issued: %s", sent.Body)
	}
	ret := b.get(b.path("reports/vat-declaration?period_type=quarterly&year=2026&period=1"), b.token).status(t, 200)
	if got := boxes(ret, "data.rutor"); got["ruta38"] != 20000 || got["ruta35"] != 0 || got["ruta05"] != 0 {
		t.Fatalf("VAT return: %v", got)
	}
	list := b.get(b.path("reports/periodisk-sammanstallning?period_type=quarterly&year=2026&period=1"), b.token).status(t, 200)
	if list.str("data.rows.0.buyer_vat_number") != "FI12345678" || list.at("data.rows.0.triangulation") != 20000.0 ||
		list.at("data.rows.0.goods") != nil || list.at("data.totals.triangulation") != 20000.0 {
		t.Fatalf("EU sales list: %s", list.Body)
	}
	if text := pdfText(t, b.pdf(id, "faktura-1.pdf")); !strings.Contains(text, "trepartshandel") || !strings.Contains(text, "FI12345678") {
		t.Errorf("the PDF does not say why there is no VAT:\n%s", text)
	}
}
