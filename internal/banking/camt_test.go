package banking

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bankData is ../shared/data/bank, where the public sample files are.
func bankData(t *testing.T) string {
	dir, _ := filepath.Abs("../../../shared/data/bank")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the public bank samples are not here (%s): %v", dir, err)
	}
	return dir
}

func TestReadCamt053Samples(t *testing.T) {
	dir := bankData(t)
	for name, want := range map[string]struct {
		statements, rows int
		first            string
	}{
		"genkgo_camt053.v2.minimal.xml":           {1, 1, "2014-12-31 8.85 EUR"},
		"genkgo_camt053.v2.multi.statement.xml":   {2, 2, "2014-12-31 8.85 EUR"},
		"genkgo_camt053.v2.all-balance-types.xml": {1, 1, ""},
		"genkgo_camt053.v4.xml":                   {1, 1, ""},
	} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		st, err := ReadCamt053(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows := 0
		for _, s := range st {
			rows += len(s.Rows)
			for _, r := range s.Rows {
				if r.ExternalID == "" || r.Amount.IsZero() || r.Currency == "" {
					t.Errorf("%s: a row without id, amount or currency: %+v", name, r)
				}
			}
		}
		if len(st) != want.statements || rows != want.rows {
			t.Errorf("%s: %d statements, %d rows; want %d, %d", name, len(st), rows, want.statements, want.rows)
		}
		if want.first != "" {
			r := st[0].Rows[0]
			if got := r.Date.Format("2006-01-02") + " " + r.Amount.String() + " " + r.Currency; got != want.first {
				t.Errorf("%s: first row %s, want %s", name, got, want.first)
			}
		}
	}
	f, _ := os.Open(filepath.Join(dir, "genkgo_camt053.v2.minimal.xml"))
	defer f.Close()
	st, _ := ReadCamt053(f)
	r := st[0].Rows[0]
	if r.Reference == nil || *r.Reference != "4654654654654654" || r.MerchantName == nil || *r.MerchantName != "NAME NAME" ||
		st[0].Account != "NL26VAYB8060476890" || st[0].Opening == nil || st[0].Opening.String() != "18.15" {
		t.Errorf("minimal: %+v %+v", st[0], r)
	}
	v4, _ := os.Open(filepath.Join(dir, "genkgo_camt053.v4.xml"))
	defer v4.Close()
	if st, _ := ReadCamt053(v4); st[0].Rows[0].ExternalID != "AAAASESS-FP-CN_98765/01" {
		t.Errorf("v4 external id: %s", st[0].Rows[0].ExternalID)
	}
}

