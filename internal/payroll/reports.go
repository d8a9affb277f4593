package payroll

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// bookedRow is one employee's payslip on a booked run, as the reports
// read it.
type bookedRow struct {
	RunID      uuid.UUID       `db:"run_id"`
	Period     string          `db:"period"`
	Payment    time.Time       `db:"payment_date"`
	EmployeeID uuid.UUID       `db:"employee_id"`
	FirstName  string          `db:"first_name"`
	LastName   string          `db:"last_name"`
	BirthDate  time.Time       `db:"birth_date"`
	Gross      money.Amount    `db:"gross_salary"`
	Tax        money.Amount    `db:"tax"`
	Net        money.Amount    `db:"net_salary"`
	Avgifter   money.Amount    `db:"avgifter"`
	Base       money.Amount    `db:"avgift_base"`
	Uncharged  money.Amount    `db:"uncharged_base"`
	Accrual    money.Amount    `db:"vacation_accrual"`
	Benefits   json.RawMessage `db:"benefits"`
	Parts      json.RawMessage `db:"parts"`
}

// booked reads the payslips of the company's booked runs paid from
// from through to, by payment date then employee.
func (p *Payroll) booked(ctx context.Context, company uuid.UUID, from, to time.Time) ([]bookedRow, error) {
	out := []bookedRow{}
	err := p.db.Q(ctx).SelectContext(ctx, &out, `SELECT r.id AS run_id, to_char(make_date(r.period_year, r.period_month, 1), 'YYYY-MM') AS period,
			r.payment_date, re.employee_id, e.first_name, e.last_name, e.birth_date, re.gross_salary,
			coalesce(re.tax_withheld_override, re.tax_withheld) AS tax, re.net_salary,
			coalesce(re.avgifter_amount_override, re.avgifter_amount) AS avgifter, re.avgift_base, re.uncharged_base,
			re.vacation_accrual, coalesce(re.calculation_breakdown->'benefits', '{}') AS benefits,
			coalesce(re.calculation_breakdown->'avgift_parts', '[]') AS parts
		FROM salary_runs r JOIN salary_run_employees re ON re.company_id = r.company_id AND re.run_id = r.id
		JOIN employees e ON e.company_id = re.company_id AND e.id = re.employee_id
		WHERE r.company_id = $1 AND r.status = 'booked' AND r.payment_date BETWEEN $2 AND $3
		ORDER BY r.payment_date, r.created_at, re.created_at, re.id`, company, from, to)
	return out, err
}

// ReportPerson names an employee in a report.
type ReportPerson struct {
	ID                  uuid.UUID
	FirstName, LastName string
	BirthDate           time.Time
}

// JournalLine is one employee's or one run's sums in the salary journal.
type JournalLine struct {
	ReportPerson
	RunID                                        uuid.UUID
	Period                                       string
	Payment                                      time.Time
	Runs                                         int
	Gross, Benefits, Tax, Net, Avgifter, Accrual money.Amount
}

func (j *JournalLine) add(r bookedRow) {
	j.Gross, j.Tax, j.Net, j.Avgifter, j.Accrual = j.Gross.Add(r.Gross), j.Tax.Add(r.Tax), j.Net.Add(r.Net),
		j.Avgifter.Add(r.Avgifter), j.Accrual.Add(r.Accrual)
	var b map[string]money.Amount
	if json.Unmarshal(r.Benefits, &b) == nil {
		for _, v := range b {
			j.Benefits = j.Benefits.Add(v)
		}
	}
}

// Journal is the salary journal of a year's months.
type Journal struct {
	Runs, Employees []JournalLine
	Totals          JournalLine
}

