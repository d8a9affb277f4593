package banking

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/kontera/kontera/internal/money"
)

// The header layouts of ../shared/data/bank/README.md, with rows the test
// writes (no public export file exists).
var exports = map[string]string{
	FormatSwedbank: "* Transaktioner Period 2026-03-01 - 2026-03-31 Skapad 2026-04-01 08:00\n" +
		"Radnummer,Clearingnummer,Kontonummer,Produkt,Valuta,Bokföringsdag,Transaktionsdag,Valutadag,Referens,Beskrivning,Belopp,Bokfört saldo\n" +
		`2,8327-9,1234567890,"Företagskonto",SEK,2026-03-06,2026-03-06,2026-03-06,"1234567","Kontorsgrossisten AB",-1250.00,8750.00` + "\n" +
		`1,8327-9,1234567890,"Företagskonto",SEK,2026-03-05,2026-03-05,2026-03-05,"","Insättning Kund AB",10000.00,10000.00` + "\n",
	FormatNordea: "\uFEFFBokföringsdag;Belopp;Avsändare;Mottagare;Namn;Ytterligare detaljer;Meddelande;Egna anteckningar;Saldo;Valuta;\n" +
		"2026/03/06;-1 250,00;3300 12 34567;;Kontorsgrossisten AB;Betalning BG 5050-1055;88123;;8 750,00;SEK;\n" +
		"Reserverat;-99,00;;;Kaffebaren;Kortköp;;;;SEK;\n" +
		"2026/03/05;10 000,00;;3300 12 34567;Kund AB;Insättning;26;;10 000,00;SEK;\n",
	FormatSEB: "Bokföringsdatum;Valutadatum;Verifikationsnummer;Text/mottagare;Belopp;Saldo\n" +
		"2026-03-06;2026-03-06;5484381424;Kontorsgrossisten AB;-1250,00;8750,00\n" +
		"2026-03-05;2026-03-05;5484381423;Kund AB;10000,00;10000,00\n",
	FormatHandelsbanken: "Reskontradatum;Transaktionsdatum;Text;Belopp;Saldo\n" +
		"2026-03-06;2026-03-06;Kontorsgrossisten AB;-1 250,00;8 750,00\n" +
		"2026-03-05;2026-03-05;Kund AB;10 000,00;10 000,00\n",
	FormatCamt053:    camt053("UTF-8"),
	FormatGenericCSV: "Datum,Text,Belopp,Valuta\n2026-03-06,Kontorsgrossisten AB,-1250.00,SEK\n2026-03-05,Kund AB,10000.00,SEK\n",
	// Handelsbanken's business export: a sep line, the account on every
	// row and a summary row without a date.
	FormatHandelsbanken + " business": "sep=;\n" +
		"Kontohavare;Kontonr;IBAN;BIC;Kontoform;Valuta;Kontoförande kontor;Datum intervall;Kontor;Bokföringsdag;Reskontradag;Valutadag;Referens;Insättning/Uttag;Bokfört saldo;Aktuellt saldo;Valutadagssaldo;Referens Swish;Avsändar-id Swish;\n" +
		"Exempel AB;123456789;SE7060000000000123456789;HANDSESS;Affärskonto;SEK;6582 Kumla;2026-03-01 - 2026-03-31;;;;;;;8750,00;8750,00;;;\n" +
		"Exempel AB;123456789;SE7060000000000123456789;HANDSESS;Affärskonto;SEK;6582 Kumla;2026-03-01 - 2026-03-31;6885;2026-03-06;2026-03-06;2026-03-06;Kontorsgrossisten AB;-1250,00;8750,00;;;;;\n" +
		"Exempel AB;123456789;SE7060000000000123456789;HANDSESS;Affärskonto;SEK;6582 Kumla;2026-03-01 - 2026-03-31;6885;2026-03-05;2026-03-05;2026-03-05;Kund AB;10000,00;10000,00;;;;;\n",
	// ICA Banken: the account on a line of its own, amounts with "kr".
	FormatICABanken: "9274-123 456 7\nDatum;Text;Typ;Budgetgrupp;Belopp;Saldo\n" +
		"2026-03-06;Kontorsgrossisten AB;E-faktura;Övrigt;-1 250,00 kr;8 750,00 kr\n" +
		"2026-03-05;Kund AB;Insättning;Inkomst;10 000,00 kr;10 000,00 kr\n",
	// Skandia's Kontoutdrag: the account and the period above the header.
	FormatSkandia: "Kontonummer;9150-123.456-7\nPeriod;2026-03-01 - 2026-03-31\n\nBokf. datum;Beskrivning;Belopp;Saldo\n" +
		"2026-03-06;Kontorsgrossisten AB;-1 250,00;8 750,00\n2026-03-05;Kund AB;10 000,00;10 000,00\n",
	// The four below have no public description at hand: these samples
	// are their layouts.
	FormatLansforsakringar: "Bokföringsdatum;Transaktionsdatum;Transaktionstyp;Meddelande;Belopp;Saldo\n" +
		"2026-03-06;2026-03-06;Betalning;Kontorsgrossisten AB;-1250,00;8750,00\n" +
		"2026-03-05;2026-03-05;Insättning;Kund AB;10000,00;10000,00\n",
	FormatNordeaBusiness: "Bokföringsdatum;Transaktionstyp;Text;Motpart;Referens;Belopp;Valuta;Saldo\n" +
		"2026-03-06;Bankgiro;Kontorsgrossisten AB;Kontorsgrossisten AB;88123;-1 250,00;SEK;8 750,00\n" +
		"2026-03-05;Insättning;Kund AB;Kund AB;;10 000,00;SEK;10 000,00\n",
	FormatLunar: "Date,Text,Merchant,Category,Amount,Currency,Balance,Transaction ID\n" +
		"2026-03-06,Kontorsgrossisten AB,Kontorsgrossisten AB,Office,-1250.00,SEK,8750.00,l-2\n" +
		"2026-03-05,Kund AB,,Income,10000.00,SEK,10000.00,l-1\n",
	FormatNorthmill: "Transaktionsdatum;Bokföringsdatum;Beskrivning;Referens;Belopp;Status\n" +
		"2026-03-06;2026-03-06;Kontorsgrossisten AB;88123;-1250,00;Genomförd\n" +
		"2026-03-07;;Kaffebaren;;-45,00;Väntande\n" +
		"2026-03-05;2026-03-05;Kund AB;;10000,00;Genomförd\n",
	// Wise's two exports: the balance statement (one currency) and the
	// transfer history (every balance; fees apart).
	FormatWiseStatement: "\"TransferWise ID\",Date,Amount,Currency,Description,\"Payment Reference\",\"Running Balance\",\"Exchange From\",\"Exchange To\",\"Exchange Rate\",\"Payer Name\",\"Payee Name\",\"Payee Account Number\",Merchant,\"Card Last Four Digits\",\"Card Holder Full Name\",Attachment,Note,\"Total fees\",\"Exchange To Amount\"\n" +
		"TRANSFER-102,06-03-2026,-1250.00,SEK,\"Sent money to Kontorsgrossisten AB\",88123,8750.00,,,,,\"Kontorsgrossisten AB\",,,,,,,0.00,\n" +
		"TRANSFER-101,05-03-2026,10000.00,SEK,\"Received money from Kund AB\",26,10000.00,,,,\"Kund AB\",,,,,,,,0.00,\n",
	FormatWise: "ID,Status,Direction,Created on,Finished on,Source fee amount,Source fee currency,Target fee amount,Target fee currency,Source name,Source amount (after fees),Source currency,Target name,Target amount (after fees),Target currency,Exchange rate,Reference,Batch,Created by,Category,Note\n" +
		"TRANSFER-202,COMPLETED,OUT,2026-03-06 09:12:00,2026-03-06 09:14:31,2.50,SEK,,,Exempel AB,1247.50,SEK,Kontorsgrossisten AB,1247.50,SEK,1.0,Kontorsgrossisten AB 88123,,Exempel AB,General,\n" +
		"TRANSFER-203,CANCELLED,OUT,2026-03-06 10:00:00,,0.00,SEK,,,Exempel AB,99.00,SEK,Kaffebaren,99.00,SEK,1.0,,,Exempel AB,General,\n" +
		"TRANSFER-204,COMPLETED,OUT,2026-03-06 11:00:00,2026-03-06 11:00:00,0.00,EUR,,,Exempel AB,20.00,EUR,Hotell GmbH,20.00,EUR,1.0,,,Exempel AB,General,\n" +
		"TRANSFER-201,COMPLETED,IN,2026-03-05 08:00:00,2026-03-05 08:01:00,0.00,SEK,,,Kund AB,10000.00,SEK,Exempel AB,10000.00,SEK,1.0,Kund AB faktura 26,,,Money added,\n",
}

