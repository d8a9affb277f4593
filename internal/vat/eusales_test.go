package vat

import (
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// Skatteverket's own example, built from sales: Finnish goods, Danish
// goods and triangular trade, Spanish goods and services; a credit note
// nets against its buyer; öre are dropped per field.
func TestEUSalesListFile(t *testing.T) {
	fi, dk, es, se, none := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	sales := []Sale{
		{CustomerID: fi, CustomerName: "Oy Suomi", VATNumber: str("fi 0140 9351"), Kind: Goods, Amount: amt("16400.90")},
		{CustomerID: dk, CustomerName: "Dansk A/S", VATNumber: str("DK31283522"), Kind: Goods, Amount: amt("25000")},
		{CustomerID: dk, CustomerName: "Dansk A/S", VATNumber: str("DK31283522"), Kind: Goods, Amount: amt("-3300.50")},
		{CustomerID: dk, CustomerName: "Dansk A/S", VATNumber: str("DK31283522"), Kind: Triangulation, Amount: amt("13600")},
		{CustomerID: es, CustomerName: "España SA", VATNumber: str("ESA28480514"), Kind: Goods, Amount: amt("3200")},
		{CustomerID: es, CustomerName: "España SA", VATNumber: str("ESA28480514"), Kind: Services, Amount: amt("15300.99")},
	}
	l := Compile(sales)
	if len(l.Rows) != 3 || len(l.Errors) != 0 || l.Goods != 16400+21699+3200 || l.Triangulation != 13600 || l.Services != 15300 {
		t.Fatalf("list %+v", l)
	}
	p, _ := Resolve(Monthly, 2020, 1, nil)
	f := Filer{VATNumber: "556000016701", Name: "Per Persson", Phone: "0123-45690", Email: "post@filmkopia.se"}
	b, err := CSV(f, p, l)
	if err != nil {
		t.Fatal(err)
	}
	want := "SKV574008;\r\n556000016701;2001;Per Persson;0123-45690;post@filmkopia.se\r\n" +
		"DK31283522;21699;13600;;\r\nESA28480514;3200;;15300;\r\nFI01409351;16400;;;\r\n"
	if string(b) != want {
		t.Fatalf("file:\n%q\nwant:\n%q", b, want)
	}
	q, _ := Resolve(Quarterly, 2023, 1, nil)
	if PeriodCode(q) != "23-1" {
		t.Errorf("quarter code %s", PeriodCode(q))
	}
	// A buyer without a VAT number of another EU state blocks the file.
	l = Compile(append(sales, Sale{CustomerID: se, CustomerName: "Svensk AB", VATNumber: str("SE556677889901"), Kind: Goods,
		Amount: amt("1")}, Sale{CustomerID: none, CustomerName: "Utan nummer", Kind: Services, Amount: amt("1")}))
	if len(l.Errors) != 2 || l.Errors[0].Code != "BUYER_VAT_NUMBER_NOT_EU" || l.Errors[1].Code != "BUYER_VAT_NUMBER_MISSING" {
		t.Fatalf("errors %+v", l.Errors)
	}
	if _, err := CSV(f, p, l); !apierr.Is(err, apierr.PSReportCSVBlockedByErrors) {
		t.Errorf("blocked: %v", err)
	}
	if _, err := CSV(Filer{VATNumber: "SE556000016701"}, p, Compile(nil)); !apierr.Is(err, apierr.PSReportMissingFilerInfo) {
		t.Errorf("filer: %v", err)
	}
	// A name Latin-1 cannot write does not refuse the file; å stays one byte.
	b, err = CSV(Filer{VATNumber: "SE556000016701", Name: "Åsa Łukasz", Phone: "08-123"}, p, Compile(nil))
	if err != nil || string(b[len("SKV574008;\r\nSE556000016701;2001;"):][:10]) != "\xc5sa ?ukasz" {
		t.Errorf("latin-1: %q %v", b, err)
	}
}