// SalaryJournal sums the booked runs paid in year from month from
// through month to, per run and per employee.
func (p *Payroll) SalaryJournal(ctx context.Context, company uuid.UUID, year, from, to int) (Journal, error) {
	if to < from {
		return Journal{}, apierr.Validation(apierr.Issue{Field: "month_to", In: "query", Rule: "after_from",
			Issue: "month_to is before month_from"})
	}
	rows, err := p.booked(ctx, company, time.Date(year, time.Month(from), 1, 0, 0, 0, 0, time.UTC),
		time.Date(year, time.Month(to)+1, 0, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return Journal{}, err
	}
	j := Journal{}
	runs, people := map[uuid.UUID]int{}, map[uuid.UUID]int{}
	seen := map[[2]uuid.UUID]bool{}
	for _, r := range rows {
		i, ok := runs[r.RunID]
		if !ok {
			i = len(j.Runs)
			runs[r.RunID] = i
			j.Runs = append(j.Runs, JournalLine{RunID: r.RunID, Period: r.Period, Payment: r.Payment})
			j.Totals.Runs++
		}
		j.Runs[i].add(r)
		k, ok := people[r.EmployeeID]
		if !ok {
			k = len(j.Employees)
			people[r.EmployeeID] = k
			j.Employees = append(j.Employees, JournalLine{ReportPerson: reportPerson(r)})
		}
		j.Employees[k].add(r)
		if !seen[[2]uuid.UUID{r.RunID, r.EmployeeID}] {
			seen[[2]uuid.UUID{r.RunID, r.EmployeeID}] = true
			j.Employees[k].Runs++
		}
		j.Totals.add(r)
	}
	sortPeople(j.Employees)
	return j, nil
}

func reportPerson(r bookedRow) ReportPerson {
	return ReportPerson{ID: r.EmployeeID, FirstName: r.FirstName, LastName: r.LastName, BirthDate: r.BirthDate}
}

func sortPeople(l []JournalLine) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].LastName != l[j].LastName {
			return l[i].LastName < l[j].LastName
		}
		return l[i].FirstName < l[j].FirstName
	})
}

// CategorySum is a category's basis and avgift.
type CategorySum struct {
	Category Category
	Rate     *apd.Decimal
	Basis    money.Amount
	Avgift   money.Amount
}

// BasisLine is one employee's avgift basis of a year.
type BasisLine struct {
	ReportPerson
	Basis, Avgift, Uncharged money.Amount
	Categories               []CategorySum
}

// Basis is the year's avgiftsunderlag.
type Basis struct {
	Employees  []BasisLine
	Basis      money.Amount
	Avgift     money.Amount
	Declared   int64
	Categories []CategorySum
}

// AvgifterBasis sums the booked runs paid in year: per employee the
// basis, the avgifter and their categories; the totals with what the
// runs declared.
func (p *Payroll) AvgifterBasis(ctx context.Context, company uuid.UUID, year int) (Basis, error) {
	rows, err := p.booked(ctx, company, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return Basis{}, err
	}
	out := Basis{}
	people := map[uuid.UUID]int{}
	perRun := map[uuid.UUID][]Slip{}
	var runs []uuid.UUID
	for _, r := range rows {
		var parts []Part
		if err := json.Unmarshal(r.Parts, &parts); err != nil {
			return out, err
		}
		k, ok := people[r.EmployeeID]
		if !ok {
			k = len(out.Employees)
			people[r.EmployeeID] = k
			out.Employees = append(out.Employees, BasisLine{ReportPerson: reportPerson(r)})
		}
		e := &out.Employees[k]
		e.Basis, e.Avgift, e.Uncharged = e.Basis.Add(r.Base), e.Avgift.Add(r.Avgifter), e.Uncharged.Add(r.Uncharged)
		e.Categories = addParts(e.Categories, parts)
		out.Categories = addParts(out.Categories, parts)
		out.Basis, out.Avgift = out.Basis.Add(r.Base), out.Avgift.Add(r.Avgifter)
		if _, ok := perRun[r.RunID]; !ok {
			runs = append(runs, r.RunID)
		}
		perRun[r.RunID] = append(perRun[r.RunID], Slip{Payslip: Payslip{Avgifter: parts}})
	}
	for _, id := range runs {
		out.Declared += Declare(perRun[id]).Total
	}
	sort.SliceStable(out.Employees, func(i, j int) bool {
		a, b := out.Employees[i], out.Employees[j]
		return a.LastName < b.LastName || a.LastName == b.LastName && a.FirstName < b.FirstName
	})
	return out, nil
}

// addParts adds parts to sums by category, in the order first met.
func addParts(sums []CategorySum, parts []Part) []CategorySum {
	for _, part := range parts {
		found := false
		for i := range sums {
			if sums[i].Category == part.Category {
				sums[i].Basis, sums[i].Avgift = sums[i].Basis.Add(part.Base), sums[i].Avgift.Add(part.Avgift)
				found = true
			}
		}
		if !found {
			sums = append(sums, CategorySum{Category: part.Category, Rate: part.Rate, Basis: part.Base, Avgift: part.Avgift})
		}
	}
	return sums
}

