package peppol

import (
	"time"

	"github.com/kontera/kontera/internal/money"
)

// The BIS Billing 3.0 identifiers every document carries, and the
// document types and process an access point sends them under.
const (
	CustomizationID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"
	ProfileID       = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
	// Process is the process identifier of the billing profile.
	Process = "cenbii-procid-ubl::" + ProfileID
	// InvoiceType and CreditNoteType are the document type identifiers.
	InvoiceType    = "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##" + CustomizationID + "::2.1"
	CreditNoteType = "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##" + CustomizationID + "::2.1"
)

// Category is a VAT category of EN 16931 (UNCL5305).
type Category string

// The categories a Swedish seller's invoices use.
const (
	Standard      Category = "S"  // Swedish VAT at 25, 12 or 6 %
	Exempt        Category = "E"  // exempt from VAT
	ReverseCharge Category = "AE" // the buyer accounts for the VAT (EU services)
	IntraEU       Category = "K"  // intra-community supply of goods
	Export        Category = "G"  // export outside the EU
)

// Exemption is the VATEX code and the text a zero-rated category states
// (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10).
func (c Category) Exemption() (code, reason string) {
	switch c {
	case Exempt:
		return "", "Undantaget från skatteplikt enligt mervärdesskattelagen"
	case ReverseCharge:
		return "VATEX-EU-AE", "Omvänd betalningsskyldighet"
	case IntraEU:
		return "VATEX-EU-IC", "Unionsintern leverans av varor"
	case Export:
		return "VATEX-EU-G", "Export av varor eller tjänster utanför EU"
	}
	return "", ""
}

// Party is the seller or the buyer as the document names them.
type Party struct {
	Endpoint ID
	Name     string
	// Street holds the address lines before the postal code and city.
	Street           []string
	PostalZone, City string
	Country          string // ISO 3166-1 alpha-2
	VATNumber        string
	OrgNumber        string // the seller's 10 digits; a buyer's registration, if any
	// LegalForm is the seller's additional legal information (BT-33):
	// an aktiebolag's säte.
	LegalForm string
	// FSkatt states "Godkänd för F-skatt" (SE-R-005).
	FSkatt                bool
	Contact, Email, Phone string
}

// Line is one line of the document, with the signs it is written with:
// a credit note's are those of the credit, positive.
type Line struct {
	ID          string
	Description string
	Quantity    money.Quantity
	Unit        string // UN/ECE recommendation 20
	Price       money.Amount
	// Discount is the percentage taken off, Allowance what it comes to.
	Discount, Allowance money.Amount
	Net                 money.Amount
	Category            Category
	Percent             int
}

// Subtotal is the VAT breakdown of one category and rate.
type Subtotal struct {
	Category     Category
	Percent      int
	Taxable, Tax money.Amount
}

// PaymentMeans is one way to pay: code 30 (credit transfer, to bankgiro
// or plusgiro named by Branch SE:BANKGIRO / SE:PLUSGIRO) or 58 (SEPA,
// to an IBAN with its BIC as Branch).
type PaymentMeans struct {
	Code, Account, Branch string
}

// Document is an invoice or credit note as BIS Billing 3.0 sends it.
type Document struct {
	Credit                         bool
	Number                         string
	IssueDate, DueDate             time.Time
	DeliveryDate                   *time.Time
	DeliveryCountry                string
	Currency                       string
	BuyerReference, OrderReference string
	Note, PaymentTerms             string
	// Original and OriginalDate cite the invoice a credit note credits.
	Original                          string
	OriginalDate                      *time.Time
	Seller, Buyer                     Party
	Payment                           []PaymentMeans
	PaymentID                         string // the OCR reference
	Lines                             []Line
	Subtotals                         []Subtotal
	LineTotal, Tax, Rounding, Payable money.Amount
	// TaxSEK is the VAT in kronor when the currency is another (BT-111).
	TaxSEK *money.Amount
	// Deduction is a ROT/RUT deduction, which BIS 3 cannot carry.
	Deduction money.Amount
}

// TaxExclusive is the total without VAT: the lines' sum (Kontera sends
// no document-level allowances or charges).
func (d Document) TaxExclusive() money.Amount { return d.LineTotal }

// TaxInclusive is the total with VAT, before rounding.
func (d Document) TaxInclusive() money.Amount { return d.LineTotal.Add(d.Tax) }

// Unit is the UN/ECE recommendation 20 code of a unit as invoices write
// it in Swedish or English; C62 ("one") for anything else.
func Unit(u string) string {
	switch u {
	case "tim", "timme", "timmar", "h", "hour", "hours":
		return "HUR"
	case "st", "styck", "pcs", "piece", "pieces":
		return "H87"
	case "dag", "dagar", "day", "days":
		return "DAY"
	case "mån", "månad", "månader", "month", "months":
		return "MON"
	case "kg":
		return "KGM"
	case "km":
		return "KMT"
	case "m":
		return "MTR"
	case "l", "liter":
		return "LTR"
	}
	return "C62"
}
