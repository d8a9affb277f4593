package payroll

import (
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/money"
)

// vacationDays counts the vacation days of the period: each day's hours
// over a full day's (hours a week / 5), or whole days without a week's
// hours.
func vacationDays(e Employee, absence []Absence) *apd.Decimal {
	days := new(apd.Decimal)
	full := quo(of(e.HoursPerWeek), apd.New(5, 0))
	for _, a := range absence {
		if a.Type != Vacation {
			continue
		}
		if full.Sign() <= 0 {
			days = add(days, apd.New(1, 0))
			continue
		}
		days = add(days, minDec(quo(a.Hours.Decimal(), full), apd.New(1, 0)))
	}
	return days
}

// dayValue is what one day of e's vacation is worth, the value the
// liability is accrued at:
//
//   - sammalöneregeln: a day's salary, 4.6 % of the month (1/21.7, the
//     convention of Swedish payroll), plus the 0.43 % tillägg (16 a §);
//   - procentregeln: 12 % of the earning year's semesterlönegrundande lön
//     (the grounding known, else twelve months' salary) over the days
//     earned (16 b §).
//
// Semesterersättning paid on each payslip and no vacation pay accrue
// nothing.
func dayValue(e Employee, v VacationState) (money.Amount, string) {
	if e.MonthlySalary == nil {
		return money.Amount{}, "none"
	}
	m := of(*e.MonthlySalary)
	switch e.VacationRule {
	case SammaLon:
		return öre(mul(m, add(dayShare, tillagg))), "monthly_salary × (4.6 % + 0.43 %)"
	case Procent:
		grounding := mul(m, monthsPerYear)
		if v.Grounding.Sign() > 0 {
			grounding = of(v.Grounding)
		}
		days := e.VacationDays
		if days <= 0 {
			days = MinVacationDays
		}
		return öre(quo(mul(grounding, vacationPct), apd.New(int64(days), 0))), "12 % × semesterlönegrundande lön / days"
	}
	return money.Amount{}, "none"
}

// vacation pays the vacation days taken (semesterlagen 16 a, 16 b, 28
// §§): under sammalöneregeln the salary runs on and 0.43 % of it is
// added per day; under procentregeln the day's salary (4.6 %) is
// deducted and 12 % of the grounding pay over the days earned is paid;
// under semesterersättning 12 % of the payslip's grounding pay is paid
// with it. When the employment ends in the period, the days left are
// paid out (28 §).
func (p *Payslip) vacation(e Employee, in Input, first, last time.Time) {
	taken := vacationDays(e, in.Absence)
	p.VacationDays = taken
	law := "semesterlagen (1977:480)"
	total := money.Amount{}
	switch e.VacationRule {
	case SammaLon:
		if taken.Sign() > 0 && e.MonthlySalary != nil {
			a := öre(mul(of(*e.MonthlySalary), tillagg, taken))
			q, rate := quantity(taken), öre(mul(of(*e.MonthlySalary), tillagg))
			p.add(PayLine{ItemType: ItemVacationPay, Description: "Semestertillägg 0,43 %", Quantity: &q, UnitPrice: &rate,
				Amount: a, Calculated: true, Account: account(ItemVacationPay, e)})
			total, law = a, "semesterlagen 16 a §"
		}
	case Procent:
		if taken.Sign() > 0 && e.MonthlySalary != nil {
			q := quantity(taken)
			dayPay := öre(mul(of(*e.MonthlySalary), dayShare))
			off := öre(mul(of(*e.MonthlySalary), dayShare, taken)).Neg()
			value, _ := dayValue(e, in.Vacation)
			pay := öre(mul(of(value), taken))
			p.add(PayLine{ItemType: ItemVacationDeduct, Description: "Löneavdrag semesterdagar", Quantity: &q,
				UnitPrice: &dayPay, Amount: off, Calculated: true, Account: account(ItemVacationDeduct, e)})
			p.add(PayLine{ItemType: ItemVacationPay, Description: "Semesterlön 12 %", Quantity: &q, UnitPrice: &value,
				Amount: pay, Calculated: true, Account: account(ItemVacationPay, e)})
			total, law = pay.Add(off), "semesterlagen 16 b §"
		}
	case Ersattning:
		grounds := p.sum(func(k kind) bool { return k.grounds })
		if grounds.Sign() > 0 {
			a := öre(mul(of(grounds), vacationPct))
			p.add(PayLine{ItemType: ItemVacationPayment, Description: "Semesterersättning 12 %", Amount: a, Calculated: true,
				Account: account(ItemVacationPayment, e)})
			total, law = a, "semesterlagen 16 b och 28 §§"
		}
	}
	if out := p.payOut(e, in, first, last, taken); !out.IsZero() {
		total = total.Add(out)
	}
	p.step("vacation_pay", "Semesterlön", total, law, map[string]any{"rule": e.VacationRule, "days_taken": taken})
}

