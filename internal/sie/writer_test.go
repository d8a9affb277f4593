package sie

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/kontera/kontera/internal/money"
)

// The format's own example: the checksum input of a record leaves out
// blanks, quotes and escapes.
func TestChecksumInputOfARecord(t *testing.T) {
	in := "#FLAGGA 0\n#KSUMMA\n#KONTO 1915 \"Kassa \\\"special\\\"\"\n#KSUMMA %d\n"
	want := crc32.ChecksumIEEE([]byte(`#KONTO1915Kassa "special"`))
	for _, c := range []struct {
		sum  uint32
		fine bool
	}{{want, true}, {want + 1, false}} {
		file := strings.Replace(in, "%d", itoa(c.sum), 1)
		r := NewReader(strings.NewReader(file), CP437)
		var probs []string
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				probs = append(probs, err.Error())
				continue
			}
			if rec.Label == "#KONTO" && rec.Text(1) != `Kassa "special"` {
				t.Errorf("name %q", rec.Text(1))
			}
		}
		if c.fine != (len(probs) == 0) || c.fine != r.Checksummed() {
			t.Errorf("sum %d: problems %v, checksummed %v", c.sum, probs, r.Checksummed())
		}
	}
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

func TestTruncatedChecksummedFile(t *testing.T) {
	file := "#FLAGGA 0\n#KSUMMA\n#KONTO 1910 Kassa\n#VER A 1 20250101\n{\n#TRANS 1910 {} 1\n#TRANS 3000 {} -1\n}\n"
	probs := read(t, []byte(file)).problems
	if len(probs) != 1 || !strings.Contains(probs[0].Issue, "truncated") {
		t.Fatalf("problems %v, want one saying truncated", probs)
	}
}

// writeSample writes a small file through the writer.
func writeSample(t *testing.T, enc Encoding) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, enc)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Record("#FLAGGA", Bare("0")))
	must(w.Checksum())
	must(w.Record("#FNAMN", Quoted("Åsa & Öberg \"AB\" Łódź é")))
	must(w.Record("#KONTO", Bare("1930"), Quoted("Företagskonto\tmed\x01styrtecken\\")))
	must(w.Record("#OBJEKT", Bare("6"), Quoted("P 1"), Quoted("Projekt ett")))
	must(w.Record("#VER", Bare("A"), Bare("1"), Bare("20250102"), Quoted("Försäljning")))
	must(w.Begin())
	must(w.Record("#TRANS", Bare("1930"), Objects([]Object{{"6", "P 1"}}), AmountField(money.MustParse("125.5"))))
	must(w.Record("#TRANS", Bare("3001"), Objects(nil), AmountField(money.MustParse("-125.50")), Bare(""), Quoted("rad")))
	must(w.End())
	must(w.Close())
	return buf.Bytes()
}

func TestWriterRoundTrip(t *testing.T) {
	for _, enc := range []Encoding{CP437, UTF8} {
		b := writeSample(t, enc)
		if got := Sniff(b); got != enc {
			t.Errorf("%s: sniffed as %s", enc, got)
		}
		if !bytes.HasSuffix(b, []byte("\r\n")) || bytes.Count(b, []byte("\n")) != bytes.Count(b, []byte("\r\n")) {
			t.Errorf("%s: line ends are not CR LF throughout", enc)
		}
		r := NewReader(bytes.NewReader(b), Sniff(b))
		var recs []Record
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", enc, err, b)
			}
			recs = append(recs, rec)
		}
		if !r.Checksummed() {
			t.Errorf("%s: the checksum was not verified", enc)
		}
		name := recs[2].Text(0)
		want := "Åsa & Öberg \"AB\" ?ódz é"
		if enc == UTF8 {
			want = "Åsa & Öberg \"AB\" Łódź é"
		}
		if name != want {
			t.Errorf("%s: #FNAMN %q, want %q", enc, name, want)
		}
		if got := recs[3].Text(1); got != "Företagskontomedstyrtecken/" {
			t.Errorf("%s: #KONTO name %q", enc, got)
		}
		v, probs := ParseVoucher(recs[5])
		if len(probs) > 0 || len(v.Rows) != 2 || v.Rows[0].Objects[0] != (Object{"6", "P 1"}) || v.Rows[0].Amount.String() != "125.50" || v.Rows[1].Text != "rad" {
			t.Errorf("%s: voucher %+v %v", enc, v, probs)
		}
	}
}

// The same file in CP437, Windows-1252 and UTF-8 reads alike.
func TestEncodingsReadAlike(t *testing.T) {
	cp := sample(t, "avendo-5.20_transaktioner_ovnbolag.se")
	text, err := charmap.CodePage437.NewDecoder().Bytes(cp)
	if err != nil {
		t.Fatal(err)
	}
	win, err := charmap.Windows1252.NewEncoder().Bytes(text)
	if err != nil {
		t.Fatal(err)
	}
	copies := map[Encoding][]byte{CP437: cp, Windows: win, UTF8: text}
	var first []string
	for enc, b := range copies {
		if got := Sniff(b); got != enc {
			t.Fatalf("%s sniffed as %s", enc, got)
		}
		var texts []string
		r := NewReader(bytes.NewReader(b), enc)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rec.Fields {
				texts = append(texts, f.Text)
			}
		}
		if first == nil {
			first = texts
			continue
		}
		if strings.Join(texts, "|") != strings.Join(first, "|") {
			t.Errorf("%s reads differently", enc)
		}
		if !strings.Contains(strings.Join(texts, "|"), "Övningsbolaget") {
			t.Errorf("%s: no Övningsbolaget in the text", enc)
		}
	}
}

func TestSnifferAcrossPieces(t *testing.T) {
	b := []byte("#FNAMN \"Företag\"\n")
	var s Sniffer
	for i := range b {
		_, _ = s.Write(b[i : i+1])
	}
	if s.Encoding() != UTF8 {
		t.Errorf("byte by byte: %s", s.Encoding())
	}
	if Sniff([]byte("#FNAMN x\n")) != CP437 {
		t.Error("plain ASCII should read as CP437")
	}
}

func TestAmounts(t *testing.T) {
	for s, want := range map[string]string{"500": "500.00", "-3142.1": "-3142.10", "0.5": "0.50", "12.": "12.00", ".5": "0.50"} {
		a, ok := Amount(s)
		if !ok || a.String() != want {
			t.Errorf("%q: %v %v", s, a, ok)
		}
	}
	for _, s := range []string{"", "-", "1.234", "1e3", "+5", "1,50", "12.3.4", "1234567890123456789"} {
		if _, ok := Amount(s); ok {
			t.Errorf("%q read as an amount", s)
		}
	}
}

func TestProblemsHaveLines(t *testing.T) {
	file := "#FLAGGA 0\n#VER A 1 20250132\n{\n#TRANS 1910 {} 100\n#TRANS 3000 {} -90\n}\n#VER A 2 20250101 \"open\n{\n}\n}\n#TRANS 1910 {1} 5\n"
	var lines []int
	for _, p := range read(t, []byte(file)).problems {
		lines = append(lines, p.Line)
	}
	if fmt.Sprint(lines) != "[2 7 8 9 10 11]" {
		t.Fatalf("problems on lines %v", lines)
	}
}
