package payroll

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The absence types.
const (
	Sick        = "sick"
	VAB         = "vab"
	Parental    = "parental"
	UnpaidLeave = "unpaid_leave"
	Vacation    = "vacation"
	OtherLeave  = "other"
)

// AbsenceTypes lists them in the document's order.
var AbsenceTypes = []string{Sick, VAB, Parental, UnpaidLeave, Vacation, OtherLeave}

// Absence is one working day's absence of one type.
type Absence struct {
	ID    uuid.UUID      `db:"id"`
	Day   time.Time      `db:"absence_date"`
	Type  string         `db:"absence_type"`
	Hours money.Quantity `db:"hours"`
	Notes *string        `db:"notes"`
}

// Line is a payslip line a user added.
type Line struct {
	ID               uuid.UUID       `db:"id"`
	ItemType         ItemType        `db:"item_type"`
	Description      *string         `db:"description"`
	Quantity         *money.Quantity `db:"quantity"`
	UnitPrice        *money.Amount   `db:"unit_price"`
	Amount           money.Amount    `db:"amount"`
	OneOffTaxPercent *money.Amount   `db:"one_off_tax_percent"`
}

// VacationState is what the run knows of an employee's vacation before
// it: the days left of this vacation year and the year's entitlement,
// and the semesterlönegrundande lön of the earning year (procentregeln).
type VacationState struct {
	Known         bool
	RemainingDays *apd.Decimal
	EntitledDays  int
	Grounding     money.Amount
}

// Input is everything one payslip is reckoned from.
type Input struct {
	Employee Employee
	Year     int
	Month    time.Month
	Payment  time.Time
	Lines    []Line
	// Absence holds the period's days; SickBefore the sick days of the
	// fifteen months before it, for sick periods that run on and the
	// karensavdrag of the last twelve months.
	Absence    []Absence
	SickBefore []time.Time
	// AbsenceMonth is the month the absence is of: the period's, or the
	// one before under an avvikelseperiod (zero: the period's).
	AbsenceMonth time.Time
	Tables       *TaxTables
	// PriorBase is the year's avgift base before this payslip, and
	// PriorUncharged the part of it no avgifter were charged on (under
	// the 1 000 kr floor).
	PriorBase      money.Amount
	PriorUncharged money.Amount
	Vacation       VacationState
	// Claims are the employee's expense claims the run pays back.
	Claims []Claim
}

// Claim is an expense claim (utlägg) paid back on a payslip: with the
// net, untaxed and no pay, debiting what the company owed on.
type Claim struct {
	ID          uuid.UUID
	EmployeeID  uuid.UUID
	Description string
	Amount      money.Amount
	Account     string
}

// PayLine is one line of a reckoned payslip.
type PayLine struct {
	ItemType    ItemType        `json:"item_type"`
	Description string          `json:"description"`
	Quantity    *money.Quantity `json:"quantity"`
	UnitPrice   *money.Amount   `json:"unit_price"`
	Amount      money.Amount    `json:"amount"`
	Calculated  bool            `json:"calculated"`
	Account     string          `json:"account"`
	LineID      *uuid.UUID      `json:"line_id"`
	// ExpenseClaimID is the claim an expense_claim line pays back.
	ExpenseClaimID *uuid.UUID `json:"expense_claim_id,omitempty"`
}

// Step is one step of the calculation as calculation_breakdown keeps
// it: what it added up to, from which figures, under which law.
type Step struct {
	Step   string         `json:"step"`
	Label  string         `json:"label"`
	Amount money.Amount   `json:"amount"`
	Basis  map[string]any `json:"basis,omitempty"`
	Law    string         `json:"law,omitempty"`
}

// Accrual is the month's change of the vacation liability.
type Accrual struct {
	EarnedDays *apd.Decimal `json:"earned_days"`
	TakenDays  *apd.Decimal `json:"taken_days"`
	PaidDays   *apd.Decimal `json:"paid_out_days"`
	Days       *apd.Decimal `json:"days"`
	DayValue   money.Amount `json:"day_value"`
	Amount     money.Amount `json:"amount"`
	Avgifter   money.Amount `json:"avgifter"`
	Rate       *apd.Decimal `json:"avgift_rate"`
	Basis      string       `json:"day_value_basis"`
	Account    string       `json:"account"`
	Remaining  *apd.Decimal `json:"remaining_days_after"`
	Category   Category     `json:"category"`
}

