package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/identifier"
)

// A payment file for five invoices (kontantmetoden, so an unpaid invoice
// has no verifikat and could be deleted but for its batch): to a
// bankgiro with an OCR reference, a plusgiro, a German IBAN in euro, a
// Swedish bank account, and a second bankgiro invoice; paid from the
// company's account by its IBAN. The file validates against the
// pain.001.001.03 schema; the invoices are reserved until the batch is
// cancelled; an invoice not approved, or of a supplier with no account,
// is refused naming it.
func TestSupplierPaymentFile(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	cash := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK",
		"iban": "SE4550000000058398257466"}).status(t, 201).str("data.cash_account_id")
	ocr, invoices, bg := fivePayables(t, b)
	none := b.supplier("Kontolösa AB")
	ids := make([]any, len(invoices))
	for i, id := range invoices {
		ids[i] = id
	}
	body := map[string]any{"supplier_invoice_ids": ids, "payment_date": "2026-03-25", "cash_account_id": cash}

	preview := b.write("POST", "supplier-payment-batches/preview", body).status(t, 200)
	if preview.at("data.batch.payment_count") != 5.0 || !strings.Contains(preview.str("data.file"), "<Ref>"+ocr+"</Ref>") {
		t.Fatalf("preview: %s", preview.Body)
	}
	if n := b.count(`SELECT count(*) FROM supplier_payment_batches WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("a preview stored %d", n)
	}
	made := b.write("POST", "supplier-payment-batches", body).status(t, 201)
	batch := made.str("data.id")
	if got := made.list("data.totals"); len(got) != 2 || made.at("data.totals.0.currency") != "EUR" || made.at("data.totals.0.amount") != 1980.0 ||
		made.at("data.totals.1.amount") != 25500.5 { // 12 500 + 3 750.50 + 8 000 + 1 250
		t.Fatalf("totals: %s", made.Body)
	}
	if made.str("data.payments.0.reference") != ocr || made.str("data.payments.1.reference") != "Faktura 2231" {
		t.Fatalf("references: %s", made.Body)
	}
	file := b.do(req{Method: "GET", Path: b.path("supplier-payment-batches/" + batch + "/file"), Token: b.token}).status(t, 200)
	if !strings.HasPrefix(file.Header.Get("Content-Type"), "application/xml") ||
		!strings.Contains(file.Header.Get("Content-Disposition"), "betalfil-") {
		t.Fatalf("file headers: %v", file.Header)
	}
	validatePain001(t, []byte(file.Body))

	// Reserved: not in a second batch, not deleted.
	r := b.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": ids[:1], "payment_date": "2026-03-26",
		"cash_account_id": cash}).errorCode(t, 409, "PAYMENT_BATCH_INVOICE_RESERVED")
	if r.str("error.details.batch_id") != batch {
		t.Fatalf("reserved: %s", r.Body)
	}
	if r := b.write("DELETE", "supplier-invoices/"+invoices[4], nil).errorCode(t, 409, "SI_DELETE_IN_PAYMENT_BATCH"); r.str("error.details.batch_id") != batch {
		t.Fatalf("delete: %s", r.Body)
	}
	// Not approved; no account: refused, naming the invoice.
	loose := b.supplierInvoice(bg, "88125", 99, nil)
	r = b.write("POST", "supplier-payment-batches/preview", map[string]any{"supplier_invoice_ids": []any{loose},
		"payment_date": "2026-03-26", "cash_account_id": cash}).errorCode(t, 409, "PAYMENT_BATCH_INVOICE_NOT_PAYABLE")
	if r.str("error.details.reason") != "not_approved" || r.at("error.details.index") != 0.0 {
		t.Fatalf("not approved: %s", r.Body)
	}
	orphan := b.supplierInvoice(none, "1", 99, nil)
	b.write("POST", "supplier-invoices/"+orphan+"/approve", nil).status(t, 200)
	if r := b.write("POST", "supplier-payment-batches/preview", map[string]any{"supplier_invoice_ids": []any{orphan},
		"payment_date": "2026-03-26", "cash_account_id": cash}).errorCode(t, 409, "PAYMENT_BATCH_INVOICE_NOT_PAYABLE"); r.str("error.details.reason") != "no_account" {
		t.Fatalf("no account: %s", r.Body)
	}
	refusedByTheBooks(t, b.db, "a batch's file changed", `UPDATE supplier_payment_batches SET file = 'x' WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "a batch removed", `DELETE FROM supplier_payment_batch_items WHERE company_id = $1`, b.company)

	// Cancelled, the invoices are free again; once.
	if c := b.write("POST", "supplier-payment-batches/"+batch+"/cancel", nil).status(t, 200); c.str("data.status") != "cancelled" {
		t.Fatalf("cancel: %s", c.Body)
	}
	b.write("POST", "supplier-payment-batches/"+batch+"/cancel", nil).errorCode(t, 409, "PAYMENT_BATCH_CANCELLED")
	b.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": ids[:1], "payment_date": "2026-03-26",
		"cash_account_id": cash}).status(t, 201)
	if l := b.get(b.path("supplier-payment-batches"), b.token).status(t, 200); len(l.list("data.supplier_payment_batches")) != 2 {
		t.Fatalf("list: %s", l.Body)
	}
}

