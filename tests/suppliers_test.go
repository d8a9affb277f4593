package tests

import (
	"testing"
)

func TestSupplierCreateAndRules(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	body := map[string]any{"name": "Kontorsvaruhuset Sverige AB", "supplier_type": "swedish_business", "org_number": "5560000167",
		"vat_number": "se 5560000167 01", "bankgiro": "5050 1055", "plusgiro": "123-4", "iban": "SE45 5000 0000 0583 9825 7466",
		"bic": "ESSESESS", "clearing_number": "8327-9", "account_number": "123 456 789-0", "bank_account": "8327-9, 123 456 789-0",
		"default_expense_account": "5460"}
	r := b.write("POST", "suppliers", body).status(t, 201)
	id := r.str("data.id")
	// Payment details and VAT number stay exactly as supplied.
	for f, want := range map[string]string{"org_number": "556000-0167", "vat_number": "se 5560000167 01", "bankgiro": "5050 1055",
		"plusgiro": "123-4", "iban": "SE45 5000 0000 0583 9825 7466", "clearing_number": "8327-9", "account_number": "123 456 789-0",
		"default_currency": "SEK", "default_expense_account": "5460", "country": "SE"} {
		if got := r.str("data." + f); got != want {
			t.Errorf("%s = %q, want %q", f, got, want)
		}
	}
	if r.at("data.default_payment_terms") != 30.0 {
		t.Fatalf("terms: %s", r.Body)
	}
	if _, ok := r.JSON["data"].(map[string]any)["vat_number_validated"]; ok {
		t.Fatal("a supplier has no vat_number_validated")
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'supplier.created'`, b.company); n != 1 {
		t.Fatalf("%d supplier.created events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'suppliers'`, b.company); n != 1 {
		t.Fatalf("%d audit rows", n)
	}

	b.write("POST", "suppliers", map[string]any{"name": "Dubblett AB", "supplier_type": "swedish_business", "org_number": "556000-0167"}).
		errorCode(t, 409, "SUPPLIER_DUPLICATE_ORG_NUMBER")
	b.write("POST", "suppliers", map[string]any{"name": "Privat", "supplier_type": "individual"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "suppliers", map[string]any{"name": "Fel valuta", "supplier_type": "eu_business", "default_currency": "SEKK"}).
		errorCode(t, 400, "VALIDATION_ERROR")
	// An account neither the chart nor BAS has is refused; a BAS account
	// the chart lacks is added to it, as a verifikat's line would add it.
	r2 := b.write("POST", "suppliers", map[string]any{"name": "Konto saknas AB", "supplier_type": "swedish_business", "default_expense_account": "6251"})
	r2.errorCode(t, 400, "VALIDATION_ERROR")
	if n := b.count(`SELECT count(*) FROM accounts WHERE company_id = $1 AND account_number = '6999'`, b.company); n != 0 {
		t.Fatal("6999 is in the seeded chart: pick another BAS account the chart lacks")
	}
	bas := b.write("POST", "suppliers", map[string]any{"name": "Övrigt AB", "supplier_type": "swedish_business", "default_expense_account": "6999"})
	if bas.status(t, 201).str("data.default_expense_account") != "6999" ||
		b.count(`SELECT count(*) FROM accounts WHERE company_id = $1 AND account_number = '6999' AND is_active`, b.company) != 1 ||
		b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'accounts' AND record_id LIKE '%6999%'`, b.company) == 0 {
		t.Fatalf("a BAS account the chart lacked: %s", bas.Body)
	}
	if got := r2.issueFields(); len(got) != 1 || got[0] != "body:default_expense_account:chart" {
		t.Fatalf("issues %v", got)
	}
	b.write("POST", "suppliers", map[string]any{"name": "Fel nummer AB", "supplier_type": "swedish_business", "org_number": "556000-0168"}).
		errorCode(t, 400, "VALIDATION_ERROR")
	eu := b.write("POST", "suppliers", map[string]any{"name": "Lieferant GmbH", "supplier_type": "eu_business", "country": "de",
		"vat_number": "DE999999999", "default_currency": "EUR", "default_payment_terms": 14}).status(t, 201)
	if eu.str("data.default_currency") != "EUR" || eu.str("data.country") != "DE" || eu.at("data.default_payment_terms") != 14.0 {
		t.Fatalf("eu supplier: %s", eu.Body)
	}

	// PATCH needs the key; a change of account is checked against the chart.
	b.do(req{Method: "PATCH", Path: b.path("suppliers/" + id), Token: b.token, Body: map[string]any{"notes": "x"}}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "suppliers/"+id, map[string]any{"default_expense_account": "6251"}).errorCode(t, 400, "VALIDATION_ERROR")
	p := b.write("PATCH", "suppliers/"+id, map[string]any{"default_expense_account": "6250", "default_currency": nil, "bic": nil}).status(t, 200)
	if p.str("data.default_expense_account") != "6250" || p.str("data.default_currency") != "SEK" || p.at("data.bic") != nil {
		t.Fatalf("patch: %s", p.Body)
	}
	d := b.do(req{Method: "PATCH", Path: b.path("suppliers/" + id + "?dry_run=true"), Token: b.token, Body: map[string]any{"name": "Nytt namn AB"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if d.at("data.dry_run") != true || d.str("data.preview.name") != "Nytt namn AB" {
		t.Fatalf("dry run: %s", d.Body)
	}
	if g := b.get(b.path("suppliers/"+id), b.token).status(t, 200); g.str("data.name") != "Kontorsvaruhuset Sverige AB" {
		t.Fatal("the dry run renamed")
	}
	other := b.key("annan@example.se", keySpec{})
	b.get(b.path("suppliers/"+id), other).errorCode(t, 404, "NOT_FOUND")
	b.get(b.path("suppliers/"+eu.str("data.party_id")), b.token).errorCode(t, 404, "SUPPLIER_NOT_FOUND")
	b.get(b.path("suppliers/"+id+"?expand=invoices"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	g := b.get(b.path("suppliers/"+id+"?expand=supplier_invoices"), b.token).status(t, 200)
	if l := g.list("data.supplier_invoices"); l == nil || len(l) != 0 {
		t.Fatalf("open supplier invoices: %s", g.Body)
	}
}

// A company that both buys from and sells to a business meets one party.
func TestPartySharedByCustomerAndSupplier(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	s := b.write("POST", "suppliers", map[string]any{"name": "Byggbolaget i Norrland AB", "supplier_type": "swedish_business", "org_number": "556334-3689"}).status(t, 201)
	c := b.createCustomer(map[string]any{"name": "Byggbolaget i Norrland AB", "customer_type": "swedish_business", "org_number": "5563343689"}).status(t, 201)
	if s.str("data.party_id") == "" || s.str("data.party_id") != c.str("data.party_id") {
		t.Fatalf("parties %q and %q", s.str("data.party_id"), c.str("data.party_id"))
	}
	g := b.get(b.path("suppliers/"+s.str("data.id")+"?expand=party"), b.token).status(t, 200)
	if g.str("data.party.roles.customer_id") != c.str("data.id") || g.str("data.party.roles.supplier_id") != s.str("data.id") {
		t.Fatalf("party: %s", g.Body)
	}
	// A foreign business without an organisation number is found by VAT number.
	f1 := b.write("POST", "suppliers", map[string]any{"name": "Muster GmbH", "supplier_type": "eu_business", "vat_number": "DE123456789"}).status(t, 201)
	f2 := b.createCustomer(map[string]any{"name": "Muster GmbH", "customer_type": "eu_business", "vat_number": "de 123 456 789"}).status(t, 201)
	if f1.str("data.party_id") != f2.str("data.party_id") {
		t.Fatal("one VAT number, two parties")
	}
}

func TestSupplierArchiveAndBulk(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	r := b.write("POST", "suppliers/bulk-create", map[string]any{"suppliers": []any{
		map[string]any{"name": "Ett AB", "supplier_type": "swedish_business", "org_number": orgNumber(1)},
		map[string]any{"name": "Två AB", "supplier_type": "swedish_business", "org_number": orgNumber(1)},
		map[string]any{"name": "Tre AB", "supplier_type": "swedish_business", "default_expense_account": "0000"},
	}}).status(t, 200)
	if r.at("data.summary.succeeded") != 1.0 || r.str("data.results.1.error.code") != "SUPPLIER_DUPLICATE_ORG_NUMBER" ||
		r.str("data.results.2.error.code") != "VALIDATION_ERROR" {
		t.Fatalf("bulk: %s", r.Body)
	}
	b.write("POST", "suppliers/bulk-create", map[string]any{"suppliers": []any{map[string]any{"name": "X", "supplier_type": "eu_business"}},
		"all_or_nothing": true}).errorCode(t, 501, "NOT_IMPLEMENTED")
	id := r.str("data.results.0.data.id")
	b.write("DELETE", "suppliers/"+id, nil).status(t, 204)
	b.write("DELETE", "suppliers/"+id, nil).status(t, 204)
	if n := len(b.get(b.path("suppliers"), b.token).status(t, 200).list("data")); n != 0 {
		t.Fatalf("%d listed after archive", n)
	}
	l := b.get(b.path("suppliers?include_archived=true&supplier_type=swedish_business&search=ett"), b.token).status(t, 200)
	if len(l.list("data")) != 1 || l.str("data.0.archived_at") == "" {
		t.Fatalf("archived list: %s", l.Body)
	}
	p := b.write("PATCH", "suppliers/"+id, map[string]any{"archived_at": nil}).status(t, 200)
	if p.at("data.archived_at") != nil {
		t.Fatalf("un-archive: %s", p.Body)
	}
}
