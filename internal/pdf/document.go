// Package pdf lays out A4 documents: running text, side-by-side blocks,
// tables that break across pages with their header repeated, images, a
// coloured band, footers with "Sida n av m" and a draft watermark. It
// knows nothing of invoices or reports; those packages say what goes on
// the page.
//
// A document carries no clock and no random identifier: the same input
// gives the same bytes, so an archived PDF can be rendered again and
// compared.
package pdf

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // logos arrive as JPEG or PNG
	_ "image/png"
	"strings"
	"time"

	"github.com/signintech/gopdf"
)

// A4 in points, and the margin around the content.
const (
	PageWidth  = 595.28
	PageHeight = 841.89
	Margin     = 48.0
	bandHeight = 10.0
	lineFactor = 1.3
)

// Align places text in its box.
type Align int

// The alignments a text box takes.
const (
	AlignLeft Align = iota
	AlignRight
	AlignCenter
)

func (a Align) cell() int {
	switch a {
	case AlignRight:
		return gopdf.Right | gopdf.Top
	case AlignCenter:
		return gopdf.Center | gopdf.Top
	}
	return gopdf.Left | gopdf.Top
}

// Font is the size, weight and colour of a run of text; the family is the
// document's. The zero Color is black.
type Font struct {
	Size  float64
	Bold  bool
	Color Color
}

func (f Font) size() float64 {
	if f.Size <= 0 {
		return 9
	}
	return f.Size
}

func (f Font) lineHeight() float64 { return f.size() * lineFactor }

// Options set what every page of a document shares.
type Options struct {
	Family                 Family
	Title, Author, Subject string
	// Created is stamped as the document's CreationDate; the zero time
	// leaves it out. Callers pass a time of the record, not the clock.
	Created time.Time
	// Band, when set, is a bar of that colour across the top of every page.
	Band *Color
	// Running is a line at the top of every page after the first, so a
	// loose page still says what it belongs to.
	Running string
	// Footer lines are centred at the foot of every page.
	Footer []string
	// PageLabel writes "page n of m" for each page; nil prints none.
	PageLabel func(page, pages int) string
	// Watermark is written large and faint across every page.
	Watermark string
}

// SwedishPages labels pages "Sida n av m".
func SwedishPages(page, pages int) string { return fmt.Sprintf("Sida %d av %d", page, pages) }

// Document is an A4 document being laid out from the top down.
type Document struct {
	gp     *gopdf.GoPdf
	o      Options
	y      float64
	pages  int
	bottom float64
}

// New starts a document with its first page.
func New(o Options) (*Document, error) {
	if _, ok := files[o.Family]; !ok {
		o.Family = Helvetica
	}
	gp := &gopdf.GoPdf{}
	gp.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	gp.SetInfo(gopdf.PdfInfo{
		Title: o.Title, Author: o.Author, Subject: o.Subject,
		Creator: "Kontera", Producer: "Kontera", CreationDate: o.Created,
	})
	if err := load(gp, o.Family); err != nil {
		return nil, err
	}
	footer := float64(len(o.Footer)) * Font{Size: 7.5}.lineHeight()
	if o.PageLabel != nil {
		footer += Font{Size: 7.5}.lineHeight()
	}
	d := &Document{gp: gp, o: o, bottom: PageHeight - Margin - footer - 8}
	d.newPage()
	return d, nil
}

// Left is the x of the content's left edge.
func (d *Document) Left() float64 { return Margin }

// Width is the width of the content.
func (d *Document) Width() float64 { return PageWidth - 2*Margin }

// Y is where the next content goes.
func (d *Document) Y() float64 { return d.y }

// SetY moves where the next content goes on the current page.
func (d *Document) SetY(y float64) { d.y = y }

// Pages is the number of pages so far.
func (d *Document) Pages() int { return d.pages }

func (d *Document) top() float64 {
	if d.o.Band != nil {
		return Margin + bandHeight
	}
	return Margin
}

func (d *Document) newPage() {
	d.gp.AddPage()
	d.pages++
	d.y = d.top()
	if d.o.Band != nil {
		d.Rect(0, 0, PageWidth, Margin/2, *d.o.Band)
	}
	if d.pages > 1 && d.o.Running != "" {
		f := Font{Size: 8, Color: Grey}
		d.TextAt(d.Left(), d.y, d.Width(), d.o.Running, f, AlignLeft)
		d.y += f.lineHeight() + 6
	}
}

// Ensure starts a new page unless h more points fit on this one.
func (d *Document) Ensure(h float64) {
	if d.y+h > d.bottom && d.y > d.top() {
		d.newPage()
	}
}

// Space moves the cursor down by h, or to a new page.
func (d *Document) Space(h float64) {
	d.y += h
	if d.y > d.bottom {
		d.newPage()
	}
}

func (d *Document) use(f Font) {
	// The faces are registered in New; a family that loaded there sets.
	_ = d.gp.SetFont(faceKey(d.o.Family, f.Bold), "", f.size())
	d.gp.SetTextColor(f.Color.R, f.Color.G, f.Color.B)
}

// wrap splits s into lines no wider than w in font f, keeping the line
// breaks s already has.
func (d *Document) wrap(s string, f Font, w float64) []string {
	d.use(f)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if strings.TrimSpace(para) == "" {
			out = append(out, "")
			continue
		}
		// Most of an invoice's texts fit their box: one measure then, where
		// gopdf's split measures the line so far at every rune.
		if width, err := d.gp.MeasureTextWidth(para); err == nil && width <= w {
			out = append(out, para)
			continue
		}
		lines, err := d.gp.SplitTextWithWordWrap(para, w)
		if err != nil || len(lines) == 0 {
			out = append(out, para)
			continue
		}
		out = append(out, lines...)
	}
	return out
}

