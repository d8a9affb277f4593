package payroll

import (
	"sort"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/money"
)

// The sjuklönelagen's figures.
const (
	sickPayDays    = 14 // 7 §: the employer pays sjuklön for days 1–14
	relapseDays    = 5  // 14 §: a new sickness within five days continues the period
	maxKarens      = 10 // 6 § third paragraph: at most ten karensavdrag in twelve months
	certifyDay     = 8  // 8 §: a doctor's certificate from day 8
	insuranceDay   = 15 // day 15: Försäkringskassan takes over
	karensLookback = 12
)

// SickDay is a sick day of the period and its place in its
// sjuklöneperiod.
type SickDay struct {
	Day         time.Time      `json:"date"`
	Hours       money.Quantity `json:"hours"`
	PeriodStart time.Time      `json:"period_start"`
	DayNumber   int            `json:"day_number"`
	SickPay     bool           `json:"sick_pay"`
	Karens      bool           `json:"karens_period"`
}

// sickPeriod is one sjuklöneperiod: where it starts and whether it takes
// a karensavdrag.
type sickPeriod struct {
	start  time.Time
	karens bool
}

// place walks the sick days, the earlier ones and the period's, and
// answers each day's sjuklöneperiod and day number. Days in a row count
// the days off between them (a weekend); a sickness starting again
// within five days continues the period, its gap uncounted (14 §).
func place(days []time.Time) (map[time.Time]SickDay, []sickPeriod) {
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	out := map[time.Time]SickDay{}
	var periods []sickPeriod
	var prev time.Time
	n := 0
	for _, d := range days {
		if _, seen := out[d]; seen {
			continue
		}
		switch {
		case len(periods) == 0 || gap(prev, d) > relapseDays:
			periods = append(periods, sickPeriod{start: d, karens: karensLeft(periods, d)})
			n = 1
		case offBetween(prev, d):
			n += int(d.Sub(prev).Hours() / 24)
		default:
			n++ // a relapse: the days well between are not sick days
		}
		cur := periods[len(periods)-1]
		out[d] = SickDay{Day: d, PeriodStart: cur.start, DayNumber: n, SickPay: n <= sickPayDays, Karens: cur.karens}
		prev = d
	}
	return out, periods
}

// gap counts the calendar days between a and b, neither counted.
func gap(a, b time.Time) int { return int(b.Sub(a).Hours()/24) - 1 }

// offBetween reports whether every day between a and b is a day off.
func offBetween(a, b time.Time) bool {
	for d := a.AddDate(0, 0, 1); d.Before(b); d = d.AddDate(0, 0, 1) {
		if workday(d) {
			return false
		}
	}
	return true
}

// karensLeft reports whether a period starting on start takes a
// karensavdrag: fewer than ten in the twelve months before (6 §).
func karensLeft(periods []sickPeriod, start time.Time) bool {
	since := start.AddDate(0, -karensLookback, 0)
	n := 0
	for _, p := range periods {
		if p.karens && p.start.After(since) {
			n++
		}
	}
	return n < maxKarens
}

