package tests

import (
	"testing"
)

// supplierInvoice registers a supplier invoice of supplier (one line of
// amount on 5410 at 25 % unless more says), answering its id.
func (b *partiesBooks) supplierInvoice(supplier, number string, amount float64, more map[string]any) string {
	b.t.Helper()
	body := mergeMaps(map[string]any{"supplier_id": supplier, "supplier_invoice_number": number, "invoice_date": "2026-03-02",
		"due_date": "2026-04-01", "items": []any{map[string]any{"description": "Kontorsmaterial", "amount": amount,
			"account_number": "5410"}}}, more)
	return b.write("POST", "supplier-invoices", body).status(b.t, 201).str("data.id")
}

func (b *partiesBooks) supplier(name string) string {
	b.t.Helper()
	return b.write("POST", "suppliers", map[string]any{"name": name, "supplier_type": "swedish_business"}).
		status(b.t, 201).str("data.id")
}

// ingested adds rows and answers their ids in order.
func (b *partiesBooks) ingested(rows ...any) []string {
	b.t.Helper()
	var out []string
	for _, id := range b.write("POST", "transactions/ingest", map[string]any{"transactions": rows}).status(b.t, 200).
		list("data.transaction_ids") {
		out = append(out, id.(string))
	}
	return out
}

func (b *partiesBooks) events(typ string) int {
	b.t.Helper()
	return b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = $2`, b.company, typ)
}

// The acceptance line by hand: +12 500.00 matched by its OCR reference,
// −1 250.00 office at 25 %, −45.00 bank fee, −6 250.00 matched to a
// supplier invoice and +0.37 interest take 1930 from 0 to 4 955.37 and
// add exactly 250.00 to 2641 (the supplier invoice's 1 250.00 of VAT was
// booked at registration). Uncategorizing a match stornoes its verifikat
// and undoes the payment, a row of its own; the invoice can be matched
// again.
func TestBankMatchesByHand(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	b.write("PATCH", "settings", map[string]any{"invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.issued(customer, nil)
	ocr := b.get(b.path("invoices/"+inv), b.token).status(t, 200).str("data.ocr_reference")
	si := b.supplierInvoice(b.supplier("Kontorsgrossisten AB"), "F-6250", 5000, nil)
	if b.exact("1930") != "0" || b.exact("2641") != "1250.00" || b.exact("1510") != "12500.00" || b.exact("2440") != "-6250.00" {
		t.Fatalf("before the bank: 1930 %s 2641 %s 1510 %s 2440 %s", b.exact("1930"), b.exact("2641"), b.exact("1510"), b.exact("2440"))
	}
	in := bankRow("H1", "2026-03-10", 12500, "BG INBETALNING")
	in["reference"] = ocr
	ids := b.ingested(in, bankRow("H2", "2026-03-11", -1250, "KONTORSGROSSISTEN"), bankRow("H3", "2026-03-12", -45, "AVGIFT"),
		bankRow("H4", "2026-03-20", -6250, "BG 5050-1055"), bankRow("H5", "2026-03-31", 0.37, "RÄNTA"))

	potential := b.get(b.path("transactions/"+ids[0]), b.token).status(t, 200).str("data.potential_invoice_id")
	if potential != inv {
		t.Fatalf("potential invoice %s, want %s", potential, inv)
	}
	dry := b.do(req{Method: "POST", Path: b.path("transactions/" + ids[0] + "/match-invoice?dry_run=true"), Token: b.token,
		Body: map[string]any{"invoice_id": potential}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if lines(dry, "data.preview.lines") != "D 1930 12500.00, C 1510 12500.00" || b.exact("1510") != "12500.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	m := b.write("POST", "transactions/"+ids[0]+"/match-invoice", map[string]any{"invoice_id": potential}).status(t, 200)
	if m.str("data.invoice_status") != "paid" || m.at("data.remaining_amount") != 0.0 || m.at("data.paid_amount") != 12500.0 ||
		m.str("data.paid_at") != "2026-03-10" || lines(m, "data.lines") != "D 1930 12500.00, C 1510 12500.00" {
		t.Fatalf("match-invoice: %s", m.Body)
	}
	b.write("POST", "transactions/"+ids[1]+"/categorize", map[string]any{"is_business": true, "category": "expense_office"}).status(t, 200)
	b.write("POST", "transactions/"+ids[2]+"/categorize", map[string]any{"is_business": true, "template_id": "bank_fee"}).status(t, 200)
	b.write("POST", "transactions/"+ids[4]+"/categorize", map[string]any{"is_business": true, "template_id": "bank_interest"}).status(t, 200)
	b.write("POST", "transactions/"+ids[3]+"/categorize", map[string]any{"is_business": true, "category": "expense_office"}).
		errorCode(t, 409, "TX_CATEGORIZE_SUGGEST_SI_MATCH")
	ms := b.write("POST", "transactions/"+ids[3]+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": si}).status(t, 200)
	if ms.str("data.invoice_status") != "paid" || ms.at("data.bank_fee_sek") != 0.0 ||
		lines(ms, "data.lines") != "D 2440 6250.00, C 1930 6250.00" {
		t.Fatalf("match-supplier-invoice: %s", ms.Body)
	}
	// 1930: 12 500.00 − 1 250.00 − 45.00 − 6 250.00 + 0.37; 2641: 1 250.00 + 250.00.
	if b.exact("1930") != "4955.37" || b.exact("2641") != "1500.00" || b.exact("1510") != "0.00" || b.exact("2440") != "0.00" {
		t.Fatalf("after the bank: 1930 %s 2641 %s 1510 %s 2440 %s", b.exact("1930"), b.exact("2641"), b.exact("1510"), b.exact("2440"))
	}
	d := b.get(b.path("transactions/"+ids[0]), b.token).status(t, 200)
	if d.str("data.invoice_id") != inv || d.str("data.reconciliation_method") != "invoice" || d.str("data.journal_entry_id") != m.str("data.journal_entry_id") {
		t.Fatalf("matched transaction: %s", d.Body)
	}
	if s := b.get(b.path("transactions/"+ids[3]), b.token).status(t, 200); s.str("data.supplier_invoice_id") != si ||
		s.str("data.reconciliation_method") != "supplier_invoice" {
		t.Fatalf("matched supplier payment: %s", s.Body)
	}
	if b.events("invoice.paid") != 1 || b.events("supplier_invoice.paid") != 1 || b.events("transaction.reconciled") != 2 {
		t.Fatalf("events: invoice.paid %d, supplier_invoice.paid %d, transaction.reconciled %d",
			b.events("invoice.paid"), b.events("supplier_invoice.paid"), b.events("transaction.reconciled"))
	}

	// Uncategorize: the storno undoes both payments.
	b.write("POST", "transactions/"+ids[0]+"/uncategorize", nil).status(t, 200)
	b.write("POST", "transactions/"+ids[3]+"/uncategorize", nil).status(t, 200)
	if b.exact("1930") != "-1294.63" || b.exact("1510") != "12500.00" || b.exact("2440") != "-6250.00" || b.exact("2641") != "1500.00" {
		t.Fatalf("after uncategorize: 1930 %s 1510 %s 2440 %s", b.exact("1930"), b.exact("1510"), b.exact("2440"))
	}
	g := b.get(b.path("invoices/"+inv+"?expand=payments"), b.token).status(t, 200)
	pays := g.list("data.payments")
	if g.at("data.remaining_amount") != 12500.0 || g.at("data.paid_at") != nil || len(pays) != 2 {
		t.Fatalf("invoice after uncategorize: %s", g.Body)
	}
	first, undo := pays[0].(map[string]any), pays[1].(map[string]any)
	if first["source"] != "bank" || undo["amount"] != -12500.0 || undo["reverses_payment_id"] != first["id"] || first["reverses_payment_id"] != nil {
		t.Fatalf("payments: %v", pays)
	}
	sg := b.get(b.path("supplier-invoices/"+si+"?expand=payments"), b.token).status(t, 200)
	if sg.at("data.remaining_amount") != 6250.0 || sg.at("data.payment_journal_entry_id") != nil || len(sg.list("data.payments")) != 2 {
		t.Fatalf("supplier invoice after uncategorize: %s", sg.Body)
	}
	if tx := b.get(b.path("transactions/"+ids[0]), b.token); tx.at("data.invoice_id") != nil || tx.at("data.journal_entry_id") != nil {
		t.Fatalf("transaction unbooked: %s", tx.Body)
	}
	// Matched again: the undone payment is no lookalike.
	b.write("POST", "transactions/"+ids[0]+"/match-invoice", map[string]any{"invoice_id": inv}).status(t, 200)
	b.write("POST", "transactions/"+ids[3]+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": si}).status(t, 200)
	if b.exact("1930") != "4955.37" || b.exact("1510") != "0.00" || b.exact("2440") != "0.00" {
		t.Fatalf("matched again: 1930 %s 1510 %s 2440 %s", b.exact("1930"), b.exact("1510"), b.exact("2440"))
	}
}

// A EUR 100.00 supplier invoice booked at 11.20 (2440 at 1 120.00) paid by
// −1 145.12 SEK: 25.12 more kronor left than the debt was booked at, a
// loss on 7960.
func TestBankMatchForeignSupplierInvoice(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	si := b.supplierInvoice(b.supplier("Lieferant GmbH"), "R-100", 100, map[string]any{"currency": "EUR", "exchange_rate": 11.20,
		"items": []any{map[string]any{"description": "Ersatzteile", "amount": 100, "account_number": "4000", "vat_rate": 0}}})
	if b.exact("2440") != "-1120.00" {
		t.Fatalf("2440 %s after registration", b.exact("2440"))
	}
	tx := b.ingested(bankRow("E1", "2026-03-25", -1145.12, "LIEFERANT GMBH"))[0]
	m := b.write("POST", "transactions/"+tx+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": si}).status(t, 200)
	if m.str("data.invoice_status") != "paid" || m.at("data.remaining_amount") != 0.0 || m.at("data.paid_amount") != 100.0 {
		t.Fatalf("match: %s", m.Body)
	}
	if b.exact("7960") != "25.12" || b.exact("2440") != "0.00" || b.exact("1930") != "-1145.12" {
		t.Fatalf("7960 %s 2440 %s 1930 %s", b.exact("7960"), b.exact("2440"), b.exact("1930"))
	}
	pays := b.get(b.path("supplier-invoices/"+si+"?expand=payments"), b.token).status(t, 200).list("data.payments")
	if p := pays[0].(map[string]any); p["amount"] != 100.0 || p["amount_sek"] != 1145.12 || p["exchange_rate"] != 11.4512 {
		t.Fatalf("payment: %v", p)
	}
}

// Refusals of match-invoice and match-supplier-invoice, and what a whole
// match reckons: an öre short written off on 3740 (either way), up to
// 5 000 kr above a supplier invoice the bank's fee on 6570.
func TestBankMatchRules(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv, paid := b.issued(customer, nil), b.issued(customer, nil)
	draft := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	proforma := b.createInvoice(consulting(customer, map[string]any{"document_type": "proforma"})).status(t, 201).str("data.id")
	b.markPaid(paid, map[string]any{}).status(t, 200)
	supplier := b.supplier("Kontorsgrossisten AB")
	si, big, small := b.supplierInvoice(supplier, "A-1", 5000, nil), b.supplierInvoice(supplier, "A-2", 1000, nil),
		b.supplierInvoice(supplier, "A-3", 1000, nil)
	ids := b.ingested(bankRow("R1", "2026-03-10", 12499.60, "IN"), bankRow("R2", "2026-03-10", -6260, "UT"),
		bankRow("R3", "2026-03-11", 20000, "IN"), bankRow("R4", "2026-03-11", -7000, "UT"), bankRow("R5", "2026-03-12", -1249.50, "UT"))
	match := func(tx, invoice string) *response {
		return b.write("POST", "transactions/"+tx+"/match-invoice", map[string]any{"invoice_id": invoice})
	}
	pay := func(tx, invoice string) *response {
		return b.write("POST", "transactions/"+tx+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": invoice})
	}
	match(ids[1], inv).errorCode(t, 400, "MATCH_INVOICE_NOT_INCOME")
	pay(ids[0], si).errorCode(t, 400, "MATCH_SI_NOT_EXPENSE")
	match(ids[0], draft).errorCode(t, 409, "MATCH_INVOICE_NOT_OPEN")
	match(ids[0], paid).errorCode(t, 409, "MATCH_INVOICE_NOT_OPEN")
	match(ids[0], proforma).errorCode(t, 400, "MATCH_INVOICE_NOT_INVOICE_TYPE")
	match(ids[0], "00000000-0000-4000-8000-000000000000").errorCode(t, 404, "INVOICE_NOT_FOUND")
	pay(ids[1], "00000000-0000-4000-8000-000000000000").errorCode(t, 404, "MATCH_SI_NOT_FOUND")
	// 20 000 kr for a 12 500 kr invoice: the 7 500 kr over are the
	// customer's credit (shown by a dry run; kept by the real match).
	over := b.do(req{Method: "POST", Path: b.path("transactions/" + ids[2] + "/match-invoice?dry_run=true"), Token: b.token,
		Body: map[string]any{"invoice_id": inv}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if lines(over, "data.preview.lines") != "D 1930 20000.00, C 1510 12500.00, C 2420 7500.00" {
		t.Fatalf("more than is left: %s", over.Body)
	}
	pay(ids[3], big).errorCode(t, 400, "MATCH_SI_AMOUNT_EXCEEDS_REMAINING")
	if b.exact("1930") != "12500.00" {
		t.Fatalf("refusals booked something: 1930 %s", b.exact("1930"))
	}

	// 0.40 short of 12 500.00: written off, the invoice paid.
	r := match(ids[0], inv).status(t, 200)
	if r.at("data.rounding_sek") != 0.4 || r.str("data.invoice_status") != "paid" ||
		lines(r, "data.lines") != "D 1930 12499.60, C 1510 12500.00, D 3740 0.40" {
		t.Fatalf("öre short: %s", r.Body)
	}
	match(ids[0], inv).errorCode(t, 409, "MATCH_INVOICE_TX_ALREADY_BOOKED")
	// 10.00 above 6 250.00: the bank's fee.
	f := pay(ids[1], si).status(t, 200)
	if f.at("data.bank_fee_sek") != 10.0 || f.str("data.invoice_status") != "paid" ||
		lines(f, "data.lines") != "D 2440 6250.00, C 1930 6260.00, D 6570 10.00" {
		t.Fatalf("bank fee: %s", f.Body)
	}
	if got := pay(ids[1], big).errorCode(t, 409, "MATCH_SI_TX_ALREADY_LINKED").at("error.details.existingSupplierInvoiceId"); got != si {
		t.Fatalf("existingSupplierInvoiceId %v", got)
	}
	pay(ids[4], si).errorCode(t, 409, "MATCH_SI_ALREADY_PAID")
	// 0.50 short of 1 250.00 paid out: credited to 3740.
	s := pay(ids[4], small).status(t, 200)
	if s.at("data.rounding_sek") != 0.5 || s.str("data.invoice_status") != "paid" ||
		lines(s, "data.lines") != "D 2440 1250.00, C 1930 1249.50, C 3740 0.50" {
		t.Fatalf("öre short paid out: %s", s.Body)
	}
	if b.exact("3740") != "-0.10" || b.exact("6570") != "10.00" {
		t.Fatalf("3740 %s 6570 %s", b.exact("3740"), b.exact("6570"))
	}
	b.write("POST", "transactions/"+ids[2]+"/ignore", nil).status(t, 200)
	if r := match(ids[2], inv).errorCode(t, 409, "CONFLICT"); r.at("error.details.reason") != "transaction_ignored" {
		t.Fatalf("ignored: %s", r.Body)
	}
}

// One transaction settles several invoices of one kind in one
// samlingsverifikat; the allocations add up to it exactly; refusals name
// the allocation; uncategorize undoes every payment.
func TestBankMatchBatch(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	one := b.issued(customer, nil)
	two := b.issued(customer, map[string]any{"items": []any{map[string]any{"description": "Konsulttimmar", "quantity": 5,
		"unit": "tim", "unit_price": 1000}}})
	supplier := b.supplier("Kontorsgrossisten AB")
	s1, s2 := b.supplierInvoice(supplier, "B-1", 1000, nil), b.supplierInvoice(supplier, "B-2", 2000, nil)
	ids := b.ingested(bankRow("B1", "2026-03-15", 18750, "INBETALNING"), bankRow("B2", "2026-03-16", -3750, "UTBETALNING"),
		bankRow("B3", "2026-03-17", 100, "INBETALNING"))
	batch := func(tx string, body map[string]any) *response {
		return b.write("POST", "transactions/"+tx+"/match-batch", body)
	}
	cust := func(id string, amount float64) map[string]any {
		return map[string]any{"kind": "customer_invoice", "invoice_id": id, "amount": amount}
	}
	sup := func(id string, amount float64) map[string]any {
		return map[string]any{"kind": "supplier_invoice", "supplier_invoice_id": id, "amount": amount}
	}
	body := map[string]any{"allocations": []any{cust(one, 12500), cust(two, 6250)}}
	dry := b.do(req{Method: "POST", Path: b.path("transactions/" + ids[0] + "/match-batch?dry_run=true"), Token: b.token,
		Body: body, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if lines(dry, "data.preview.expected_lines") != "D 1930 18750.00, C 1510 12500.00, C 1510 6250.00" || b.exact("1510") != "18750.00" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	r := batch(ids[0], body).status(t, 200)
	if r.at("data.total_allocated") != 18750.0 || r.at("data.leftover") != 0.0 || len(r.list("data.allocations")) != 2 ||
		r.str("data.allocations.1.status") != "paid" || r.str("data.allocations.0.invoice_id") != one ||
		r.at("data.allocations.0.supplier_invoice_id") != nil {
		t.Fatalf("batch: %s", r.Body)
	}
	if b.exact("1510") != "0.00" || b.exact("1930") != "18750.00" || b.events("invoice.paid") != 2 {
		t.Fatalf("1510 %s 1930 %s invoice.paid %d", b.exact("1510"), b.exact("1930"), b.events("invoice.paid"))
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type = 'invoice_batch_payment'`, b.company); n != 1 {
		t.Fatalf("%d samlingsverifikat", n)
	}
	batch(ids[0], body).errorCode(t, 409, "BATCH_TX_ALREADY_BOOKED")
	batch("00000000-0000-4000-8000-000000000000", body).errorCode(t, 404, "BATCH_TX_NOT_FOUND")

	// Refusals, each naming what is wrong.
	small, three := ids[2], b.issued(customer, nil)
	batch(small, map[string]any{"allocations": []any{cust(one, 50)}}).errorCode(t, 400, "BATCH_AMOUNT_BELOW_TX")
	if e := batch(small, map[string]any{"allocations": []any{cust(one, 150)}}).errorCode(t, 400, "BATCH_AMOUNT_EXCEEDS_TX"); e.at("error.details.expected") != 100.0 {
		t.Fatalf("details: %s", e.Body)
	}
	batch(small, map[string]any{"allocations": []any{cust(one, 50), sup(s1, 50)}}).errorCode(t, 400, "BATCH_MIXED_KINDS_UNSUPPORTED")
	batch(small, map[string]any{"allocations": []any{sup(s1, 100)}}).errorCode(t, 400, "BATCH_DIRECTION_MISMATCH")
	if e := batch(small, map[string]any{"allocations": []any{cust(three, 50), cust("00000000-0000-4000-8000-000000000000", 50)}}).
		errorCode(t, 404, "BATCH_INVOICE_NOT_FOUND"); e.at("error.details.index") != 1.0 {
		t.Fatalf("index: %s", e.Body)
	}
	batch(small, map[string]any{"allocations": []any{cust(one, 100)}}).errorCode(t, 409, "BATCH_INVOICE_NOT_OPEN")
	batch(small, map[string]any{"allocations": []any{map[string]any{"kind": "customer_invoice", "supplier_invoice_id": s1, "amount": 100}}}).
		errorCode(t, 400, "VALIDATION_ERROR")
	batch(small, map[string]any{"allocations": []any{cust(three, 50), cust(three, 50)}}).errorCode(t, 400, "VALIDATION_ERROR")
	batch(ids[1], map[string]any{"allocations": []any{sup(s1, 1250), sup("00000000-0000-4000-8000-000000000000", 2500)}}).
		errorCode(t, 404, "BATCH_SUPPLIER_INVOICE_NOT_FOUND")

	// A payment of the same amount and day is on s1 already: force.
	b.write("POST", "supplier-invoices/"+s1+"/mark-paid", map[string]any{"amount": 250, "payment_date": "2026-03-16"}).status(t, 200)
	batch(ids[1], map[string]any{"allocations": []any{sup(s1, 1000), sup(s2, 2750)}}).errorCode(t, 400, "VALIDATION_ERROR")
	ids2 := b.ingested(bankRow("B4", "2026-03-16", -250, "UTBETALNING"))
	batch(ids2[0], map[string]any{"allocations": []any{sup(s1, 250)}}).errorCode(t, 409, "BATCH_TX_POSSIBLE_DUPLICATE")
	batch(ids2[0], map[string]any{"allocations": []any{sup(s1, 250)}, "force": true}).status(t, 200)
	// s1 has 750 left, s2 2 500: 3 250 of the 3 750 would be less.
	batch(ids[1], map[string]any{"allocations": []any{sup(s1, 750), sup(s2, 2500)}}).errorCode(t, 400, "BATCH_AMOUNT_BELOW_TX")
	ids3 := b.ingested(bankRow("B5", "2026-03-18", -3250, "UTBETALNING"))
	p := batch(ids3[0], map[string]any{"allocations": []any{sup(s1, 750), sup(s2, 2500)}}).status(t, 200)
	if lines(p, "data.expected_lines") != "D 2440 750.00, C 1930 3250.00, D 2440 2500.00" || b.exact("2440") != "0.00" {
		t.Fatalf("supplier batch: %s (2440 %s)", p.Body, b.exact("2440"))
	}

	// Uncategorize: one storno undoes both payments.
	b.write("POST", "transactions/"+ids[0]+"/uncategorize", nil).status(t, 200)
	if b.exact("1510") != "31250.00" { // 18 750.00 back, and the third invoice's 12 500.00
		t.Fatalf("1510 %s after uncategorize", b.exact("1510"))
	}
	for _, id := range []string{one, two} {
		if g := b.get(b.path("invoices/"+id), b.token).status(t, 200); g.at("data.paid_at") != nil || g.at("data.remaining_amount") == 0.0 {
			t.Fatalf("invoice %s: %s", id, g.Body)
		}
	}

	// A locked period refuses in the batch's code.
	b.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-03-31"}).status(t, 200)
	batch(ids[0], body).errorCode(t, 400, "BATCH_PERIOD_LOCKED")
}