// LiabilityLine is one employee's vacation liability.
type LiabilityLine struct {
	ReportPerson
	Rule                           string
	YearStart                      time.Time
	Remaining, Saved, Earned, Days *apd.Decimal
	DayValue, Liability, Avgifter  money.Amount
}

// Liability is the vacation liability on a day.
type Liability struct {
	AsOf      time.Time
	Employees []LiabilityLine
	Total     money.Amount
	Avgifter  money.Amount
}

// VacationLiability is the liability at the end of year (or today, in
// the current year) as booked runs leave the vacation years: the days
// left (when positive), saved and earned toward the next year at each
// employee's day value, and the avgifter on it at the employee's rate.
func (p *Payroll) VacationLiability(ctx context.Context, company uuid.UUID, year int) (Liability, error) {
	asOf := time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC)
	if today := p.today(); today.Before(asOf) {
		asOf = today
	}
	return p.liability(ctx, company, asOf, asOf)
}

// liability values the vacation years as of asOf at the avgift rates of
// ratesOn.
func (p *Payroll) liability(ctx context.Context, company uuid.UUID, asOf, ratesOn time.Time) (Liability, error) {
	var rows []struct {
		Employee
		YearStart time.Time       `db:"vacation_year_start"`
		Entitled  money.Quantity  `db:"entitled_days"`
		Taken     money.Quantity  `db:"taken_days"`
		Earned    money.Quantity  `db:"earned_days"`
		Saved     json.RawMessage `db:"saved_days"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+prefixed("e", employeeColumns)+`, y.vacation_year_start,
			y.entitled_days, y.taken_days, y.earned_days, y.saved_days
		FROM employees e JOIN LATERAL (SELECT * FROM employee_vacation_years v WHERE v.company_id = e.company_id
			AND v.employee_id = e.id AND v.vacation_year_start <= $2 ORDER BY v.vacation_year_start DESC LIMIT 1) y ON true
		WHERE e.company_id = $1 ORDER BY e.last_name, e.first_name, e.id`, company, asOf); err != nil {
		return Liability{}, err
	}
	out := Liability{AsOf: asOf, Employees: []LiabilityLine{}}
	rates, ok := RatesFor(ratesOn)
	for _, r := range rows {
		l := LiabilityLine{ReportPerson: ReportPerson{ID: r.ID, FirstName: r.FirstName, LastName: r.LastName,
			BirthDate: r.BirthDate}, Rule: r.VacationRule, YearStart: r.YearStart,
			Remaining: sub(r.Entitled.Decimal(), r.Taken.Decimal()), Earned: r.Earned.Decimal(), Saved: new(apd.Decimal)}
		var saved map[string]money.Quantity
		if err := json.Unmarshal(r.Saved, &saved); err != nil {
			return out, err
		}
		for _, d := range saved {
			l.Saved = add(l.Saved, d.Decimal())
		}
		l.Days = add(l.Saved, l.Earned)
		if l.Remaining.Sign() > 0 {
			l.Days = add(l.Days, l.Remaining)
		}
		l.DayValue, _ = dayValue(r.Employee, VacationState{})
		l.Liability = öre(mul(l.Days, of(l.DayValue)))
		if !l.Liability.IsZero() && r.Withheld() {
			if !ok {
				return out, apierr.New(apierr.SalaryPayrollConfigMissing, map[string]any{"missing": "arbetsgivaravgifter",
					"year": ratesOn.Year()})
			}
			// At the person's rate (as each run's accrual): a liability is no
			// month's pay, so a youth's monthly ceiling does not split it.
			if parts := rates.Avgifter(r.BirthDate.Year(), ratesOn, money.Kr(1)); len(parts) > 0 {
				l.Avgifter = öre(mul(of(l.Liability), parts[0].Rate))
			}
		}
		out.Total, out.Avgifter = out.Total.Add(l.Liability), out.Avgifter.Add(l.Avgifter)
		out.Employees = append(out.Employees, l)
	}
	return out, nil
}
