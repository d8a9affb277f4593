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
	FormatGenericCSV: "Datum,Text,Belopp,Valuta\n2026-03-06,Kontorsgrossisten AB,-1250.00,SEK\n2026-03-05,Kund AB,10000.00,SEK\n",
}

func TestBankExports(t *testing.T) {
	for format, text := range exports {
		// Every encoding a bank writes in: UTF-8, UTF-16 and Windows-1252.
		encodings := map[string][]byte{"utf-8": []byte(text)}
		if u16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(strings.TrimPrefix(text, "\uFEFF"))); err == nil {
			encodings["utf-16le"] = u16
		}
		if w, err := charmap.Windows1252.NewEncoder().Bytes([]byte(strings.TrimPrefix(text, "\uFEFF"))); err == nil {
			encodings["windows-1252"] = w
		}
		for enc, raw := range encodings {
			decoded, name, err := Text(raw)
			if err != nil || name != enc && !(enc == "windows-1252" && utf8.Valid(raw)) { // plain ASCII is UTF-8 too
				t.Fatalf("%s in %s: read as %s (%v)", format, enc, name, err)
			}
			if got := Detect(decoded); got != format {
				t.Fatalf("%s in %s: detected as %s", format, enc, got)
			}
			f, err := ReadCSV(decoded, format, "1930", "SEK")
			if err != nil {
				t.Fatalf("%s in %s: %v", format, enc, err)
			}
			if len(f.Rows) != 2 {
				t.Fatalf("%s in %s: %d rows", format, enc, len(f.Rows))
			}
			out, in := f.Rows[0], f.Rows[1]
			if out.Amount.String() != "-1250.00" || in.Amount.String() != "10000.00" || out.Currency != "SEK" ||
				out.Date.Format("2006-01-02") != "2026-03-06" || out.ExternalID == in.ExternalID {
				t.Errorf("%s in %s: %+v %+v", format, enc, out, in)
			}
			if out.Description == nil || !strings.Contains(*out.Description+textOf(out.MerchantName), "Kontorsgrossisten AB") {
				t.Errorf("%s in %s: text %v", format, enc, out.Description)
			}
		}
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
