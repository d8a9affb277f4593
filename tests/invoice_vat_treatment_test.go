package tests

import (
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
