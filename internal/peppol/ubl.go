package peppol

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// The UBL 2.1 namespaces.
const (
	nsInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsCAC        = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsCBC        = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// The UBL elements are written with their usual prefixes (cac:, cbc:)
// spelled into the names: encoding/xml would otherwise declare a
// namespace on every element. The fields follow the schema's sequence,
// which the XSD holds a document to.

type ubl struct {
	XMLName            xml.Name
	XMLNS              string         `xml:"xmlns,attr"`
	CAC                string         `xml:"xmlns:cac,attr"`
	CBC                string         `xml:"xmlns:cbc,attr"`
	CustomizationID    string         `xml:"cbc:CustomizationID"`
	ProfileID          string         `xml:"cbc:ProfileID"`
	ID                 string         `xml:"cbc:ID"`
	IssueDate          string         `xml:"cbc:IssueDate"`
	DueDate            string         `xml:"cbc:DueDate,omitempty"`
	InvoiceTypeCode    string         `xml:"cbc:InvoiceTypeCode,omitempty"`
	CreditNoteTypeCode string         `xml:"cbc:CreditNoteTypeCode,omitempty"`
	Note               string         `xml:"cbc:Note,omitempty"`
	Currency           string         `xml:"cbc:DocumentCurrencyCode"`
	TaxCurrency        string         `xml:"cbc:TaxCurrencyCode,omitempty"`
	BuyerReference     string         `xml:"cbc:BuyerReference,omitempty"`
	OrderReference     *reference     `xml:"cac:OrderReference,omitempty"`
	BillingReference   *billing       `xml:"cac:BillingReference,omitempty"`
	Supplier           partyWrap      `xml:"cac:AccountingSupplierParty"`
	Customer           partyWrap      `xml:"cac:AccountingCustomerParty"`
	Delivery           *delivery      `xml:"cac:Delivery,omitempty"`
	PaymentMeans       []paymentMeans `xml:"cac:PaymentMeans"`
	PaymentTerms       *note          `xml:"cac:PaymentTerms,omitempty"`
	TaxTotals          []taxTotal     `xml:"cac:TaxTotal"`
	Totals             monetaryTotal  `xml:"cac:LegalMonetaryTotal"`
	InvoiceLines       []line         `xml:"cac:InvoiceLine"`
	CreditNoteLines    []line         `xml:"cac:CreditNoteLine"`
}

type amount struct {
	Currency string `xml:"currencyID,attr"`
	Value    string `xml:",chardata"`
}

type idElem struct {
	Scheme string `xml:"schemeID,attr,omitempty"`
	Value  string `xml:",chardata"`
}

type reference struct {
	ID string `xml:"cbc:ID"`
}

type billing struct {
	Invoice documentReference `xml:"cac:InvoiceDocumentReference"`
}

type documentReference struct {
	ID        string `xml:"cbc:ID"`
	IssueDate string `xml:"cbc:IssueDate,omitempty"`
}

type partyWrap struct {
	Party party `xml:"cac:Party"`
}

type party struct {
	Endpoint   idElem      `xml:"cbc:EndpointID"`
	Name       *partyName  `xml:"cac:PartyName,omitempty"`
	Address    address     `xml:"cac:PostalAddress"`
	TaxSchemes []partyTax  `xml:"cac:PartyTaxScheme"`
	Legal      legalEntity `xml:"cac:PartyLegalEntity"`
	Contact    *contact    `xml:"cac:Contact,omitempty"`
}

type partyName struct {
	Name string `xml:"cbc:Name"`
}

type address struct {
	Street     string  `xml:"cbc:StreetName,omitempty"`
	Additional string  `xml:"cbc:AdditionalStreetName,omitempty"`
	City       string  `xml:"cbc:CityName,omitempty"`
	PostalZone string  `xml:"cbc:PostalZone,omitempty"`
	Line       *line1  `xml:"cac:AddressLine,omitempty"`
	Country    country `xml:"cac:Country"`
}

type line1 struct {
	Line string `xml:"cbc:Line"`
}

type country struct {
	Code string `xml:"cbc:IdentificationCode"`
}

type partyTax struct {
	CompanyID string `xml:"cbc:CompanyID"`
	Scheme    scheme `xml:"cac:TaxScheme"`
}

type scheme struct {
	ID string `xml:"cbc:ID"`
}

type legalEntity struct {
	Name      string  `xml:"cbc:RegistrationName"`
	CompanyID *idElem `xml:"cbc:CompanyID,omitempty"`
	LegalForm string  `xml:"cbc:CompanyLegalForm,omitempty"`
}

type contact struct {
	Name  string `xml:"cbc:Name,omitempty"`
	Phone string `xml:"cbc:Telephone,omitempty"`
	Email string `xml:"cbc:ElectronicMail,omitempty"`
}

type delivery struct {
	Date     string            `xml:"cbc:ActualDeliveryDate,omitempty"`
	Location *deliveryLocation `xml:"cac:DeliveryLocation,omitempty"`
}

type deliveryLocation struct {
	Address address `xml:"cac:Address"`
}

type paymentMeans struct {
	Code      string   `xml:"cbc:PaymentMeansCode"`
	DueDate   string   `xml:"cbc:PaymentDueDate,omitempty"`
	PaymentID string   `xml:"cbc:PaymentID,omitempty"`
	Account   *account `xml:"cac:PayeeFinancialAccount,omitempty"`
}

type account struct {
	ID     string     `xml:"cbc:ID"`
	Branch *reference `xml:"cac:FinancialInstitutionBranch,omitempty"`
}

type note struct {
	Note string `xml:"cbc:Note"`
}

type taxTotal struct {
	Tax       amount        `xml:"cbc:TaxAmount"`
	Subtotals []taxSubtotal `xml:"cac:TaxSubtotal"`
}

type taxSubtotal struct {
	Taxable  amount      `xml:"cbc:TaxableAmount"`
	Tax      amount      `xml:"cbc:TaxAmount"`
	Category taxCategory `xml:"cac:TaxCategory"`
}

type taxCategory struct {
	ID            string `xml:"cbc:ID"`
	Percent       string `xml:"cbc:Percent"`
	ExemptionCode string `xml:"cbc:TaxExemptionReasonCode,omitempty"`
	Exemption     string `xml:"cbc:TaxExemptionReason,omitempty"`
	Scheme        scheme `xml:"cac:TaxScheme"`
}

type monetaryTotal struct {
	LineExtension amount  `xml:"cbc:LineExtensionAmount"`
	TaxExclusive  amount  `xml:"cbc:TaxExclusiveAmount"`
	TaxInclusive  amount  `xml:"cbc:TaxInclusiveAmount"`
	Rounding      *amount `xml:"cbc:PayableRoundingAmount,omitempty"`
	Payable       amount  `xml:"cbc:PayableAmount"`
}

type quantity struct {
	Unit  string `xml:"unitCode,attr"`
	Value string `xml:",chardata"`
}

type line struct {
	ID            string      `xml:"cbc:ID"`
	Invoiced      *quantity   `xml:"cbc:InvoicedQuantity,omitempty"`
	Credited      *quantity   `xml:"cbc:CreditedQuantity,omitempty"`
	LineExtension amount      `xml:"cbc:LineExtensionAmount"`
	Allowances    []allowance `xml:"cac:AllowanceCharge"`
	Item          item        `xml:"cac:Item"`
	Price         price       `xml:"cac:Price"`
}

type allowance struct {
	Charge     bool   `xml:"cbc:ChargeIndicator"`
	ReasonCode string `xml:"cbc:AllowanceChargeReasonCode"`
	Reason     string `xml:"cbc:AllowanceChargeReason"`
	Percent    string `xml:"cbc:MultiplierFactorNumeric"`
	Amount     amount `xml:"cbc:Amount"`
	Base       amount `xml:"cbc:BaseAmount"`
}

type item struct {
	Name     string      `xml:"cbc:Name"`
	Category taxCategory `xml:"cac:ClassifiedTaxCategory"`
}

type price struct {
	Amount amount `xml:"cbc:PriceAmount"`
}

// itemName is the most BT-153 holds in Kontera's documents: a line's
// description, cut at a word where it is long (the receiving systems
// show the name in a column).
func itemName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= 200 {
		return s
	}
	r := []rune(s)[:200]
	if i := strings.LastIndex(string(r), " "); i > 100 {
		return string(r)[:i]
	}
	return string(r)
}

