package payfiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// schema is the published pain.001.001.03 schema, read in place.
const schema = "../../../shared/data/iso20022/pain.001.001.03.xsd"

func kr(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// five is the file: five invoices paid on 25 May 2026 from the
// company's bankgiro: to a bankgiro with an OCR reference, to a plusgiro,
// to a German IBAN in euro, to a Swedish bank account, and to a second
// bankgiro with a message; and one on 29 May in its own PmtInf.
func five() File {
	may25, may29 := time.Date(2026, 5, 25, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	return File{MessageID: "KONTERA-7f3a", Created: time.Date(2026, 5, 20, 9, 30, 0, 0, time.UTC),
		Payer: Payer{Name: "Sundsvalls Bygg AB", OrgNumber: "556677-8899", Account: Account{Bankgiro: "5050-1055"}},
		Payments: map[time.Time][]Payment{
			may25: {
				{EndToEndID: "A-101", Name: "Kontorsgrossisten AB", Account: Account{Bankgiro: "5402-9681"}, Amount: kr("12500.00"),
					Currency: "SEK", OCR: "4608142300005"},
				{EndToEndID: "A-102", Name: "Elfirman i Norr AB", Account: Account{Plusgiro: "4000-1234"}, Amount: kr("3750.50"),
					Currency: "SEK", Message: "Faktura 2231"},
				{EndToEndID: "A-103", Name: "Maschinenbau GmbH", Country: "DE",
					Account: Account{IBAN: "DE89 3704 0044 0532 0130 00", BIC: "COBADEFFXXX"}, Amount: kr("1980.00"), Currency: "EUR",
					Message: "Rechnung 55-1021"},
				{EndToEndID: "A-104", Name: "Revisorn Karin Ek", Account: Account{Clearing: "8327-9", Number: "914 567 8"},
					Amount: kr("8000.00"), Currency: "SEK", Message: "Faktura 17"},
			},
			may29: {
				{EndToEndID: "A-105", Name: "Städbolaget AB", Account: Account{Bankgiro: "123-4567"}, Amount: kr("1250.00"),
					Currency: "SEK", Message: "Faktura 9001"},
			},
		}}
}

// The file validates against the published schema, its counts and sums
// hold, and each payment names its account the Swedish way.
func TestBuildValidates(t *testing.T) {
	raw, err := Build(five())
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, want := range []string{
		"<NbOfTxs>5</NbOfTxs>", "<CtrlSum>27480.50</CtrlSum>", // 12 500 + 3 750.50 + 1 980 + 8 000 + 1 250
		"<ReqdExctnDt>2026-05-25</ReqdExctnDt>", "<ReqdExctnDt>2026-05-29</ReqdExctnDt>",
		"<Id>54029681</Id>", "<Prtry>BGNR</Prtry>", "<MmbId>9900</MmbId>", "<MmbId>9960</MmbId>", "<MmbId>83279</MmbId>",
		"<Id>832799145678</Id>", `<InstdAmt Ccy="EUR">1980.00</InstdAmt>`, "<IBAN>DE89370400440532013000</IBAN>",
		"<BIC>COBADEFFXXX</BIC>", "<Cd>SCOR</Cd>", "<Ref>4608142300005</Ref>", "<Ustrd>Faktura 2231</Ustrd>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the file lacks %s", want)
		}
	}
	validate(t, raw)
}

// validate runs xmllint with the schema over raw: skipped where the
// schema or xmllint is missing, failed on CI.
func validate(t *testing.T, raw []byte) {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	if _, err := os.Stat(schema); err != nil {
		if ci {
			t.Fatalf("the pain.001.001.03 schema is not at %s", schema)
		}
		t.Skipf("the pain.001.001.03 schema is not at %s", schema)
	}
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		if ci {
			t.Fatal("xmllint is not installed")
		}
		t.Skip("xmllint is not installed")
	}
	f := filepath.Join(t.TempDir(), "betalfil.xml")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(lint, "--noout", "--schema", schema, f).CombinedOutput(); err != nil {
		t.Fatalf("the file does not validate: %v\n%s\n%s", err, out, raw)
	}
}

// An account of no kind, a payment of nothing, a file of none: refused.
func TestBuildRefuses(t *testing.T) {
	f := five()
	day := time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	f.Payments[day][0].Account = Account{}
	if _, err := Build(f); err == nil {
		t.Error("a payment to no account")
	}
	f = five()
	f.Payments[day][0].Amount = kr("0")
	if _, err := Build(f); err == nil {
		t.Error("a payment of nothing")
	}
	if _, err := Build(File{MessageID: "X", Payer: five().Payer}); err == nil {
		t.Error("a file of no payments")
	}
}
