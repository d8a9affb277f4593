package payroll

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pdf"
)

var payslipHead = pdf.Color{R: 0x2b, G: 0x3a, B: 0x4a}

// PayslipPDF lays out an employee's payslip (lönespecifikation) on run r:
// the employer, the employee with the personnummer masked, every line,
// gross, tax, net and the vacation days, and what the employer pays on
// top (avgifter).
func PayslipPDF(employer Identity, r Run, e RunEmployee, s Payslip, net money.Amount, tax money.Amount) ([]byte, error) {
	name := e.FirstName + " " + e.LastName
	d, err := pdf.New(pdf.Options{Title: "Lönespecifikation " + r.Period() + " " + name, Author: employer.Name,
		Subject: "Lönespecifikation " + r.Period(), Created: r.PaymentDate, PageLabel: pdf.SwedishPages,
		Running: "Lönespecifikation · " + name + " · " + r.Period(),
		Footer:  []string{employer.Name + " · lönespecifikation ur Kontera"}})
	if err != nil {
		return nil, err
	}
	d.Text("Lönespecifikation", pdf.Font{Size: 16, Bold: true})
	d.Text(employer.Name, pdf.Font{Size: 11})
	if employer.OrgNumber != nil {
		d.Text("Org.nr "+*employer.OrgNumber, pdf.Font{Size: 9, Color: pdf.Grey})
	}
	d.Space(8)
	d.Columns(
		pdf.Column{X: 0, W: d.Width() / 2, Lines: []pdf.Styled{{Text: name, Font: pdf.Font{Size: 10, Bold: true}},
			{Text: "Personnummer " + Employee{BirthDate: e.BirthDate}.MaskedPersonnummer(), Font: pdf.Font{Size: 9}}}},
		pdf.Column{X: d.Width() / 2, W: d.Width() / 2, Lines: []pdf.Styled{
			{Text: "Period " + r.Period(), Font: pdf.Font{Size: 9}, Align: pdf.AlignRight},
			{Text: "Utbetalning " + r.PaymentDate.Format(time.DateOnly), Font: pdf.Font{Size: 9}, Align: pdf.AlignRight}}})
	d.Space(10)
	t := pdf.Table{Head: payslipHead, Size: 8.5, Cols: []pdf.Col{{Title: "Löneart", Width: 0.46},
		{Title: "Antal", Width: 0.14, Align: pdf.AlignRight}, {Title: "À-pris", Width: 0.18, Align: pdf.AlignRight},
		{Title: "Belopp", Width: 0.22, Align: pdf.AlignRight}}}
	// The pay and the förmåner first, up to the gross and its tax; then
	// what goes with the net without being pay: tax-free allowances,
	// nettolöneavdrag and expense claims paid back.
	var pay, after []pdf.Row
	for _, l := range s.Lines {
		qty, unit := "", ""
		if l.Quantity != nil {
			qty = l.Quantity.Swedish()
		}
		if l.UnitPrice != nil {
			unit = l.UnitPrice.Swedish()
		}
		row := pdf.Row{Cells: []string{l.Description, qty, unit, l.Amount.Swedish()}}
		if k := kinds[l.ItemType]; k.net || k.taxFree || l.ItemType == ItemExpenseClaim {
			after = append(after, row)
		} else {
			pay = append(pay, row)
		}
	}
	t.Rows = append(pay,
		pdf.Row{Cells: []string{"Bruttolön", "", "", s.Gross.Swedish()}, Bold: true},
		pdf.Row{Cells: []string{"Skatteavdrag", "", "", tax.Neg().Swedish()}})
	t.Rows = append(append(t.Rows, after...),
		pdf.Row{Cells: []string{"Nettolön att utbetala", "", "", net.Swedish()}, Bold: true})
	d.Table(t)
	d.Space(10)
	info := []string{"Arbetsgivaravgifter (betalas av arbetsgivaren): " + e.EffectiveAvgifter().Swedish() + " kr"}
	if s.Accrual.Remaining != nil {
		info = append(info, "Semesterdagar kvar: "+quantity(s.Accrual.Remaining).Swedish())
	}
	if s.TaxTable != nil {
		info = append(info, "Skattetabell "+strconv.Itoa(s.TaxTable.Table)+", kolumn "+strconv.Itoa(s.TaxTable.Column))
	}
	for _, w := range s.Warnings {
		info = append(info, w)
	}
	for _, line := range info {
		d.Text(line, pdf.Font{Size: 8.5, Color: pdf.Grey})
	}
	return d.Bytes()
}

// Payslip renders the PDF of an employee's calculated payslip on a run.
func (p *Payroll) PayslipPDF(ctx context.Context, company, run, employee uuid.UUID) ([]byte, string, error) {
	r, err := p.Run(ctx, company, run, false)
	if err != nil {
		return nil, "", err
	}
	e, err := p.RunEmployee(ctx, company, run, employee)
	if err != nil {
		return nil, "", err
	}
	s, err := e.Payslip()
	if err != nil {
		return nil, "", err
	}
	if s == nil {
		return nil, "", apierr.New(apierr.SalaryRunInvalidState, map[string]any{"salary_run_id": run, "status": r.Status,
			"reason": "not_calculated", "allowed": []string{Review, Approved, Booked, Corrected}})
	}
	who, err := p.books.Identity(ctx, company)
	if err != nil {
		return nil, "", err
	}
	b, err := PayslipPDF(who, r, e, *s, e.Net, e.EffectiveTax())
	return b, "lonespecifikation-" + r.Period() + "-" + e.LastName + ".pdf", err
}