// Marshal writes d as a UBL 2.1 Invoice or, when d.Credit, CreditNote,
// following BIS Billing 3.0. It writes what d says; Check is what says
// whether d may be sent.
func Marshal(d Document) ([]byte, error) {
	if len(d.Lines) == 0 {
		return nil, errors.New("peppol: a document needs at least one line")
	}
	cur := d.Currency
	amt := func(a money.Amount) amount { return amount{Currency: cur, Value: a.String()} }
	u := ubl{XMLNS: nsInvoice, CAC: nsCAC, CBC: nsCBC, CustomizationID: CustomizationID, ProfileID: ProfileID,
		ID: d.Number, IssueDate: date(d.IssueDate), Note: d.Note, Currency: cur,
		BuyerReference: d.BuyerReference,
		Supplier:       partyWrap{Party: partyOf(d.Seller, true)}, Customer: partyWrap{Party: partyOf(d.Buyer, false)}}
	u.XMLName.Local = "Invoice"
	if d.Credit {
		u.XMLName.Local, u.XMLNS, u.CreditNoteTypeCode = "CreditNote", nsCreditNote, "381"
	} else {
		u.InvoiceTypeCode, u.DueDate = "380", date(d.DueDate)
	}
	if d.OrderReference != "" {
		u.OrderReference = &reference{ID: d.OrderReference}
	}
	if d.Original != "" {
		ref := documentReference{ID: d.Original}
		if d.OriginalDate != nil {
			ref.IssueDate = date(*d.OriginalDate)
		}
		u.BillingReference = &billing{Invoice: ref}
	}
	if d.DeliveryDate != nil || d.DeliveryCountry != "" {
		u.Delivery = &delivery{}
		if d.DeliveryDate != nil {
			u.Delivery.Date = date(*d.DeliveryDate)
		}
		if d.DeliveryCountry != "" {
			u.Delivery.Location = &deliveryLocation{Address: address{Country: country{Code: d.DeliveryCountry}}}
		}
	}
	for _, p := range d.Payment {
		m := paymentMeans{Code: p.Code, PaymentID: d.PaymentID, Account: &account{ID: p.Account}}
		if p.Branch != "" {
			m.Account.Branch = &reference{ID: p.Branch}
		}
		u.PaymentMeans = append(u.PaymentMeans, m)
	}
	if d.PaymentTerms != "" {
		u.PaymentTerms = &note{Note: d.PaymentTerms}
	}
	tax := taxTotal{Tax: amt(d.Tax)}
	for _, s := range d.Subtotals {
		tax.Subtotals = append(tax.Subtotals, taxSubtotal{Taxable: amt(s.Taxable), Tax: amt(s.Tax),
			Category: category(s.Category, s.Percent)})
	}
	u.TaxTotals = []taxTotal{tax}
	if cur != "SEK" && d.TaxSEK != nil {
		// BT-111: the VAT in the seller's accounting currency, with no
		// breakdown (PEPPOL-EN16931-R054).
		u.TaxCurrency = "SEK"
		u.TaxTotals = append(u.TaxTotals, taxTotal{Tax: amount{Currency: "SEK", Value: d.TaxSEK.String()}})
	}
	u.Totals = monetaryTotal{LineExtension: amt(d.LineTotal), TaxExclusive: amt(d.TaxExclusive()),
		TaxInclusive: amt(d.TaxInclusive()), Payable: amt(d.Payable)}
	if !d.Rounding.IsZero() {
		r := amt(d.Rounding)
		u.Totals.Rounding = &r
	}
	for _, l := range d.Lines {
		// A line states its category and rate only; the reason for a
		// zero rate belongs to the breakdown.
		lc := taxCategory{ID: string(l.Category), Percent: strconv.Itoa(l.Percent), Scheme: scheme{ID: "VAT"}}
		ul := line{ID: l.ID, LineExtension: amt(l.Net), Item: item{Name: itemName(l.Description), Category: lc},
			Price: price{Amount: amt(l.Price)}}
		q := &quantity{Unit: l.Unit, Value: l.Quantity.String()}
		if d.Credit {
			ul.Credited = q
		} else {
			ul.Invoiced = q
		}
		if !l.Allowance.IsZero() {
			gross := l.Net.Add(l.Allowance)
			ul.Allowances = []allowance{{ReasonCode: "95", Reason: "Rabatt", Percent: l.Discount.String(),
				Amount: amt(l.Allowance), Base: amt(gross)}}
		}
		if d.Credit {
			u.CreditNoteLines = append(u.CreditNoteLines, ul)
		} else {
			u.InvoiceLines = append(u.InvoiceLines, ul)
		}
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(u); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// partyOf writes a party; the seller's F-skatt is a second tax scheme
// (SE-R-005), and its CompanyID has no scheme: a Swedish
// organisationsnummer is read as such (SE-R-003, SE-R-004).
func partyOf(p Party, seller bool) party {
	out := party{Endpoint: idElem{Scheme: p.Endpoint.Scheme, Value: p.Endpoint.Value},
		Legal: legalEntity{Name: p.Name, LegalForm: p.LegalForm}}
	if p.Name != "" {
		out.Name = &partyName{Name: p.Name}
	}
	out.Address = address{City: p.City, PostalZone: p.PostalZone, Country: country{Code: p.Country}}
	if len(p.Street) > 0 {
		out.Address.Street = p.Street[0]
	}
	if len(p.Street) > 1 {
		out.Address.Additional = strings.Join(p.Street[1:], ", ")
	}
	if p.VATNumber != "" {
		out.TaxSchemes = append(out.TaxSchemes, partyTax{CompanyID: p.VATNumber, Scheme: scheme{ID: "VAT"}})
	}
	if seller && p.FSkatt {
		out.TaxSchemes = append(out.TaxSchemes, partyTax{CompanyID: "Godkänd för F-skatt", Scheme: scheme{ID: "TAX"}})
	}
	if p.OrgNumber != "" {
		id := idElem{Value: p.OrgNumber}
		if !seller {
			id.Scheme = SchemeOrgNumber
		}
		out.Legal.CompanyID = &id
	}
	if p.Contact != "" || p.Email != "" || p.Phone != "" {
		out.Contact = &contact{Name: p.Contact, Phone: p.Phone, Email: p.Email}
	}
	return out
}

func category(c Category, percent int) taxCategory {
	code, reason := c.Exemption()
	return taxCategory{ID: string(c), Percent: strconv.Itoa(percent), ExemptionCode: code, Exemption: reason,
		Scheme: scheme{ID: "VAT"}}
}

func date(t time.Time) string { return t.Format(time.DateOnly) }
