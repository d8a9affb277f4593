package documents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/documents/samples"
)

func write(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "upload")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each type an upload takes is told from its bytes.
func TestDetectAllowed(t *testing.T) {
	for _, f := range samples.All() {
		got, err := Detect(write(t, f.Data))
		if err != nil || got != f.Type {
			t.Errorf("%s: detected %q (%v), want %s", f.Name, got, err, f.Type)
		}
	}
}

// What is not on the list is refused with what it is: a page, whatever it
// is called, a PDF that a browser would also take for a page, plain text,
// a program.
func TestDetectRefused(t *testing.T) {
	polyglot := append(samples.HTML(), samples.PDF()...)
	for _, tc := range []struct {
		name     string
		data     []byte
		detected string
	}{
		{"faktura.pdf (a web page)", samples.HTML(), "text/html"},
		{"a page that is also a PDF", polyglot, "text/html"},
		{"anteckning.txt", []byte("Kom ihåg att betala hyran den 25:e.\nOch elen.\n"), "text/plain"},
		{"program.exe", append([]byte("MZ\x90\x00\x03\x00\x00\x00"), make([]byte, 120)...), "application/vnd.microsoft.portable-executable"},
		{"bild.gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "image/gif"},
	} {
		_, err := Detect(write(t, tc.data))
		var ue *UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want refused", tc.name, err)
			continue
		}
		if ue.Detected != tc.detected {
			t.Errorf("%s: detected %q, want %q", tc.name, ue.Detected, tc.detected)
		}
	}
}

// Rows with a steady number of fields are CSV under semicolons, commas or
// tabs; ragged rows or one row are not.
func TestIsCSV(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"a;b;c\n1;2;3\n", true},
		{"a,b\n1,2\n", true},
		{"a\tb\n1\t2\n", true},
		{"a;b;c\n1;2\n", false},
		{"bara en rad; med semikolon\n", false},
		{"ett\ntvå\n", false},
	} {
		got, err := isCSV(write(t, []byte(tc.text)))
		if err != nil || got != tc.want {
			t.Errorf("%q: %v (%v), want %v", tc.text, got, err, tc.want)
		}
	}
}

// A long export is read only at its head, cut at a whole row; one long
// line of text is no CSV, however long.
func TestIsCSVReadsTheHead(t *testing.T) {
	long := strings.Repeat("2026-03-15;1250,00;Kontantförsäljning med en lång text\n", 5000)
	if got, err := Detect(write(t, []byte("Datum;Belopp;Text\n"+long))); err != nil || got != "text/csv" {
		t.Fatalf("a long export: %q %v", got, err)
	}
	var unsupported *UnsupportedError
	if _, err := Detect(write(t, []byte(strings.Repeat("a;b ", 100000)))); !errors.As(err, &unsupported) {
		t.Fatalf("one long line: %v", err)
	}
}
