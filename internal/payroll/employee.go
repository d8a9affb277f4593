package payroll

import (
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The employment types.
const (
	Employed     = "employee"
	CompanyOwner = "company_owner"
	BoardMember  = "board_member"
)

// The personnel categories: tjänstemän and kollektivanställda book on
// their own accounts (72xx and 70xx).
const (
	Tjansteman = "tjansteman"
	Kollektiv  = "kollektiv"
)

// The salary types.
const (
	Monthly = "monthly"
	Hourly  = "hourly"
)

// The F-skatt statuses: only an F-skatt holder is paid without tax and
// avgifter; FA-skatt and an unverified status are withheld on like
// A-skatt (SFL 10 kap. 11 §).
const (
	ASkatt      = "a_skatt"
	FSkatt      = "f_skatt"
	FASkatt     = "fa_skatt"
	NotVerified = "not_verified"
)

// The vacation rules (semesterlagen 16 a, 16 b and 28 §§).
const (
	SammaLon      = "sammaloneregeln"
	Procent       = "procentregeln"
	Ersattning    = "semesterersattning"
	NoVacationPay = "none"
)

// MinVacationDays is the statutory entitlement (semesterlagen 4 §).
const MinVacationDays = 25

// Employee is one person the company pays.
type Employee struct {
	CompanyID      uuid.UUID  `db:"company_id" json:"company_id"`
	ID             uuid.UUID  `db:"id" json:"id"`
	FirstName      string     `db:"first_name" json:"first_name"`
	LastName       string     `db:"last_name" json:"last_name"`
	BirthDate      time.Time  `db:"birth_date" json:"birth_date"`
	Last4          string     `db:"personnummer_last4" json:"-"`
	EmploymentType string     `db:"employment_type" json:"employment_type"`
	Category       string     `db:"personnel_category" json:"personnel_category"`
	Start          time.Time  `db:"employment_start" json:"employment_start"`
	End            *time.Time `db:"employment_end" json:"employment_end"`
	// Degree is the employment's percent of full time.
	Degree        money.Amount  `db:"employment_degree" json:"employment_degree"`
	HoursPerWeek  money.Amount  `db:"hours_per_week" json:"hours_per_week"`
	SalaryType    string        `db:"salary_type" json:"salary_type"`
	MonthlySalary *money.Amount `db:"monthly_salary" json:"monthly_salary"`
	HourlyRate    *money.Amount `db:"hourly_rate" json:"hourly_rate"`
	TaxTable      *int          `db:"tax_table_number" json:"tax_table_number"`
	TaxColumn     *int          `db:"tax_column" json:"tax_column"`
	Sidoinkomst   bool          `db:"is_sidoinkomst" json:"is_sidoinkomst"`
	// Jämkning: Skatteverket's decision of another percentage, valid
	// from and to.
	JamkningPercent *money.Amount `db:"jamkning_percentage" json:"jamkning_percentage"`
	JamkningFrom    *time.Time    `db:"jamkning_valid_from" json:"jamkning_valid_from"`
	JamkningTo      *time.Time    `db:"jamkning_valid_to" json:"jamkning_valid_to"`
	FSkattStatus    string        `db:"f_skatt_status" json:"f_skatt_status"`
	Clearing        *string       `db:"clearing_number" json:"clearing_number"`
	BankAccount     *string       `db:"bank_account_number" json:"bank_account_number"`
	VacationRule    string        `db:"vacation_rule" json:"vacation_rule"`
	VacationDays    int           `db:"vacation_days_per_year" json:"vacation_days_per_year"`
	Email           *string       `db:"email" json:"email"`
	Phone           *string       `db:"phone" json:"phone"`
	AddressLine1    *string       `db:"address_line1" json:"address_line1"`
	PostalCode      *string       `db:"postal_code" json:"postal_code"`
	City            *string       `db:"city" json:"city"`
	// Dimensions tag the lines the employee's pay is booked on.
	Dimensions ledger.Dimensions `db:"dimensions" json:"dimensions"`
	IsActive   bool              `db:"is_active" json:"is_active"`
	CreatedAt  time.Time         `db:"created_at" json:"created_at"`
	UpdatedAt  time.Time         `db:"updated_at" json:"updated_at"`
}

// MaskedPersonnummer is the personnummer as lists show it: the birth date
// and XXXX (19850312XXXX).
func (e Employee) MaskedPersonnummer() string { return e.BirthDate.Format("20060102") + "XXXX" }

// Withheld reports whether tax and avgifter are withheld on e's pay:
// everyone but an F-skatt holder.
func (e Employee) Withheld() bool { return e.FSkattStatus != FSkatt }

// NeedsTable reports whether e's tax comes from a month table: A-skatt
// (or unverified) pay that is not a sidoinkomst.
func (e Employee) NeedsTable() bool { return e.Withheld() && !e.Sidoinkomst }

// Name is the employee's full name.
func (e Employee) Name() string { return e.FirstName + " " + e.LastName }

// Personnummer is a checked personnummer: its 12 digits, and the birth
// date (a samordningsnummer's day less 60).
type Personnummer struct {
	Digits string
	Birth  time.Time
}

// ParsePersonnummer checks s with identifier.PersonalNumber and answers
// its 12-digit form. A 10-digit number's century is the one that makes
// the person at most 99 on today ('+' marks 100 or more).
func ParsePersonnummer(s string, today time.Time) (Personnummer, error) {
	ten, err := identifier.PersonalNumber(s)
	if err != nil {
		return Personnummer{}, err
	}
	digits := ten[:6] + ten[7:]
	century := ""
	for _, r := range s {
		if r >= '0' && r <= '9' {
			century += string(r)
		}
	}
	if len(century) == 12 {
		century = century[:2]
	} else {
		yy, _ := strconv.Atoi(ten[:2])
		c := today.Year() / 100
		if c*100+yy > today.Year() {
			c--
		}
		if ten[6] == '+' {
			c--
		}
		century = strconv.Itoa(c)
	}
	day, _ := strconv.Atoi(digits[4:6])
	if day > 60 {
		day -= 60 // samordningsnummer
	}
	y, _ := strconv.Atoi(century + digits[:2])
	m, _ := strconv.Atoi(digits[2:4])
	return Personnummer{Digits: century + digits, Birth: time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)}, nil
}

