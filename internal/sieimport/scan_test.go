package sieimport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/sie"
	"github.com/kontera/kontera/internal/sie/sietest"
)

const sharedSIE = "../../../shared/data/sie"

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedSIE, name))
	if err != nil {
		t.Skipf("the shared SIE files are not here (%v): skipped", err)
	}
	return b
}

func scan(t *testing.T, b []byte) (*Summary, []sie.Problem) {
	t.Helper()
	s, probs, err := Scan(bytes.NewReader(b), sie.Sniff(b))
	if err != nil {
		t.Fatal(err)
	}
	return s, probs
}

func TestScanSharedFiles(t *testing.T) {
	for name, want := range map[string]struct{ vouchers, series int }{
		"avendo-5.10_sie4.SE":                             {20, 0},
		"avendo-5.20_transaktioner_ovnbolag.se":           {163, 10},
		"edison-ekonomi-byra-4.9G_typ4.se":                {81, 7},
		"es-kassasystem-7_transaktioner_per_z-rapport.se": {10, 1},
		"fortnox-bokforing-2.0.0_Sie4.si":                 {165, 0},
		"specter-3.61_SIE_exempelfil.se":                  {26, 0},
	} {
		s, probs := scan(t, sample(t, name))
		if len(probs) > 0 {
			t.Errorf("%s: %v", name, probs)
			continue
		}
		if s.Vouchers != want.vouchers || (want.series > 0 && len(s.Series) != want.series) {
			t.Errorf("%s: %d vouchers in %d series", name, s.Vouchers, len(s.Series))
		}
	}
}

func TestScanRefusals(t *testing.T) {
	head := "#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n"
	for name, c := range map[string]struct{ body, want string }{
		"unbalanced":   {"#VER A 1 20250105\n{\n#TRANS 1930 {} 100\n#TRANS 3001 {} -99\n}\n", "sum to 1.00"},
		"duplicate":    {"#VER A 1 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n#VER A 1 20250106\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n", "twice (first on line 4)"},
		"not a number": {"#VER A 1b 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n", "not a number"},
		"outside":      {"#VER A 1 20240105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n", "outside the year"},
		"ib on 3xxx":   {"#IB 0 3001 100\n", "classes 3-8"},
		"object":       {"#VER A 1 20250105\n{\n#TRANS 1930 {6 \"P\x011\"} 1\n#TRANS 3001 {} -1\n}\n", "control character"},
		"checksum":     {"", ""},
	} {
		if name == "checksum" {
			continue
		}
		_, probs := scan(t, []byte(head+c.body))
		if len(probs) != 1 || !strings.Contains(probs[0].Issue, c.want) {
			t.Errorf("%s: %v, want one saying %q", name, probs, c.want)
		}
	}
	s, probs := scan(t, []byte(head+"#VER A 1 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n#TRANS 3001 {} 0\n}\n#VER A 4 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n"))
	if len(probs) != 0 || s.ZeroRows != 1 || s.Rows != 4 || len(s.Warnings) != 2 || s.Warnings[0].Code != WarnGap {
		t.Fatalf("%v %+v", probs, s)
	}
}

func TestGeneratedFilesScanClean(t *testing.T) {
	for _, spec := range []sietest.Spec{{Year: 2025, Vouchers: 50, Opening: 100}, {Year: 2024, Vouchers: 7, Split: true, Checksum: true}} {
		s, probs := scan(t, sietest.Write(spec))
		if len(probs) > 0 || s.Vouchers != spec.Vouchers || !s.Checksum && spec.Checksum {
			t.Fatalf("%+v: %v %+v", spec, probs, s)
		}
	}
}

// Each quirk other programs' files carry is taken with its warning, or
// refused at its line.
func TestScanQuirks(t *testing.T) {
	for _, q := range sietest.Quirks(2025) {
		s, probs := scan(t, q.File)
		if q.Refused > 0 {
			found := false
			for _, p := range probs {
				found = found || p.Line == q.Refused
			}
			if !found {
				t.Errorf("%s: problems %v, want one on line %d", q.Name, probs, q.Refused)
			}
			continue
		}
		if len(probs) > 0 {
			t.Errorf("%s: refused: %v", q.Name, probs)
			continue
		}
		codes := map[string]bool{}
		for _, w := range s.Warnings {
			codes[w.Code] = true
		}
		if q.Warning != "" && !codes[q.Warning] {
			t.Errorf("%s: warnings %v, want %s", q.Name, s.Warnings, q.Warning)
		}
	}
}

// A series named by a symbol or digits whose vouchers share one number
// (or none) is the program's own: numbered by the ledger, no duplicate;
// a letter series with a repeated number is refused.
func TestInternalSeries(t *testing.T) {
	for _, c := range []struct {
		name    string
		numbers []string
		want    bool // internal; otherwise refused when numbers repeat or 0
	}{
		{"#", []string{"0", "0", "0"}, true},
		{"*", []string{`""`, `""`}, true},
		{"11", []string{"1", "1"}, true},
		{"9", []string{"0"}, true},
		{"11", []string{"1", "2"}, false},
		{"1", []string{"1"}, false},
		{"A", []string{"1", "1"}, false},
		{"LEV1", []string{"0", "0"}, false},
		{"#", []string{"1", "2", "2"}, false},
	} {
		file := "#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n"
		for _, n := range c.numbers {
			file += "#VER " + c.name + " " + n + " 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -1\n}\n"
		}
		s, probs := scan(t, []byte(file))
		got := s.Series[c.name] != nil && s.Series[c.name].Internal
		if got != c.want || (got && len(probs) > 0) {
			t.Errorf("%s %v: internal %v, problems %v", c.name, c.numbers, got, probs)
		}
		seen, repeats := map[string]bool{}, false
		for _, n := range c.numbers {
			repeats = repeats || seen[n] || n == "0"
			seen[n] = true
		}
		if !c.want && repeats && len(probs) == 0 {
			t.Errorf("%s %v: a repeated or 0 number of an ordinary series is not refused", c.name, c.numbers)
		}
	}
}

// A warning stored by an earlier release (message_sv) reads as one
// stored now.
func TestWarningReadsTheEarlierName(t *testing.T) {
	for _, raw := range []string{
		`{"code":"X","message_sv":"Hej","message_en":"Hi"}`,
		`{"code":"X","message":"Hej","message_en":"Hi"}`,
	} {
		var w Warning
		if err := json.Unmarshal([]byte(raw), &w); err != nil || w.Code != "X" || w.Message != "Hej" || w.MessageEn != "Hi" {
			t.Fatalf("%s: %+v %v", raw, w, err)
		}
	}
	b, _ := json.Marshal(Warning{Code: "X", Message: "Hej", MessageEn: "Hi"})
	if string(b) != `{"code":"X","message":"Hej","message_en":"Hi"}` {
		t.Fatalf("written as %s", b)
	}
}
