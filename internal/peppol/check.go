package peppol

import (
	"strings"

	"github.com/kontera/kontera/internal/identifier"
)

// Blocker is a reason a document may not be sent yet, named by the rule
// it guards: a BIS 3 or EN 16931 rule id where the network would refuse
// the document, a PEPPOL_* code of Kontera's where it would never get
// that far. Field names what to fix.
type Blocker struct {
	Code, Field        string
	Message, MessageEN string
}

// Situation is what the readiness rules need beyond the document.
type Situation struct {
	// DocumentType is the invoice's: only invoices and credit notes go.
	DocumentType string
	// Individual says the buyer is a private person.
	Individual bool
	// Transport says an access point is configured.
	Transport bool
}

// Check answers what keeps d from being sent, in a stable order; none
// means it is ready. The rules are those of BIS Billing 3.0 that the
// data Kontera holds can break; what Kontera writes itself (the
// identifiers, F-skatt's wording, the sums) it writes right.
func Check(d Document, s Situation) []Blocker {
	var out []Blocker
	add := func(code, field, sv, en string) {
		out = append(out, Blocker{Code: code, Field: field, Message: sv, MessageEN: en})
	}
	if s.DocumentType != "invoice" && s.DocumentType != "credit_note" {
		add("PEPPOL_DOCUMENT_TYPE_NOT_SUPPORTED", "document_type",
			"Endast fakturor och kreditfakturor skickas som e-faktura.",
			"Only invoices and credit notes are sent as e-invoices.")
	}
	if !s.Transport {
		add("PEPPOL_TRANSPORT_NOT_CONFIGURED", "transport",
			"Ingen Peppol-accesspunkt är konfigurerad för den här servern.",
			"No Peppol access point is configured for this server.")
	}
	if d.Buyer.Endpoint.IsZero() {
		if s.Individual {
			add("PEPPOL-EN16931-R010", "customer.customer_type",
				"Köparen är en privatperson och har ingen Peppol-adress; skicka fakturan som PDF.",
				"The buyer is a private person with no Peppol address; send the invoice as a PDF.")
		} else {
			add("PEPPOL_RECIPIENT_ID_MISSING", "customer.peppol_id",
				"Kunden saknar Peppol-id (till exempel 0007:organisationsnummer).",
				"The customer has no Peppol ID (such as 0007:organisation number).")
		}
	}
	if d.Seller.Endpoint.IsZero() {
		add("PEPPOL-EN16931-R020", "company.org_number",
			"Företaget saknar ett giltigt organisationsnummer att skicka från (0007).",
			"The company has no valid organisation number to send from (0007).")
	}
	if strings.TrimSpace(d.BuyerReference) == "" && strings.TrimSpace(d.OrderReference) == "" {
		add("PEPPOL-EN16931-R003", "your_reference",
			"Köparens referens (er referens) eller ett ordernummer (fakturamärkning) måste anges.",
			"The buyer's reference (your_reference) or an order reference (invoice_marking) is required.")
	}
	if strings.TrimSpace(d.Buyer.Country) == "" {
		add("BR-11", "customer.country", "Köparens adress saknar landskod.", "The buyer's address has no country code.")
	}
	if d.Payable.Sign() > 0 && d.DueDate.IsZero() && strings.TrimSpace(d.PaymentTerms) == "" {
		add("BR-CO-25", "due_date", "Ett belopp att betala kräver förfallodag eller betalningsvillkor.",
			"An amount due needs a due date or payment terms.")
	}
	if !d.Deduction.IsZero() {
		add("PEPPOL_ROT_RUT_NOT_SUPPORTED", "lines.deduction_type",
			"ROT- och RUT-avdrag kan inte uttryckas i Peppol BIS 3; skicka fakturan som PDF.",
			"ROT and RUT deductions cannot be expressed in Peppol BIS 3; send the invoice as a PDF.")
	}
	out = append(out, sellerRules(d)...)
	out = append(out, categoryRules(d)...)
	return out
}

