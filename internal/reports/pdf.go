package reports

import (
	"time"
	"unicode"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pdf"
)

// head is the fill of a statement table's heading row.
var head = pdf.Color{R: 0x2b, G: 0x3a, B: 0x4a}

// statementDocument starts an A4 statement titled title for company c,
// marked Utkast on every page: a statement Kontera draws up is a working
// paper, not the signed annual report.
func statementDocument(c Company, title string, from, to time.Time) (*pdf.Document, error) {
	org := ""
	if c.OrgNumber != nil {
		org = "Org.nr " + *c.OrgNumber
	}
	span := from.Format(time.DateOnly) + " – " + to.Format(time.DateOnly)
	d, err := pdf.New(pdf.Options{Title: title + " " + c.Name, Author: c.Name, Subject: title + " " + span,
		Running: title + " · " + c.Name + " · " + span, Watermark: "Utkast", PageLabel: pdf.SwedishPages,
		Footer: []string{"Utkast framtaget ur bokföringen i Kontera"}})
	if err != nil {
		return nil, err
	}
	d.Text(title, pdf.Font{Size: 16, Bold: true})
	d.Text(c.Name, pdf.Font{Size: 11})
	if org != "" {
		d.Text(org, pdf.Font{Size: 9, Color: pdf.Grey})
	}
	d.Text(span, pdf.Font{Size: 9, Color: pdf.Grey})
	d.Space(10)
	return d, nil
}

func kr(a money.Amount) string { return a.Swedish() }

// IncomeStatementPDF lays out the income statement s of company c.
func IncomeStatementPDF(c Company, s gen.IncomeStatement) ([]byte, error) {
	d, err := statementDocument(c, "Resultaträkning", s.Period.Start.Time, s.Period.End.Time)
	if err != nil {
		return nil, err
	}
	// The year before is compared only when it has figures: a company in
	// its first year has none, and a column of zeros says nothing.
	compare := hasPrevious(s)
	t := pdf.Table{Head: head, Size: 8.5, Cols: []pdf.Col{{Title: "Post", Width: 0.52},
		{Title: "Belopp " + s.Period.Start.Format(time.DateOnly) + " – " + s.Period.End.Format(time.DateOnly),
			Width: 0.24, Align: pdf.AlignRight}}}
	if compare {
		t.Cols[0].Width = 0.48
		t.Cols[1].Width = 0.26
		t.Cols = append(t.Cols, pdf.Col{Title: "Föregående år " + s.ComparisonPeriod.Start.Format(time.DateOnly) + " – " +
			s.ComparisonPeriod.End.Format(time.DateOnly), Width: 0.26, Align: pdf.AlignRight})
	}
	cells := func(label string, amount, previous money.Amount) []string {
		if compare {
			return []string{label, kr(amount), kr(previous)}
		}
		return []string{label, kr(amount)}
	}
	for _, sec := range s.Sections {
		t.Rows = append(t.Rows, pdf.Row{Cells: []string{sec.Title}, Bold: true})
		for _, r := range sec.Rows {
			if r.Amount.IsZero() && r.PreviousAmount.IsZero() {
				continue
			}
			label := r.Label
			if f, err := r.Field.Get(); err == nil {
				label = f + " " + label
			}
			t.Rows = append(t.Rows, pdf.Row{Cells: cells(label, r.Amount, r.PreviousAmount)})
			for _, a := range r.Accounts {
				t.Rows = append(t.Rows, pdf.Row{Cells: cells("    "+a.AccountNumber+" "+a.AccountName, a.Amount, a.PreviousAmount),
					Muted: true})
			}
		}
		if st, err := sec.Subtotal.Get(); err == nil {
			t.Rows = append(t.Rows, pdf.Row{Cells: cells(st.Label, st.Amount, st.PreviousAmount), Bold: true})
		}
	}
	d.Table(t)
	return d.Bytes()
}

// hasPrevious reports whether the income statement has a figure of the
// year before.
func hasPrevious(s gen.IncomeStatement) bool {
	for _, sec := range s.Sections {
		for _, r := range sec.Rows {
			if !r.PreviousAmount.IsZero() {
				return true
			}
		}
	}
	return false
}

// BalanceSheetPDF lays out the balance sheet b of company c.
func BalanceSheetPDF(c Company, b gen.BalanceSheet) ([]byte, error) {
	d, err := statementDocument(c, "Balansräkning", b.Period.Start.Time, b.Period.End.Time)
	if err != nil {
		return nil, err
	}
	t := pdf.Table{Head: head, Size: 8.5, Cols: []pdf.Col{{Title: "Post", Width: 0.46},
		{Title: "Ingående balans", Width: 0.18, Align: pdf.AlignRight}, {Title: "Förändring", Width: 0.18, Align: pdf.AlignRight},
		{Title: "Utgående balans", Width: 0.18, Align: pdf.AlignRight}}}
	row := func(label string, m gen.Movement, bold, muted bool) {
		t.Rows = append(t.Rows, pdf.Row{Cells: []string{label, kr(m.OpeningBalance), kr(m.Change), kr(m.ClosingBalance)},
			Bold: bold, Muted: muted})
	}
	for _, s := range b.Sections {
		t.Rows = append(t.Rows, pdf.Row{Cells: []string{s.Title}, Bold: true})
		for _, g := range s.Groups {
			t.Rows = append(t.Rows, pdf.Row{Cells: []string{g.Title}, Bold: true})
			for _, r := range g.Rows {
				m := gen.Movement{OpeningBalance: r.OpeningBalance, Change: r.Change, ClosingBalance: r.ClosingBalance}
				if m.OpeningBalance.IsZero() && m.Change.IsZero() && r.Key != "arets_resultat" {
					continue
				}
				row("  "+r.Label, m, false, false)
				for _, a := range r.Accounts {
					row("    "+a.AccountNumber+" "+a.AccountName, gen.Movement{OpeningBalance: a.OpeningBalance,
						Change: a.Change, ClosingBalance: a.ClosingBalance}, false, true)
				}
			}
			row("Summa "+lower(g.Title), g.Total, true, false)
		}
		label := "Summa tillgångar"
		if s.Key == gen.EgetKapitalOchSkulder {
			label = "Summa eget kapital och skulder"
		}
		row(label, s.Total, true, false)
	}
	d.Table(t)
	return d.Bytes()
}

// lower writes a heading as the middle of a sentence: "Summa
// anläggningstillgångar".
func lower(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
