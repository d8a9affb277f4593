package peppol

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/peppol/schematron"
)

// schemas is where the OASIS UBL 2.1 schemas lie; they are read in place
// and never copied into the repository.
const schemas = "../../../shared/data/peppol/ubl-2.1-xsd/maindoc"

// xsd validates b against UBL 2.1 with xmllint. Without the schemas (the
// reference data beside the repository) the test skips; without xmllint
// too, but under CI, where make installs it, it fails.
func xsd(t *testing.T, b []byte, credit bool) {
	t.Helper()
	name := "UBL-Invoice-2.1.xsd"
	if credit {
		name = "UBL-CreditNote-2.1.xsd"
	}
	schema := filepath.Join(schemas, name)
	skip := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	if _, err := os.Stat(schema); err != nil {
		// The reference data lives beside the repository, not in it.
		t.Skip("the UBL 2.1 schemas are not at ../shared/data/peppol/ubl-2.1-xsd: " + err.Error())
	}
	if _, err := exec.LookPath("xmllint"); err != nil {
		skip("xmllint (Debian libxml2-utils) is not installed")
	}
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("xmllint", "--noout", "--schema", schema, f).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint refuses the document: %v\n%s\n%s", err, out, b)
	}
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func amt(s string) money.Amount { return money.MustParse(s) }