// Payslip is one employee's reckoned month.
type Payslip struct {
	Lines []PayLine `json:"lines"`
	// Gross is the cash pay (AGI 011, or 131 for an F-skatt holder);
	// Benefits the förmåner by AGI field.
	Gross        money.Amount            `json:"gross"`
	Benefits     map[string]money.Amount `json:"benefits"`
	TaxableKr    int64                   `json:"taxable_income_kronor"`
	TaxMethod    string                  `json:"tax_method"`
	Tax          money.Amount            `json:"tax"`
	Net          money.Amount            `json:"net"`
	AvgiftBase   money.Amount            `json:"avgift_base"`
	Avgifter     []Part                  `json:"avgift_parts"`
	AvgiftTotal  money.Amount            `json:"avgifter"`
	Uncharged    money.Amount            `json:"uncharged_base"`
	Accrual      Accrual                 `json:"vacation_accrual"`
	AbsenceDays  map[string]int          `json:"absence_days"`
	VacationDays *apd.Decimal            `json:"vacation_days_taken"`
	SickDays     []SickDay               `json:"sick_days"`
	Steps        []Step                  `json:"steps"`
	Warnings     []string                `json:"warnings"`
	TaxTable     *TaxSource              `json:"tax_table"`
	// Dimensions are the employee's when reckoned: the run books on them.
	Dimensions ledger.Dimensions `json:"dimensions,omitempty"`
}

// TaxSource names the publication a table tax came from.
type TaxSource struct {
	Year   int    `json:"year"`
	Table  int    `json:"table"`
	Column int    `json:"column"`
	From   int64  `json:"row_from"`
	To     int64  `json:"row_to"`
	SHA256 string `json:"sha256"`
}

var (
	hundred       = dec("100")
	weeksPerYear  = dec("52")
	monthsPerYear = dec("12")
	sickRate      = dec("0.8")  // sjuklönelagen 6 §: 80 % of pay lost
	karensShare   = dec("0.2")  // 6 § second paragraph: 20 % of a week's sjuklön
	sidoRate      = dec("0.30") // SFL 11 kap. 13 §: 30 % on a sidoinkomst
	tillagg       = dec("0.0043")
	dayShare      = dec("0.046") // a day's salary as a share of the month: the 1/21.7 convention of Swedish payroll
	vacationPct   = dec("0.12")  // semesterlagen 16 b § and 28 §
)

