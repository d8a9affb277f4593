// Package company holds companies (företag): creating one with its owner
// and first fiscal year, and listing the ones a key reaches.
package company

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/identifier"
)

// EntityType is the company form.
type EntityType string

// The company forms Kontera keeps books for.
const (
	Aktiebolag     EntityType = "aktiebolag"
	EnskildFirma   EntityType = "enskild_firma"
	IdeellForening EntityType = "ideell_forening"
)

// Company is a company as stored.
type Company struct {
	ID                   uuid.UUID  `db:"id" json:"id"`
	Name                 string     `db:"name" json:"name"`
	EntityType           EntityType `db:"entity_type" json:"entity_type"`
	OrgNumber            *string    `db:"org_number" json:"org_number"`
	VATRegistered        bool       `db:"-" json:"vat_registered"`
	MomsPeriod           *string    `db:"-" json:"moms_period"`
	AccountingMethod     string     `db:"-" json:"accounting_method"`
	FSkatt               bool       `db:"-" json:"f_skatt"`
	FiscalYearStartMonth int        `db:"-" json:"fiscal_year_start_month"`
	FirstYear            Span       `db:"-" json:"-"`
	VATNumber            *string    `db:"-" json:"vat_number"`
	AddressLine1         *string    `db:"-" json:"address_line1"`
	PostalCode           *string    `db:"-" json:"postal_code"`
	City                 *string    `db:"-" json:"city"`
	TeamID               *uuid.UUID `db:"team_id" json:"team_id"`
	CreatedAt            time.Time  `db:"created_at" json:"created_at"`
}

// Span is a fiscal year: first and last day, both inclusive.
type Span = fiscal.Span

// Input is a request to create a company, as the client sent it.
type Input struct {
	Name                 string
	EntityType           EntityType
	OrgNumber            *string
	VATRegistered        bool
	MomsPeriod           *string
	AccountingMethod     *string
	FSkatt               bool
	FiscalYearStartMonth *int
	FirstFiscalYear      *Span
	// BooksFromImport: the books begin with SIE imports of earlier years,
	// so the first fiscal year may lie in the past.
	BooksFromImport bool
	// VATNumber is the momsregistreringsnummer; left out, a VAT-registered
	// company gets the one its number gives (identifier.VATNumberFor).
	VATNumber    *string
	AddressLine1 *string
	PostalCode   *string
	City         *string
	TeamID       *uuid.UUID
}

// New checks in and returns the company it describes, its fiscal years
// anchored on today. Every problem found is reported at once, as a
// VALIDATION_ERROR naming the fields.
func New(in Input, today time.Time) (Company, error) {
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	c := Company{
		Name: strings.TrimSpace(in.Name), EntityType: in.EntityType, VATRegistered: in.VATRegistered,
		FSkatt: in.FSkatt, AddressLine1: envelope.Text(in.AddressLine1), PostalCode: envelope.Text(in.PostalCode),
		City: envelope.Text(in.City), TeamID: in.TeamID,
	}
	if c.Name == "" {
		bad("name", "minLength", "must not be blank")
	}
	if in.TeamID != nil {
		bad("team_id", "exists", "the user belongs to no team with this id")
	}

	if org := envelope.Text(in.OrgNumber); org != nil {
		var norm string
		var err error
		if c.EntityType == EnskildFirma {
			// An enskild firma's organisationsnummer is the owner's personnummer.
			norm, err = identifier.PersonalNumber(*org)
		} else {
			norm, err = identifier.OrgNumber(*org)
		}
		if err != nil {
			bad("org_number", "luhn", err.Error())
		} else {
			c.OrgNumber = &norm
		}
	} else if c.VATRegistered {
		bad("org_number", "required", "required when vat_registered is true")
	}

	if vat := envelope.Text(in.VATNumber); vat != nil && !c.VATRegistered {
		bad("vat_number", "vat_registered", "only for a VAT-registered company; vat_registered is false")
	} else if vat != nil {
		digits, err := identifier.VATNumber(*vat)
		switch {
		case err != nil:
			bad("vat_number", "vat_number", err.Error())
		case c.OrgNumber != nil && onlyDigits(*c.OrgNumber) != digits:
			bad("vat_number", "org_number", "must be built from the company's organisation number")
		}
		c.VATNumber = vat
	} else if c.VATRegistered && c.OrgNumber != nil {
		if v := identifier.VATNumberFor(*c.OrgNumber); v != "" {
			c.VATNumber = &v
		}
	}

	if c.VATRegistered {
		if in.MomsPeriod == nil {
			bad("moms_period", "required", "required when vat_registered is true")
		}
		c.MomsPeriod = in.MomsPeriod
	}

	switch {
	case in.AccountingMethod != nil:
		c.AccountingMethod = *in.AccountingMethod
	case c.EntityType == Aktiebolag:
		c.AccountingMethod = "accrual"
	default:
		// Sole traders and associations below 3 MSEK may use kontantmetoden;
		// it is the simpler default for both.
		c.AccountingMethod = "cash"
	}

	c.FiscalYearStartMonth = 1
	if c.EntityType != EnskildFirma && in.FiscalYearStartMonth != nil {
		c.FiscalYearStartMonth = *in.FiscalYearStartMonth
	}

	if in.FirstFiscalYear != nil {
		span, field, problem := checkFirstYear(*in.FirstFiscalYear, c.EntityType, in.FiscalYearStartMonth, today, in.BooksFromImport)
		if problem != "" {
			bad(field, "first_fiscal_year", problem)
		} else {
			c.FirstYear = span
			// The years after the first start the month after it ends.
			c.FiscalYearStartMonth = int(span.End.Month())%12 + 1
		}
	} else {
		c.FirstYear = fiscal.Current(c.FiscalYearStartMonth, today)
	}

	if len(issues) > 0 {
		return Company{}, apierr.Validation(issues...)
	}
	return c, nil
}

// checkFirstYear checks a first fiscal year: it starts on the first of a
// month, ends on a month end, lasts at most 18 months, has not ended yet
// (unless the books begin with an import of earlier years), ends where
// the company's regular years end (December for an enskild firma), and
// agrees with fiscal_year_start_month when both are given.
func checkFirstYear(s Span, form EntityType, startMonth *int, today time.Time, imported bool) (Span, string, string) {
	const f = "first_fiscal_year"
	switch {
	case s.Start.Day() != 1:
		return s, f + ".start", "must be the first day of a month"
	case s.Start.After(dateOf(today)) && imported:
		return s, f + ".start", "books from an import begin in the past, not after today"
	case s.End.AddDate(0, 0, 1).Day() != 1:
		return s, f + ".end", "must be the last day of a month"
	case !s.End.After(s.Start):
		return s, f + ".end", "must be after start"
	case s.Months() > fiscal.MaxMonths:
		return s, f + ".end", fmt.Sprintf("a first fiscal year may last at most %d months", fiscal.MaxMonths)
	case s.End.Before(dateOf(today)) && !imported:
		return s, f + ".end", "has already ended: first_fiscal_year is only for a company in its first year, or with books_from_import for books that begin with an SIE import"
	case form == EnskildFirma && s.End.Month() != time.December:
		return s, f + ".end", "an enskild firma's fiscal year is the calendar year: end on 31 December"
	case startMonth != nil && form != EnskildFirma && int(s.End.Month())%12+1 != *startMonth:
		return s, f + ".end", "must end the month before fiscal_year_start_month"
	}
	return s, "", ""
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