// Signs, reversals, pending entries, status as <Cd> (version 08 on) and
// names under Pty, written here in the 08 namespace.
func TestReadCamt053Rules(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Id>S1</Id>
<Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id><Ccy>SEK</Ccy></Acct>
<Ntry><NtryRef>N1</NtryRef><Amt Ccy="SEK">1250.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-05</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Kontorsgrossisten AB</Nm></Pty></Cdtr></RltdPties><RmtInf><Ustrd>Faktura 88123</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="SEK">100.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-06</Dt></BookgDt></Ntry>
<Ntry><Amt Ccy="SEK">100.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-06</Dt></BookgDt></Ntry>
<Ntry><Amt Ccy="SEK">50.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts><BookgDt><Dt>2026-03-07</Dt></BookgDt></Ntry>
</Stmt></BkToCstmrStmt></Document>`
	st, err := ReadCamt053(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	s := st[0]
	if len(s.Rows) != 3 || s.Pending != 1 {
		t.Fatalf("%d rows, %d pending", len(s.Rows), s.Pending)
	}
	if r := s.Rows[0]; r.Amount.String() != "-1250.00" || *r.MerchantName != "Kontorsgrossisten AB" ||
		*r.Description != "Faktura 88123" || r.ExternalID != "N1" {
		t.Errorf("first: %+v", r)
	}
	if r := s.Rows[1]; r.Amount.String() != "100.00" || !strings.HasPrefix(r.ExternalID, "camt:") {
		t.Errorf("a reversed debit: %+v", r)
	}
	if s.Rows[2].ExternalID != s.Rows[1].ExternalID+"#2" {
		t.Errorf("two alike entries share an id: %s %s", s.Rows[1].ExternalID, s.Rows[2].ExternalID)
	}
	for _, bad := range []string{"<html></html>", `<Document><BkToCstmrStmt><Stmt><Ntry><Amt>x</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-01-01</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>`} {
		if _, err := ReadCamt053(strings.NewReader(bad)); err == nil {
			t.Errorf("read %q", bad)
		}
	}
}

// An amount outside ISO 20022's form, or finer than its currency, names
// its entry; a balance's opening comes from OPBD, else PRCD.
func TestCamtAmountsAndBalances(t *testing.T) {
	entry := func(amount, ccy string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt>` +
			`<Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id><Ccy>` + ccy + `</Ccy></Acct>` +
			`<Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-02-28</Dt></Dt></Bal>` +
			`<Ntry><NtryRef>OK</NtryRef><Amt Ccy="` + ccy + `">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-05</Dt></BookgDt></Ntry>` +
			`<Ntry><NtryRef>E2</NtryRef><Amt Ccy="` + ccy + `">` + amount + `</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-05</Dt></BookgDt></Ntry>` +
			`</Stmt></BkToCstmrStmt></Document>`
	}
	for _, c := range []struct {
		amount, ccy, want string
	}{{"5.00", "SEK", "-5.00"}, {"5", "SEK", "-5.00"}, {"5.500", "SEK", "-5.50"}, {"1000", "JPY", "-1000.00"}, {"0.00000", "EUR", "0.00"}} {
		st, err := ReadCamt053(strings.NewReader(entry(c.amount, c.ccy)))
		if err != nil {
			t.Fatalf("%s %s: %v", c.amount, c.ccy, err)
		}
		if got := st[0].Rows[1].Amount.String(); got != c.want && !(c.want == "0.00" && st[0].Rows[1].Amount.IsZero()) {
			t.Errorf("%s %s reads %s, want %s", c.amount, c.ccy, got, c.want)
		}
		if st[0].Opening == nil || st[0].Opening.String() != "10.00" {
			t.Errorf("PRCD is the opening balance: %v", st[0].Opening)
		}
	}
	for _, bad := range []struct{ amount, ccy string }{{"-5.00", "SEK"}, {"1E3", "SEK"}, {"+5", "SEK"}, {"5.001", "SEK"},
		{"5.5", "JPY"}, {"1234567890123456789", "SEK"}, {"5.123456", "EUR"}, {" ", "SEK"}, {"5,00", "SEK"}} {
		_, err := ReadCamt053(strings.NewReader(entry(bad.amount, bad.ccy)))
		var e *EntryError
		if !errors.As(err, &e) || e.Statement != 1 || e.Entry != 2 || e.Ref != "E2" {
			t.Errorf("%q %s: %v", bad.amount, bad.ccy, err)
		}
	}
}

// A NUL, or bytes of no encoding read, name their line.
func TestTextRefusesWhatNoColumnHolds(t *testing.T) {
	for name, c := range map[string]struct {
		raw  []byte
		line int
	}{
		"nul":              {[]byte("Datum;Text;Belopp\n2026-03-01;A\x00;1,00\n"), 2},
		"bom, bad utf-8":   {append([]byte{0xEF, 0xBB, 0xBF}, []byte("a\nb\nc\xff\n")...), 3},
		"utf-16 nul":       {[]byte{0xFF, 0xFE, 'a', 0, '\n', 0, 0, 0}, 2},
		"utf-16 surrogate": {[]byte{0xFF, 0xFE, 'a', 0, '\n', 0, 0x00, 0xD8, 'b', 0}, 2},
	} {
		_, _, err := Text(c.raw)
		var te *TextError
		if !errors.As(err, &te) || te.Line != c.line {
			t.Errorf("%s: %v, want line %d", name, err, c.line)
		}
	}
	if _, _, err := Text([]byte("Datum;Text\n2026-03-01;Å\n")); err != nil {
		t.Fatal(err)
	}
}
