package incometax

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/money"
)

func m(s string) money.Amount { return money.MustParse(s) }

func accounts(figures map[string]string) []Account {
	var out []Account
	for n, a := range figures {
		out = append(out, Account{Number: n, Amount: m(a)})
	}
	return out
}

// An aktiebolag's year by hand: 120 000 of sales, 48 000 of rent, 800.50
// of non-deductible entertainment, 20 000 of salaries, 3 000 of
// depreciation, 1 200 of interest, 10 000 to a periodiseringsfond, 2 000
// of tax: a result of 34 999.50, not yet closed.
func TestINK2(t *testing.T) {
	year := accounts(map[string]string{
		"1930": "138499.50", "1229": "-3000", "2081": "-50000", "2091": "-6000", "2611": "-32500", "2125": "-10000",
		"2512": "-2000", "3001": "120000", "5010": "-48000", "6072": "-800.50", "7010": "-20000", "7832": "-3000",
		"8410": "-1200", "8811": "-10000", "8910": "-2000", "8999": "0"})
	r := BuildINK2("20260101", "20261231", year, m("34999.50"))
	want := map[string]int64{"7281": 138499, "7215": -3000, "7301": 50000, "7302": 40999, "7369": 32500, "7321": 10000,
		"7368": 2000, "7410": 120000, "7513": 48800, "7514": 20000, "7515": 3000, "7522": 1200, "7525": 10000,
		"7528": 2000, "7450": 34999}
	if len(r.R) != len(want) {
		t.Errorf("INK2R %v", r.R)
	}
	for c, v := range want {
		if r.R[c] != v {
			t.Errorf("INK2R %s: %d, want %d", c, r.R[c], v)
		}
	}
	wantS := map[string]int64{"7650": 34999, "7651": 2000, "7653": 800, "7670": 37799}
	for c, v := range wantS {
		if r.S[c] != v {
			t.Errorf("INK2S %s: %d, want %d", c, r.S[c], v)
		}
	}
	if len(r.S) != 4 || r.Main["7104"] != 37799 || r.Main["7011"] != 20260101 || r.Main["7012"] != 20261231 {
		t.Errorf("INK2S %v main %v", r.S, r.Main)
	}
	if r.Assets.Cmp(m("135499.50")) != 0 || r.EquityLiabilities.Cmp(m("135499.50")) != 0 || r.Result.Cmp(m("34999.50")) != 0 {
		t.Errorf("totals %s %s %s", r.Assets, r.EquityLiabilities, r.Result)
	}
	if len(r.Breakdown["7513"]) != 2 || len(r.Warnings) != 1 {
		t.Errorf("breakdown %v warnings %v", r.Breakdown, r.Warnings)
	}
	// A loss, and a reversed periodiseringsfond (income on 7420).
	r = BuildINK2("20260101", "20261231", accounts(map[string]string{"5010": "-5000", "8819": "2000", "1930": "-3000",
		"2081": "0"}), m("-3000"))
	if r.R["7550"] != 3000 || r.R["7420"] != 2000 || r.S["7750"] != 3000 || r.S["7770"] != 3000 || r.Main["7114"] != 3000 {
		t.Errorf("loss: R %v S %v main %v", r.R, r.S, r.Main)
	}
}

// A sole trader's year by hand: R1-R10 from the accounts, R11 their sum,
// B9 the bank, B10 equity with the result.
func TestNE(t *testing.T) {
	year := accounts(map[string]string{"1930": "85100.30", "2010": "-17000", "3001": "100000.70", "3308": "4000",
		"8310": "300", "4010": "-10000", "5010": "-20000.40", "7010": "-5000", "8410": "-200", "7832": "-1000"})
	n := BuildNE(year, func(a string) bool { return a == "3001" }, m("68100.30"))
	want := map[string]int64{"R1": 100000, "R2": 4000, "R3": 0, "R4": 300, "R5": 10000, "R6": 20000, "R7": 5000, "R8": 200,
		"R9": 0, "R10": 1000, "R11": 68100, "B9": 85100, "B10": 85100, "B1": 0}
	for f, v := range want {
		if n.Fields[f] != v {
			t.Errorf("%s: %d, want %d", f, n.Fields[f], v)
		}
	}
	codes := n.Codes()
	if codes["7400"] != 100000 || codes["7440"] != 68100 || codes["7300"] != 85100 || codes["7402"] != 0 || len(codes) != 11 {
		t.Errorf("codes %v", codes)
	}
	for n, want := range map[string]string{"1130": "B3", "1110": "B2", "1291": "B3", "1220": "B4", "2330": "B13",
		"2480": "B13", "2440": "B15", "2710": "B14", "2730": "B14", "2720": "B16", "2990": "B16", "3800": "R2",
		"7770": "R9", "7820": "R9", "7810": "R10", "8990": ""} {
		if got := NEFieldOf(n, true); got != want {
			t.Errorf("%s: %s, want %s", n, got, want)
		}
	}
}