// Calculate reckons one payslip in the order the law builds it: base
// pay, additions, absence, bruttolöneavdrag, förmånsvärden, tax, net,
// avgifter and the vacation liability.
func Calculate(in Input) (Payslip, error) {
	e := in.Employee
	p := Payslip{Benefits: map[string]money.Amount{}, AbsenceDays: map[string]int{}, VacationDays: new(apd.Decimal),
		Dimensions: e.Dimensions}
	rates, ok := RatesFor(in.Payment)
	if !ok && e.Withheld() {
		return p, apierr.New(apierr.SalaryPayrollConfigMissing, map[string]any{"missing": "arbetsgivaravgifter",
			"year": in.Payment.Year()})
	}
	first := time.Date(in.Year, in.Month, 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	hourly := hourlyWage(e)

	p.base(e, first, last)
	p.additions(e, in.Lines)
	p.absence(e, in, hourly)
	p.vacation(e, in, first, last)
	p.deductions(e, in.Lines)
	p.benefits(e, in.Lines)
	if err := p.tax(e, in); err != nil {
		return p, err
	}
	p.net(e, in.Lines, in.Claims)
	p.avgifter(e, in, rates)
	p.accrue(e, in, first, last)
	return p, nil
}

// hourlyWage is the wage one hour of absence costs: an hourly
// employee's rate, or a monthly salary × 12 / (52 × hours a week), the
// sick_rate annual_hourly rule.
func hourlyWage(e Employee) *apd.Decimal {
	if e.SalaryType == Hourly && e.HourlyRate != nil {
		return of(*e.HourlyRate)
	}
	if e.MonthlySalary == nil || e.HoursPerWeek.Sign() <= 0 {
		return new(apd.Decimal)
	}
	return quo(mul(of(*e.MonthlySalary), monthsPerYear), mul(weeksPerYear, of(e.HoursPerWeek)))
}

// weeklyPay is a week's pay: månadslön × 12 / 52, or the hourly rate
// times the hours of a week.
func weeklyPay(e Employee) *apd.Decimal {
	if e.SalaryType == Hourly && e.HourlyRate != nil {
		return mul(of(*e.HourlyRate), of(e.HoursPerWeek))
	}
	if e.MonthlySalary == nil {
		return new(apd.Decimal)
	}
	return quo(mul(of(*e.MonthlySalary), monthsPerYear), weeksPerYear)
}

func (p *Payslip) add(l PayLine) {
	if l.Amount.IsZero() && !l.Calculated {
		return
	}
	p.Lines = append(p.Lines, l)
}

func (p *Payslip) step(name, label string, amount money.Amount, law string, basis map[string]any) {
	p.Steps = append(p.Steps, Step{Step: name, Label: label, Amount: amount, Law: law, Basis: basis})
}

// workday reports whether d is a working day: a weekday that is no
// public holiday.
func workday(d time.Time) bool { return deadline.WorkingDay(d).Equal(d) }

// workdays counts the working days from a through b.
func workdays(a, b time.Time) int {
	n := 0
	for d := a; !d.After(b); d = d.AddDate(0, 0, 1) {
		if workday(d) {
			n++
		}
	}
	return n
}

// employed is the part of first–last e was employed: from, to and
// whether any.
func employed(e Employee, first, last time.Time) (time.Time, time.Time, bool) {
	from, to := first, last
	if e.Start.After(from) {
		from = e.Start
	}
	if e.End != nil && e.End.Before(to) {
		to = *e.End
	}
	return from, to, !from.After(to)
}

// base is the month's salary; for part of a month, by the working days
// employed of the month's working days.
func (p *Payslip) base(e Employee, first, last time.Time) {
	if e.SalaryType != Monthly || e.MonthlySalary == nil {
		p.step("base_pay", "Grundlön", money.Amount{}, "", map[string]any{"salary_type": e.SalaryType})
		return
	}
	from, to, some := employed(e, first, last)
	amount, basis := *e.MonthlySalary, map[string]any{"monthly_salary": *e.MonthlySalary}
	switch {
	case !some:
		amount = money.Amount{}
		basis["employed_workdays"] = 0
	case !from.Equal(first) || !to.Equal(last):
		worked, all := workdays(from, to), workdays(first, last)
		amount = öre(quo(mul(of(*e.MonthlySalary), apd.New(int64(worked), 0)), apd.New(int64(all), 0)))
		basis["employed_workdays"], basis["month_workdays"] = worked, all
	}
	p.add(PayLine{ItemType: ItemBase, Description: "Månadslön", Amount: amount, Calculated: true, Account: account(ItemBase, e)})
	p.step("base_pay", "Grundlön", amount, "", basis)
}

// lineAmount is a user line's amount: quantity × unit price when both
// are set, else the amount sent.
func lineAmount(l Line) money.Amount {
	if l.Quantity != nil && l.UnitPrice != nil {
		return öre(mul(l.Quantity.Decimal(), of(*l.UnitPrice)))
	}
	return l.Amount
}

func (p *Payslip) userLines(e Employee, lines []Line, pick func(kind) bool, step, label string) {
	sum := money.Amount{}
	for _, l := range lines {
		k := kinds[l.ItemType]
		if !pick(k) {
			continue
		}
		a := lineAmount(l)
		if l.ItemType == ItemGrossDeduction || l.ItemType == ItemNetDeduction {
			a = a.Abs().Neg()
		}
		desc := string(l.ItemType)
		if l.Description != nil {
			desc = *l.Description
		}
		id := l.ID
		p.add(PayLine{ItemType: l.ItemType, Description: desc, Quantity: l.Quantity, UnitPrice: l.UnitPrice, Amount: a,
			Account: account(l.ItemType, e), LineID: &id})
		sum = sum.Add(a)
	}
	p.step(step, label, sum, "", nil)
}

func (p *Payslip) additions(e Employee, lines []Line) {
	p.userLines(e, lines, func(k kind) bool { return k.cash && !isDeduction(k) }, "additions", "Tillägg")
}

func isDeduction(k kind) bool { return k.deduct }

func (p *Payslip) deductions(e Employee, lines []Line) {
	p.userLines(e, lines, isDeduction, "gross_deductions", "Bruttolöneavdrag")
}

// benefits are the förmånsvärden: taxed and avgift-based, never paid.
func (p *Payslip) benefits(e Employee, lines []Line) {
	field := map[ItemType]string{ItemBenefit: "012", ItemCarBenefit: "013", ItemFuelBenefit: "018"}
	p.userLines(e, lines, func(k kind) bool { return k.benefit }, "benefits", "Förmånsvärden")
	for _, l := range lines {
		if f, ok := field[l.ItemType]; ok {
			p.Benefits[f] = p.Benefits[f].Add(lineAmount(l))
		}
	}
}

// sum adds the lines kind picks.
func (p *Payslip) sum(pick func(kind) bool) money.Amount {
	s := money.Amount{}
	for _, l := range p.Lines {
		if pick(kinds[l.ItemType]) {
			s = s.Add(l.Amount)
		}
	}
	return s
}

// tax withholds preliminary tax (SFL 11 kap.): none for an F-skatt
// holder; a valid jämkning's percent; 30 % of a sidoinkomst (11 kap.
// 13 §); else the month table's row for the taxable income in whole
// kronor (11 kap. 8 §, SKV 434). Engångsbelopp are taxed at their own
// percent (11 kap. 12 §). Never more than the cash paid.
func (p *Payslip) tax(e Employee, in Input) error {
	p.Gross = p.sum(func(k kind) bool { return k.cash })
	regular := p.sum(func(k kind) bool { return k.cash && !k.separate })
	income := regular.Add(p.sum(func(k kind) bool { return k.benefit }))
	kr := kronorDown(of(income))
	if kr < 0 {
		kr = 0
	}
	p.TaxableKr = kr
	var tax int64
	basis := map[string]any{"taxable_income_kronor": kr}
	law := "SFL 11 kap. 8 §"
	switch pctJ, jam := e.Jamkning(in.Payment); {
	case !e.Withheld():
		p.TaxMethod, law = "f_skatt", "SFL 10 kap. 11 §: no withholding for an F-skatt holder"
	case jam:
		p.TaxMethod, law = "jamkning", "SFL 11 kap. 20 §: Skatteverket's jämkning decision"
		tax = kronorDown(quo(mul(apd.New(kr, 0), of(pctJ)), hundred))
		basis["percent"] = pctJ
	case e.Sidoinkomst:
		p.TaxMethod, law = "sidoinkomst", "SFL 11 kap. 13 §: 30 % on a sidoinkomst"
		tax = kronorDown(mul(apd.New(kr, 0), sidoRate))
	default:
		p.TaxMethod = "table"
		if e.TaxTable == nil || e.TaxColumn == nil {
			return apierr.New(apierr.SalaryRunApproveValidationFailed, map[string]any{"employee_id": e.ID,
				"missing": "tax_table_number"})
		}
		if in.Tables == nil {
			return apierr.New(apierr.SalaryPayrollConfigMissing, map[string]any{"missing": "tax_tables",
				"year": in.Payment.Year()})
		}
		t, found := in.Tables.Withhold(*e.TaxTable, *e.TaxColumn, kr)
		if !found {
			return apierr.New(apierr.SalaryPayrollConfigMissing, map[string]any{"missing": "tax_table",
				"table": *e.TaxTable, "year": in.Payment.Year()})
		}
		tax = t.Kronor
		p.TaxTable = &TaxSource{Year: in.Tables.Year, Table: *e.TaxTable, Column: *e.TaxColumn, From: t.Row.From,
			To: t.Row.To, SHA256: in.Tables.SHA256}
		basis["table"], basis["column"], basis["row_from"], basis["row_to"] = *e.TaxTable, *e.TaxColumn, t.Row.From, t.Row.To
		if t.Row.Percent {
			basis["percent"] = t.Row.Columns[*e.TaxColumn-1]
		}
	}
	for _, l := range in.Lines {
		if l.ItemType == ItemOneOff && e.Withheld() && l.OneOffTaxPercent != nil {
			tax += kronorDown(quo(mul(of(lineAmount(l)), of(*l.OneOffTaxPercent)), hundred))
		}
	}
	if most := kronorDown(of(p.Gross)); tax > most {
		tax = max(most, 0)
		p.Warnings = append(p.Warnings, "Skatteavdraget begränsades till den kontanta lönen.")
	}
	p.Tax = money.Kr(tax)
	p.step("tax", "Skatteavdrag", p.Tax, law, basis)
	return nil
}

// net is the pay out: cash gross less tax and nettolöneavdrag, plus the
// tax-free allowances and the expense claims paid back. Each books on its
// account: the allowances' cost, the deductions' 2790, the claims' debt.
func (p *Payslip) net(e Employee, lines []Line, claims []Claim) {
	netDeductions, taxFree, repaid := money.Amount{}, money.Amount{}, money.Amount{}
	for i, l := range lines {
		k := kinds[l.ItemType]
		switch {
		case k.net:
			netDeductions = netDeductions.Add(lineAmount(l).Abs())
		case k.taxFree:
			taxFree = taxFree.Add(lineAmount(l))
		default:
			continue
		}
		desc := string(l.ItemType)
		if l.Description != nil {
			desc = *l.Description
		}
		id := lines[i].ID
		a := lineAmount(l)
		if k.net {
			a = a.Abs().Neg()
		}
		p.add(PayLine{ItemType: l.ItemType, Description: desc, Quantity: l.Quantity, UnitPrice: l.UnitPrice, Amount: a,
			Account: account(l.ItemType, e), LineID: &id})
	}
	for i, c := range claims {
		repaid = repaid.Add(c.Amount)
		p.add(PayLine{ItemType: ItemExpenseClaim, Description: "Utlägg: " + c.Description, Amount: c.Amount,
			Account: c.Account, ExpenseClaimID: &claims[i].ID})
	}
	p.Net = p.Gross.Sub(p.Tax).Sub(netDeductions).Add(taxFree).Add(repaid)
	p.step("net", "Nettolön", p.Net, "", map[string]any{"net_deductions": netDeductions, "tax_free": taxFree,
		"expense_claims": repaid})
}

// avgifter are the employer's contributions on the cash pay and the
// förmåner (socialavgiftslagen 2 kap.): none to an F-skatt holder, none
// while the year's pay to the person stays under 1 000 kr (2 kap. 1 §),
// and then on the whole year's pay.
func (p *Payslip) avgifter(e Employee, in Input, r Rates) {
	base := p.Gross.Add(p.sum(func(k kind) bool { return k.benefit }))
	p.AvgiftBase = base
	law := "socialavgiftslagen 2 kap. 26 §"
	switch {
	case !e.Withheld():
		p.AvgiftBase, law = money.Amount{}, "socialavgiftslagen 2 kap. 1 §: no avgifter on pay to an F-skatt holder"
	case in.PriorBase.Add(base).Cmp(Floor) < 0:
		p.Uncharged, law = base, "socialavgiftslagen 2 kap. 1 §: under 1 000 kr a year"
	default:
		base = base.Add(in.PriorUncharged)
		p.AvgiftBase = base
		p.Avgifter = r.Avgifter(e.BirthDate.Year(), in.Payment, base)
	}
	for _, part := range p.Avgifter {
		p.AvgiftTotal = p.AvgiftTotal.Add(part.Avgift)
	}
	p.step("avgifter", "Arbetsgivaravgifter", p.AvgiftTotal, law, map[string]any{"base": p.AvgiftBase,
		"prior_uncharged": in.PriorUncharged})
}

// rate is the avgift rate the vacation liability of e is accrued at: the
// rate of the pay's first part.
func (p *Payslip) rate() (*apd.Decimal, Category) {
	if len(p.Avgifter) == 0 {
		return new(apd.Decimal), CategoryNone
	}
	return p.Avgifter[0].Rate, p.Avgifter[0].Category
}
