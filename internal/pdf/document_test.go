package pdf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// poppler returns the path of a poppler-utils tool, skipping the test
// when it is not installed (and failing it on CI, where make installs it).
func poppler(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: make installs poppler-utils", tool)
		}
		t.Skipf("%s not installed (Debian poppler-utils); make test installs it", tool)
	}
	return p
}

// text runs pdftotext on b, with the flags given (-layout, -raw).
func text(t *testing.T, b []byte, flags ...string) string {
	t.Helper()
	cmd := exec.Command(poppler(t, "pdftotext"), append(flags, "-", "-")...)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func sample(t *testing.T, rows int, f Family) []byte {
	t.Helper()
	band := Color{0x1a, 0x5f, 0xb4}
	d, err := New(Options{
		Family: f, Title: "Faktura 2026-0042", Created: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Band: &band, Running: "Faktura 2026-0042", Footer: []string{"Åkesson & Söner AB · Göteborg"},
		PageLabel: SwedishPages, Watermark: "UTKAST",
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Text("Faktura 2026-0042", Font{Size: 20, Bold: true, Color: band})
	d.Columns(
		Column{X: 0, W: 240, Lines: []Styled{{Text: "Åkesson & Söner AB", Font: Font{Bold: true}}, {Text: "Storgatan 1\n411 01 Göteborg"}}},
		Column{X: 260, W: 239, Lines: []Styled{{Text: "Förfallodatum 2026-03-31", Align: AlignRight}}},
	)
	t1 := Table{Cols: []Col{{Title: "Beskrivning", Width: 0.6}, {Title: "Belopp", Width: 0.4, Align: AlignRight}}, Head: band}
	for i := 1; i <= rows; i++ {
		t1.Rows = append(t1.Rows, Row{Cells: []string{fmt.Sprintf("Rad %d: konsulttimmar för ärendet", i), "12 500,00"}})
	}
	d.Table(t1)
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDocumentIsStableAndReadable(t *testing.T) {
	a, b := sample(t, 3, Helvetica), sample(t, 3, Helvetica)
	if !bytes.Equal(a, b) {
		t.Fatal("two renders of the same document differ")
	}
	got := text(t, a, "-layout")
	for _, want := range []string{"Faktura 2026-0042", "Åkesson & Söner AB", "411 01 Göteborg", "Förfallodatum", "12 500,00", "Sida 1 av 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	// The watermark is set diagonally; read in content order it is a word.
	if raw := text(t, a, "-raw"); !strings.Contains(raw, "UTKAST") {
		t.Errorf("no watermark:\n%s", raw)
	}
}

func TestTableBreaksAcrossPages(t *testing.T) {
	b := sample(t, 60, SourceSerif)
	got := text(t, b, "-layout")
	if !strings.Contains(got, "Sida 2 av 2") || strings.Contains(got, "Sida 3") {
		t.Fatalf("60 rows should take two pages:\n%s", got)
	}
	if strings.Count(got, "Beskrivning") != 2 {
		t.Errorf("the heading row is repeated on page 2 once: %d", strings.Count(got, "Beskrivning"))
	}
	if !strings.Contains(got, "Rad 60:") {
		t.Error("the last row is missing")
	}
}

func TestEveryFamilyRendersConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for _, f := range Families {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if b := sample(t, 5, f); !bytes.HasPrefix(b, []byte("%PDF-")) {
					t.Errorf("%s: not a PDF", f)
				}
			}()
		}
	}
	wg.Wait()
}

func TestParseColor(t *testing.T) {
	c, err := ParseColor("#1A5fB4")
	if err != nil || c != (Color{0x1a, 0x5f, 0xb4}) || c.Hex() != "#1A5FB4" {
		t.Fatalf("got %v %v", c, err)
	}
	for _, bad := range []string{"1A5FB4", "#1A5FB", "#GGGGGG", "red", "#1A5FB40"} {
		if _, err := ParseColor(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if FamilyOf("Custom") != Helvetica || FamilyOf("Times-Roman") != TimesRoman || FamilyOf("") != Helvetica {
		t.Error("FamilyOf")
	}
}

// wrap measures a text that fits once instead of splitting it; the lines
// must be those gopdf's split gives, for texts that fit, that fit
// exactly, that do not, and with spaces at either end.
func TestWrapAsGopdfSplits(t *testing.T) {
	d, err := New(Options{Family: Helvetica})
	if err != nil {
		t.Fatal(err)
	}
	f := Font{Size: 9}
	d.use(f)
	exact, err := d.gp.MeasureTextWidth("Konsulttimmar maj")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Konsulttimmar maj", " Åtgärd på plats ", "Ö", "betalas till bankgiro 5050-1055 inom 30 dagar",
		"Ett långt radbeskrivningsord som inte får plats på en smal rad utan brytning någonstans"} {
		for _, w := range []float64{exact, exact - 0.01, 60, 400} {
			d.use(f)
			want, err := d.gp.SplitTextWithWordWrap(s, w)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.wrap(s, f, w); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("wrap(%q, %.2f) = %q, gopdf splits %q", s, w, got, want)
			}
		}
	}
}