// sellerRules are the Swedish seller's rules (SE-R-*): the VAT number,
// the organisationsnummer and the bankgiro number.
func sellerRules(d Document) []Blocker {
	var out []Blocker
	add := func(code, field, sv, en string) {
		out = append(out, Blocker{Code: code, Field: field, Message: sv, MessageEN: en})
	}
	if vat := d.Seller.VATNumber; strings.HasPrefix(vat, "SE") {
		if len(vat) != 14 {
			add("SE-R-001", "company.vat_number", "Ett svenskt momsregistreringsnummer har 14 tecken (SE, 10 siffror, 01).",
				"A Swedish VAT number has 14 characters (SE, 10 digits, 01).")
		}
		if !digitsOnly(strings.TrimPrefix(vat, "SE")) {
			add("SE-R-002", "company.vat_number", "Momsregistreringsnumret ska vara SE följt av 12 siffror.",
				"The VAT number must be SE followed by 12 digits.")
		}
	}
	if org := d.Seller.OrgNumber; org != "" {
		if !digitsOnly(org) {
			add("SE-R-003", "company.org_number", "Organisationsnumret ska bestå av siffror.",
				"The organisation number must be numeric.")
		}
		if len(org) != 10 {
			add("SE-R-004", "company.org_number", "Organisationsnumret ska ha 10 siffror.",
				"The organisation number must have 10 digits.")
		}
		if digitsOnly(org) && len(org) == 10 && !identifier.Luhn(org) {
			add("SE-R-013", "company.org_number", "Organisationsnumrets kontrollsiffra stämmer inte (Luhn).",
				"The organisation number's check digit (Luhn) is wrong.")
		}
	}
	for _, p := range d.Payment {
		if p.Branch == "SE:BANKGIRO" && (len(p.Account) < 7 || len(p.Account) > 8 || !digitsOnly(p.Account)) {
			add("SE-R-009", "company.bankgiro", "Bankgironumret ska ha 7 eller 8 siffror.",
				"The bankgiro number must have 7 or 8 digits.")
		}
	}
	return out
}

// categoryRules are those of the VAT categories used: Swedish rates
// (SE-R-006), the seller's VAT number wherever VAT or a reverse charge
// is stated (BR-S-02, BR-AE-02, BR-IC-02), the buyer's for reverse
// charge and intra-EU supply.
func categoryRules(d Document) []Blocker {
	var out []Blocker
	seen := map[string]bool{}
	add := func(code, field, sv, en string) {
		if !seen[code] {
			seen[code] = true
			out = append(out, Blocker{Code: code, Field: field, Message: sv, MessageEN: en})
		}
	}
	for _, s := range d.Subtotals {
		switch s.Category {
		case Standard:
			if s.Percent != 25 && s.Percent != 12 && s.Percent != 6 {
				add("SE-R-006", "lines.vat_rate", "En svensk säljare använder momssatserna 25, 12 eller 6 %.",
					"A Swedish seller uses the VAT rates 25, 12 or 6 %.")
			}
			if d.Seller.VATNumber == "" {
				add("BR-S-02", "company.vat_number", "En faktura med moms kräver säljarens momsregistreringsnummer.",
					"An invoice with VAT needs the seller's VAT number.")
			}
		case ReverseCharge, IntraEU:
			code := map[Category]string{ReverseCharge: "BR-AE-02", IntraEU: "BR-IC-02"}[s.Category]
			if d.Seller.VATNumber == "" {
				add(code, "company.vat_number", "Omvänd betalningsskyldighet kräver säljarens momsregistreringsnummer.",
					"A reverse charge needs the seller's VAT number.")
			} else if d.Buyer.VATNumber == "" {
				add(code, "customer.vat_number", "Omvänd betalningsskyldighet kräver köparens momsregistreringsnummer.",
					"A reverse charge needs the buyer's VAT number.")
			}
		}
	}
	return out
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