// A payment's verifikat stornoed through the journal-entry API undoes the
// payment: the invoice is open again and a new payment of the same amount
// and day is no lookalike. A credited invoice keeps its payments.
func TestPaymentStornoUndoesPayment(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	inv := b.issued(customer, nil)
	p := b.markPaid(inv, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	b.write("POST", "journal-entries/"+p.str("data.journal_entry_id")+"/reverse", map[string]any{"reversal_date": "2026-03-21"}).
		status(t, 200)
	g := b.get(b.path("invoices/"+inv+"?expand=payments"), b.token).status(t, 200)
	if g.at("data.remaining_amount") != 12500.0 || len(g.list("data.payments")) != 2 || g.str("data.payments.1.date") != "2026-03-21" {
		t.Fatalf("after storno: %s", g.Body)
	}
	b.markPaid(inv, map[string]any{"amount": 5000, "payment_date": "2026-03-20"}).status(t, 200)
	if b.exact("1510") != "7500.00" {
		t.Fatalf("1510 %s", b.exact("1510"))
	}

	credited := b.issued(customer, nil)
	full := b.markPaid(credited, map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	b.credit(credited, map[string]any{}).status(t, 200)
	r := b.write("POST", "journal-entries/"+full.str("data.journal_entry_id")+"/reverse", map[string]any{"reversal_date": "2026-03-21"})
	if r.errorCode(t, 409, "CONFLICT"); r.at("error.details.reason") != "invoice_credited" {
		t.Fatalf("credited: %s", r.Body)
	}

	supplier := b.supplier("Kontorsgrossisten AB")
	si := b.supplierInvoice(supplier, "S-1", 1000, nil)
	b.write("POST", "supplier-invoices/"+si+"/approve", nil).status(t, 200)
	sp := b.write("POST", "supplier-invoices/"+si+"/mark-paid", map[string]any{"payment_date": "2026-03-20"}).status(t, 200)
	b.write("POST", "journal-entries/"+sp.str("data.payment_journal_entry_id")+"/reverse", nil).status(t, 200)
	sg := b.get(b.path("supplier-invoices/"+si), b.token).status(t, 200)
	if sg.at("data.paid_amount") != 0.0 || sg.at("data.paid_at") != nil || sg.at("data.payment_journal_entry_id") != nil ||
		b.exact("2440") != "-1250.00" {
		t.Fatalf("supplier invoice after storno: %s (2440 %s)", sg.Body, b.exact("2440"))
	}
	if st := sg.str("data.status"); st != "approved" && st != "overdue" {
		t.Fatalf("status %s, want approved (or overdue)", st)
	}
}

// The refusals the other tests do not reach, each through the endpoint
// that gives it: a booked row does not move, a bank's row is not deleted,
// bulk-book keeps to one account and kronor and to a posted verifikat,
// a batch has an amount and open invoices, a match keeps to the currency.
func TestBankRefusalCodes(t *testing.T) {
	t.Parallel()
	b, _ := newBankBooks(t)
	b.write("POST", "cash-accounts", map[string]any{"name": "Sparkonto", "currency": "SEK", "ledger_account": "1940"}).status(t, 201)
	b.write("POST", "cash-accounts", map[string]any{"name": "Euro", "currency": "EUR"}).status(t, 201)
	sek := b.ingested(bankRow("R1", "2026-03-05", -45, "AVGIFT"), bankRow("R2", "2026-03-05", -50, "AVGIFT"),
		bankRow("R3", "2026-03-05", 0, "NOLL"), bankRow("R4", "2026-03-06", -1000, "UTBETALNING"))
	saving := b.write("POST", "transactions/ingest", map[string]any{"settlement_account": "1940",
		"transactions": []any{bankRow("S1", "2026-03-05", -30, "AVGIFT")}}).status(t, 200).list("data.transaction_ids")[0].(string)
	eurRow := bankRow("E1", "2026-03-05", -20, "AVGIFT")
	eurRow["currency"] = "EUR"
	eur := b.write("POST", "transactions/ingest", map[string]any{"settlement_account": "1932",
		"transactions": []any{eurRow}}).status(t, 200).list("data.transaction_ids")[0].(string)

	// A booked row stays on its account; a bank's row is never deleted.
	b.write("POST", "transactions/"+sek[0]+"/categorize", map[string]any{"is_business": true, "template_id": "bank_fee"}).status(t, 200)
	b.write("PATCH", "transactions/"+sek[0], map[string]any{"account_number": "1940"}).errorCode(t, 409, "TRANSACTION_MOVE_BOOKED")
	file := waitOperation(b, importFile(b, "avgift.csv", []byte("Datum;Text;Belopp\n2026-03-07;Avgift;-12,00\n"), "").
		status(t, 202).str("data.operation_id"))
	var imported string
	if err := b.db.Get(&imported, `SELECT id FROM bank_transactions WHERE bank_file_import_id = $1`,
		file.str("data.result.bank_file_import_id")); err != nil {
		t.Fatal(err)
	}
	b.write("DELETE", "transactions/"+imported, nil).errorCode(t, 409, "TRANSACTION_DELETE_IMPORTED")

	// Bulk-book: one currency, kronor, one account, a usable template, a
	// verifikat that is there and posted.
	bulk := func(ids []any, more map[string]any) *response {
		return b.write("POST", "transactions/bulk-book", mergeMaps(map[string]any{"tx_ids": ids}, more))
	}
	fee := map[string]any{"template_id": "bank_fee", "mode": "sum_per_account", "entry_description": "Avgifter"}
	bulk([]any{sek[1], eur}, fee).errorCode(t, 400, "BULK_BOOK_MIXED_CURRENCY")
	bulk([]any{eur}, fee).errorCode(t, 400, "BULK_BOOK_FOREIGN_CURRENCY")
	bulk([]any{sek[1], saving}, fee).errorCode(t, 400, "BULK_BOOK_ACCOUNT_MISMATCH")
	bulk([]any{sek[1]}, map[string]any{"template_id": "own_transfer", "mode": "sum_per_account", "entry_description": "x"}).
		errorCode(t, 400, "BULK_BOOK_INVALID_ACCOUNT")
	bulk([]any{sek[1]}, map[string]any{"manual_lines": []any{map[string]any{"account_number": "1930", "credit_amount": 50},
		map[string]any{"account_number": "2440", "debit_amount": 50}}, "entry_description": "x"}).errorCode(t, 400, "BULK_BOOK_INVALID_ACCOUNT")
	bulk([]any{sek[1]}, map[string]any{"existing_journal_entry_id": "00000000-0000-4000-8000-000000000000"}).
		errorCode(t, 404, "BULK_BOOK_VOUCHER_NOT_FOUND")
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	draft := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-03-05",
		"description": "Avgift", "lines": []any{map[string]any{"account_number": "6570", "debit_amount": 50},
			map[string]any{"account_number": "1930", "credit_amount": 50}}}).status(t, 201).str("data.id")
	bulk([]any{sek[1]}, map[string]any{"existing_journal_entry_id": draft}).errorCode(t, 409, "BULK_BOOK_VOUCHER_NOT_POSTED")

	// A batch needs an amount and open invoices; a match keeps to the
	// transaction's currency (or kronor).
	supplier := b.supplier("Kontorsgrossisten AB")
	paid := b.supplierInvoice(supplier, "P-1", 1000, nil)
	b.write("POST", "supplier-invoices/"+paid+"/mark-paid", map[string]any{"amount": 1250, "payment_date": "2026-03-04"}).status(t, 200)
	open := b.supplierInvoice(supplier, "P-2", 1000, nil)
	sup := func(id string, amount float64) map[string]any {
		return map[string]any{"kind": "supplier_invoice", "supplier_invoice_id": id, "amount": amount}
	}
	b.write("POST", "transactions/"+sek[2]+"/match-batch", map[string]any{"allocations": []any{sup(open, 1)}}).
		errorCode(t, 400, "BATCH_TX_ZERO_AMOUNT")
	if e := b.write("POST", "transactions/"+sek[3]+"/match-batch", map[string]any{"allocations": []any{sup(open, 500), sup(paid, 500)}}).
		errorCode(t, 409, "BATCH_SUPPLIER_INVOICE_NOT_OPEN"); e.at("error.details.index") != 1.0 {
		t.Fatalf("the allocation is not named: %s", e.Body)
	}
	if _, err := b.db.Exec(`INSERT INTO fx_rates (currency, day, rate, source) VALUES ('EUR', '2026-03-05', 11.4512, 'file')
		ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	b.write("POST", "transactions/"+eur+"/refresh-exchange-rate", nil).status(t, 200)
	e := b.write("POST", "transactions/"+eur+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": open}).
		errorCode(t, 400, "MATCH_CURRENCY_MISMATCH")
	if e.at("error.details.transaction_currency") != "EUR" || e.at("error.details.invoice_currency") != "SEK" {
		t.Fatalf("details: %s", e.Body)
	}
	if b.exact("2440") != "-1250.00" { // P-2 (1 000.00 and 25 %) still owed whole: nothing moved
		t.Fatalf("2440 %s", b.exact("2440"))
	}
}
