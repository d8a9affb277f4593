package tests

import (
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/auth"
)

// Cash accounts: the ledger account each gets (the currency's default,
// then the next free slot, added to the chart), the primary, the rules
// and codes, owners and admins only, and the payee invoices print.
func TestCashAccounts(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	if got := b.get(b.path("cash-accounts"), b.token).status(t, 200).list("data.cash_accounts"); len(got) != 0 {
		t.Fatalf("a new company has cash accounts: %v", got)
	}
	sek := map[string]any{"name": "Företagskonto", "currency": "SEK", "iban": "SE45 5000 0000 0583 9825 7466"}

	// A dry run stores nothing, in the chart neither.
	dry := b.do(req{Method: "POST", Path: b.path("cash-accounts?dry_run=true"), Token: b.token, Body: sek}).status(t, 200)
	if dry.at("data.preview.cash_account_id") != nil || dry.at("data.preview.ledger_account") != "1930" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM cash_accounts`); n != 0 {
		t.Fatal("a dry run stored a cash account")
	}

	first := b.write("POST", "cash-accounts", sek).status(t, 201)
	if first.at("data.ledger_account") != "1930" || first.at("data.is_primary") != true || first.at("data.source") != "manual" ||
		first.at("data.iban") != "SE4550000000058398257466" || first.at("data.invoice_payee") != true || first.at("data.balance") != nil {
		t.Fatalf("first account: %s", first.Body)
	}
	eur := b.write("POST", "cash-accounts", map[string]any{"name": "Valutakonto", "currency": "EUR",
		"payee": map[string]any{"bank_name": "SEB", "iban": "SE4550000000058398257466", "bic": "ESSESESS"}}).status(t, 201)
	if eur.at("data.ledger_account") != "1932" || eur.at("data.is_primary") != false || eur.at("data.payee.bic") != "ESSESESS" {
		t.Fatalf("EUR account: %s", eur.Body)
	}
	second := b.write("POST", "cash-accounts", map[string]any{"name": "Sparkonto", "currency": "SEK"}).status(t, 201)
	if second.at("data.ledger_account") != "1931" {
		t.Fatalf("a second SEK account on %v, want 1931", second.at("data.ledger_account"))
	}
	for _, a := range []string{"1931", "1932"} {
		if b.count(`SELECT count(*) FROM accounts WHERE company_id = $1 AND account_number = $2 AND is_active`, b.company, a) != 1 {
			t.Fatalf("%s was not added to the chart", a)
		}
	}

	// The rules, each its code; nothing is stored.
	b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "SEK", "ledger_account": "1930"}).
		errorCode(t, 409, "CASH_ACCOUNT_LEDGER_TAKEN")
	b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "SEK", "ledger_account": "1915"}).
		errorCode(t, 400, "VALIDATION_ERROR")
	dup := b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "SEK", "iban": "SE4550000000058398257466"})
	dup.errorCode(t, 409, "CASH_ACCOUNT_IBAN_DUPLICATE")
	if dup.at("error.details.cash_account_id") != first.str("data.cash_account_id") {
		t.Fatalf("duplicate IBAN: %s", dup.Body)
	}
	b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "SEK", "iban": "SE4550000000058398257467"}).
		errorCode(t, 400, "VALIDATION_ERROR")
	bad := b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "NOK", "payee": map[string]any{"bankgiro": "5050-1056"}})
	bad.errorCode(t, 400, "VALIDATION_ERROR")
	if f := bad.issueFields(); len(f) != 1 || !strings.Contains(f[0], "payee.bankgiro") {
		t.Fatalf("a bad bankgiro: %v", f)
	}
	b.write("POST", "cash-accounts", map[string]any{"name": "X", "currency": "JPY"}).errorCode(t, 400, "VALIDATION_ERROR")
	if n := b.count(`SELECT count(*) FROM cash_accounts`); n != 3 {
		t.Fatalf("%d cash accounts after the refusals", n)
	}

	// Owners and admins only.
	b.member(b.company, "medarbetare@example.se", auth.Member, false)
	member := b.key("medarbetare@example.se", keySpec{})
	b.do(req{Method: "POST", Path: b.path("cash-accounts"), Token: member, Body: map[string]any{"name": "X", "currency": "SEK"}}).
		errorCode(t, 403, "FORBIDDEN")
	b.get(b.path("cash-accounts"), member).status(t, 200)

	// The primary moves; the primary cannot be disabled, a disabled one
	// cannot become primary; enabled_only leaves disabled ones out.
	eurID, secondID := eur.str("data.cash_account_id"), second.str("data.cash_account_id")
	if p := b.write("POST", "cash-accounts/"+eurID+"/set-primary", nil).status(t, 200); p.at("data.is_primary") != true {
		t.Fatalf("set-primary: %s", p.Body)
	}
	list := b.get(b.path("cash-accounts"), b.token).status(t, 200)
	if list.str("data.cash_accounts.0.cash_account_id") != eurID || list.at("data.cash_accounts.1.is_primary") != false {
		t.Fatalf("after set-primary: %s", list.Body)
	}
	b.write("PATCH", "cash-accounts/"+eurID, map[string]any{"enabled": false}).errorCode(t, 409, "CONFLICT")
	off := b.write("PATCH", "cash-accounts/"+secondID, map[string]any{"enabled": false, "voucher_series": "b",
		"name": "Sparkonto (stängt)"}).status(t, 200)
	if off.at("data.enabled") != false || off.at("data.voucher_series") != "B" || off.at("data.name") != "Sparkonto (stängt)" {
		t.Fatalf("patch: %s", off.Body)
	}
	b.write("POST", "cash-accounts/"+secondID+"/set-primary", nil).errorCode(t, 409, "CONFLICT")
	if got := b.get(b.path("cash-accounts?enabled_only=true"), b.token).list("data.cash_accounts"); len(got) != 2 {
		t.Fatalf("enabled_only: %d accounts", len(got))
	}
	b.write("PATCH", "cash-accounts/"+secondID, map[string]any{"ledger_account": "1940"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "cash-accounts/"+secondID, map[string]any{"voucher_series": nil}).status(t, 200)
	b.write("PATCH", "cash-accounts/00000000-0000-4000-8000-000000000000", map[string]any{"name": "X"}).
		errorCode(t, 404, "CASH_ACCOUNT_NOT_FOUND")

	// Payee defaults: an enabled account of the currency; null goes back.
	b.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "SEK", "cash_account_id": eurID}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "SEK", "cash_account_id": secondID}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "EUR", "cash_account_id": eurID}).status(t, 200)
	if d := b.get(b.path("cash-accounts"), b.token).at("data.payee_defaults.EUR"); d != eurID {
		t.Fatalf("payee default: %v", d)
	}
	b.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "SEK", "cash_account_id": nil}).status(t, 200)
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE table_name IN ('cash_accounts', 'cash_account_payees')`); n != 8 {
		t.Fatalf("%d audit rows, want 8 (3 created, 1 primary, 2 patched, 2 payee defaults)", n)
	}
}

// An invoice in a currency whose payee default is a cash account prints
// that account's payment details.
func TestInvoicePrintsThePayeeDefault(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.write("PATCH", "settings", map[string]any{"bankgiro": "5050-1055"}).status(t, 200)
	eur := b.write("POST", "cash-accounts", map[string]any{"name": "Valutakonto", "currency": "EUR",
		"payee": map[string]any{"bank_name": "Nordea", "iban": "SE3550000000054910000003", "bic": "NDEASESS"}}).
		status(t, 201).str("data.cash_account_id")
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"currency": "EUR", "exchange_rate": 11.2})).status(t, 201).str("data.id")
	before := pdfText(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf"))
	if strings.Contains(before, "NDEASESS") {
		t.Fatal("the cash account's details printed before it was chosen")
	}
	b.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "EUR", "cash_account_id": eur}).status(t, 200)
	after := pdfText(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf"))
	if !strings.Contains(after, "NDEASESS") || !strings.Contains(strings.ReplaceAll(after, " ", ""), "SE3550000000054910000003") {
		t.Fatalf("the invoice does not print the payee default:\n%s", after)
	}
}
