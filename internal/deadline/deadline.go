// Package deadline holds a company's deadlines: the VAT returns its
// moms_period calls for, the yearly income-tax return and an
// aktiebolag's annual report, each with the statutory due date,
// generated from the tax profile and fiscal years.
package deadline

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Profile is what decides a company's deadlines.
type Profile struct {
	// Form is the entity type: aktiebolag, enskild_firma or ideell_forening.
	Form          string
	VATRegistered bool
	// MomsPeriod is monthly, quarterly or yearly ("" when not registered).
	MomsPeriod string
	// Over40M marks a taxable base above 40 MSEK, which moves monthly
	// returns to the 26th of the following month.
	Over40M bool
}

// Year is a fiscal year to generate deadlines for.
type Year struct {
	ID         uuid.UUID
	Start, End time.Time
}

// Deadline is one return the company must file.
type Deadline struct {
	Type           string    `db:"deadline_type"` // vat_return, income_tax_return, annual_report or agi
	Form           string    `db:"form"`          // momsdeklaration, INK2, INK1, INK3, arsredovisning, AGI
	PeriodType     string    `db:"period_type"`   // monthly, quarterly or yearly
	TaxPeriod      string    `db:"tax_period"`    // 2026-03, 2026-Q2, 2026 or 2025/2026
	Start          time.Time `db:"period_start"`
	End            time.Time `db:"period_end"`
	Due            time.Time `db:"due_date"`
	FiscalPeriodID uuid.UUID `db:"fiscal_period_id"`
}

// The deadline types.
const (
	VATReturn       = "vat_return"
	IncomeTaxReturn = "income_tax_return"
	// AGI is a month's arbetsgivardeklaration, added when payroll
	// generates its file (regenerating the others leaves it).
	AGI = "agi"
	// AnnualReport is an aktiebolag's årsredovisning, due at Bolagsverket
	// seven months after the fiscal year ends (ÅRL 8 kap. 3 §: within a
	// month of the årsstämma, which is held within six).
	AnnualReport = "annual_report"
)

// Generate returns the deadlines of the fiscal years for profile p: a VAT
// return per VAT period whose last day falls in the year (calendar months
// or quarters; the fiscal year itself for yearly filers), and the year's
// income-tax return. Every due date that falls on a weekend or public
// holiday moves to the next working day, as the law on computing
// statutory time says.
func Generate(p Profile, years []Year) []Deadline {
	var out []Deadline
	for _, y := range years {
		if p.VATRegistered {
			out = append(out, vatReturns(p, y)...)
		}
		out = append(out, incomeTaxReturn(p, y))
		if p.Form == "aktiebolag" {
			out = append(out, annualReport(y))
		}
	}
	return out
}

// annualReport is the year's årsredovisning: due on the last day of the
// seventh month after the year's last (a fiscal year ends at a month's
// end), moved to a working day.
func annualReport(y Year) Deadline {
	due := date(y.End.Year(), y.End.Month()+8, 1).AddDate(0, 0, -1)
	return Deadline{Type: AnnualReport, Form: "arsredovisning", PeriodType: "yearly", TaxPeriod: yearLabel(y.Start, y.End),
		Start: y.Start, End: y.End, Due: WorkingDay(due), FiscalPeriodID: y.ID}
}

func vatReturns(p Profile, y Year) []Deadline {
	mk := func(kind, label string, start, end time.Time) Deadline {
		return Deadline{Type: VATReturn, Form: "momsdeklaration", PeriodType: kind, TaxPeriod: label,
			Start: start, End: end, Due: WorkingDay(vatDue(p, kind, end)), FiscalPeriodID: y.ID}
	}
	switch p.MomsPeriod {
	case "yearly":
		return []Deadline{mk("yearly", yearLabel(y.Start, y.End), y.Start, y.End)}
	case "quarterly":
		var out []Deadline
		for m := monthStart(y.Start); !m.After(y.End); m = m.AddDate(0, 1, 0) {
			if int(m.Month())%3 != 0 { // only quarter-end months close a period
				continue
			}
			start := m.AddDate(0, -2, 0)
			out = append(out, mk("quarterly", fmt.Sprintf("%d-Q%d", m.Year(), int(m.Month())/3), start, monthEnd(m)))
		}
		return out
	}
	var out []Deadline
	for m := monthStart(y.Start); !m.After(y.End); m = m.AddDate(0, 1, 0) {
		out = append(out, mk("monthly", m.Format("2006-01"), m, monthEnd(m)))
	}
	return out
}