// payOut pays the days left as semesterersättning when the employment
// ends within the period (28 §).
func (p *Payslip) payOut(e Employee, in Input, first, last time.Time, taken *apd.Decimal) money.Amount {
	if e.End == nil || e.End.Before(first) || e.End.After(last) || !in.Vacation.Known ||
		(e.VacationRule != SammaLon && e.VacationRule != Procent) {
		return money.Amount{}
	}
	left := sub(in.Vacation.RemainingDays, taken)
	if left.Sign() <= 0 {
		return money.Amount{}
	}
	value, _ := dayValue(e, in.Vacation)
	a := öre(mul(of(value), left))
	q := quantity(left)
	p.add(PayLine{ItemType: ItemVacationPayment, Description: "Semesterersättning vid anställningens slut", Quantity: &q,
		UnitPrice: &value, Amount: a, Calculated: true, Account: account(ItemVacationPayment, e)})
	return a
}

// accrue books the month's change of the vacation liability: the days
// earned (a twelfth of the year's, for the part of the month employed)
// less those taken and paid out, at the day value, and its avgifter at
// the pay's rate.
func (p *Payslip) accrue(e Employee, in Input, first, last time.Time) {
	value, basis := dayValue(e, in.Vacation)
	a := Accrual{EarnedDays: new(apd.Decimal), TakenDays: p.VacationDays, PaidDays: new(apd.Decimal), Days: new(apd.Decimal),
		DayValue: value, Basis: basis, Account: accrualAccount(e), Rate: new(apd.Decimal), Category: CategoryNone}
	if e.VacationRule == SammaLon || e.VacationRule == Procent {
		earned := quo(apd.New(int64(e.VacationDays), 0), monthsPerYear)
		if from, to, some := employed(e, first, last); !some {
			earned = new(apd.Decimal)
		} else if !from.Equal(first) || !to.Equal(last) {
			earned = quo(mul(earned, apd.New(int64(workdays(from, to)), 0)), apd.New(int64(workdays(first, last)), 0))
		}
		a.EarnedDays = earned
		for _, l := range p.Lines {
			if l.ItemType == ItemVacationPayment && l.Quantity != nil {
				a.PaidDays = add(a.PaidDays, l.Quantity.Decimal())
			}
		}
		a.Days = sub(sub(earned, p.VacationDays), a.PaidDays)
		a.Amount = öre(mul(a.Days, of(value)))
		a.Rate, a.Category = p.rate()
		a.Avgifter = öre(mul(of(a.Amount), a.Rate))
	}
	if in.Vacation.Known {
		a.Remaining = sub(in.Vacation.RemainingDays, add(p.VacationDays, a.PaidDays)) // earned days are next year's
		a.Remaining = quantity(a.Remaining).Decimal()
	}
	// Kept at four decimals (2.0833 days), as the vacation years store
	// them; the amounts were reckoned from the exact days.
	a.EarnedDays, a.Days = quantity(a.EarnedDays).Decimal(), quantity(a.Days).Decimal()
	p.Accrual = a
	p.step("vacation_accrual", "Semesterlöneskuld", a.Amount, "semesterlagen 7 §; BFNAR 2016:10 (accrued liability)",
		map[string]any{"day_value": value, "days": a.Days, "avgifter": a.Avgifter})
}
