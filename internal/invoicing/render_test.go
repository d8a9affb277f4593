package invoicing

import (
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/parties"
)

// pdfText runs pdftotext -layout on b; without poppler-utils the test
// skips, and fails under CI, where make installs it.
func pdfText(t *testing.T, b []byte) string {
	t.Helper()
	tool, err := osexec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is missing: make installs poppler-utils")
		}
		t.Skip("pdftotext not installed (Debian poppler-utils); make test installs it")
	}
	cmd := osexec.Command(tool, "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func sampleInvoice(lines int) Invoice {
	n, ocr := "2026-0042", "2026004206"
	sent := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	inv := Invoice{ID: uuid.MustParse("1a2b3c4d-0000-4000-8000-000000000001"), DocumentType: "invoice", Number: &n,
		CustomerName: "Åkesson & Söner AB", Status: "sent", Currency: "SEK", Treatment: SwedishSale,
		InvoiceDate: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), DueDate: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
		OCR: &ocr, SentAt: &sent}
	for i := range lines {
		inv.Lines = append(inv.Lines, Line{Type: "product", Description: fmt.Sprintf("Konsulttimmar, del %d", i+1),
			Quantity: qty("10"), Unit: "tim", UnitPrice: money.MustParse("1000"), VATRate: money.MustParse("0.25"),
			Net: money.MustParse("10000"), VAT: money.MustParse("2500")})
		inv.Subtotal, inv.VAT = inv.Subtotal.Add(money.MustParse("10000")), inv.VAT.Add(money.MustParse("2500"))
	}
	inv.Total = inv.Subtotal.Add(inv.VAT)
	return inv
}

func sampleLetter() Letter {
	s := SellerOf(map[string]any{"company_name": "Kontera Demo AB", "entity_type": "aktiebolag", "vat_number": "SE556677889901",
		"registered_office": "Stockholm", "f_skatt": true, "address_line1": "Sveavägen 1", "postal_code": "111 57",
		"city": "Stockholm", "bankgiro": "5050-1055", "invoice_primary_color": "#1A5FB4"}, "556677-8899", nil)
	city, pc, line := "Göteborg", "411 01", "Kungsgatan 3"
	return Letter{Seller: s, Buyer: AddresseeOf(partiesCustomer("Åkesson & Söner AB", line, pc, city))}
}

func TestRenderInvoice(t *testing.T) {
	got := pdfText(t, mustRender(t, sampleInvoice(1), sampleLetter()))
	for _, want := range []string{"Faktura", "2026-0042", "12 500,00", "2026004206", "Åkesson & Söner AB", "Göteborg",
		"Förfallodatum", "2026-04-01", "5050-1055", "Godkänd för F-skatt", "Styrelsens säte: Stockholm", "Sida 1 av 1",
		"Moms 25 % på 10 000,00"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if a, b := mustRender(t, sampleInvoice(1), sampleLetter()), mustRender(t, sampleInvoice(1), sampleLetter()); !bytes.Equal(a, b) {
		t.Error("two renders differ")
	}
}

func TestRenderTogglesAndDraft(t *testing.T) {
	l := sampleLetter()
	l.Seller.Layout.ShowOCR, l.Seller.Layout.ShowBankgiro = false, false
	inv := sampleInvoice(1)
	got := pdfText(t, mustRender(t, inv, l))
	for _, gone := range []string{"2026004206", "5050-1055", "Bankgiro"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q printed though turned off", gone)
		}
	}
	inv.Number, inv.OCR, inv.Status, inv.SentAt = nil, nil, "draft", nil
	got = pdfText(t, mustRender(t, inv, sampleLetter()))
	if !strings.Contains(got, "UTKAST") || strings.Contains(got, "2026-0042") {
		t.Errorf("a draft says UTKAST and has no number:\n%s", got)
	}
	if FileName(inv) != "faktura-utkast-1a2b3c4d.pdf" || FileName(sampleInvoice(1)) != "faktura-2026-0042.pdf" {
		t.Error(FileName(inv), FileName(sampleInvoice(1)))
	}
}

func TestRenderReverseChargeAndPages(t *testing.T) {
	inv := sampleInvoice(60)
	inv.Treatment = EUServices
	l := sampleLetter()
	l.Buyer.VATNumber, l.Buyer.Country = "DE123456789", "DE"
	got := pdfText(t, mustRender(t, inv, l))
	for _, want := range []string{"Omvänd betalningsskyldighet", "SE556677889901", "DE123456789", "Sida 2 av 2", "Tyskland"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if strings.Contains(got, "Sida 3") {
		t.Error("60 lines take two pages")
	}
}

func mustRender(t *testing.T, inv Invoice, l Letter) []byte {
	t.Helper()
	b, err := Render(inv, l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func partiesCustomer(name, line, pc, city string) parties.Customer {
	return parties.Customer{Name: name, Address: parties.Address{Line1: &line, PostalCode: &pc, City: &city, Country: "SE"}}
}