func qty(s string) money.Quantity {
	q, err := money.ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

// sample is a Swedish sale at 25, 12 and 6 %: 10 h × 1 000 at 25 %,
// 2 st × 300 less 10 % (540) at 12 %, 1 × 99.90 at 6 %.
// VAT: 2 500.00 + 64.80 + 5.99 = 2 570.79; total 13 210.69, rounded to
// 13 211 (+0.31).
func sample() Document {
	seller := Party{Endpoint: ID{SchemeOrgNumber, "5561234567"}, Name: "Kontera Konsult AB",
		Street: []string{"Storgatan 1"}, PostalZone: "411 01", City: "Göteborg", Country: "SE",
		VATNumber: "SE556123456701", OrgNumber: "5561234567", LegalForm: "Styrelsens säte: Göteborg", FSkatt: true,
		Email: "faktura@kontera.test"}
	buyer := Party{Endpoint: ID{SchemeOrgNumber, "5560000001"}, Name: "Åkesson & Söner AB",
		Street: []string{"Hamngatan 2", "Box 12"}, PostalZone: "111 47", City: "Stockholm", Country: "SE",
		VATNumber: "SE556000000101", OrgNumber: "5560000001", Contact: "Anna Åkesson"}
	return Document{Number: "2026-0042", IssueDate: day("2026-11-02"), DueDate: day("2026-12-02"), Currency: "SEK",
		BuyerReference: "Anna Åkesson", Seller: seller, Buyer: buyer, PaymentID: "2026004206",
		Payment: []PaymentMeans{{Code: "30", Account: "56781234", Branch: "SE:BANKGIRO"}},
		Lines: []Line{
			{ID: "1", Description: "Konsulttimmar", Quantity: qty("10"), Unit: "HUR", Price: amt("1000.00"), Net: amt("10000.00"), Category: Standard, Percent: 25},
			{ID: "2", Description: "Böcker", Quantity: qty("2"), Unit: "H87", Price: amt("300.00"), Discount: amt("10.00"), Allowance: amt("60.00"), Net: amt("540.00"), Category: Standard, Percent: 12},
			{ID: "3", Description: "Tidning", Quantity: qty("1"), Unit: "C62", Price: amt("99.90"), Net: amt("99.90"), Category: Standard, Percent: 6},
		},
		Subtotals: []Subtotal{{Standard, 25, amt("10000.00"), amt("2500.00")}, {Standard, 12, amt("540.00"), amt("64.80")},
			{Standard, 6, amt("99.90"), amt("5.99")}},
		LineTotal: amt("10639.90"), Tax: amt("2570.79"), Rounding: amt("0.31"), Payable: amt("13211.00"),
	}
}

func zeroRated(c Category) Document {
	d := sample()
	d.Lines = d.Lines[:1]
	d.Lines[0].Category, d.Lines[0].Percent = c, 0
	d.Subtotals = []Subtotal{{c, 0, amt("10000.00"), amt("0.00")}}
	d.LineTotal, d.Tax, d.Rounding, d.Payable = amt("10000.00"), amt("0.00"), amt("0.00"), amt("10000.00")
	return d
}

// variants are the documents the acceptance names: S at 25, 12 and 6 %
// with öresavrundning, EUR, AE, K, G, E and a credit note.
func variants() map[string]Document {
	eur := sample()
	eur.Currency, eur.Rounding, eur.Payable = "EUR", amt("0.00"), amt("13210.69")
	sek := amt("29484.21") // 2 570.79 EUR × 11.4690
	eur.TaxSEK = &sek
	eur.Payment = []PaymentMeans{{Code: "58", Account: "SE4550000000058398257466", Branch: "ESSESESS"}}
	eu := zeroRated(ReverseCharge)
	eu.Buyer.Country, eu.Buyer.VATNumber, eu.Buyer.Endpoint = "DE", "DE123456789", ID{SchemeGLN, "4000001000005"}
	goods := zeroRated(IntraEU)
	goods.Buyer.Country, goods.Buyer.VATNumber, goods.DeliveryCountry = "DK", "DK12345678", "DK"
	dd := day("2026-10-30")
	goods.DeliveryDate = &dd
	credit := sample()
	credit.Credit, credit.Number, credit.Original, credit.PaymentTerms = true, "KR-2026-0042", "2026-0042", "Krediteras"
	orig := day("2026-11-02")
	credit.OriginalDate, credit.PaymentID, credit.Payment = &orig, "", nil
	return map[string]Document{"S-25-12-6-rounded": sample(), "EUR": eur, "AE": eu, "K": goods,
		"G": zeroRated(Export), "E": zeroRated(Exempt), "credit-note": credit}
}

func TestUBLValidates(t *testing.T) {
	for name, d := range variants() {
		t.Run(name, func(t *testing.T) {
			b, err := Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if blockers := Check(d, Situation{DocumentType: "invoice", Transport: true}); len(blockers) > 0 {
				t.Fatalf("blockers on a sound document: %+v", blockers)
			}
			xsd(t, b, d.Credit)
		})
	}
}

// TestUBLShape reads a document back and checks what BIS 3 asks of it.
func TestUBLShape(t *testing.T) {
	b, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"`,
		`<cbc:CustomizationID>` + CustomizationID + `</cbc:CustomizationID>`,
		`<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>`,
		`<cbc:EndpointID schemeID="0007">5561234567</cbc:EndpointID>`,
		`<cbc:CompanyID>Godkänd för F-skatt</cbc:CompanyID>`,
		`<cbc:PaymentID>2026004206</cbc:PaymentID>`,
		`<cbc:ID>SE:BANKGIRO</cbc:ID>`,
		`<cbc:PayableRoundingAmount currencyID="SEK">0.31</cbc:PayableRoundingAmount>`,
		`<cbc:InvoicedQuantity unitCode="HUR">10</cbc:InvoicedQuantity>`,
		`<cbc:MultiplierFactorNumeric>10.00</cbc:MultiplierFactorNumeric>`,
		`<cbc:BaseAmount currencyID="SEK">600.00</cbc:BaseAmount>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s", want)
		}
	}
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
}

// TestUBLMeetsBIS3 runs every generated document through the published
// rule sets (CEN EN 16931 and PEPPOL BIS 3), compiled by the schematron
// package and run by Saxon-HE: none may fail a fatal rule.
func TestUBLMeetsBIS3(t *testing.T) {
	if why := schematron.Available(); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	rules := "../../../shared/data/peppol/bis3-schematron"
	if _, err := os.Stat(rules); err != nil {
		t.Skip("the BIS 3 rule sets are not at ../shared/data/peppol/bis3-schematron")
	}
	docs := map[string][]byte{}
	for name, d := range variants() {
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		docs[name+".xml"] = b
	}
	res, err := schematron.BIS(rules, docs)
	if err != nil {
		t.Fatal(err)
	}
	for name, fs := range res {
		if fatal := schematron.Fatal(fs); len(fatal) > 0 {
			t.Errorf("%s fails BIS 3: %+v\n%s", name, fatal, docs[name])
		}
	}
}