// Accounts of classes 3-8 an SIE file declared an asset (3950, SRU 7251)
// and a liability (4990, SRU 7368) count at their closing balance on the
// balance sheet, never in the result. By hand: assets 1930 1 000 + 3950
// 500 = 1 500 = 2081 1 000 + 4990 300 + the result 200 (sales 200).
func TestFileBalanceAccounts(t *testing.T) {
	year := []Account{{Number: "1930", Amount: m("1000")}, {Number: "2081", Amount: m("-1000")},
		{Number: "3950", SRU: "7251", Amount: m("500"), Sheet: bas.Asset},
		{Number: "4990", SRU: "7368", Amount: m("-300"), Sheet: bas.Liability}, {Number: "3001", Amount: m("200")}}
	r := BuildINK2("20260101", "20261231", year, m("200"))
	if r.Assets.Cmp(m("1500")) != 0 || r.EquityLiabilities.Cmp(m("1500")) != 0 || r.Result.Cmp(m("200")) != 0 ||
		r.R["7251"] != 500 || r.R["7368"] != 300 {
		t.Errorf("INK2: assets %s, equity and liabilities %s, result %s, R %v", r.Assets, r.EquityLiabilities, r.Result, r.R)
	}
	n := BuildNE(year, func(string) bool { return true }, m("200"))
	if n.Fields["B8"] != 500 || n.Fields["B16"] != 300 || n.Fields["R1"] != 200 || n.Fields["R11"] != 200 {
		t.Errorf("NE %v", n.Fields)
	}
}

func TestSRUFiles(t *testing.T) {
	at := time.Date(2027, 3, 1, 10, 0, 0, 0, time.UTC)
	b, err := SRU(Filer{Number: "165566778899", Name: "Momsbolaget AB", PostalCode: "123 45", City: "Västerås"},
		[]Form{{ID: "INK2-2026P4", Fields: map[string]int64{"7011": 20260101, "7012": 20261231, "7104": 37799, "7114": 0}}}, at)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range z.File {
		r, _ := f.Open()
		body, _ := io.ReadAll(r)
		files[f.Name] = string(body)
	}
	info := "#DATABESKRIVNING_START\r\n#PRODUKT SRU\r\n#SKAPAD 20270301 100000\r\n#PROGRAM Kontera\r\n#FILNAMN BLANKETTER.SRU\r\n" +
		"#DATABESKRIVNING_SLUT\r\n#MEDIELEV_START\r\n#ORGNR 165566778899\r\n#NAMN Momsbolaget AB\r\n#POSTNR 12345\r\n" +
		"#POSTORT V\xe4ster\xe5s\r\n#MEDIELEV_SLUT\r\n"
	forms := "#BLANKETT INK2-2026P4\r\n#IDENTITET 165566778899 20270301 100000\r\n#NAMN Momsbolaget AB\r\n" +
		"#UPPGIFT 7011 20260101\r\n#UPPGIFT 7012 20261231\r\n#UPPGIFT 7104 37799\r\n#BLANKETTSLUT\r\n#FIL_SLUT\r\n"
	if files["INFO.SRU"] != info || files["BLANKETTER.SRU"] != forms || len(z.File) != 2 || z.File[0].Name != "INFO.SRU" {
		t.Fatalf("INFO.SRU:\n%q\nBLANKETTER.SRU:\n%q", files["INFO.SRU"], files["BLANKETTER.SRU"])
	}
	for end, want := range map[string]string{"2026-12-31": "2026P4", "2026-04-30": "2026P1", "2026-06-30": "2026P2",
		"2026-08-31": "2026P3"} {
		d, _ := time.Parse(time.DateOnly, end)
		if FormPeriod(d) != want {
			t.Errorf("%s: %s", end, FormPeriod(d))
		}
	}
}
