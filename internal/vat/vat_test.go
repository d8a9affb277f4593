package vat

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

func str(s string) *string { return &s }

func TestBoxOf(t *testing.T) {
	zero, full := money.MustParse("0"), money.MustParse("0.25")
	for _, c := range []struct {
		name string
		a    Account
		want string
	}{
		{"BAS sales 25 %", Account{Number: "3001", Treatment: str("standard_25")}, "05"},
		{"output VAT 25 %", Account{Number: "2611"}, "10"},
		{"EU services bought", Account{Number: "4535", Treatment: str("reverse_charge_eu_services")}, "21"},
		{"domestic reverse charge, goods", Account{Number: "4415", Treatment: str("reverse_charge_domestic")}, "23"},
		{"domestic reverse charge, services", Account{Number: "4425", Treatment: str("reverse_charge_domestic")}, "24"},
		{"deductible VAT on acquisitions", Account{Number: "2645"}, "48"},
		{"construction input VAT", Account{Number: "2647"}, "48"},
		{"import VAT", Account{Number: "2615"}, "60"},
		{"EU goods sold", Account{Number: "3108", Treatment: str("reverse_charge_eu_goods")}, "35"},
		{"export", Account{Number: "3105"}, "36"},
		{"vilande moms", Account{Number: "2618"}, ""},
		{"vilande ingående moms", Account{Number: "2648"}, ""},
		{"OSS", Account{Number: "2670"}, ""},
		{"rounding", Account{Number: "3740"}, ""},
		{"untaxed EU goods (BAS default)", Account{Number: "4518", Treatment: str("reverse_charge_eu_goods"), Rate: &zero}, ""},
		{"own sales account with a treatment", Account{Number: "3011", Treatment: str("standard_25"), Rate: &full}, "05"},
		{"BAS account set exempt", Account{Number: "3001", Treatment: str("exempt")}, "42"},
		{"own VAT account with a box", Account{Number: "2619", Box: str("10")}, "10"},
		{"vat_box moves a BAS VAT account", Account{Number: "2611", Box: str("11")}, "11"},
		{"untaxed purchase under reverse charge", Account{Number: "4599", Treatment: str("reverse_charge_eu_services"), Rate: &zero}, ""},
		{"own purchase account, EU services", Account{Number: "4599", Treatment: str("reverse_charge_eu_services"), Rate: &full}, "21"},
		{"import goods", Account{Number: "4546", Treatment: str("import_goods")}, "50"},
		{"a cost with no treatment", Account{Number: "6110"}, ""},
	} {
		if got := BoxOf(c.a); got != c.want {
			t.Errorf("%s: BoxOf(%s) = %q, want %q", c.name, c.a.Number, got, c.want)
		}
	}
}

func amt(s string) money.Amount { return money.MustParse(s) }

// The boxes of a period with öre in every box, computed by hand: each box
// truncated toward zero, 49 from the truncated boxes.
func TestDeclareTruncatesEachBox(t *testing.T) {
	turnover := map[string]Turnover{
		"3001": {Credit: amt("10000.99")},
		"3002": {Debit: amt("99.99")}, // a credit note beyond the month's sales at 12 %
		"2611": {Credit: amt("2500.75")},
		"2641": {Debit: amt("600.60")},
		"4535": {Debit: amt("1000.50")},
		"2614": {Credit: amt("250.13")},
		"2645": {Debit: amt("250.13")},
		"2618": {Credit: amt("77.00")}, // vilande: not reported
	}
	boxOf := map[string]string{"3001": "05", "3002": "05", "2611": "10", "2641": "48", "4535": "21", "2614": "30", "2645": "48"}
	r := Declare(turnover, boxOf)
	want := map[string]struct {
		exact string
		filed int64
	}{
		"05": {"9901.00", 9901}, "10": {"2500.75", 2500}, "21": {"1000.50", 1000}, "30": {"250.13", 250},
		"48": {"850.73", 850},
		// 2500.75 + 250.13 - 850.73 to the öre; 2500 + 250 - 850 as filed.
		"49": {"1900.15", 1900},
	}
	for _, b := range Boxes {
		w, ok := want[b]
		if !ok {
			w.exact = "0"
		}
		if r.Exact[b].Cmp(amt(w.exact)) != 0 || r.Filed[b] != w.filed {
			t.Errorf("box %s: %s / %d, want %s / %d", b, r.Exact[b], r.Filed[b], w.exact, w.filed)
		}
	}
	if got := r.Accounts["48"]; len(got) != 2 || got[0].Account != "2641" || got[1].Account != "2645" {
		t.Errorf("box 48 accounts: %+v", got)
	}
	// A refund: truncation toward zero on a negative net.
	r = Declare(map[string]Turnover{"2611": {Credit: amt("100.40")}, "2641": {Debit: amt("500.90")},
		"3001": {Debit: amt("12.99")}}, boxOf)
	if r.Exact["49"].Cmp(amt("-400.50")) != 0 || r.Filed["49"] != -400 || r.Filed["05"] != -12 {
		t.Errorf("refund: 49 %s / %d, 05 %d", r.Exact["49"], r.Filed["49"], r.Filed["05"])
	}
}

