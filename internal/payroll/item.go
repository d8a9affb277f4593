package payroll

// ItemType is the kind of a payslip line.
type ItemType string

// The line types a user adds to a payslip.
const (
	ItemHours          ItemType = "hours"           // worked hours of hourly staff: quantity × unit price
	ItemOvertime       ItemType = "overtime"        // övertid
	ItemBonus          ItemType = "bonus"           // bonus or provision
	ItemAddition       ItemType = "addition"        // any other taxable cash addition (OB, tillägg)
	ItemOneOff         ItemType = "one_off"         // engångsbelopp, taxed at its own percent (SFL 11 kap. 12 §)
	ItemBenefit        ItemType = "benefit"         // förmånsvärde other than car and fuel (AGI 012)
	ItemCarBenefit     ItemType = "car_benefit"     // bilförmån (AGI 013)
	ItemFuelBenefit    ItemType = "fuel_benefit"    // drivmedelsförmån (AGI 018)
	ItemGrossDeduction ItemType = "gross_deduction" // bruttolöneavdrag (löneväxling), before tax
	ItemNetDeduction   ItemType = "net_deduction"   // nettolöneavdrag, after tax
	ItemPerDiem        ItemType = "per_diem"        // skattefritt traktamente
	ItemMileage        ItemType = "mileage"         // skattefri bilersättning
)

// The line types the calculation owns: a user cannot add or change them
// (SALARY_LINE_CALCULATED).
const (
	ItemBase            ItemType = "base"                  // månadslön, for part of a month by workdays
	ItemAbsence         ItemType = "absence"               // pay lost to absence
	ItemSickPay         ItemType = "sjuklon"               // sjuklön, days 1–14
	ItemKarens          ItemType = "karens"                // karensavdrag
	ItemVacationPay     ItemType = "vacation_pay"          // semesterlön or its tillägg
	ItemVacationDeduct  ItemType = "vacation_deduction"    // the month's salary for days on procentregeln vacation
	ItemVacationPayment ItemType = "vacation_compensation" // semesterersättning
	// ItemExpenseClaim pays an expense claim back with the net: no pay,
	// no tax, no avgifter, not on the AGI. The run writes it from the
	// employee's claims marked pay_with_salary.
	ItemExpenseClaim ItemType = "expense_claim"
)

// UserItems are the types a request may add, in the document's order.
var UserItems = []ItemType{ItemHours, ItemOvertime, ItemBonus, ItemAddition, ItemOneOff, ItemBenefit, ItemCarBenefit,
	ItemFuelBenefit, ItemGrossDeduction, ItemNetDeduction, ItemPerDiem, ItemMileage}

// CalculatedItems are the types only the calculation writes.
var CalculatedItems = []ItemType{ItemBase, ItemAbsence, ItemSickPay, ItemKarens, ItemVacationPay, ItemVacationDeduct,
	ItemVacationPayment, ItemExpenseClaim}

// Calculated reports whether t belongs to the calculation.
func (t ItemType) Calculated() bool {
	for _, c := range CalculatedItems {
		if c == t {
			return true
		}
	}
	return false
}

// kind says how a line type enters the payslip.
type kind struct {
	cash     bool // kontant: in the gross (FK011) and the table tax's income
	benefit  bool // förmån: taxable and avgift base, never paid out
	taxFree  bool // paid out with the net, no tax, no avgifter
	net      bool // taken from the net, after tax
	grounds  bool // semesterlönegrundande (semesterlagen 16–17 §§)
	separate bool // taxed on its own at the line's percent (engångsbelopp)
	deduct   bool // bruttolöneavdrag: lowers the cash pay before tax
}

var kinds = map[ItemType]kind{
	ItemBase: {cash: true, grounds: true}, ItemHours: {cash: true, grounds: true},
	ItemOvertime: {cash: true, grounds: true}, ItemAddition: {cash: true, grounds: true},
	ItemBonus: {cash: true}, ItemOneOff: {cash: true, separate: true},
	ItemBenefit: {benefit: true}, ItemCarBenefit: {benefit: true}, ItemFuelBenefit: {benefit: true},
	ItemGrossDeduction: {cash: true, deduct: true}, ItemNetDeduction: {net: true},
	ItemPerDiem: {taxFree: true}, ItemMileage: {taxFree: true},
	ItemAbsence: {cash: true, grounds: true}, ItemSickPay: {cash: true, grounds: true}, ItemKarens: {cash: true, grounds: true},
	ItemVacationPay: {cash: true}, ItemVacationDeduct: {cash: true}, ItemVacationPayment: {cash: true},
}

// The accounts a salary run books on (BAS 2026).
const (
	AccountSalaryWhiteCollar   = "7210" // löner till tjänstemän
	AccountSalaryBlueCollar    = "7010" // löner till kollektivanställda
	AccountSalaryOwner         = "7220" // löner till företagsledare
	AccountBoardFees           = "7240" // styrelsearvoden som inte är lön
	AccountSickPayWhiteCollar  = "7281" // sjuklöner till tjänstemän
	AccountSickPayBlueCollar   = "7081" // sjuklöner till kollektivanställda
	AccountVacationWhiteCollar = "7285" // semesterlöner till tjänstemän
	AccountVacationBlueCollar  = "7082" // semesterlöner till kollektivanställda
	AccountPerDiem             = "7321" // skattefria traktamenten, Sverige
	AccountMileage             = "7331" // skattefria bilersättningar
	AccountTax                 = "2710" // personalskatt
	AccountNetDeductions       = "2790" // övriga löneavdrag
	AccountAvgifter            = "7510" // arbetsgivaravgifter
	AccountAvgiftDebt          = "2731" // avräkning lagstadgade sociala avgifter
	AccountRounding            = "3740" // öres- och kronutjämning
	AccountAccrualWhiteCollar  = "7290" // förändring av semesterlöneskuld
	AccountAccrualBlueCollar   = "7090" // förändring av semesterlöneskuld, kollektiv
	AccountVacationLiability   = "2920" // upplupna semesterlöner
	AccountAccrualAvgifter     = "7519" // arbetsgivaravgifter för semester- och löneskulder
	AccountAccruedAvgifter     = "2940" // upplupna lagstadgade sociala avgifter
	DefaultNetPayAccount       = "1930"
)

// account is the cost account a line of e's books on.
func account(t ItemType, e Employee) string {
	blue := e.Category == Kollektiv
	switch t {
	case ItemSickPay, ItemKarens:
		if blue {
			return AccountSickPayBlueCollar
		}
		return AccountSickPayWhiteCollar
	case ItemVacationPay, ItemVacationPayment, ItemVacationDeduct:
		if blue {
			return AccountVacationBlueCollar
		}
		return AccountVacationWhiteCollar
	case ItemPerDiem:
		return AccountPerDiem
	case ItemMileage:
		return AccountMileage
	case ItemNetDeduction:
		return AccountNetDeductions
	case ItemBenefit, ItemCarBenefit, ItemFuelBenefit:
		return "" // a förmån's cost was booked where it was bought: the run books only its avgifter
	}
	switch {
	case e.EmploymentType == CompanyOwner:
		return AccountSalaryOwner
	case e.EmploymentType == BoardMember:
		return AccountBoardFees
	case blue:
		return AccountSalaryBlueCollar
	}
	return AccountSalaryWhiteCollar
}

// accrualAccount is where a change of e's vacation liability is booked.
func accrualAccount(e Employee) string {
	if e.Category == Kollektiv {
		return AccountAccrualBlueCollar
	}
	return AccountAccrualWhiteCollar
}
