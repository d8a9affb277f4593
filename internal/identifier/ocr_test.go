package identifier

import (
	"strings"
	"testing"
)

func TestOCR(t *testing.T) {
	for number, want := range map[string]string{
		"2026-0042":             "2026004206", // the figure, by hand: 20260042 + 0 (10 digits) + Luhn 6
		"12345":                 "1234574",    // identifiers.md: length 7, check 4
		"F-1":                   "133",        // 1, length 3; the 3 doubled is 6, plus 1 is 7: check 3
		"KR-2026-0042":          "2026004206",
		strings.Repeat("9", 23): strings.Repeat("9", 23) + "5" + "2",
	} {
		got, ok := OCR(number)
		if !ok || got != want {
			t.Errorf("OCR(%q) = %q, %v; want %q", number, got, ok, want)
			continue
		}
		if !ValidOCR(got, true) || !ValidOCR(got, false) {
			t.Errorf("OCR(%q) = %q does not pass its own check", number, got)
		}
	}
	for _, number := range []string{"", "PF-", strings.Repeat("1", 24)} {
		if got, ok := OCR(number); ok {
			t.Errorf("OCR(%q) = %q, want none", number, got)
		}
	}
}

func TestValidOCR(t *testing.T) {
	for s, want := range map[string][2]bool{ // {soft, hard}
		"2026004206":            {true, true},
		"2026004207":            {false, false}, // check digit off by one
		"2026004216":            {false, false},
		"202600425":             {true, false}, // the peer's: Luhn only, no length digit
		"1234574":               {true, true},
		"0":                     {false, false},
		"12a4574":               {false, false},
		strings.Repeat("0", 26): {false, false},
	} {
		if got := [2]bool{ValidOCR(s, false), ValidOCR(s, true)}; got != want {
			t.Errorf("ValidOCR(%q) = %v, want %v", s, got, want)
		}
	}
}