func quarter(t *testing.T, y, q int) Period {
	t.Helper()
	p, err := Resolve(Quarterly, y, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The settlement of the period above, by hand: the VAT accounts cleared,
// 1 900 kr to 2650 and the 0.15 kr left to 3740 as income.
func TestProposeRoundsToWholeKronor(t *testing.T) {
	r := Declare(map[string]Turnover{"2611": {Credit: amt("2500.75")}, "2641": {Debit: amt("600.60")},
		"2614": {Credit: amt("250.13")}, "2645": {Debit: amt("250.13")}, "4535": {Debit: amt("1000.50")}},
		map[string]string{"2611": "10", "2641": "48", "4535": "21", "2614": "30", "2645": "48"})
	p := Propose(quarter(t, 2026, 1), r)
	want := []Line{
		{Account: "2611", Debit: amt("2500.75")}, {Account: "2614", Debit: amt("250.13")},
		{Account: "2641", Credit: amt("600.60")}, {Account: "2645", Credit: amt("250.13")},
		{Account: "2650", Credit: amt("1900"), Description: "Moms att betala"},
		{Account: "3740", Credit: amt("0.15"), Description: "Öres- och kronutjämning"},
	}
	if len(p.Lines) != len(want) {
		t.Fatalf("lines %+v", p.Lines)
	}
	var d, c money.Amount
	for i, l := range p.Lines {
		w := want[i]
		if l.Account != w.Account || l.Debit.Cmp(w.Debit) != 0 || l.Credit.Cmp(w.Credit) != 0 || l.Description != w.Description {
			t.Errorf("line %d: %+v, want %+v", i, l, w)
		}
		d, c = d.Add(l.Debit), c.Add(l.Credit)
	}
	if d.Cmp(c) != 0 {
		t.Errorf("unbalanced: %s / %s", d, c)
	}
	if p.FiledNet != 1900 || p.Rounding.Cmp(amt("0.15")) != 0 || !p.EntryDate.Equal(time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)) ||
		p.Description != "Momsredovisning Kvartal 1 2026" {
		t.Errorf("proposal %+v", p)
	}
	// A refund nets to 1650 and the öre the other way.
	r = Declare(map[string]Turnover{"2611": {Credit: amt("100.40")}, "2641": {Debit: amt("500.90")}},
		map[string]string{"2611": "10", "2641": "48"})
	p = Propose(quarter(t, 2026, 2), r)
	last := p.Lines[len(p.Lines)-2:]
	if last[0].Account != "1650" || last[0].Debit.Cmp(amt("400")) != 0 || last[1].Account != "3740" ||
		last[1].Debit.Cmp(amt("0.50")) != 0 {
		t.Errorf("refund lines %+v", last)
	}
	if f := p.Fingerprint(); len(f) != 64 || f == Propose(quarter(t, 2026, 3), r).Fingerprint() {
		t.Errorf("fingerprint %q does not tell the periods apart", f)
	}
	if !Propose(quarter(t, 2026, 1), Declare(nil, nil)).Empty() {
		t.Error("nothing booked should propose nothing")
	}
}

func TestResolve(t *testing.T) {
	broken := []Year{{time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)},
		{time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)}}
	for _, c := range []struct {
		kind         string
		year, n      int
		start, end   string
		label, taxp  string
		redovisning  string
		invalidField string
	}{
		{Monthly, 2028, 2, "2028-02-01", "2028-02-29", "Februari 2028", "2028-02", "202802", ""},
		{Quarterly, 2026, 4, "2026-10-01", "2026-12-31", "Kvartal 4 2026", "2026-Q4", "202612", ""},
		{Yearly, 2026, 1, "2025-07-01", "2026-06-30", "Helår 2026", "2025/2026", "202606", ""},
		{Monthly, 2026, 13, "", "", "", "", "", "period"},
		{Quarterly, 2026, 5, "", "", "", "", "", "period"},
		{Yearly, 2026, 2, "", "", "", "", "", "period"},
		{Yearly, 2030, 1, "", "", "", "", "", "year"},
		{Monthly, 1999, 1, "", "", "", "", "", "year"},
		{"weekly", 2026, 1, "", "", "", "", "", "period_type"},
	} {
		p, err := Resolve(c.kind, c.year, c.n, broken)
		if c.invalidField != "" {
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.ValidationError || e.Details["issues"].([]apierr.Issue)[0].Field != c.invalidField {
				t.Errorf("%s %d/%d: %v, want a VALIDATION_ERROR on %s", c.kind, c.year, c.n, err, c.invalidField)
			}
			continue
		}
		if err != nil || p.Start.Format(time.DateOnly) != c.start || p.End.Format(time.DateOnly) != c.end ||
			p.Label() != c.label || p.TaxPeriod() != c.taxp || p.Redovisningsperiod() != c.redovisning {
			t.Errorf("%s %d/%d: %+v %s %s %s %v", c.kind, c.year, c.n, p, p.Label(), p.TaxPeriod(), p.Redovisningsperiod(), err)
		}
	}
}