// camt053 is a statement of the two entries every sample holds, with
// the XML declaration each encoding would carry.
func camt053(encoding string) string {
	return `<?xml version="1.0" encoding="` + encoding + `"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Id>S1</Id>
<Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id><Ccy>SEK</Ccy></Acct>
<Ntry><NtryRef>N2</NtryRef><Amt Ccy="SEK">1250.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-06</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Kontorsgrossisten AB</Nm></Pty></Cdtr></RltdPties><RmtInf><Ustrd>Faktura 88123 – kontorsmöbler</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
<Ntry><NtryRef>N1</NtryRef><Amt Ccy="SEK">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-05</Dt></BookgDt></Ntry>
</Stmt></BkToCstmrStmt></Document>`
}

// Every format, in every encoding a bank writes in (UTF-8, UTF-16 with its
// mark, Windows-1252), is detected and read the same.
func TestBankExports(t *testing.T) {
	seen := map[string]bool{}
	for name, text := range exports {
		format := strings.Fields(name)[0]
		seen[format] = true
		plain := strings.TrimPrefix(text, "\uFEFF")
		encodings := map[string][]byte{"utf-8": []byte(text)}
		if u16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(plain)); err == nil {
			encodings["utf-16le"] = u16
		}
		if w, err := charmap.Windows1252.NewEncoder().Bytes([]byte(plain)); err == nil {
			encodings["windows-1252"] = w
		}
		if format == FormatCamt053 { // the declaration names the encoding
			encodings["utf-16le"], _ = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(camt053("UTF-16")))
			encodings["windows-1252"], _ = charmap.Windows1252.NewEncoder().Bytes([]byte(camt053("windows-1252")))
		}
		if len(encodings) != 3 {
			t.Fatalf("%s: not written in every encoding", name)
		}
		for enc, raw := range encodings {
			decoded, read, err := Text(raw)
			if err != nil || read != enc && !(enc == "windows-1252" && utf8.Valid(raw)) { // plain ASCII is UTF-8 too
				t.Fatalf("%s in %s: read as %s (%v)", name, enc, read, err)
			}
			if got := Detect(decoded); got != format {
				t.Fatalf("%s in %s: detected as %s", name, enc, got)
			}
			p, err := ParseFile(raw, "", "1930", "SEK")
			if err != nil {
				t.Fatalf("%s in %s: %v", name, enc, err)
			}
			if p.Format != format || len(p.Rows) != 2 {
				t.Fatalf("%s in %s: %s, %d rows", name, enc, p.Format, len(p.Rows))
			}
			out, in := p.Rows[0], p.Rows[1]
			if out.Amount.String() != "-1250.00" || in.Amount.String() != "10000.00" || out.Currency != "SEK" ||
				out.Date.Format("2006-01-02") != "2026-03-06" || in.Date.Format("2006-01-02") != "2026-03-05" ||
				out.ExternalID == in.ExternalID {
				t.Errorf("%s in %s: %+v %+v", name, enc, out, in)
			}
			if !strings.Contains(textOf(out.Description)+textOf(out.MerchantName), "Kontorsgrossisten AB") {
				t.Errorf("%s in %s: text %v", name, enc, out.Description)
			}
		}
	}
	for _, f := range Formats {
		if !seen[f] {
			t.Errorf("format %s has no sample", f)
		}
	}
	if len(Formats) != 14 {
		t.Errorf("%d formats, the peer names 14", len(Formats))
	}
	wise, _ := ReadCSV(exports[FormatWise], FormatWise, "1930", "SEK")
	if wise.Pending != 1 || wise.Other != 1 || wise.Rows[0].ExternalID != "wise:TRANSFER-202" {
		t.Errorf("wise: %d pending, %d of another balance, id %s", wise.Pending, wise.Other, wise.Rows[0].ExternalID)
	}
	if eur, _ := ReadCSV(exports[FormatWise], FormatWise, "1930", "EUR"); len(eur.Rows) != 1 || eur.Rows[0].Amount.String() != "-20.00" {
		t.Errorf("wise, the EUR balance: %+v", eur.Rows)
	}
	if north, _ := ReadCSV(exports[FormatNorthmill], FormatNorthmill, "1930", "SEK"); north.Pending != 1 {
		t.Errorf("northmill: %d pending", north.Pending)
	}
	nordea, _ := ReadCSV(strings.TrimPrefix(exports[FormatNordea], "\uFEFF"), FormatNordea, "1930", "SEK")
	if nordea.Pending != 1 || *nordea.Rows[0].Reference != "88123" {
		t.Errorf("nordea: %d pending, reference %v", nordea.Pending, nordea.Rows[0].Reference)
	}
	// The same export twice gives the same ids; a second identical row
	// that day is told apart.
	a, _ := ReadCSV(exports[FormatSEB], FormatSEB, "1930", "SEK")
	b, _ := ReadCSV(exports[FormatSEB]+"2026-03-05;2026-03-05;5484381423;Kund AB;10000,00;20000,00\n", FormatSEB, "1930", "SEK")
	if a.Rows[0].ExternalID != b.Rows[0].ExternalID || b.Rows[2].ExternalID == b.Rows[1].ExternalID {
		t.Error("external ids are not stable, or alike rows share one")
	}
}

func textOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestBankExportRefusals(t *testing.T) {
	bad := "Datum;Text;Belopp\n2026-03-06;A;-10,00\nigår;B;5\n2026-03-07;C;tio\n"
	_, err := ReadCSV(bad, FormatGenericCSV, "1930", "SEK")
	var rows *ErrRows
	if !errors.As(err, &rows) || len(rows.Rows) != 2 || rows.Rows[0].Row != 3 || rows.Rows[1].Row != 4 {
		t.Fatalf("bad rows: %v", err)
	}
	if _, err := ReadCSV("Foo;Bar\n1;2\n", FormatGenericCSV, "1930", "SEK"); err == nil {
		t.Error("a CSV without date and amount read")
	}
	for s, want := range map[string]string{"1 234,50": "1234.50", "-1.234,50": "-1234.50", "1,234.50": "1234.50",
		"99-": "-99.00", "0,37": "0.37", "-45": "-45.00"} {
		if a, err := ParseAmount(s); err != nil || a.Cmp(money.MustParse(want)) != 0 {
			t.Errorf("%q: %s %v, want %s", s, a, err, want)
		}
	}
	if Detect(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">`) != FormatCamt053 {
		t.Error("camt.053 not detected")
	}
}

// A bank's long text is shortened to what a transaction keeps, in
// characters; it never refuses the file.
func TestParseFileFitsTexts(t *testing.T) {
	long := strings.Repeat("å", 600)
	p, err := ParseFile([]byte("Datum;Text;Belopp;Namn\n2026-03-06;"+long+";-10,00;"+long+"\n"), "", "1930", "SEK")
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rows[0]
	if n := len([]rune(*r.Description)); n != 500 {
		t.Errorf("description of %d characters", n)
	}
	if n := len([]rune(*r.MerchantName)); n != 200 {
		t.Errorf("name of %d characters", n)
	}
}
