package tests

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// sruFiles opens an SRU zip: file name -> text (ISO-8859-1 bytes as read).
func sruFiles(t *testing.T, b []byte) map[string]string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range z.File {
		r, _ := f.Open()
		body, _ := io.ReadAll(r)
		out[f.Name] = string(body)
	}
	return out
}

// A year of an aktiebolag and of a sole trader, their returns by hand.
func TestIncomeTaxReturns(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 50000}, {"account_number": "2081", "credit_amount": 50000}}}).status(t, 201)
	b.entry(t, b.period, b.day("03-05"), [3]any{"1930", 12500.90, 0}, [3]any{"3001", 0, 10000.90}, [3]any{"2611", 0, 2500})
	b.entry(t, b.period, b.day("03-10"), [3]any{"5010", 4000, 0}, [3]any{"1930", 0, 4000})
	b.entry(t, b.period, b.day("03-11"), [3]any{"6072", 500, 0}, [3]any{"1930", 0, 500})
	// By hand: a result of 10 000.90 - 4 000 - 500 = 5 500.90, truncated
	// to 5 500; 4.3c adds back the 500 of entertainment: 6 000.
	r := b.get(b.base+"/reports/ink2?period_id="+b.period, b.token).status(t, 200)
	for code, want := range map[string]float64{"ink2r.7281": 58000, "ink2r.7301": 50000, "ink2r.7302": 5500, "ink2r.7369": 2500,
		"ink2r.7410": 10000, "ink2r.7513": 4500, "ink2r.7450": 5500, "ink2s.7650": 5500, "ink2s.7653": 500,
		"ink2s.7670": 6000, "ink2.7104": 6000} {
		if got := r.at("data." + code); got != want {
			t.Errorf("%s: %v, want %v", code, got, want)
		}
	}
	if r.at("data.ink2.7011") != float64(atoiDigits(b.year+"0101")) || r.at("data.totals.totalAssets") != 58000.90 ||
		r.str("data.form_period") != b.year+"P4" || r.str("data.warnings.0.code") != "INK2S_ADJUSTMENTS_PARTIAL" {
		t.Fatalf("ink2: %s", r.Body)
	}
	z := b.get(b.base+"/reports/ink2/sru?period_id="+b.period, b.token).status(t, 200)
	files := sruFiles(t, z.Body)
	if !strings.Contains(files["BLANKETTER.SRU"], "#BLANKETT INK2R-"+b.year+"P4\r\n") ||
		!strings.Contains(files["BLANKETTER.SRU"], "#UPPGIFT 7410 10000\r\n") ||
		!strings.Contains(files["BLANKETTER.SRU"], "#BLANKETT INK2S-"+b.year+"P4\r\n") ||
		!strings.HasSuffix(files["BLANKETTER.SRU"], "#BLANKETTSLUT\r\n#FIL_SLUT\r\n") || !strings.Contains(files["INFO.SRU"], "#NAMN Verifikat AB\r\n") {
		t.Fatalf("SRU: %q", files)
	}
	b.get(b.base+"/reports/ne-bilaga?period_id="+b.period, b.token).errorCode(t, 400, "TAX_DECL_NE_WRONG_LEGAL_FORM")
	b.get(b.base+"/reports/ne-bilaga/sru?period_id="+b.period, b.token).errorCode(t, 400, "TAX_DECL_NE_WRONG_LEGAL_FORM")
	b.get(b.base+"/reports/ink2?period_id="+uuid.NewString(), b.token).errorCode(t, 404, "PERIOD_NOT_FOUND")

	// A sole trader: 10 000 of sales, 4 000 of rent; the bank at 18 500,
	// equity 10 000 + 6 000, VAT owed 2 500.
	owner := b.key("firma@example.se", keySpec{})
	c := b.post("/api/v1/companies", owner, map[string]any{"name": "Anna Andersson Design", "entity_type": "enskild_firma",
		"org_number": "811218-9876", "vat_registered": false, "f_skatt": true}).status(t, 201).str("data.id")
	ef := &ledgerBooks{env: b.env, token: owner, base: "/api/v1/companies/" + c, company: uuid.MustParse(c)}
	ef.period = ef.get(ef.base+"/fiscal-periods", owner).status(t, 200).str("data.fiscal_periods.0.id")
	ef.year = b.year
	ef.periodAction(ef.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 10000}, {"account_number": "2010", "credit_amount": 10000}}}).status(t, 201)
	ef.entry(t, ef.period, ef.day("04-01"), [3]any{"1930", 12500, 0}, [3]any{"3001", 0, 10000}, [3]any{"2611", 0, 2500})
	ef.entry(t, ef.period, ef.day("04-02"), [3]any{"5010", 4000, 0}, [3]any{"1930", 0, 4000})
	n := ef.get(ef.base+"/reports/ne-bilaga?period_id="+ef.period, owner).status(t, 200)
	for f, want := range map[string]float64{"rutor.R1": 10000, "rutor.R2": 0, "rutor.R6": 4000, "rutor.R11": 6000,
		"balans.B9": 18500, "balans.B10": 16000, "balans.B14": 2500, "sru.7400": 10000, "sru.7440": 6000} {
		if got := n.at("data." + f); got != want {
			t.Errorf("NE %s: %v, want %v", f, got, want)
		}
	}
	if n.str("data.companyInfo.orgNumber") != "19811218-XXXX" {
		t.Fatalf("NE: %s", n.Body)
	}
	files = sruFiles(t, ef.get(ef.base+"/reports/ne-bilaga/sru?period_id="+ef.period, owner).status(t, 200).Body)
	if !strings.Contains(files["INFO.SRU"], "#ORGNR 198112189876\r\n") || !strings.Contains(files["BLANKETTER.SRU"], "#BLANKETT NE-"+b.year+"P4\r\n") ||
		!strings.Contains(files["BLANKETTER.SRU"], "#UPPGIFT 7440 6000\r\n") {
		t.Fatalf("NE SRU: %q", files)
	}
	ef.get(ef.base+"/reports/ink2?period_id="+ef.period, owner).errorCode(t, 400, "TAX_DECL_INK2_WRONG_LEGAL_FORM")
}

func atoiDigits(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