// fivePayables registers and approves the five invoices: to a
// bankgiro with an OCR reference (answered), a plusgiro, a German IBAN in
// euro at 11.45, a Swedish bank account, and the bankgiro (answered) again.
func fivePayables(t *testing.T, b *partiesBooks) (string, []string, string) {
	t.Helper()
	supplier := func(name string, more map[string]any) string {
		t.Helper()
		return b.write("POST", "suppliers", mergeMaps(map[string]any{"name": name, "supplier_type": "swedish_business"}, more)).
			status(t, 201).str("data.id")
	}
	bg := supplier("Kontorsgrossisten AB", map[string]any{"bankgiro": "5050-1055"})
	pg := supplier("Elfirman i Norr AB", map[string]any{"plusgiro": "4512345-2"})
	de := supplier("Maschinenbau GmbH", map[string]any{"supplier_type": "eu_business", "country": "DE",
		"iban": "DE89370400440532013000", "bic": "COBADEFFXXX", "default_currency": "EUR"})
	se := supplier("Revisorn Karin Ek", map[string]any{"clearing_number": "8327-9", "account_number": "9145678"})
	ocr, _ := identifier.OCR("46081423")
	invoices := []string{
		b.supplierInvoice(bg, "88123", 12500, map[string]any{"payment_reference": ocr}),
		b.supplierInvoice(pg, "2231", 3750.50, nil),
		b.supplierInvoice(de, "55-1021", 1980, map[string]any{"currency": "EUR", "exchange_rate": 11.45}),
		b.supplierInvoice(se, "17", 8000, nil),
		b.supplierInvoice(bg, "88124", 1250, nil),
	}
	for _, id := range invoices {
		b.write("POST", "supplier-invoices/"+id+"/approve", nil).status(t, 200)
	}
	return ocr, invoices, bg
}

// validatePain001 runs xmllint with the published schema over raw, read
// in place: skipped without it or xmllint, failed so under CI.
func validatePain001(t *testing.T, raw []byte) {
	t.Helper()
	const schema = "../../shared/data/iso20022/pain.001.001.03.xsd"
	ci := os.Getenv("CI") == "true"
	if _, err := os.Stat(schema); err != nil {
		if ci {
			t.Fatalf("the pain.001.001.03 schema is not at %s", schema)
		}
		t.Logf("not validated: the pain.001.001.03 schema is not at %s", schema)
		return
	}
	if _, err := exec.LookPath("xmllint"); err != nil {
		if ci {
			t.Fatal("xmllint (libxml2-utils) is not installed")
		}
		t.Log("not validated: xmllint (libxml2-utils) is not installed")
		return
	}
	f := filepath.Join(t.TempDir(), "betalfil.xml")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("xmllint", "--noout", "--nonet", "--schema", schema, f).CombinedOutput(); err != nil {
		t.Fatalf("the payment file does not validate: %v\n%s", err, out)
	}
}

