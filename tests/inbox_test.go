package tests

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/inbox"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pdf"
	"github.com/kontera/kontera/internal/peppol"
)

const inboundSecret = "inkorgens-hemlighet"

// The seller of the inbox's documents: a Luhn-valid organisation number
// and the bankgiro and OCR it prints.
const (
	sellerOrg = "556677-8899"
	sellerBG  = "5050-1055"
	sellerOCR = "1234567897"
)

// invoicePDF is a supplier's invoice as a PDF with text: 10 000 + 25 %.
func invoicePDF(t *testing.T, number string) []byte {
	t.Helper()
	d, err := pdf.New(pdf.Options{Title: "Faktura"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"Kontorsgrossisten AB", "Faktura", "Fakturanummer: " + number, "Fakturadatum 2026-03-02",
		"Förfallodatum 2026-04-01", "Summa exkl. moms 10 000,00", "Moms 25 % 2 500,00", "Att betala 12 500,00 kr",
		"Bankgiro " + sellerBG + "  OCR " + sellerOCR, "Org.nr " + sellerOrg + "  Godkänd för F-skatt"} {
		d.Text(l, pdf.Font{})
	}
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scanPDF is a PDF with no text, as a scan reads.
func scanPDF(t *testing.T) []byte {
	t.Helper()
	d, err := pdf.New(pdf.Options{Title: "Skannat kvitto"})
	if err != nil {
		t.Fatal(err)
	}
	d.Rect(40, 40, 300, 400, pdf.Color{R: 0x80, G: 0x80, B: 0x80})
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ublInvoice is a Peppol BIS 3 invoice of the same seller.
func ublInvoice(t *testing.T, number string) []byte {
	t.Helper()
	qty, _ := money.ParseQuantity("1")
	amt := money.MustParse
	b, err := peppol.Marshal(peppol.Document{Number: number, IssueDate: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
		DueDate: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Currency: "SEK", BuyerReference: "Inköp",
		Seller: peppol.Party{Endpoint: peppol.ID{Scheme: peppol.SchemeOrgNumber, Value: "5566778899"}, Name: "Kontorsgrossisten AB",
			Street: []string{"Storgatan 1"}, PostalZone: "111 22", City: "Stockholm", Country: "SE", VATNumber: "SE556677889901",
			OrgNumber: "5566778899", FSkatt: true},
		Buyer: peppol.Party{Endpoint: peppol.ID{Scheme: peppol.SchemeOrgNumber, Value: "5560360793"}, Name: "Köparen AB",
			Street: []string{"Lillgatan 2"}, PostalZone: "411 01", City: "Göteborg", Country: "SE"},
		PaymentID: sellerOCR, Payment: []peppol.PaymentMeans{{Code: "30", Account: "50501055", Branch: "SE:BANKGIRO"}},
		Lines: []peppol.Line{{ID: "1", Description: "Papper", Quantity: qty, Unit: "C62", Price: amt("2000.00"), Net: amt("2000.00"),
			Category: peppol.Standard, Percent: 25}},
		Subtotals: []peppol.Subtotal{{Category: peppol.Standard, Percent: 25, Taxable: amt("2000.00"), Tax: amt("500.00")}},
		LineTotal: amt("2000.00"), Tax: amt("500.00"), Payable: amt("2500.00")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// svefakturaInvoice is a Svefaktura 1.0 invoice of 2 000 + 25 %.
const svefakturaInvoice = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:sfti:documents:BasicInvoice:1:0" xmlns:cac="urn:sfti:CommonAggregateComponents:1:0"
  xmlns:cbc="urn:oasis:names:tc:ubl:CommonBasicComponents:1:0">
  <ID>SF-4711</ID><cbc:IssueDate>2026-03-02</cbc:IssueDate><InvoiceTypeCode>380</InvoiceTypeCode>
  <InvoiceCurrencyCode>SEK</InvoiceCurrencyCode>
  <cac:SellerParty><cac:Party><cac:PartyIdentification><cac:ID>5566778899</cac:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name>Kontorsgrossisten AB</cbc:Name></cac:PartyName></cac:Party></cac:SellerParty>
  <cac:PaymentMeans><cbc:DuePaymentDate>2026-04-01</cbc:DuePaymentDate>
    <cac:PayeeFinancialAccount><cac:ID schemeName="BGNR">5050-1055</cac:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal><cbc:TotalTaxAmount amountCurrencyID="SEK">500.00</cbc:TotalTaxAmount></cac:TaxTotal>
  <cac:LegalTotal><cbc:TaxInclusiveTotalAmount amountCurrencyID="SEK">2500.00</cbc:TaxInclusiveTotalAmount></cac:LegalTotal>
</Invoice>`

// rawMail is a raw e-mail with attachments (name, type, bytes).
func rawMail(id, subject string, files ...inbox.Attachment) []byte {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", "text/plain; charset=iso-8859-1")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	p, _ := w.CreatePart(h)
	fmt.Fprint(p, "Hej! H=E4r kommer fakturan.")
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", f.Type)
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-Disposition", `attachment; filename="`+f.Name+`"`)
		p, _ := w.CreatePart(h)
		fmt.Fprint(p, base64.StdEncoding.EncodeToString(f.Data))
	}
	w.Close()
	var out bytes.Buffer
	fmt.Fprintf(&out, "From: Kontorsgrossisten AB <faktura@kontorsgrossisten.se>\r\nTo: inkorg@kontera.test\r\n"+
		"Subject: %s\r\nDate: Mon, 02 Mar 2026 08:15:00 +0100\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=%s\r\n\r\n", subject, id, w.Boundary())
	out.Write(body.Bytes())
	return out.Bytes()
}

// inboxBooks are buyer books whose inbound e-mail route is on, with a
// supplier holding the seller's organisation number.
type inboxBooks struct {
	*buyerBooks
	seller string
	now    time.Time
}

func newInboxBooks(t *testing.T) *inboxBooks {
	b := newBuyerBooks(t, func(c *httpapi.Config) { c.InboundSecret = []byte(inboundSecret) })
	seller := b.write("POST", "suppliers", map[string]any{"name": "Kontorsgrossisten AB", "supplier_type": "swedish_business",
		"org_number": sellerOrg, "default_expense_account": "5410"}).status(t, 201).str("data.id")
	return &inboxBooks{buyerBooks: b, seller: seller, now: time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)}
}

// deliver posts raw to the inbound route as a provider would, signed at
// at (zero: the server's now) with secret.
func (b *inboxBooks) deliver(raw []byte, secret string, at time.Time) *response {
	b.t.Helper()
	if at.IsZero() {
		at = b.now
	}
	company := b.company.String()
	return b.do(req{Method: "POST", Path: "/api/v1/inbound/email?company_id=" + company, Body: raw,
		Header: map[string]string{"Content-Type": "message/rfc822",
			"X-Kontera-Signature": inbox.Sign([]byte(secret), company, raw, at)}})
}

// E-mails come in: each usable attachment a document and an item read
// for what it says (a PDF by its labels, a Peppol and a Svefaktura XML
// field by field, matched to the supplier by organisation number), a
// scan kept unread; an .exe alone is an error item; the same Message-ID
// twice adds nothing; a bad or stale signature is 401.
func TestInboundEmail(t *testing.T) {
	t.Parallel()
	b := newInboxBooks(t)
	raw := rawMail("88123@kontorsgrossisten.se", "=?ISO-8859-1?Q?Faktura_f=F6r_mars?=",
		inbox.Attachment{Name: "faktura-88123.pdf", Type: "application/pdf", Data: invoicePDF(t, "88123")},
		inbox.Attachment{Name: "faktura-88124.xml", Type: "application/xml", Data: ublInvoice(t, "88124")},
		inbox.Attachment{Name: "sf-4711.xml", Type: "text/xml", Data: []byte(svefakturaInvoice)},
		inbox.Attachment{Name: "kvitto.pdf", Type: "application/pdf", Data: scanPDF(t)},
		inbox.Attachment{Name: "trasig.pdf", Type: "application/pdf", Data: []byte("%PDF-1.4\n1 0 obj <</Length 99>> stream\nxx")},
		inbox.Attachment{Name: "virus.exe", Type: "application/octet-stream", Data: []byte("MZ\x90\x00\x03\x00binary")})
	b.deliver(raw, "fel nyckel", time.Time{}).errorCode(t, 401, "UNAUTHORIZED")
	b.do(req{Method: "POST", Path: "/api/v1/inbound/email?company_id=" + b.company.String(), Body: raw,
		Header: map[string]string{"Content-Type": "message/rfc822"}}).errorCode(t, 401, "UNAUTHORIZED")
	b.deliver(raw, inboundSecret, b.now.Add(-6*time.Minute)).errorCode(t, 401, "UNAUTHORIZED")
	r := b.deliver(raw, inboundSecret, time.Time{}).status(t, 200)
	if ids := r.list("data.inbox_item_ids"); len(ids) != 5 || r.at("data.duplicate") != false {
		t.Fatalf("received: %s", r.Body)
	}
	if again := b.deliver(raw, inboundSecret, time.Time{}).status(t, 200); again.at("data.duplicate") != true {
		t.Fatalf("again: %s", again.Body)
	}
	l := b.get(b.path("inbox-items"), b.token).status(t, 200)
	items := map[string]map[string]any{}
	for _, x := range l.list("data.inbox_items") {
		it := x.(map[string]any)
		items[it["inbox_item_id"].(string)] = it
	}
	if len(items) != 5 {
		t.Fatalf("listed: %s", l.Body)
	}
	byName := map[string]*response{}
	for id := range items {
		g := b.get(b.path("inbox-items/"+id), b.token).status(t, 200)
		byName[g.str("data.file_name")] = g
	}
	pdfItem := byName["faktura-88123.pdf"]
	if pdfItem.str("data.email_subject") != "Faktura för mars" || pdfItem.at("data.amount") != 12500.0 ||
		pdfItem.str("data.matched_supplier_id") != b.seller || pdfItem.str("data.extracted_data.ocr") != sellerOCR ||
		pdfItem.str("data.extracted_data.due_date") != "2026-04-01" || pdfItem.str("data.underlag_status") != "unlinked" ||
		pdfItem.str("data.email_body_text") != "Hej! Här kommer fakturan." || pdfItem.at("data.extraction_skipped") != false {
		t.Fatalf("pdf item: %s", pdfItem.Body)
	}
	ubl := byName["faktura-88124.xml"]
	if ubl.str("data.extracted_data.format") != "peppol_bis3" || ubl.at("data.amount") != 2500.0 || ubl.str("data.matched_supplier_id") != b.seller {
		t.Fatalf("ubl item: %s", ubl.Body)
	}
	if d := b.get(b.path("documents/"+ubl.str("data.document_id")), b.token).status(t, 200); d.str("data.upload_source") != "e_invoice" ||
		d.str("data.inbox_item_id") != ubl.str("data.inbox_item_id") {
		t.Fatalf("e-invoice document: %s", d.Body)
	}
	if sf := byName["sf-4711.xml"]; sf.str("data.extracted_data.format") != "svefaktura" || sf.str("data.extracted_data.bankgiro") != sellerBG {
		t.Fatalf("svefaktura item: %s", sf.Body)
	}
	for _, name := range []string{"kvitto.pdf", "trasig.pdf"} {
		if g := byName[name]; g.at("data.extraction_skipped") != true || g.at("data.extracted_data") != nil || g.str("data.status") != "received" {
			t.Fatalf("%s: %s", name, g.Body)
		}
	}
	if _, ok := byName["virus.exe"]; ok {
		t.Fatal("an .exe became a document")
	}

	exe := b.deliver(rawMail("x@y", "Bara en fil", inbox.Attachment{Name: "virus.exe", Type: "application/octet-stream",
		Data: []byte("MZ\x90\x00\x03\x00binary")}), inboundSecret, time.Time{}).status(t, 200)
	e := b.get(b.path("inbox-items/"+exe.str("data.inbox_item_ids.0")), b.token).status(t, 200)
	if e.str("data.status") != "error" || e.at("data.document_id") != nil || e.str("data.error_message") == "" {
		t.Fatalf("error item: %s", e.Body)
	}
	if n := len(b.get(b.path("inbox-items?status=error"), b.token).status(t, 200).list("data.inbox_items")); n != 1 {
		t.Fatalf("%d error items", n)
	}

	off := newBuyerBooks(t)
	off.do(req{Method: "POST", Path: "/api/v1/inbound/email?company_id=" + off.company.String(), Body: raw,
		Header: map[string]string{"Content-Type": "message/rfc822", "X-Kontera-Signature": "t=1,v1=00"}}).errorCode(t, 404, "NOT_FOUND")
	off.do(req{Method: "POST", Path: "/api/v1/inbound/email?company_id=" + off.company.String(), Body: raw,
		Header: map[string]string{"Content-Type": "message/rfc822"}}).errorCode(t, 404, "NOT_FOUND")
}

// Convert registers what a direct create registers, with the item's
// document as underlag; once. Stamp, match, correct and delete keep
// their rules; the bank matches wait for the bank.
func TestInboxItemFlows(t *testing.T) {
	t.Parallel()
	b := newInboxBooks(t)
	r := b.deliver(rawMail("1@k", "Fakturor", inbox.Attachment{Name: "a.pdf", Type: "application/pdf", Data: invoicePDF(t, "A-1")},
		inbox.Attachment{Name: "b.pdf", Type: "application/pdf", Data: invoicePDF(t, "B-1")},
		inbox.Attachment{Name: "c.xml", Type: "application/xml", Data: ublInvoice(t, "C-1")}), inboundSecret, time.Time{}).status(t, 200)
	a, bb, c := r.str("data.inbox_item_ids.0"), r.str("data.inbox_item_ids.1"), r.str("data.inbox_item_ids.2")
	body := map[string]any{"supplier_id": b.seller, "supplier_invoice_number": "A-1", "invoice_date": "2026-03-02",
		"due_date": "2026-04-01", "items": []any{map[string]any{"description": "Kontorsmaterial", "amount": 10000,
			"account_number": "5410", "vat_rate": 0.25}}}
	b.write("POST", "inbox-items/"+a+"/convert", map[string]any{"supplier_id": b.seller, "supplier_invoice_number": "A-1",
		"invoice_date": "2026-03-02", "due_date": "2026-04-01", "items": []any{map[string]any{"description": "x", "amount": 1,
			"account_number": "5410", "vat_rate": 0.25, "dimensions": map[string]any{}}}}).errorCode(t, 400, "VALIDATION_ERROR")
	conv := b.write("POST", "inbox-items/"+a+"/convert", body).status(t, 200)
	direct := b.register(b.seller, "A-2", nil, map[string]any{"description": "Kontorsmaterial", "amount": 10000,
		"account_number": "5410", "vat_rate": 0.25}).status(t, 201)
	if postedLines(conv, "data.verifikat_lines") != postedLines(direct, "data.verifikat_lines") || conv.at("data.total") != 12500.0 {
		t.Fatalf("convert %s\ndirect %s", conv.Body, direct.Body)
	}
	inv := b.get(b.path("supplier-invoices/"+conv.str("data.supplier_invoice_id")), b.token).status(t, 200)
	item := b.get(b.path("inbox-items/"+a), b.token).status(t, 200)
	if inv.str("data.document_id") != item.str("data.document_id") || inv.str("data.inbox_item_id") != a ||
		item.at("data.processed") != true || item.str("data.underlag_status") != "anchored" ||
		item.str("data.created_supplier_invoice_id") != conv.str("data.supplier_invoice_id") {
		t.Fatalf("converted: %s\n%s", inv.Body, item.Body)
	}
	b.write("POST", "inbox-items/"+a+"/convert", body).errorCode(t, 409, "INBOX_ITEM_ALREADY_CONVERTED")
	b.write("DELETE", "inbox-items/"+a, nil).errorCode(t, 409, "INBOX_ITEM_ALREADY_CONVERTED")
	b.write("POST", "inbox-items/"+bb+"/convert", body).errorCode(t, 409, "SI_CREATE_DUPLICATE_INVOICE_NUMBER")
	if n := len(b.get(b.path("inbox-items?unprocessed_only=true"), b.token).status(t, 200).list("data.inbox_items")); n != 2 {
		t.Fatalf("%d unprocessed", n)
	}

	// Stamp: the document becomes underlag of a verifikat of its own.
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	e := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-03-02", "description": "Kontorsmaterial, kontant",
		"lines": []any{map[string]any{"account_number": "5410", "debit_amount": 100}, map[string]any{"account_number": "1930", "credit_amount": 100}}}).
		status(t, 201)
	entry := e.str("data.id")
	b.write("POST", "journal-entries/"+entry+"/commit", nil).status(t, 200)
	st := b.write("POST", "inbox-items/"+bb+"/stamp", map[string]any{"journal_entry_id": entry}).status(t, 200)
	if st.str("data.created_journal_entry_id") != entry || st.at("data.processed") != true || st.str("data.underlag_status") != "anchored" {
		t.Fatalf("stamped: %s", st.Body)
	}
	b.write("POST", "inbox-items/"+bb+"/stamp", map[string]any{"journal_entry_id": entry}).errorCode(t, 409, "INBOX_ITEM_ALREADY_CONVERTED")

	// Match, correct, the bank's 501, delete.
	other := b.write("POST", "suppliers", map[string]any{"name": "Annan AB", "supplier_type": "swedish_business"}).status(t, 201).str("data.id")
	if m := b.write("POST", "inbox-items/"+c+"/match-supplier", map[string]any{"supplier_id": other}).status(t, 200); m.str("data.matched_supplier_id") != other {
		t.Fatalf("matched: %s", m.Body)
	}
	b.write("POST", "inbox-items/"+c+"/match-supplier", map[string]any{"supplier_id": "3f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f"}).
		errorCode(t, 404, "SUPPLIER_NOT_FOUND")
	if m := b.write("POST", "inbox-items/"+c+"/match-supplier", map[string]any{"supplier_id": nil}).status(t, 200); m.at("data.matched_supplier_id") != nil {
		t.Fatalf("cleared: %s", m.Body)
	}
	p := b.write("PATCH", "inbox-items/"+c, map[string]any{"amount": 2600, "vendor_name": "Kontorsgrossisten i Stockholm AB", "invoice_date": nil}).status(t, 200)
	if p.at("data.amount") != 2600.0 || p.at("data.invoice_date") != nil || p.str("data.extracted_data.format") != "peppol_bis3" {
		t.Fatalf("corrected: %s", p.Body)
	}
	// Paired with the bank transaction that paid it: the verifikat that
	// books the transaction shows once there is one; released again.
	b.write("POST", "inbox-items/"+c+"/match-transaction", map[string]any{"transaction_id": "3f1e2d3c-4b5a-4c6d-8e7f-0a1b2c3d4e5f"}).
		errorCode(t, 404, "TX_CATEGORIZE_TX_NOT_FOUND")
	tx := b.write("POST", "transactions/ingest", map[string]any{"transactions": []any{map[string]any{"external_id": "P1",
		"date": "2026-03-10", "amount": -2600, "currency": "SEK", "description": "KONTORSGROSSISTEN"}}}).status(t, 200).
		str("data.transaction_ids.0")
	if m := b.write("POST", "inbox-items/"+c+"/match-transaction", map[string]any{"transaction_id": tx}).status(t, 200); m.at("data.matched_transaction_id") != tx || m.at("data.matched_transaction_journal_entry_id") != nil {
		t.Fatalf("matched: %s", m.Body)
	}
	booked := b.write("POST", "transactions/"+tx+"/categorize", map[string]any{"is_business": true, "category": "expense_office"}).
		status(t, 200).str("data.journal_entry_id")
	if g := b.get(b.path("inbox-items/"+c), b.token).status(t, 200); g.at("data.matched_transaction_journal_entry_id") != booked {
		t.Fatalf("the transaction's verifikat: %s", g.Body)
	}
	if u := b.write("POST", "inbox-items/"+c+"/unmatch-transaction", nil).status(t, 200); u.at("data.matched_transaction_id") != nil {
		t.Fatalf("released: %s", u.Body)
	}
	if d := b.write("DELETE", "inbox-items/"+c, nil).status(t, 200); d.at("data.deleted") != true {
		t.Fatalf("deleted: %s", d.Body)
	}
	b.get(b.path("inbox-items/"+c), b.token).errorCode(t, 404, "INBOX_ITEM_NOT_FOUND")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'inbox_items'`, b.company); n < 8 {
		t.Fatalf("%d audit rows", n)
	}
}

// An upload from api that is nobody's underlag waits in the inbox, read;
// an invoice paid privately and a credit note take an item with them.
func TestInboxFromUploadAndPrivatePayment(t *testing.T) {
	t.Parallel()
	b := newInboxBooks(t)
	lb := &ledgerBooks{env: b.env, token: b.token, base: "/api/v1/companies/" + b.company.String()}
	up := lb.upload(form{name: "kvitto.pdf", partType: "application/pdf", data: invoicePDF(t, "K-9")}, "").status(t, 201)
	l := b.get(b.path("inbox-items"), b.token).status(t, 200).list("data.inbox_items")
	if len(l) != 1 {
		t.Fatalf("items: %v", l)
	}
	it := l[0].(map[string]any)
	if it["source"] != "api" || it["document_id"] != up.str("data.id") || it["amount"] != 12500.0 {
		t.Fatalf("upload item: %v", it)
	}
	priv := b.register(b.seller, "K-9", map[string]any{"paid_with_private_funds": true, "inbox_item_id": it["inbox_item_id"]},
		map[string]any{"description": "Kontorsmaterial", "amount": 10000}).status(t, 201)
	if priv.str("data.document_id") != up.str("data.id") || priv.str("data.status") != "paid" {
		t.Fatalf("private: %s", priv.Body)
	}
	if g := b.get(b.path("inbox-items/"+it["inbox_item_id"].(string)), b.token).status(t, 200); g.at("data.processed") != true ||
		g.str("data.underlag_status") != "anchored" {
		t.Fatalf("taken: %s", g.Body)
	}
	b.register(b.seller, "K-10", map[string]any{"paid_with_private_funds": true, "inbox_item_id": it["inbox_item_id"]},
		map[string]any{"description": "Igen", "amount": 1}).errorCode(t, 409, "INBOX_ITEM_ALREADY_CONVERTED")

	// Linked through the documents API naming its item: the item is stamped.
	second := lb.upload(form{name: "kvitto-2.pdf", partType: "application/pdf", data: invoicePDF(t, "K-12")}, "").status(t, 201).str("data.id")
	var item string
	for _, x := range b.get(b.path("inbox-items?unprocessed_only=true"), b.token).status(t, 200).list("data.inbox_items") {
		if x.(map[string]any)["document_id"] == second {
			item = x.(map[string]any)["inbox_item_id"].(string)
		}
	}
	period := b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	entry := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": "2026-03-02",
		"description": "Kvitto", "lines": []any{map[string]any{"account_number": "5410", "debit_amount": 100},
			map[string]any{"account_number": "1930", "credit_amount": 100}}}).status(t, 201).str("data.id")
	b.write("POST", "documents/"+up.str("data.id")+"/link", map[string]any{"journal_entry_id": entry, "inbox_item_id": item}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "documents/"+second+"/link", map[string]any{"journal_entry_id": entry, "inbox_item_id": item}).status(t, 200)
	if g := b.get(b.path("inbox-items/"+item), b.token).status(t, 200); g.str("data.created_journal_entry_id") != entry || g.at("data.processed") != true {
		t.Fatalf("linked: %s", g.Body)
	}

	id := b.register(b.seller, "K-11", nil, map[string]any{"description": "Papper", "amount": 100}).status(t, 201).str("data.id")
	note := b.deliver(rawMail("kr@k", "Kreditfaktura", inbox.Attachment{Name: "kredit.pdf", Type: "application/pdf",
		Data: invoicePDF(t, "KR-1")}), inboundSecret, time.Time{}).status(t, 200).str("data.inbox_item_ids.0")
	b.write("POST", si(id, "credit"), map[string]any{"inbox_item_id": note, "document_id": second}).
		errorCode(t, 400, "SI_CREDIT_DOCUMENT_MISMATCH")
	c := b.write("POST", si(id, "credit"), map[string]any{"inbox_item_id": note}).status(t, 200)
	if c.str("data.inbox_item_id") != note || c.str("data.document_id") == "" || c.str("data.invoice_date") != "2026-03-02" {
		t.Fatalf("credit with item: %s", c.Body)
	}
}
