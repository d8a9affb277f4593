package banking

import (
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
