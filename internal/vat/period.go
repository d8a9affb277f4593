package vat

import (
	"fmt"
	"time"

	"github.com/kontera/kontera/internal/apierr"
)

// The kinds of VAT period (moms_period).
const (
	Monthly   = "monthly"
	Quarterly = "quarterly"
	Yearly    = "yearly"
)

// Period is a VAT period: a calendar month or quarter, or for a yearly
// filer the fiscal year ending in Year (which may straddle two calendar
// years).
type Period struct {
	Type   string
	Year   int
	Number int
	Start  time.Time
	End    time.Time
}

// Year is a fiscal year as the VAT period of a yearly filer needs it.
type Year struct {
	Start, End time.Time
}

// Resolve checks a period's coordinates and finds its days. A yearly
// period is the fiscal year among years that ends in year (the last one,
// should a short year and a full one both end in it); none is a
// VALIDATION_ERROR naming year.
func Resolve(kind string, year, number int, years []Year) (Period, error) {
	p := Period{Type: kind, Year: year, Number: number}
	limit := map[string]int{Monthly: 12, Quarterly: 4, Yearly: 1}[kind]
	switch {
	case limit == 0:
		return p, apierr.Validation(apierr.Issue{Field: "period_type", In: "query", Rule: "enum",
			Issue: "must be monthly, quarterly or yearly"})
	case year < 2000 || year > 2100:
		return p, apierr.Validation(apierr.Issue{Field: "year", In: "query", Rule: "range", Issue: "must be 2000-2100"})
	case number < 1 || number > limit:
		return p, apierr.Validation(apierr.Issue{Field: "period", In: "query", Rule: "range",
			Issue: fmt.Sprintf("a %s period is numbered 1-%d", kind, limit)})
	}
	switch kind {
	case Monthly:
		p.Start = time.Date(year, time.Month(number), 1, 0, 0, 0, 0, time.UTC)
		p.End = p.Start.AddDate(0, 1, -1)
	case Quarterly:
		p.Start = time.Date(year, time.Month(3*number-2), 1, 0, 0, 0, 0, time.UTC)
		p.End = p.Start.AddDate(0, 3, -1)
	default:
		found := false
		for _, y := range years {
			if y.End.Year() == year && (!found || y.End.After(p.End)) {
				p.Start, p.End, found = y.Start, y.End, true
			}
		}
		if !found {
			return p, apierr.Validation(apierr.Issue{Field: "year", In: "query", Rule: "fiscal_year",
				Issue: "the company has no fiscal year ending in this year"})
		}
	}
	return p, nil
}

var months = []string{"Januari", "Februari", "Mars", "April", "Maj", "Juni", "Juli", "Augusti", "September",
	"Oktober", "November", "December"}

// Label names the period as a verifikat's text does: "Januari 2026",
// "Kvartal 1 2026", "Helår 2026".
func (p Period) Label() string {
	switch p.Type {
	case Monthly:
		return fmt.Sprintf("%s %d", months[p.Number-1], p.Year)
	case Quarterly:
		return fmt.Sprintf("Kvartal %d %d", p.Number, p.Year)
	}
	return fmt.Sprintf("Helår %d", p.Year)
}

// TaxPeriod is the period as the deadlines name it: 2026-03, 2026-Q2,
// 2026, or 2025/2026 for a broken fiscal year.
func (p Period) TaxPeriod() string {
	switch p.Type {
	case Monthly:
		return p.Start.Format("2006-01")
	case Quarterly:
		return fmt.Sprintf("%d-Q%d", p.Year, p.Number)
	}
	if p.Start.Year() != p.End.Year() {
		return fmt.Sprintf("%d/%d", p.Start.Year(), p.End.Year())
	}
	return fmt.Sprint(p.End.Year())
}

// Redovisningsperiod is the period as Skatteverket numbers it: the year
// and month of its last month (YYYYMM).
func (p Period) Redovisningsperiod() string { return p.End.Format("200601") }

// SourceID identifies the period on its settlement verifikat, so that a
// second settlement of one period can be told.
func (p Period) SourceID() string {
	return fmt.Sprintf("%s:%s:%s", p.Type, p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly))
}
