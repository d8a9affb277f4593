package tests

import (
	"testing"
	"time"
)

// rotBooks turns ROT and RUT on and adds a private customer with a
// personnummer, answering its id.
func (b *partiesBooks) rotCustomer() string {
	b.t.Helper()
	b.write("PATCH", "settings/tax-profile", map[string]any{"rot_rut_enabled": true}).status(b.t, 200)
	return b.createCustomer(map[string]any{"name": "Eva Svensson", "customer_type": "individual",
		"personal_number": "811218-9876"}).status(b.t, 201).str("data.id")
}

// renovation is a ROT invoice: 10 000 of labour (40 hours) and 4 000 of
// material, both + 25 %, in a home with a property designation.
func renovation(customer string, more map[string]any) map[string]any {
	return mergeMaps(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01",
		"deduction_housing_designation": "UPPSALA KUNGSÄNGEN 1:2",
		"items": []any{
			map[string]any{"description": "Snickeri", "quantity": 40, "unit": "tim", "unit_price": 250,
				"deduction_type": "rot", "labor_hours": 40, "work_type": "BYGG"},
			map[string]any{"description": "Virke", "quantity": 1, "unit": "st", "unit_price": 4000}}}, more)
}

// ROT on 10 000 of labour and 4 000 of material, + 25 %: Skatteverket
// pays 30 % of the labour with VAT, 12 500 × 0.30 = 3 750; the customer
// 17 500 − 3 750 = 13 750. Issued: D 1510 13 750, D 1513 3 750 / C 3001
// 14 000, C 2611 3 500. The customer's payment settles 1510, Skatteverket's
// payout 1513 (on skattekontot, 1630).
func TestInvoiceROT(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	customer := b.rotCustomer()
	c := b.createInvoice(renovation(customer, nil)).status(t, 201)
	if c.at("data.total") != 17500.0 || c.at("data.deduction_total") != 3750.0 || c.at("data.rot_deduction") != 3750.0 ||
		c.at("data.remaining_amount") != 13750.0 || c.str("data.deduction_housing_designation") != "UPPSALA KUNGSÄNGEN 1:2" ||
		c.str("data.items.0.deduction_type") != "rot" || c.at("data.items.0.labor_hours") != 40.0 {
		t.Fatalf("created: %s", c.Body)
	}
	id := c.str("data.id")
	s := b.markSent(id).status(t, 200)
	if got := lines(s, "data.verifikat_lines"); got != "D 1510 13750.00, D 1513 3750.00, C 3001 14000.00, C 2611 3500.00" {
		t.Fatalf("issued: %s", got)
	}
	p := b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	if lines(p, "data.verifikat_lines") != "D 1930 13750.00, C 1510 13750.00" || p.str("data.status") != "paid" {
		t.Fatalf("the customer's part: %s", p.Body)
	}
	b.markPaid(id, map[string]any{"rot_rut_payout": true, "amount": 3750.01}).errorCode(t, 400, "VALIDATION_ERROR")
	o := b.markPaid(id, map[string]any{"rot_rut_payout": true, "payment_date": "2026-04-10"}).status(t, 200)
	if lines(o, "data.verifikat_lines") != "D 1630 3750.00, C 1513 3750.00" || o.at("data.paid_amount") != 13750.0 {
		t.Fatalf("payout: %s", o.Body)
	}
	je := b.get(b.path("journal-entries/"+o.str("data.journal_entry_id")), b.token).status(t, 200)
	if je.str("data.source_type") != "rot_rut_payout" {
		t.Fatalf("its verifikat: %s", je.Body)
	}
	if e := b.markPaid(id, map[string]any{"rot_rut_payout": true}).errorCode(t, 409, "CONFLICT"); e.str("error.details.reason") != "rot_rut_paid_out" {
		t.Fatalf("paid out twice: %s", e.Body)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'invoice.paid'`, b.company); n != 1 {
		t.Errorf("%d invoice.paid events", n)
	}
	b.credit(id, map[string]any{}).errorCode(t, 409, "CONFLICT")

	// Unpaid and credited: the claim on Skatteverket goes with the sale.
	other := b.createInvoice(renovation(customer, nil)).status(t, 201).str("data.id")
	b.markSent(other).status(t, 200)
	r := b.credit(other, map[string]any{}).status(t, 200)
	if got := lines(r, "data.verifikat_lines"); got != "C 1510 13750.00, C 1513 3750.00, D 3001 14000.00, D 2611 3500.00" {
		t.Fatalf("credited: %s", got)
	}
	if b.receivables() != 0 {
		t.Fatalf("1510 stands at %d", b.receivables())
	}
}

// Kontantmetoden: the customer's 13 750 books its share of the sale, the
// payout the rest; together the whole sale.
func TestInvoiceROTCashMethod(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.rotCustomer()
	id := b.createInvoice(renovation(customer, nil)).status(t, 201).str("data.id")
	b.markSent(id).status(t, 200)
	p := b.markPaid(id, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	// 13 750 of 17 500: 11 000 of the 14 000, 2 750 of the 3 500.
	if got := lines(p, "data.verifikat_lines"); got != "D 1930 13750.00, C 3001 11000.00, C 2611 2750.00" {
		t.Fatalf("the customer's part: %s", got)
	}
	o := b.markPaid(id, map[string]any{"rot_rut_payout": true, "payment_account": "1930"}).status(t, 200)
	if got := lines(o, "data.verifikat_lines"); got != "D 1930 3750.00, C 3001 3000.00, C 2611 750.00" {
		t.Fatalf("payout: %s", got)
	}
}

// The rules of ROT and RUT, each refused naming its field, nothing stored.
func TestInvoiceROTRefuses(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	business := b.createCustomer(map[string]any{"name": "Bolaget AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	b.createInvoice(renovation(business, nil)).errorCode(t, 400, "INVOICE_CREATE_ROT_RUT_VALIDATION") // turned off
	customer := b.rotCustomer()
	nobody := b.createCustomer(map[string]any{"name": "Utan Nummer", "customer_type": "individual"}).status(t, 201).str("data.id")
	before := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company)
	for name, c := range map[string]struct {
		body         map[string]any
		status       int
		code, fields string
	}{
		"a business":      {renovation(business, nil), 400, "INVOICE_CREATE_ROT_RUT_VALIDATION", "customer_id"},
		"no personnummer": {renovation(nobody, nil), 404, "CUSTOMER_NO_PERSONAL_NUMBER", "customer_id"},
		"no home": {renovation(customer, map[string]any{"deduction_housing_designation": nil}), 400,
			"INVOICE_CREATE_ROT_RUT_VALIDATION", "deduction_housing_designation"},
		"no hours": {renovation(customer, map[string]any{"items": []any{map[string]any{"description": "Städ", "quantity": 1,
			"unit": "st", "unit_price": 500, "deduction_type": "rut"}}}), 400, "INVOICE_CREATE_ROT_RUT_VALIDATION", "items.0.labor_hours"},
		"hours alone": {consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Städ", "quantity": 1,
			"unit": "st", "unit_price": 500, "labor_hours": 2}}}), 400, "INVOICE_CREATE_ROT_RUT_VALIDATION", "items.0.deduction_type"},
		"in euro": {renovation(customer, map[string]any{"currency": "EUR", "exchange_rate": 11}), 400,
			"INVOICE_CREATE_ROT_RUT_VALIDATION", "currency"},
		"home without work": {consulting(customer, map[string]any{"deduction_housing_designation": "X 1:1"}), 400,
			"INVOICE_CREATE_ROT_RUT_VALIDATION", "deduction_housing_designation"},
		"grön teknik": {renovation(customer, map[string]any{"items": []any{map[string]any{"description": "Solceller",
			"quantity": 1, "unit": "st", "unit_price": 500, "deduction_type": "gron_teknik", "labor_hours": 1}}}), 400,
			"VALIDATION_ERROR", ""},
	} {
		e := b.createInvoice(c.body).errorCode(t, c.status, c.code)
		if c.fields != "" && e.str("error.details.field") != c.fields {
			t.Errorf("%s: %s", name, e.Body)
		}
	}
	if n := b.count(`SELECT count(*) FROM invoices WHERE company_id = $1`, b.company); n != before {
		t.Fatalf("refused drafts were stored")
	}
	// A housing association and the apartment name the home as well.
	r := b.createInvoice(renovation(customer, map[string]any{"deduction_housing_designation": nil,
		"deduction_brf_org_number": "769600-1234", "deduction_apartment_number": "1102"})).status(t, 201)
	if r.str("data.deduction_brf_org_number") != "769600-1234" {
		t.Fatalf("brf: %s", r.Body)
	}
	// RUT is 50 %: 1 000 + 25 % of cleaning gives 625.
	r = b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Städ",
		"quantity": 4, "unit": "tim", "unit_price": 250, "deduction_type": "rut", "labor_hours": 4}}})).status(t, 201)
	if r.at("data.deduction_total") != 625.0 || r.at("data.rot_deduction") != 0.0 || r.at("data.remaining_amount") != 625.0 {
		t.Fatalf("RUT: %s", r.Body)
	}
}

// The yearly ceilings warn, never fail: 50 000 of ROT per person.
func TestInvoiceROTCeiling(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	customer := b.rotCustomer()
	big := renovation(customer, map[string]any{"items": []any{map[string]any{"description": "Tak", "quantity": 400,
		"unit": "tim", "unit_price": 400, "deduction_type": "rot", "labor_hours": 400}}})
	// 160 000 + 25 % = 200 000; 30 % is 60 000: past 50 000 on its own.
	r := b.createInvoice(big).status(t, 201)
	if r.at("data.rot_deduction") != 60000.0 || !hasWarning(r, "ROT_CEILING_EXCEEDED") || hasWarning(r, "ROT_RUT_CEILING_EXCEEDED") {
		t.Fatalf("one big invoice: %s", r.Body)
	}
	b.markSent(r.str("data.id")).status(t, 200)
	small := b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Städ",
		"quantity": 100, "unit": "tim", "unit_price": 200, "deduction_type": "rut", "labor_hours": 100}}})).status(t, 201)
	// RUT 12 500 + the 60 000 already: 72 500, under 75 000.
	if hasWarning(small, "ROT_RUT_CEILING_EXCEEDED") {
		t.Fatalf("under the ceiling: %s", small.Body)
	}
	more := b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Städ",
		"quantity": 200, "unit": "tim", "unit_price": 200, "deduction_type": "rut", "labor_hours": 200}}})).status(t, 201)
	if !hasWarning(more, "ROT_RUT_CEILING_EXCEEDED") {
		t.Fatalf("over 75 000: %s", more.Body)
	}
}

// Skatteverket's payout in parts: the same part on the same day again
// looks like the first and waits for force; the customer's payment of the
// same amount that day is another kind and passes.
func TestInvoiceROTPayoutLookalike(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	id := b.createInvoice(renovation(b.rotCustomer(), nil)).status(t, 201).str("data.id")
	b.markSent(id).status(t, 200)
	part := map[string]any{"rot_rut_payout": true, "amount": 1000, "payment_date": "2026-04-10"}
	b.markPaid(id, part).status(t, 200)
	if e := b.markPaid(id, part).errorCode(t, 409, "INVOICE_PAID_LIKELY_DUPLICATE"); e.str("error.details.existing_payment_id") == "" {
		t.Fatalf("a lookalike payout: %s", e.Body)
	}
	b.markPaid(id, map[string]any{"amount": 1000, "payment_date": "2026-04-10"}).status(t, 200)
	if o := b.markPaid(id, mergeMaps(part, map[string]any{"force": true})).status(t, 200); o.at("data.paid_amount") != 1000.0 {
		t.Fatalf("forced: %s", o.Body)
	}
}