// Check refuses an employee whose fields do not hold together; the
// first broken rule names its field.
func (e Employee) Check() error {
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	if e.End != nil && e.End.Before(e.Start) {
		bad("employment_end", "after_start", "employment_end is before employment_start")
	}
	switch e.SalaryType {
	case Monthly:
		if e.MonthlySalary == nil {
			bad("monthly_salary", "required", "a monthly employee needs monthly_salary")
		}
		if e.HourlyRate != nil {
			bad("hourly_rate", "exclusive", "a monthly employee has no hourly_rate")
		}
	case Hourly:
		if e.HourlyRate == nil {
			bad("hourly_rate", "required", "an hourly employee needs hourly_rate")
		}
		if e.MonthlySalary != nil {
			bad("monthly_salary", "exclusive", "an hourly employee has no monthly_salary")
		}
	}
	if (e.TaxTable == nil) != (e.TaxColumn == nil) {
		bad("tax_column", "together", "tax_table_number and tax_column are set together")
	}
	if e.JamkningPercent != nil && (e.JamkningFrom == nil || e.JamkningTo == nil) {
		bad("jamkning_valid_from", "required", "a jämkning needs its valid_from and valid_to")
	}
	if e.JamkningFrom != nil && e.JamkningTo != nil && e.JamkningTo.Before(*e.JamkningFrom) {
		bad("jamkning_valid_to", "after_from", "jamkning_valid_to is before jamkning_valid_from")
	}
	if (e.Clearing == nil) != (e.BankAccount == nil) {
		bad("bank_account_number", "together", "clearing_number and bank_account_number are set together")
	}
	if e.VacationDays < MinVacationDays {
		bad("vacation_days_per_year", "minimum", "the law gives at least 25 days (semesterlagen 4 §)")
	}
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

// Jamkning answers the jämkning percent valid on day, if any.
func (e Employee) Jamkning(day time.Time) (money.Amount, bool) {
	if e.JamkningPercent == nil || e.JamkningFrom == nil || e.JamkningTo == nil ||
		day.Before(*e.JamkningFrom) || day.After(*e.JamkningTo) {
		return money.Amount{}, false
	}
	return *e.JamkningPercent, true
}