// absence deducts the pay lost to absence at the hourly wage (a monthly
// employee's; an hourly one is simply paid for fewer hours), pays
// sjuklön for sick days 1–14 at 80 % of the pay lost, and takes one
// karensavdrag per new period: 20 % of a week's sjuklön, at most the
// period's sjuklön of the month (sjuklönelagen 6 §).
func (p *Payslip) absence(e Employee, in Input, hourly *apd.Decimal) {
	days := map[string]map[time.Time]bool{}
	hours := map[string]*apd.Decimal{}
	var sickNow []time.Time
	sickHours := map[time.Time]money.Quantity{}
	for _, a := range in.Absence {
		if days[a.Type] == nil {
			days[a.Type], hours[a.Type] = map[time.Time]bool{}, new(apd.Decimal)
		}
		days[a.Type][a.Day] = true
		hours[a.Type] = add(hours[a.Type], a.Hours.Decimal())
		if a.Type == Sick {
			sickNow = append(sickNow, a.Day)
			sickHours[a.Day] = a.Hours
		}
	}
	for t, d := range days {
		p.AbsenceDays[t] = len(d)
	}
	monthly := e.SalaryType == Monthly
	total := money.Amount{}
	for _, t := range []string{Sick, VAB, Parental, UnpaidLeave} {
		h := hours[t]
		if h == nil || !monthly {
			continue
		}
		a := öre(mul(h, hourly)).Neg()
		q := quantity(h)
		rate := öre(hourly)
		p.add(PayLine{ItemType: ItemAbsence, Description: absenceText[t], Quantity: &q, UnitPrice: &rate, Amount: a,
			Calculated: true, Account: account(ItemAbsence, e)})
		total = total.Add(a)
	}
	p.step("absence", "Frånvaroavdrag", total, "", map[string]any{"hourly_wage": öre(hourly), "sick_rate": "annual_hourly"})
	if len(sickNow) == 0 {
		return
	}
	placed, _ := place(append(append([]time.Time{}, in.SickBefore...), sickNow...))
	sickPay := new(apd.Decimal)
	perPeriod := map[time.Time]*apd.Decimal{}
	first := time.Date(in.Year, in.Month, 1, 0, 0, 0, 0, time.UTC)
	if !in.AbsenceMonth.IsZero() {
		first = in.AbsenceMonth
	}
	warned := map[int]bool{}
	sort.Slice(sickNow, func(i, j int) bool { return sickNow[i].Before(sickNow[j]) })
	for _, d := range sickNow {
		s := placed[d]
		s.Hours = sickHours[d]
		p.SickDays = append(p.SickDays, s)
		if s.SickPay {
			v := mul(sickRate, s.Hours.Decimal(), hourly)
			sickPay = add(sickPay, v)
			if perPeriod[s.PeriodStart] == nil {
				perPeriod[s.PeriodStart] = new(apd.Decimal)
			}
			perPeriod[s.PeriodStart] = add(perPeriod[s.PeriodStart], v)
		}
		for _, w := range []int{certifyDay, insuranceDay} {
			if s.DayNumber >= w && !warned[w] && s.DayNumber-w < 7 {
				warned[w] = true
				p.Warnings = append(p.Warnings, sickWarning[w])
			}
		}
	}
	karens := new(apd.Decimal)
	weekly := mul(karensShare, sickRate, weeklyPay(e))
	for start, pay := range perPeriod {
		s := placed[start]
		if start.Before(first) || !s.Karens {
			continue
		}
		karens = add(karens, minDec(weekly, pay))
	}
	paid := öre(sickPay)
	p.add(PayLine{ItemType: ItemSickPay, Description: "Sjuklön dag 1–14 (80 %)", Amount: paid, Calculated: true,
		Account: account(ItemSickPay, e)})
	k := öre(karens).Neg()
	if !k.IsZero() {
		p.add(PayLine{ItemType: ItemKarens, Description: "Karensavdrag", Amount: k, Calculated: true,
			Account: account(ItemKarens, e)})
	}
	p.step("sick_pay", "Sjuklön och karensavdrag", paid.Add(k), "sjuklönelagen (1991:1047) 6–7 §§",
		map[string]any{"karens_week_share": öre(weekly)})
}

var absenceText = map[string]string{Sick: "Sjukavdrag", VAB: "Avdrag vård av barn", Parental: "Avdrag föräldraledighet",
	UnpaidLeave: "Avdrag tjänstledighet utan lön"}

var sickWarning = map[int]string{
	certifyDay:   "Sjukperioden har nått dag 8: läkarintyg krävs (sjuklönelagen 8 §).",
	insuranceDay: "Sjukperioden har nått dag 15: anmäl sjukfallet till Försäkringskassan inom sju dagar.",
}

// quantity is a count of hours or days as a quantity: four decimals,
// half up (a twelfth of 25 days is 2.0833).
func quantity(h *apd.Decimal) money.Quantity {
	c := exact.WithPrecision(50)
	c.Rounding = apd.RoundHalfUp
	var r apd.Decimal
	if _, err := c.Quantize(&r, h, -money.QuantityDecimals); err != nil {
		panic(err)
	}
	q, err := money.ParseQuantity(r.Text('f'))
	if err != nil {
		panic(err)
	}
	return q
}
