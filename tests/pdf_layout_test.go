package tests

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// pdfWord is a word of a PDF page and its box, in points from the top
// left (pdftotext -bbox).
type pdfWord struct {
	text           string
	page           int
	x0, y0, x1, y1 float64
}

var (
	bboxPage = regexp.MustCompile(`<page `)
	bboxWord = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>`)
)

// pdfWords reads the words of b with their boxes.
func pdfWords(t *testing.T, b []byte) []pdfWord {
	t.Helper()
	out := string(poppler(t, b, "pdftotext", "-bbox", "-", "-"))
	var words []pdfWord
	pages := bboxPage.FindAllStringIndex(out, -1)
	for _, m := range bboxWord.FindAllStringSubmatchIndex(out, -1) {
		page := 0
		for i, p := range pages {
			if p[0] < m[0] {
				page = i + 1
			}
		}
		f := func(i int) float64 {
			v, _ := strconv.ParseFloat(out[m[2*i]:m[2*i+1]], 64)
			return v
		}
		words = append(words, pdfWord{text: html.UnescapeString(out[m[10]:m[11]]), page: page, x0: f(1), y0: f(2), x1: f(3), y1: f(4)})
	}
	return words
}

// laidOut fails t when two words of a page of b sit on top of each other
// (their boxes overlapping by more than half a point either way), the
// watermark set across the page aside; and renders the first page to
// PNG (pdftoppm), as a reader would see it.
func laidOut(t *testing.T, name string, b []byte) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "page")
	poppler(t, b, "pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", "-singlefile", "-", root)
	if png, err := os.ReadFile(root + ".png"); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("%s: pdftoppm rendered no PNG: %v", name, err)
	}
	var words []pdfWord
	for _, w := range pdfWords(t, b) {
		if w.y1-w.y0 < 20 { // the watermark's letters are larger than any text
			words = append(words, w)
		}
	}
	const slack = 0.5
	for i, a := range words {
		for _, c := range words[i+1:] {
			if a.page == c.page && a.x0+slack < c.x1 && c.x0+slack < a.x1 && a.y0+slack < c.y1 && c.y0+slack < a.y1 {
				t.Errorf("%s, page %d: %q at %s overlaps %q at %s", name, a.page, a.text, box(a), c.text, box(c))
			}
		}
	}
}

func box(w pdfWord) string { return fmt.Sprintf("(%.1f,%.1f)-(%.1f,%.1f)", w.x0, w.y0, w.x1, w.y1) }