// The bank's statement of the file's five debits settles the invoices:
// each debit carries its payment's end-to-end id (the first, paid by OCR,
// only its OCR number), and is booked as a match of its invoice, D 2440 /
// C 1930, in a verifikat of its own. The euro invoice, booked at 11.45
// (1 980 EUR = 22 671 kr), is debited 22 700 kr at the bank's rate: the
// 29 kr more is an exchange loss on 7960. 2440 is left at zero.
func TestPaymentFileSettledFromStatement(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC) }))
	const iban = "SE4550000000058398257466"
	cash := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK", "iban": iban}).
		status(t, 201).str("data.cash_account_id")
	ocr, invoices, _ := fivePayables(t, b)
	ids := make([]any, len(invoices))
	for i, id := range invoices {
		ids[i] = id
	}
	// 12 500 + 3 750.50 + 22 671 + 8 000 + 1 250 = 48 171.50, in whole kronor 48 172.
	if n := b.balance("2440"); n != -48172 {
		t.Fatalf("2440 before: %d", n)
	}
	batch := b.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": ids, "payment_date": "2026-03-25",
		"cash_account_id": cash}).status(t, 201)
	e2e := func(i int) string { return batch.str(fmt.Sprintf("data.payments.%d.end_to_end_id", i)) }

	statement := camtDebits(iban, "2026-03-25",
		[2]string{"12500.00", `<RmtInf><Strd><CdtrRefInf><Ref>` + ocr + `</Ref></CdtrRefInf></Strd></RmtInf>`},
		[2]string{"3750.50", `<Refs><EndToEndId>` + e2e(1) + `</EndToEndId></Refs>`},
		[2]string{"22700.00", `<Refs><EndToEndId>` + e2e(2) + `</EndToEndId></Refs>`},
		[2]string{"8000.00", `<Refs><EndToEndId>` + e2e(3) + `</EndToEndId></Refs>`},
		[2]string{"1250.00", `<Refs><EndToEndId>` + e2e(4) + `</EndToEndId></Refs>`})
	op := importFile(b, "kontoutdrag.xml", statement, "?cash_account_id="+cash).status(t, 202)
	if r := waitOperation(b, op.str("data.operation_id")); r.str("data.status") != "succeeded" {
		t.Fatalf("import: %s", r.Body)
	}
	if n := b.balance("2440"); n != 0 {
		t.Fatalf("2440 after the statement: %d", n)
	}
	if n := b.balance("7960"); n != 29 {
		t.Fatalf("the exchange loss: %d", n)
	}
	for _, id := range ids {
		if g := b.get(b.path("supplier-invoices/"+id.(string)), b.token).status(t, 200); g.str("data.status") != "paid" {
			t.Fatalf("not paid: %s", g.Body)
		}
	}
	if n := b.count(`SELECT count(*) FROM bank_transactions WHERE company_id = $1 AND journal_entry_id IS NOT NULL
		AND reconciliation_method = 'supplier_invoice'`, b.company); n != 5 {
		t.Fatalf("%d debits booked as matches", n)
	}
}

// camtDebits is a camt.053 statement of the account iban's debits booked
// on day, each an amount and the transaction details it carries.
func camtDebits(iban, day string, debits ...[2]string) []byte {
	var x strings.Builder
	x.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">` +
		`<BkToCstmrStmt><Stmt><Id>S1</Id><Acct><Id><IBAN>` + iban + `</IBAN></Id><Ccy>SEK</Ccy></Acct>`)
	for i, d := range debits {
		x.WriteString(fmt.Sprintf(`<Ntry><NtryRef>P%d</NtryRef><Amt Ccy="SEK">%s</Amt><CdtDbtInd>DBIT</CdtDbtInd>`+
			`<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>%s</Dt></BookgDt><AcctSvcrRef>BANK-%d</AcctSvcrRef>`+
			`<NtryDtls><TxDtls>%s</TxDtls></NtryDtls></Ntry>`, i+1, d[0], day, i+1, d[1]))
	}
	x.WriteString(`</Stmt></BkToCstmrStmt></Document>`)
	return []byte(x.String())
}

