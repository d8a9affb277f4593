package pdf

// Col is a column of a table: its heading, its share of the content's
// width and how its cells align.
type Col struct {
	Title string
	Width float64 // a fraction of the content's width; the shares add up to 1
	Align Align
}

// Row is a row of cells, one per column.
type Row struct {
	Cells []string
	Bold  bool
	// Muted rows, such as text lines between priced ones, are set in grey.
	Muted bool
}

// Table is a table laid out across the content's width.
type Table struct {
	Cols []Col
	Rows []Row
	// Head is the fill of the heading row; its text is white on it.
	Head Color
	Size float64
}

const cellPad = 3.0

// Table writes t from the cursor down. Headings and cells wrap within
// their column; a row never splits, and a page break repeats the heading
// row.
func (d *Document) Table(t Table) {
	body := Font{Size: t.Size}
	head := Font{Size: t.Size, Bold: true, Color: Color{0xff, 0xff, 0xff}}
	xs := make([]float64, len(t.Cols))
	ws := make([]float64, len(t.Cols))
	x := d.Left()
	for i, c := range t.Cols {
		xs[i], ws[i] = x, c.Width*d.Width()
		x += ws[i]
	}
	// A heading wraps within its column as a cell does: a long one takes
	// more lines, never its neighbour's room.
	titles := make([][]string, len(t.Cols))
	headLines := 1
	for i, c := range t.Cols {
		if c.Title != "" {
			titles[i] = d.wrap(c.Title, head, ws[i]-2*cellPad)
			headLines = max(headLines, len(titles[i]))
		}
	}
	headH := float64(headLines)*head.lineHeight() + 2*cellPad
	heading := func() {
		d.Rect(d.Left(), d.y, d.Width(), headH, t.Head)
		for i, c := range t.Cols {
			y := d.y + cellPad
			for _, line := range titles[i] {
				d.TextAt(xs[i]+cellPad, y, ws[i]-2*cellPad, line, head, c.Align)
				y += head.lineHeight()
			}
		}
		d.y += headH
	}
	d.Ensure(headH + body.lineHeight() + 2*cellPad)
	heading()
	for _, r := range t.Rows {
		f := body
		f.Bold = r.Bold
		if r.Muted {
			f.Color = Grey
		}
		cells := make([][]string, len(t.Cols))
		lines := 1
		for i := range t.Cols {
			if i < len(r.Cells) && r.Cells[i] != "" {
				cells[i] = d.wrap(r.Cells[i], f, ws[i]-2*cellPad)
				lines = max(lines, len(cells[i]))
			}
		}
		h := float64(lines)*f.lineHeight() + 2*cellPad
		if d.y+h > d.bottom {
			d.newPage()
			heading()
		}
		for i, c := range t.Cols {
			y := d.y + cellPad
			for _, line := range cells[i] {
				d.TextAt(xs[i]+cellPad, y, ws[i]-2*cellPad, line, f, c.Align)
				y += f.lineHeight()
			}
		}
		d.y += h
		d.Rule(Light)
	}
}