// The eSKD file of the moms.md example, written by hand: byte for byte,
// and valid under the reconstructed DTD.
func TestESKD(t *testing.T) {
	r := Declare(map[string]Turnover{"3001": {Credit: amt("100000.90")}, "2611": {Credit: amt("25000.22")},
		"4535": {Debit: amt("10000")}, "2614": {Credit: amt("2500")}, "2645": {Debit: amt("2500")},
		"2641": {Debit: amt("5000.99")}},
		map[string]string{"3001": "05", "2611": "10", "4535": "21", "2614": "30", "2645": "48", "2641": "48"})
	org, err := ESKDOrgNr(str("5566778899"), false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ESKD(org, quarter(t, 2025, 1), r)
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE eSKDUpload PUBLIC "-//Skatteverket, Sweden//DTD Skatteverket eSKDUpload-DTD Version 6.0//SV" "https://www1.skatteverket.se/demoeskd/eSKDUpload_6p0.dtd">
<eSKDUpload Version="6.0">
  <OrgNr>556677-8899</OrgNr>
  <Moms>
    <Period>202503</Period>
    <ForsMomsEjAnnan>100000</ForsMomsEjAnnan>
    <InkopTjanstAnnatEg>10000</InkopTjanstAnnatEg>
    <MomsUtgHog>25000</MomsUtgHog>
    <MomsInkopUtgHog>2500</MomsInkopUtgHog>
    <MomsIngAvdr>7500</MomsIngAvdr>
    <MomsBetala>20000</MomsBetala>
  </Moms>
</eSKDUpload>
`
	if string(b) != want {
		t.Fatalf("eSKD file:\n%s\nwant:\n%s", b, want)
	}
	validESKD(t, b)
	// Nothing to report still writes MomsBetala.
	empty, _ := ESKD(org, quarter(t, 2025, 2), Declare(nil, nil))
	if want := "    <Period>202506</Period>\n    <MomsBetala>0</MomsBetala>\n"; !strings.Contains(string(empty), want) {
		t.Errorf("empty return:\n%s", empty)
	}
	validESKD(t, empty)
	for _, bad := range []*string{nil, str(""), str("5566778898"), str("19800101-1234")} {
		if _, err := ESKDOrgNr(bad, false); !apierr.Is(err, apierr.VATESKDOrgNumberInvalid) {
			t.Errorf("org %v: %v", bad, err)
		}
	}
	if n, err := ESKDOrgNr(str("198001011231"), true); err != nil || n != "800101-1231" {
		t.Errorf("a sole trader's personnummer: %q %v", n, err)
	}
}

// validESKD holds an eSKD file to the reconstructed DTD with xmllint;
// without xmllint the test skips, except under CI, where make installs it.
func validESKD(t *testing.T, b []byte) {
	t.Helper()
	if _, err := exec.LookPath("xmllint"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint (libxml2-utils) is not installed")
		}
		t.Skip("xmllint (libxml2-utils) is not installed")
	}
	f := filepath.Join(t.TempDir(), "eskd.xml")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("xmllint", "--noout", "--nonet", "--dtdvalid", "testdata/eSKDUpload_6p0.dtd", f).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint refuses the eSKD file: %v\n%s\n%s", err, out, b)
	}
}