// An employee's expense claim paid in the payment file beside a supplier
// invoice of 3 750.50 + 25 % VAT = 4 688.13: Anna's train ticket, 1 120 kr with 120 kr VAT (D 5810 1 000,
// D 2641 120 / C 2820 1 120), goes to her salary account 8327-9145678
// with the message "Utlägg Tågbiljett". While the batch holds it, it is
// neither paid out otherwise nor deleted. The owner's claim (no account
// known) and a claim paid with the salary are refused, naming them. The
// bank's debit of 1 120 kr, matched by its end-to-end id, pays the claim
// out (D 2820 / C 1930) and links the bank row to that verifikat; with the
// invoice's debit, 2820 and 2440 are left at zero.
func TestExpenseClaimInPaymentFile(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	const iban = "SE4550000000058398257466"
	cash := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK", "iban": iban}).
		status(t, 201).str("data.cash_account_id")
	anna := b.write("POST", "employees", annaBody()).status(t, 201).str("data.id")
	claim := func(desc string, more map[string]any) string {
		t.Helper()
		return b.write("POST", "expense-claims", mergeMaps(map[string]any{"description": desc, "expense_date": "2026-03-10",
			"amount": 1120, "vat_amount": 120, "expense_account": "5810"}, more)).status(t, 201).str("data.expense_claim_id")
	}
	train := claim("Tågbiljett", map[string]any{"employee_id": anna})
	owner := claim("Kontorsmaterial", map[string]any{"claimant_name": "Ägaren"})
	salary := claim("Taxi", map[string]any{"employee_id": anna, "pay_with_salary": true})
	pg := b.write("POST", "suppliers", map[string]any{"name": "Elfirman i Norr AB", "supplier_type": "swedish_business",
		"plusgiro": "4512345-2"}).status(t, 201).str("data.id")
	invoice := b.supplierInvoice(pg, "2231", 3750.50, nil)
	b.write("POST", "supplier-invoices/"+invoice+"/approve", nil).status(t, 200)

	for reason, id := range map[string]string{"not_employee": owner, "pay_with_salary": salary} {
		r := b.write("POST", "supplier-payment-batches/preview", map[string]any{"expense_claim_ids": []any{train, id},
			"payment_date": "2026-03-25", "cash_account_id": cash}).errorCode(t, 409, "PAYMENT_BATCH_INVOICE_NOT_PAYABLE")
		if r.str("error.details.reason") != reason || r.at("error.details.index") != 1.0 ||
			r.str("error.details.expense_claim_id") != id {
			t.Errorf("%s: %s", reason, r.Body)
		}
	}
	b.write("POST", "supplier-payment-batches/preview", map[string]any{"payment_date": "2026-03-25", "cash_account_id": cash}).
		errorCode(t, 400, "VALIDATION_ERROR")

	made := b.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": []any{invoice},
		"expense_claim_ids": []any{train}, "payment_date": "2026-03-25", "cash_account_id": cash}).status(t, 201)
	batch := made.str("data.id")
	if made.at("data.payment_count") != 2.0 || made.str("data.payments.1.expense_claim_id") != train ||
		made.at("data.payments.1.supplier_invoice_id") != nil || made.str("data.payments.1.supplier_name") != "Anna Lindqvist" ||
		made.str("data.payments.1.reference") != "Utlägg Tågbiljett" || made.at("data.totals.0.amount") != 5808.13 {
		t.Fatalf("the batch: %s", made.Body)
	}
	file := b.do(req{Method: "GET", Path: b.path("supplier-payment-batches/" + batch + "/file"), Token: b.token}).status(t, 200)
	if !strings.Contains(string(file.Body), "<Id>83279145678</Id>") || !strings.Contains(string(file.Body), "<Ustrd>Utlägg Tågbiljett</Ustrd>") {
		t.Fatalf("the claim's payment in the file: %s", file.Body)
	}
	validatePain001(t, []byte(file.Body))

	r := b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{train}, "payout_date": "2026-03-24",
		"cash_account": "1930"}).errorCode(t, 409, "EXPENSE_CLAIM_IN_PAYMENT_BATCH")
	if r.str("error.details.batch_id") != batch {
		t.Fatalf("payout: %s", r.Body)
	}
	b.write("DELETE", "expense-claims/"+train, nil).errorCode(t, 409, "EXPENSE_CLAIM_IN_PAYMENT_BATCH")
	booked := b.get(b.path("expense-claims/"+train), b.token).status(t, 200).str("data.journal_entry_id")
	b.write("POST", "journal-entries/"+booked+"/reverse", map[string]any{}).errorCode(t, 409, "EXPENSE_CLAIM_IN_PAYMENT_BATCH")
	b.write("POST", "supplier-payment-batches", map[string]any{"expense_claim_ids": []any{train}, "payment_date": "2026-03-26",
		"cash_account_id": cash}).errorCode(t, 409, "PAYMENT_BATCH_INVOICE_RESERVED")
	refusedByTheBooks(t, b.db, "a batch's claim changed", `UPDATE supplier_payment_batch_claims SET amount = 1
		WHERE company_id = $1`, b.company)
	// A cancelled batch lets its claim go: it is paid out otherwise.
	parking := claim("Parkering", map[string]any{"employee_id": anna})
	held := b.write("POST", "supplier-payment-batches", map[string]any{"expense_claim_ids": []any{parking},
		"payment_date": "2026-03-25", "cash_account_id": cash}).status(t, 201).str("data.id")
	b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{parking}, "payout_date": "2026-03-24",
		"cash_account": "1930"}).errorCode(t, 409, "EXPENSE_CLAIM_IN_PAYMENT_BATCH")
	b.write("POST", "supplier-payment-batches/"+held+"/cancel", nil).status(t, 200)
	b.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{parking}, "payout_date": "2026-03-24",
		"cash_account": "1930"}).status(t, 201)

	e2e := func(i int) string {
		return `<Refs><EndToEndId>` + made.str(fmt.Sprintf("data.payments.%d.end_to_end_id", i)) +
			`</EndToEndId></Refs>`
	}
	op := importFile(b, "kontoutdrag.xml", camtDebits(iban, "2026-03-25", [2]string{"4688.13", e2e(0)},
		[2]string{"1120.00", e2e(1)}), "?cash_account_id="+cash).status(t, 202)
	if r := waitOperation(b, op.str("data.operation_id")); r.str("data.status") != "succeeded" {
		t.Fatalf("import: %s", r.Body)
	}
	g := b.get(b.path("expense-claims/"+train), b.token).status(t, 200)
	if g.str("data.status") != "paid" || g.at("data.payout_batch_id") == nil {
		t.Fatalf("the claim after the statement: %s", g.Body)
	}
	var payout string
	if err := b.db.Get(&payout, `SELECT journal_entry_id::text FROM expense_payouts WHERE company_id = $1 AND id = $2`,
		b.company, g.str("data.payout_batch_id")); err != nil {
		t.Fatal(err)
	}
	if got := verifikat(b, payout); got != "D 2820 1120.00, C 1930 1120.00" {
		t.Fatalf("the payout: %s", got)
	}
	if n := b.count(`SELECT count(*) FROM bank_transactions WHERE company_id = $1 AND journal_entry_id = $2
		AND reconciliation_method = 'linked' AND amount = -1120`, b.company, payout); n != 1 {
		t.Fatalf("the claim's debit is not linked to its payout: %d", n)
	}
	// 2820 owes nothing but the taxi still to go with the salary.
	if n, m := b.balance("2820"), b.balance("2440"); n != -1120 || m != 0 {
		t.Fatalf("2820 %d, 2440 %d", n, m)
	}
}