// vatDue is the statutory due date of a VAT return for the period ending
// end, before moving off weekends and holidays: monthly returns above
// 40 MSEK the 26th of the next month (the 27th in December); monthly and
// quarterly returns otherwise the 12th of the second month after (the
// 17th when that month is January or August); yearly returns of an
// enskild firma 12 May after the year, of other forms the 26th of the
// second month after the year.
func vatDue(p Profile, kind string, end time.Time) time.Time {
	first := monthStart(end)
	switch {
	case kind == "monthly" && p.Over40M:
		m := first.AddDate(0, 1, 0)
		if m.Month() == time.December {
			return m.AddDate(0, 0, 26)
		}
		return m.AddDate(0, 0, 25)
	case kind == "yearly" && p.Form == "enskild_firma":
		return time.Date(end.Year()+1, time.May, 12, 0, 0, 0, 0, time.UTC)
	case kind == "yearly":
		return first.AddDate(0, 2, 25)
	}
	m := first.AddDate(0, 2, 0)
	if m.Month() == time.January || m.Month() == time.August {
		return m.AddDate(0, 0, 16)
	}
	return m.AddDate(0, 0, 11)
}

// incomeTaxReturn is the year's income-tax return. An enskild firma's
// owner files INK1 with the NE appendix by 2 May after the calendar year.
// Legal persons (INK2 for an aktiebolag, INK3 for an ideell förening)
// file by the date the year's last month gives: January-April 1
// November, May-June 15 January, July-August 1 March, September-December
// 1 July (Skatteförfarandelagen 30 kap.).
func incomeTaxReturn(p Profile, y Year) Deadline {
	d := Deadline{Type: IncomeTaxReturn, PeriodType: "yearly", TaxPeriod: yearLabel(y.Start, y.End),
		Start: y.Start, End: y.End, FiscalPeriodID: y.ID}
	year := y.End.Year()
	switch p.Form {
	case "enskild_firma":
		d.Form = "INK1"
		d.Due = date(year+1, time.May, 2)
	default:
		d.Form = "INK2"
		if p.Form == "ideell_forening" {
			d.Form = "INK3"
		}
		switch m := y.End.Month(); {
		case m <= time.April:
			d.Due = date(year, time.November, 1)
		case m <= time.June:
			d.Due = date(year+1, time.January, 15)
		case m <= time.August:
			d.Due = date(year+1, time.March, 1)
		default:
			d.Due = date(year+1, time.July, 1)
		}
	}
	d.Due = WorkingDay(d.Due)
	return d
}

func yearLabel(start, end time.Time) string {
	if start.Year() == end.Year() {
		return fmt.Sprint(start.Year())
	}
	return fmt.Sprintf("%d/%d", start.Year(), end.Year())
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func monthStart(t time.Time) time.Time { return date(t.Year(), t.Month(), 1) }

func monthEnd(t time.Time) time.Time { return monthStart(t).AddDate(0, 1, -1) }

// AGIDue is when the arbetsgivardeklaration of a period (its payment
// month) is due (SFL 26 kap. 2 §): the 12th of the next month, the 17th
// in January and August for an employer whose taxable turnover is at
// most 40 MSEK, moved to the next working day.
func AGIDue(year int, month time.Month, over40M bool) time.Time {
	due := date(year, month, 1).AddDate(0, 1, 11)
	if !over40M && (due.Month() == time.January || due.Month() == time.August) {
		due = due.AddDate(0, 0, 5)
	}
	return WorkingDay(due)
}
