package payroll

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

func fixtureTables(t *testing.T) *TaxTables {
	t.Helper()
	raw, err := os.ReadFile("testdata/month-tables-fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	tt, err := ParseTaxTables(raw, 2026, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

func amt(s string) money.Amount { return money.MustParse(s) }

func ptr[T any](v T) *T { return &v }

func hrs(s string) money.Quantity {
	q, err := money.ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// may2026 are the three employees of May 2026, paid 25 May, on
// table 30 column 1.
func may2026() (anna, bo, cleo Employee) {
	base := Employee{EmploymentType: Employed, FSkattStatus: ASkatt, TaxTable: ptr(30), TaxColumn: ptr(1),
		HoursPerWeek: amt("40"), Degree: amt("100"), VacationDays: 25, Start: date("2020-01-01")}
	anna, bo, cleo = base, base, base
	anna.FirstName, anna.BirthDate, anna.Category, anna.SalaryType, anna.MonthlySalary, anna.VacationRule =
		"Anna", date("1985-03-12"), Tjansteman, Monthly, ptr(amt("36000")), SammaLon
	bo.FirstName, bo.BirthDate, bo.Category, bo.SalaryType, bo.HourlyRate, bo.VacationRule =
		"Bo", date("1970-06-01"), Kollektiv, Hourly, ptr(amt("180")), Ersattning
	cleo.FirstName, cleo.BirthDate, cleo.Category, cleo.SalaryType, cleo.MonthlySalary, cleo.VacationRule =
		"Cleo", date("2005-02-01"), Tjansteman, Monthly, ptr(amt("24000")), SammaLon
	return
}

func reckon(t *testing.T, in Input) Payslip {
	t.Helper()
	if in.Year == 0 {
		in.Year, in.Month, in.Payment = 2026, time.May, date("2026-05-25")
	}
	if in.Tables == nil {
		in.Tables = fixtureTables(t)
	}
	p, err := Calculate(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func line(t *testing.T, p Payslip, typ ItemType) PayLine {
	t.Helper()
	for _, l := range p.Lines {
		if l.ItemType == typ {
			return l
		}
	}
	t.Fatalf("no %s line in %+v", typ, p.Lines)
	return PayLine{}
}

func is(t *testing.T, what string, got money.Amount, want string) {
	t.Helper()
	if got.Cmp(amt(want)) != 0 {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// Anna: 36 000 a month, sick 8 hours on Tuesday 12 May. timlön =
// 36 000 × 12 / (52 × 40) = 207.6923…; sjukavdrag 8 × 207.6923 =
// 1 661.54; sjuklön 80 % = 1 329.23; karens 0.2 × 0.8 × 36 000 × 12 / 52
// = 1 329.23, no more than the sjuklön; gross 36 000 − 1 661.54 +
// 1 329.23 − 1 329.23 = 34 338.46; table 30 column 1 on 34 338: 6 359;
// net 27 979.46; avgifter 31.42 % = 10 789.14.
func TestAnnaSickDay(t *testing.T) {
	anna, _, _ := may2026()
	p := reckon(t, Input{Employee: anna, Absence: []Absence{{Day: date("2026-05-12"), Type: Sick, Hours: hrs("8")}}})
	abs := line(t, p, ItemAbsence)
	is(t, "timlön", *abs.UnitPrice, "207.69")
	is(t, "sjukavdrag", abs.Amount, "-1661.54")
	is(t, "sjuklön", line(t, p, ItemSickPay).Amount, "1329.23")
	is(t, "karens", line(t, p, ItemKarens).Amount, "-1329.23")
	is(t, "gross", p.Gross, "34338.46")
	is(t, "tax", p.Tax, "6359")
	is(t, "net", p.Net, "27979.46")
	is(t, "avgifter", p.AvgiftTotal, "10789.14")
	if p.TaxableKr != 34338 || p.TaxTable == nil || p.TaxTable.From != 34201 {
		t.Errorf("taxable %d from %+v", p.TaxableKr, p.TaxTable)
	}
	if p.AbsenceDays[Sick] != 1 || len(p.SickDays) != 1 || p.SickDays[0].DayNumber != 1 {
		t.Errorf("absence %v %+v", p.AbsenceDays, p.SickDays)
	}
}

// Bo: 140 hours at 180 = 25 200, semesterersättning 12 % = 3 024, gross
// 28 224, tax 4 986, net 23 238, avgifter 31.42 % = 8 867.98; no
// liability accrues (paid with each payslip).
func TestBoHourly(t *testing.T) {
	_, bo, _ := may2026()
	p := reckon(t, Input{Employee: bo, Lines: []Line{{ItemType: ItemHours, Quantity: ptr(hrs("140")), UnitPrice: ptr(amt("180"))}}})
	is(t, "hours", line(t, p, ItemHours).Amount, "25200")
	is(t, "semesterersättning", line(t, p, ItemVacationPayment).Amount, "3024")
	is(t, "gross", p.Gross, "28224")
	is(t, "tax", p.Tax, "4986")
	is(t, "net", p.Net, "23238")
	is(t, "avgifter", p.AvgiftTotal, "8867.98")
	is(t, "accrual", p.Accrual.Amount, "0")
	if line(t, p, ItemVacationPayment).Account != "7082" || line(t, p, ItemHours).Account != "7010" {
		t.Errorf("accounts %+v", p.Lines)
	}
}

// Cleo: born 2005, 24 000 a month, vacation 4–8 May with 25 days left:
// tillägg 0.43 % × 24 000 × 5 = 516, gross 24 516, tax 4 117, net
// 20 399, avgifter at the youth rate 20.81 % = 5 101.78; 20 days left.
// The liability: 25/12 days earned less 5 taken at 24 000 × 5.03 % =
// 1 207.20 a day: (2.083… − 5) × 1 207.20 = −3 521.00, its avgifter at
// 20.81 % = −732.72.
func TestCleoVacation(t *testing.T) {
	_, _, cleo := may2026()
	var vac []Absence
	for d := date("2026-05-04"); !d.After(date("2026-05-08")); d = d.AddDate(0, 0, 1) {
		vac = append(vac, Absence{Day: d, Type: Vacation, Hours: hrs("8")})
	}
	p := reckon(t, Input{Employee: cleo, Absence: vac,
		Vacation: VacationState{Known: true, RemainingDays: apd.New(25, 0), EntitledDays: 25}})
	is(t, "tillägg", line(t, p, ItemVacationPay).Amount, "516")
	is(t, "gross", p.Gross, "24516")
	is(t, "tax", p.Tax, "4117")
	is(t, "net", p.Net, "20399")
	is(t, "avgifter", p.AvgiftTotal, "5101.78")
	if len(p.Avgifter) != 1 || p.Avgifter[0].Category != CategoryYouth {
		t.Errorf("parts %+v", p.Avgifter)
	}
	if p.Accrual.Remaining.Cmp(apd.New(20, 0)) != 0 {
		t.Errorf("remaining %s", p.Accrual.Remaining)
	}
	is(t, "day value", p.Accrual.DayValue, "1207.20")
	is(t, "accrual", p.Accrual.Amount, "-3521.00")
	is(t, "accrual avgifter", p.Accrual.Avgifter, "-732.72")
}

// The AGI declares per category: Anna's and Bo's whole kronor 34 338 +
// 28 224 = 62 562 × 31.42 % = 19 656.98 → 19 656; Cleo's 24 516 ×
// 20.81 % = 5 101.78 → 5 101; together 24 757.
func TestDeclaredPerCategory(t *testing.T) {
	r, _ := RatesFor(date("2026-05-25"))
	if got := Declared(r.Standard, 34338+28224); got != 19656 {
		t.Errorf("standard %d", got)
	}
	if got := Declared(r.Youth.Rate, 24516); got != 5101 {
		t.Errorf("youth %d", got)
	}
	if got := Declared(r.Standard, -1000); got != -314 {
		t.Errorf("a correction's %d", got)
	}
}

func TestAvgiftCategories(t *testing.T) {
	r, _ := RatesFor(date("2026-05-25"))
	cases := []struct {
		born    int
		paid    string
		base    string
		parts   []Category
		avgifts []string
	}{
		{1985, "2026-05-25", "10000", []Category{CategoryStandard}, []string{"3142.00"}},
		{1959, "2026-05-25", "10000", []Category{CategoryPensioner}, []string{"1021.00"}},
		{1937, "2026-05-25", "10000", []Category{CategoryExempt}, []string{"0"}},
		{2005, "2026-03-25", "10000", []Category{CategoryStandard}, []string{"3142.00"}}, // before 1 April
		{2005, "2026-05-25", "30000", []Category{CategoryYouth, CategoryStandard}, []string{"5202.50", "1571.00"}},
		{2008, "2026-05-25", "10000", []Category{CategoryStandard}, []string{"3142.00"}}, // 17 at 1 January
	}
	for _, c := range cases {
		parts := r.Avgifter(c.born, date(c.paid), amt(c.base))
		if len(parts) != len(c.parts) {
			t.Errorf("born %d: %+v", c.born, parts)
			continue
		}
		for i, p := range parts {
			if p.Category != c.parts[i] || p.Avgift.Cmp(amt(c.avgifts[i])) != 0 {
				t.Errorf("born %d part %d: %s %s", c.born, i, p.Category, p.Avgift)
			}
		}
	}
	if _, ok := RatesFor(date("2031-01-25")); ok {
		t.Error("a year not shipped has rates")
	}
}

func TestSickPeriods(t *testing.T) {
	// Mon 4 – Fri 15 May sick: Monday the 11th is day 8 (the weekend
	// counts); a relapse on Wed 20 May (four days after Friday 15th)
	// continues the period: day 13, no new karens.
	var days []time.Time
	for d := date("2026-05-04"); !d.After(date("2026-05-15")); d = d.AddDate(0, 0, 1) {
		if workday(d) {
			days = append(days, d)
		}
	}
	days = append(days, date("2026-05-20"))
	placed, periods := place(days)
	if len(periods) != 1 || placed[date("2026-05-11")].DayNumber != 8 || placed[date("2026-05-20")].DayNumber != 13 {
		t.Fatalf("periods %+v, 11th %+v, 20th %+v", periods, placed[date("2026-05-11")], placed[date("2026-05-20")])
	}
	// Eleven one-day sicknesses a month apart: the eleventh within twelve
	// months of the first ten takes no karens.
	var spread []time.Time
	for m := 0; m < 11; m++ {
		spread = append(spread, date("2026-01-13").AddDate(0, m, 0))
	}
	_, periods = place(spread)
	for i, p := range periods {
		if p.karens != (i < 10) {
			t.Errorf("period %d karens %v", i, p.karens)
		}
	}
}

func TestSickWarningsAndLongSickness(t *testing.T) {
	anna, _, _ := may2026()
	var abs []Absence
	for d := date("2026-05-04"); !d.After(date("2026-05-29")); d = d.AddDate(0, 0, 1) {
		if workday(d) {
			abs = append(abs, Absence{Day: d, Type: Sick, Hours: hrs("8")})
		}
	}
	p := reckon(t, Input{Employee: anna, Absence: abs})
	joined := strings.Join(p.Warnings, " | ")
	if !strings.Contains(joined, "dag 8") || !strings.Contains(joined, "dag 15") {
		t.Errorf("warnings %q", joined)
	}
	// Sjuklön only for the days numbered 1–14: Mon 4 – Fri 15 May is ten
	// working days, Mon 18 May is day 15.
	paid := 0
	for _, s := range p.SickDays {
		if s.SickPay {
			paid++
		}
	}
	if paid != 9 { // 14 May (Ascension Day) is a holiday, not a sick row of a working day
		t.Errorf("%d days of sjuklön: %+v", paid, p.SickDays)
	}
}

func TestTaxMethods(t *testing.T) {
	anna, _, _ := may2026()
	side := anna
	side.Sidoinkomst, side.TaxTable, side.TaxColumn = true, nil, nil
	if p := reckon(t, Input{Employee: side}); p.Tax.Cmp(amt("10800")) != 0 || p.TaxMethod != "sidoinkomst" {
		t.Errorf("sidoinkomst %s %s", p.Tax, p.TaxMethod)
	}
	jam := anna
	jam.JamkningPercent, jam.JamkningFrom, jam.JamkningTo = ptr(amt("12.5")), ptr(date("2026-01-01")), ptr(date("2026-12-31"))
	if p := reckon(t, Input{Employee: jam}); p.Tax.Cmp(amt("4500")) != 0 || p.TaxMethod != "jamkning" {
		t.Errorf("jämkning %s %s", p.Tax, p.TaxMethod)
	}
	f := anna
	f.FSkattStatus = FSkatt
	if p := reckon(t, Input{Employee: f}); !p.Tax.IsZero() || !p.AvgiftTotal.IsZero() || p.Net.Cmp(amt("36000")) != 0 {
		t.Errorf("F-skatt %s %s %s", p.Tax, p.AvgiftTotal, p.Net)
	}
	// An engångsbelopp at its own percent; a % row of the whole income.
	one := reckon(t, Input{Employee: anna, Lines: []Line{{ItemType: ItemOneOff, Amount: amt("10000"), OneOffTaxPercent: ptr(amt("33"))}}})
	is(t, "one-off tax", one.Tax, "9887") // the fixture's 6 587 on 36 000 + 33 % of 10 000
	is(t, "one-off gross", one.Gross, "46000")
	rich := anna
	rich.MonthlySalary = ptr(amt("100000.75"))
	if p := reckon(t, Input{Employee: rich}); p.Tax.Cmp(amt("33000")) != 0 {
		t.Errorf("percent row %s", p.Tax)
	}
	// Without tables, a table employee is refused; never a fallback.
	_, err := Calculate(Input{Employee: anna, Year: 2026, Month: time.May, Payment: date("2026-05-25")})
	if !apierr.Is(err, apierr.SalaryPayrollConfigMissing) {
		t.Errorf("no tables: %v", err)
	}
	// A payment year without avgift rates is refused too.
	_, err = Calculate(Input{Employee: anna, Year: 2031, Month: time.May, Payment: date("2031-05-25"), Tables: fixtureTables(t)})
	if !apierr.Is(err, apierr.SalaryPayrollConfigMissing) {
		t.Errorf("no rates: %v", err)
	}
}

func TestAvgiftFloorAndPartMonth(t *testing.T) {
	_, bo, cleo := may2026()
	small := reckon(t, Input{Employee: bo, Lines: []Line{{ItemType: ItemHours, Quantity: ptr(hrs("4")), UnitPrice: ptr(amt("180"))}}})
	if !small.AvgiftTotal.IsZero() || small.Uncharged.Cmp(amt("806.40")) != 0 {
		t.Errorf("under the floor: %s uncharged %s", small.AvgiftTotal, small.Uncharged)
	}
	later := reckon(t, Input{Employee: bo, PriorBase: amt("806.40"), PriorUncharged: amt("806.40"),
		Lines: []Line{{ItemType: ItemHours, Quantity: ptr(hrs("4")), UnitPrice: ptr(amt("180"))}}})
	is(t, "catch-up base", later.AvgiftBase, "1612.80") // 806.40 + 806.40
	// Started Monday 18 May: 10 of May's 19 working days (1 and 14 May are holidays).
	cleo.Start = date("2026-05-18")
	p := reckon(t, Input{Employee: cleo})
	is(t, "part month", line(t, p, ItemBase).Amount, "12631.58") // 24 000 × 10 / 19
}

// A bonus is an addition, a bruttolöneavdrag a deduction: each in its
// own step.
func TestAdditionsAndDeductions(t *testing.T) {
	anna, _, _ := may2026()
	p := reckon(t, Input{Employee: anna, Lines: []Line{{ItemType: ItemBonus, Amount: amt("5000")},
		{ItemType: ItemGrossDeduction, Amount: amt("1000")}, {ItemType: ItemNetDeduction, Amount: amt("300")},
		{ItemType: ItemPerDiem, Amount: amt("290")}}})
	steps := map[string]money.Amount{}
	for _, s := range p.Steps {
		steps[s.Step] = s.Amount
	}
	is(t, "additions", steps["additions"], "5000")
	is(t, "gross deductions", steps["gross_deductions"], "-1000")
	is(t, "gross", p.Gross, "40000") // 36 000 + 5 000 − 1 000
	// 40 000 is in the fixture's 34 401–80 000 row: 6 587. Net 40 000 −
	// 6 587 − 300 + 290.
	is(t, "net", p.Net, "33403")
}

// Procentregeln: two days off a 30 000 salary. The day's salary, 4.6 %,
// is deducted (2 × 1 380 = 2 760); semesterlön is 12 % of the year's
// pay (30 000 × 12, none booked yet) over 25 days = 1 728 a day (3 456);
// gross 30 000 − 2 760 + 3 456 = 30 696. The liability: 25/12 − 2 days
// at 1 728 = 144.00.
func TestProcentregeln(t *testing.T) {
	anna, _, _ := may2026()
	anna.VacationRule, anna.MonthlySalary = Procent, ptr(amt("30000"))
	p := reckon(t, Input{Employee: anna, Absence: []Absence{{Day: date("2026-05-18"), Type: Vacation, Hours: hrs("8")},
		{Day: date("2026-05-19"), Type: Vacation, Hours: hrs("8")}}})
	is(t, "deduction", line(t, p, ItemVacationDeduct).Amount, "-2760")
	is(t, "semesterlön", line(t, p, ItemVacationPay).Amount, "3456")
	is(t, "gross", p.Gross, "30696")
	is(t, "day value", p.Accrual.DayValue, "1728")
	is(t, "accrual", p.Accrual.Amount, "144.00")
}

// Leaving on Friday 15 May with ten days left: the salary for 9 of May's
// 19 working days (36 000 × 9 / 19 = 17 052.63), the ten days paid out
// as semesterersättning at 1 810.80 (28 §), and the liability falls by
// what was paid less the 25/12 × 9/19 days earned: (225/228 − 10) ×
// 1 810.80 = −16 321.03.
func TestVacationPaidOutAtTheEnd(t *testing.T) {
	anna, _, _ := may2026()
	anna.End = ptr(date("2026-05-15"))
	p := reckon(t, Input{Employee: anna, Vacation: VacationState{Known: true, RemainingDays: apd.New(10, 0)}})
	is(t, "base", line(t, p, ItemBase).Amount, "17052.63")
	is(t, "paid out", line(t, p, ItemVacationPayment).Amount, "18108")
	is(t, "accrual", p.Accrual.Amount, "-16321.03")
	if p.Accrual.Remaining.Sign() != 0 {
		t.Errorf("days left after leaving: %s", p.Accrual.Remaining)
	}
}
