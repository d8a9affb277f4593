package inbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pdf"
	"github.com/kontera/kontera/internal/peppol"
)

// textPDF lays lines out as a PDF with text, as an invoice program would.
func textPDF(t testing.TB, lines ...string) []byte {
	t.Helper()
	d, err := pdf.New(pdf.Options{Title: "Faktura"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		d.Text(l, pdf.Font{})
	}
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shapesPDF is a PDF with drawing and no text, as a scan is to the
// reader.
func shapesPDF(t testing.TB) []byte {
	t.Helper()
	d, err := pdf.New(pdf.Options{Title: "Skannad"})
	if err != nil {
		t.Fatal(err)
	}
	d.Rect(40, 40, 200, 100, pdf.Color{R: 0x20, G: 0x40, B: 0x60})
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An invoice as a Swedish supplier prints it (the buyer's own numbers
// among them); its lines: 5567 ... is Kontorsgrossisten's organisation
// number (Luhn-valid), 5050-1055 a valid bankgiro, 1234567897 a valid OCR.
var swedishInvoice = []string{
	"Kontorsgrossisten AB",
	"Faktura",
	"Fakturanummer: 88123",
	"Fakturadatum 2026-03-02",
	"Förfallodatum 2026-04-01",
	"Kund: Köparen AB, org.nr 556036-0793",
	"Kontorsmaterial 10 000,00",
	"Summa exkl. moms 10 000,00",
	"Moms 25 % 2 500,00",
	"Att betala 12 500,00 kr",
	"Bankgiro 5050-1055  OCR 1234567897",
	"Org.nr 556677-8899  Momsreg.nr SE556677889901  Godkänd för F-skatt",
}

func TestReadText(t *testing.T) {
	r := ReadText(swedishInvoice, "556036-0793", "SE556036079301")
	want := map[string]string{"vendor": "Kontorsgrossisten AB", "org": "556677-8899", "vat": "SE556677889901", "bg": "5050-1055",
		"ocr": "1234567897", "number": "88123", "date": "2026-03-02", "due": "2026-04-01", "cur": "SEK",
		"total": "12500.00", "moms": "2500.00", "net": "10000.00", "kind": KindInvoice}
	got := map[string]string{"vendor": deref(r.VendorName), "org": deref(r.OrgNumber), "vat": deref(r.VATNumber),
		"bg": deref(r.Bankgiro), "ocr": deref(r.OCR), "number": deref(r.InvoiceNumber), "cur": deref(r.Currency), "kind": r.Kind}
	if r.InvoiceDate != nil {
		got["date"] = r.InvoiceDate.Format(time.DateOnly)
	}
	if r.DueDate != nil {
		got["due"] = r.DueDate.Format(time.DateOnly)
	}
	got["total"], got["moms"], got["net"] = figure(r.Total), figure(r.VAT), figure(r.Net)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	// A failed check drops a value; two values of one field leave it out.
	bad := ReadText([]string{"Bankgiro 5050-1056", "OCR 1234567898", "Att betala 100,00", "Att betala 200,00", "Org.nr 556677-8890"})
	if bad.Bankgiro != nil || bad.OCR != nil || bad.Total != nil || bad.OrgNumber != nil {
		t.Fatalf("checks and rivals: %+v", bad)
	}
	if c := ReadText([]string{"Kreditfaktura 17", "Att betala -1 250,00"}); c.Kind != KindCreditNote || figure(c.Total) != "-1250.00" {
		t.Fatalf("credit: %+v %s", c, figure(c.Total))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func figure(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// The same invoice as a PDF with text reads the same; one of images or
// broken bytes is skipped, never a panic.
func TestReadPDF(t *testing.T) {
	r, err := ReadPDF(textPDF(t, swedishInvoice...), "556036-0793")
	if err != nil {
		t.Fatal(err)
	}
	if deref(r.OrgNumber) != "556677-8899" || figure(r.Total) != "12500.00" || deref(r.OCR) != "1234567897" ||
		r.DueDate == nil || deref(r.Bankgiro) != "5050-1055" {
		t.Fatalf("pdf: %+v", r)
	}
	if _, err := ReadPDF(shapesPDF(t)); err == nil {
		t.Fatal("a PDF without text was read")
	}
	for _, b := range [][]byte{[]byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF"), []byte("not a pdf"), nil} {
		if _, err := ReadPDF(b); err == nil {
			t.Fatalf("%q was read", b)
		}
	}
}

// OpenPeppol's examples read field by field.
func TestReadPeppolExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "data", "peppol", "bis3-examples")
	base, err := os.ReadFile(filepath.Join(dir, "base-example.xml"))
	if err != nil {
		t.Skip("the Peppol examples are not beside the repository: " + err.Error())
	}
	r, err := ReadEInvoice(base)
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != FormatPeppol || r.Kind != KindInvoice || deref(r.InvoiceNumber) != "Snippet1" || deref(r.Currency) != "EUR" ||
		r.InvoiceDate.Format(time.DateOnly) != "2017-11-13" || r.DueDate.Format(time.DateOnly) != "2017-12-01" ||
		deref(r.VendorName) != "SupplierTradingName Ltd." || deref(r.VATNumber) != "GB1232434" || r.OrgNumber != nil ||
		r.Total == nil || len(r.Lines) == 0 {
		t.Fatalf("base example: %+v", r)
	}
	credit, err := os.ReadFile(filepath.Join(dir, "base-creditnote-correction.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ReadEInvoice(credit); err != nil || c.Kind != KindCreditNote || len(c.Lines) == 0 {
		t.Fatalf("credit note: %+v %v", c, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if _, err := ReadEInvoice(b); err != nil && !strings.Contains(e.Name(), "order") {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

// A Swedish e-invoice as Kontera writes one: organisation number,
// bankgiro and OCR read with their checks.
func TestReadSwedishUBL(t *testing.T) {
	b := swedishUBL(t)
	r, err := ReadEInvoice(b)
	if err != nil {
		t.Fatal(err)
	}
	if deref(r.OrgNumber) != "556677-8899" || deref(r.Bankgiro) != "5050-1055" || deref(r.OCR) != "1234567897" ||
		figure(r.Total) != "12500.00" || figure(r.VAT) != "2500.00" || deref(r.VATNumber) != "SE556677889901" {
		t.Fatalf("swedish: %+v", r)
	}
}

func swedishUBL(t testing.TB) []byte {
	t.Helper()
	amt := money.MustParse
	qty, _ := money.ParseQuantity("1")
	seller := peppol.Party{Endpoint: peppol.ID{Scheme: peppol.SchemeOrgNumber, Value: "5566778899"}, Name: "Kontorsgrossisten AB",
		Street: []string{"Storgatan 1"}, PostalZone: "111 22", City: "Stockholm", Country: "SE", VATNumber: "SE556677889901",
		OrgNumber: "5566778899", FSkatt: true}
	buyer := peppol.Party{Endpoint: peppol.ID{Scheme: peppol.SchemeOrgNumber, Value: "5560360793"}, Name: "Köparen AB",
		Street: []string{"Lillgatan 2"}, PostalZone: "411 01", City: "Göteborg", Country: "SE", OrgNumber: "5560360793"}
	doc := peppol.Document{Number: "88123", IssueDate: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC),
		DueDate: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Currency: "SEK", BuyerReference: "Anna",
		Seller: seller, Buyer: buyer, PaymentID: "1234567897",
		Payment: []peppol.PaymentMeans{{Code: "30", Account: "50501055", Branch: "SE:BANKGIRO"}},
		Lines: []peppol.Line{{ID: "1", Description: "Kontorsmaterial", Quantity: qty, Unit: "C62", Price: amt("10000.00"),
			Net: amt("10000.00"), Category: peppol.Standard, Percent: 25}},
		Subtotals: []peppol.Subtotal{{Category: peppol.Standard, Percent: 25, Taxable: amt("10000.00"), Tax: amt("2500.00")}},
		LineTotal: amt("10000.00"), Tax: amt("2500.00"), Payable: amt("12500.00")}
	b, err := peppol.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A Svefaktura 1.0 invoice.
const svefakturaSample = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:sfti:documents:BasicInvoice:1:0" xmlns:cac="urn:sfti:CommonAggregateComponents:1:0"
  xmlns:cbc="urn:oasis:names:tc:ubl:CommonBasicComponents:1:0">
  <ID>SF-4711</ID>
  <cbc:IssueDate>2026-03-02</cbc:IssueDate>
  <InvoiceTypeCode>380</InvoiceTypeCode>
  <InvoiceCurrencyCode>SEK</InvoiceCurrencyCode>
  <cac:SellerParty><cac:Party>
    <cac:PartyIdentification><cac:ID>5566778899</cac:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name>Städbolaget i Norr AB</cbc:Name></cac:PartyName>
    <cac:PartyTaxScheme><cac:CompanyID>SE556677889901</cac:CompanyID><cac:TaxScheme><cac:ID>VAT</cac:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyTaxScheme><cac:RegistrationName>Städbolaget i Norr AB</cac:RegistrationName><cac:CompanyID>5566778899</cac:CompanyID>
      <cac:TaxScheme><cac:ID>SWT</cac:ID></cac:TaxScheme></cac:PartyTaxScheme>
  </cac:Party></cac:SellerParty>
  <cac:PaymentMeans><cac:PaymentMeansTypeCode>1</cac:PaymentMeansTypeCode><cbc:DuePaymentDate>2026-04-01</cbc:DuePaymentDate>
    <cac:PayeeFinancialAccount><cac:ID schemeName="BGNR">5050-1055</cac:ID><cac:PaymentInstructionID>1234567897</cac:PaymentInstructionID></cac:PayeeFinancialAccount>
  </cac:PaymentMeans>
  <cac:TaxTotal><cbc:TotalTaxAmount amountCurrencyID="SEK">500.00</cbc:TotalTaxAmount></cac:TaxTotal>
  <cac:LegalTotal><cbc:LineExtensionTotalAmount amountCurrencyID="SEK">2000.00</cbc:LineExtensionTotalAmount>
    <cbc:TaxExclusiveTotalAmount amountCurrencyID="SEK">2000.00</cbc:TaxExclusiveTotalAmount>
    <cbc:TaxInclusiveTotalAmount amountCurrencyID="SEK">2500.00</cbc:TaxInclusiveTotalAmount></cac:LegalTotal>
  <cac:InvoiceLine><cac:ID>1</cac:ID><cbc:LineExtensionAmount amountCurrencyID="SEK">2000.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Description>Städning mars</cbc:Description><cac:TaxCategory><cac:ID>S</cac:ID><cbc:Percent>25</cbc:Percent></cac:TaxCategory></cac:Item>
  </cac:InvoiceLine>
</Invoice>`

func TestReadSvefaktura(t *testing.T) {
	r, err := ReadEInvoice([]byte(svefakturaSample))
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != FormatSvefaktura || deref(r.InvoiceNumber) != "SF-4711" || deref(r.VendorName) != "Städbolaget i Norr AB" ||
		deref(r.OrgNumber) != "556677-8899" || deref(r.Bankgiro) != "5050-1055" || deref(r.OCR) != "1234567897" ||
		figure(r.Total) != "2500.00" || figure(r.VAT) != "500.00" || r.DueDate.Format(time.DateOnly) != "2026-04-01" ||
		len(r.Lines) != 1 || figure(r.Lines[0].VATRate) != "0.25" {
		t.Fatalf("svefaktura: %+v", r)
	}
	if _, err := ReadEInvoice([]byte(`<!DOCTYPE x [<!ENTITY a "b">]><Invoice xmlns="urn:sfti:documents:BasicInvoice:1:0"/>`)); err == nil {
		t.Fatal("a DTD was read")
	}
}
