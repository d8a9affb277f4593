package invoicing

import (
	"context"
	"strconv"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// The yearly ceilings of husavdrag per person: ROT and RUT together, and
// ROT alone (Skatteverket; they are warnings here, for another seller may
// have used part of them).
var (
	CeilingTotal = money.Öre(75_000_00)
	CeilingROT   = money.Öre(50_000_00)
)

// rotRut is a refusal of the ROT/RUT details: 400
// INVOICE_CREATE_ROT_RUT_VALIDATION naming the field and the rule.
func rotRut(field, rule, issue string) error {
	return apierr.New(apierr.InvoiceCreateRotRutValidation, map[string]any{"field": field, "rule": rule, "issue": issue})
}

// checkDeduction holds a planned invoice to the rules of ROT and RUT and
// writes the home's details onto it: the company has them turned on;
// the customer is a private person; the invoice is a Swedish sale in
// kronor, not a delivery note; each labour line gives its hours; ROT names
// the home (a property designation, or the housing association and the
// apartment). Without labour lines the home's details are refused.
func checkDeduction(inv *Invoice, d Draft, c Customer, s Settings) error {
	inv.Housing, inv.Apartment, inv.BRFOrgNumber = d.Housing, d.Apartment, d.BRFOrgNumber
	first, rot := -1, false
	for i, l := range inv.Lines {
		if l.Deduction == nil {
			continue
		}
		if first < 0 {
			first = i
		}
		rot = rot || *l.Deduction == string(ROT)
		if l.LaborHours == nil || l.LaborHours.Sign() <= 0 {
			return rotRut("items."+strconv.Itoa(i)+".labor_hours", "required", "a ROT or RUT line needs its hours of work, more than 0")
		}
	}
	if first < 0 {
		if d.Housing != nil || d.Apartment != nil || d.BRFOrgNumber != nil {
			return rotRut("deduction_housing_designation", "no_deduction",
				"only an invoice with ROT or RUT lines carries the home's details")
		}
		return nil
	}
	switch {
	case !s.RotRut:
		return rotRut("items."+strconv.Itoa(first)+".deduction_type", "rot_rut_enabled",
			"ROT and RUT are turned off in the company's settings (rot_rut_enabled)")
	case c.Buyer.Type != "individual":
		return rotRut("customer_id", "individual", "ROT and RUT are for a private person; the customer is a "+c.Buyer.Type)
	case inv.DocumentType == "delivery_note":
		return rotRut("document_type", "invoice", "a delivery note carries no ROT or RUT")
	case inv.Currency != "SEK":
		return rotRut("currency", "SEK", "Skatteverket pays ROT and RUT in kronor: the invoice must be in SEK")
	case inv.Treatment != SwedishSale:
		return rotRut("vat_treatment", "standard", "ROT and RUT are for a sale with Swedish VAT")
	case rot && d.Housing == nil && (d.BRFOrgNumber == nil || d.Apartment == nil):
		return rotRut("deduction_housing_designation", "required", "ROT needs the home: its property designation "+
			"(fastighetsbeteckning), or the housing association's organisation number and the apartment number")
	}
	return nil
}

// ceilings warns when the year's husavdrag for the customer, before
// (earlier invoices) and now, passes a ceiling.
func ceilings(before, rotBefore money.Amount, inv Invoice) []Warning {
	var out []Warning
	if inv.ROTDeduction.Sign() > 0 && rotBefore.Add(inv.ROTDeduction).Cmp(CeilingROT) > 0 {
		out = append(out, Warning{"ROT_CEILING_EXCEEDED",
			"Kundens ROT-avdrag i år överstiger 50 000 kr med den här fakturan; Skatteverket betalar inte mer än taket.",
			"The customer's ROT deductions this year pass 50 000 kr with this invoice; Skatteverket pays no more than the ceiling.",
			"Check the customer's remaining deduction with Skatteverket and lower the deduction if needed."})
	}
	if before.Add(inv.DeductionTotal).Cmp(CeilingTotal) > 0 {
		out = append(out, Warning{"ROT_RUT_CEILING_EXCEEDED",
			"Kundens ROT- och RUT-avdrag i år överstiger 75 000 kr med den här fakturan.",
			"The customer's ROT and RUT deductions this year pass 75 000 kr with this invoice.",
			"Check the customer's remaining deduction with Skatteverket and lower the deduction if needed."})
	}
	return out
}

// deductionChecks are the rules of ROT and RUT that read the books: the
// customer's personnummer must be there and readable (404
// CUSTOMER_NO_PERSONAL_NUMBER, 422 CUSTOMER_PERSONAL_NUMBER_UNREADABLE),
// and the year's ceilings are warned of.
func (s *Sales) deductionChecks(ctx context.Context, inv Invoice) ([]Warning, error) {
	if !hasDeduction(inv) {
		return nil, nil
	}
	if _, err := s.books.PersonalNumber(ctx, inv.CompanyID, inv.CustomerID); err != nil {
		if e, ok := apierr.As(err); ok && e.Code == apierr.CustomerNoPersonalNumber {
			return nil, apierr.New(apierr.CustomerNoPersonalNumber, map[string]any{"customer_id": inv.CustomerID,
				"field": "customer_id"})
		}
		return nil, err
	}
	if inv.DeductionTotal.Sign() <= 0 {
		return nil, nil
	}
	before, rot, err := s.store.YearDeductions(ctx, inv.CompanyID, inv.CustomerID, inv.ID, inv.InvoiceDate.Year())
	if err != nil {
		return nil, err
	}
	return ceilings(before, rot, inv), nil
}

func hasDeduction(inv Invoice) bool {
	for _, l := range inv.Lines {
		if l.Deduction != nil {
			return true
		}
	}
	return false
}