// TextAt writes one line of s in a box at x, y of width w, without moving
// the cursor.
func (d *Document) TextAt(x, y, w float64, s string, f Font, a Align) {
	if s == "" {
		return
	}
	d.use(f)
	d.gp.SetXY(x, y)
	_ = d.gp.CellWithOption(&gopdf.Rect{W: w, H: f.lineHeight()}, s, gopdf.CellOption{Align: a.cell()})
}

// Text writes s across the content's width, wrapped, from the cursor
// down, breaking pages as it goes.
func (d *Document) Text(s string, f Font) {
	for _, line := range d.wrap(s, f, d.Width()) {
		d.Ensure(f.lineHeight())
		d.TextAt(d.Left(), d.y, d.Width(), line, f, AlignLeft)
		d.y += f.lineHeight()
	}
}

// Styled is a line of text in its font.
type Styled struct {
	Text  string
	Font  Font
	Align Align
}

// Column is a block of lines at X from the content's left edge, W wide.
type Column struct {
	X, W  float64
	Lines []Styled
}

// Columns writes blocks side by side from the cursor and moves the cursor
// below the tallest. The blocks stay together: when they do not fit on
// what is left of the page, they start a new one.
func (d *Document) Columns(cols ...Column) {
	type laid struct {
		text string
		s    Styled
	}
	blocks := make([][]laid, len(cols))
	tallest := 0.0
	for i, c := range cols {
		h := 0.0
		for _, s := range c.Lines {
			for _, line := range d.wrap(s.Text, s.Font, c.W) {
				blocks[i] = append(blocks[i], laid{line, s})
				h += s.Font.lineHeight()
			}
		}
		tallest = max(tallest, h)
	}
	d.Ensure(tallest)
	for i, c := range cols {
		y := d.y
		for _, l := range blocks[i] {
			d.TextAt(d.Left()+c.X, y, c.W, l.text, l.s.Font, l.s.Align)
			y += l.s.Font.lineHeight()
		}
	}
	d.y += tallest
}

// Rect fills a rectangle with c.
func (d *Document) Rect(x, y, w, h float64, c Color) {
	d.gp.SetFillColor(c.R, c.G, c.B)
	d.gp.RectFromUpperLeftWithStyle(x, y, w, h, "F")
}

// Rule draws a thin line across the content at the cursor.
func (d *Document) Rule(c Color) {
	d.gp.SetStrokeColor(c.R, c.G, c.B)
	d.gp.SetLineWidth(0.6)
	d.gp.Line(d.Left(), d.y, d.Left()+d.Width(), d.y)
}

// ImageSize returns the pixel size of a PNG or JPEG, or an error when data
// is neither.
func ImageSize(data []byte) (w, h int, format string, err error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, "", err
	}
	if format != "png" && format != "jpeg" {
		return 0, 0, "", fmt.Errorf("pdf: %s images are not placed", format)
	}
	return cfg.Width, cfg.Height, format, nil
}

// Image places a PNG or JPEG in the box at x, y of at most maxW by maxH,
// keeping its proportions; align right puts it against the box's right
// edge. It answers the height it took.
func (d *Document) Image(data []byte, x, y, maxW, maxH float64, a Align) (float64, error) {
	pw, ph, _, err := ImageSize(data)
	if err != nil {
		return 0, err
	}
	w, h := maxW, maxW*float64(ph)/float64(pw)
	if h > maxH {
		w, h = maxH*float64(pw)/float64(ph), maxH
	}
	if a == AlignRight {
		x += maxW - w
	}
	holder, err := gopdf.ImageHolderByBytes(data)
	if err != nil {
		return 0, err
	}
	if err := d.gp.ImageByHolder(holder, x, y, &gopdf.Rect{W: w, H: h}); err != nil {
		return 0, err
	}
	return h, nil
}

// Bytes finishes every page with its footer, page label and watermark,
// and returns the document.
func (d *Document) Bytes() ([]byte, error) {
	small := Font{Size: 7.5, Color: Grey}
	for p := 1; p <= d.pages; p++ {
		if err := d.gp.SetPage(p); err != nil {
			return nil, err
		}
		if d.o.Watermark != "" {
			d.watermark()
		}
		y := PageHeight - Margin - float64(len(d.o.Footer))*small.lineHeight()
		if d.o.PageLabel != nil {
			y -= small.lineHeight()
		}
		for _, line := range d.o.Footer {
			d.TextAt(d.Left(), y, d.Width(), line, small, AlignCenter)
			y += small.lineHeight()
		}
		if d.o.PageLabel != nil {
			d.TextAt(d.Left(), y, d.Width(), d.o.PageLabel(p, d.pages), small, AlignRight)
		}
	}
	return d.gp.GetBytesPdfReturnErr()
}

// watermark writes the watermark diagonally across the page, faint enough
// to read the page through.
func (d *Document) watermark() {
	f := Font{Size: 110, Bold: true, Color: Color{0xc8, 0xcc, 0xd2}}
	d.use(f)
	w, _ := d.gp.MeasureTextWidth(d.o.Watermark)
	cx, cy := PageWidth/2, PageHeight/2
	d.gp.Rotate(40, cx, cy)
	d.gp.SetXY(cx-w/2, cy-f.size()/2)
	t, err := gopdf.NewTransparency(0.35, "")
	opt := gopdf.CellOption{Align: gopdf.Left | gopdf.Top}
	if err == nil {
		opt.Transparency = &t
	}
	_ = d.gp.CellWithOption(&gopdf.Rect{W: w + 2, H: f.lineHeight()}, d.o.Watermark, opt)
	d.gp.RotateReset()
}
