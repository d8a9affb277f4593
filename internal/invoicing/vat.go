package invoicing

import "github.com/kontera/kontera/internal/apierr"

// Treatment is how an invoice's VAT is handled (peer §4.5).
type Treatment string

// The treatments an invoice may ask for.
const (
	Standard      Treatment = "standard"       // Swedish VAT
	ReverseCharge Treatment = "reverse_charge" // the EU buyer accounts for it
	Export        Treatment = "export"         // outside the EU
	// Triangulation is trepartshandel with the company as the middle
	// party: goods it bought in one EU state go straight to its buyer in
	// another, who accounts for the VAT (the directive's article 141).
	Triangulation Treatment = "triangulation"
)

// Kind is the treatment decided: what the sale is for the VAT return.
type Kind string

// The kinds of sale, each with its revenue account and box (moms ruta).
const (
	SwedishSale      Kind = "standard"
	EUServices       Kind = "eu_services"      // 3308, ruta 39
	EUGoods          Kind = "eu_goods"         // 3108, ruta 35
	ExportOfGoods    Kind = "export_goods"     // 3105, ruta 36
	ExportOfServices Kind = "export_services"  // 3305, ruta 40
	EUTriangulation  Kind = "eu_triangulation" // 3107, ruta 38
)

// Revenue is the account a kind of sale books its revenue on; "" books
// Swedish sales by rate.
func (k Kind) Revenue() string {
	return map[Kind]string{EUServices: EUServicesRevenue, EUGoods: EUGoodsRevenue, ExportOfServices: ExportServicesRevenue,
		ExportOfGoods: ExportGoodsRevenue, EUTriangulation: TriangulationRevenue}[k]
}

// Box is the VAT return's box (ruta) of the sale's taxable amount: 05
// for Swedish sales, else the kind's own.
func (k Kind) Box() string {
	return map[Kind]string{SwedishSale: "05", EUServices: "39", EUGoods: "35", ExportOfGoods: "36", ExportOfServices: "40",
		EUTriangulation: "38"}[k]
}

// ZeroRated reports whether the kind carries no Swedish VAT.
func (k Kind) ZeroRated() bool { return k != SwedishSale }

// Buyer is what the VAT decision needs of the customer.
type Buyer struct {
	Type         string // individual, swedish_business, eu_business, non_eu_business
	Country      string // ISO 3166-1 alpha-2
	VATNumber    bool   // the customer has one
	VATValidated bool   // VIES said so at the last check
}

// Ask is what the invoice asks for: a treatment and a delivery country,
// each optional, and whether the lines set a Swedish rate (above 0 %)
// themselves.
type Ask struct {
	Treatment       Treatment // "" when not asked
	DeliveryCountry string    // "" when not given
	SwedishRateSet  bool
}

// Warning is advice that never fails a request (meta.warnings).
type Warning struct {
	Code, Message, MessageEN, Remediation string
}

// Decision is the treatment an invoice gets.
type Decision struct {
	Kind     Kind
	Warnings []Warning
	// Unvalidated: reverse charge was asked for a buyer whose VAT number
	// VIES has not validated (no VIES configured, or not asked yet); the
	// seller answers for the number.
	Unvalidated bool
}

// qualifies reports whether the buyer may be invoiced without Swedish VAT
// under reverse charge: an EU business outside Sweden with a VAT number
// VIES validated.
func (b Buyer) qualifies() bool {
	return b.Type == "eu_business" && b.VATValidated && b.Country != "SE" && b.Country != ""
}

// unvalidated reports whether the buyer would qualify for reverse charge
// but for VIES: an EU business outside Sweden with a VAT number no one
// has validated.
func (b Buyer) unvalidated() bool {
	return b.Type == "eu_business" && b.VATNumber && !b.VATValidated && b.Country != "SE" && b.Country != ""
}

// outsideEU reports whether the buyer is a business outside the EU.
func (b Buyer) outsideEU() bool {
	return b.Type == "non_eu_business" && !euStates[b.Country] && b.Country != "SE"
}

// Decide settles an invoice's VAT treatment (peer §4.5). Without a
// request: reverse charge for a qualifying EU business, else Swedish VAT,
// with a warning where the buyer looks like it should qualify. A delivery
// country alone implies the treatment (SE standard, another EU state
// reverse charge, elsewhere export) and makes the sale one of goods;
// reverse charge and export without one are services, for buyers who
// qualify already. registered is whether the company is VAT-registered.
func Decide(b Buyer, a Ask, registered bool) (Decision, error) {
	t, country := a.Treatment, a.DeliveryCountry
	if t == "" && country != "" {
		switch {
		case country == "SE":
			t = Standard
		case euStates[country]:
			t = ReverseCharge
		default:
			t = Export
		}
	}
	if t != "" && t != Standard && !registered {
		return Decision{}, apierr.New(apierr.InvoiceVatTreatmentNotVatRegistered, map[string]any{"field": "vat_treatment",
			"vat_treatment": string(t)})
	}
	switch t {
	case "":
		if b.qualifies() {
			d := Decision{Kind: EUServices}
			if a.SwedishRateSet {
				d = Decision{Kind: SwedishSale, Warnings: []Warning{swedishToReverseCharge}}
			}
			return d, nil
		}
		d := Decision{Kind: SwedishSale}
		switch {
		case b.Type == "eu_business" && b.Country == "SE":
			d.Warnings = append(d.Warnings, euCountryIsSE)
		case b.Type == "eu_business" && !b.VATNumber:
			d.Warnings = append(d.Warnings, euVATMissing)
		case b.Type == "eu_business":
			d.Warnings = append(d.Warnings, euVATNotValidated)
		case b.outsideEU() && a.SwedishRateSet:
			d.Warnings = append(d.Warnings, swedishToExport)
		}
		return d, nil
	case Standard:
		return Decision{Kind: SwedishSale}, nil
	case ReverseCharge:
		kind := EUServices
		if country != "" {
			if country == "SE" || !euStates[country] {
				return Decision{}, mismatch(t, country)
			}
			kind = EUGoods
		}
		switch {
		case b.qualifies():
			return Decision{Kind: kind}, nil
		case b.unvalidated() && a.Treatment == ReverseCharge:
			// Asked for in so many words: the seller takes the number as
			// it stands, and the invoice records that no one validated it.
			return Decision{Kind: kind, Unvalidated: true, Warnings: []Warning{reverseChargeUnvalidated}}, nil
		}
		return Decision{}, buyerVATRequired(b)
	case Triangulation:
		// Goods that go from another EU state straight to the buyer's.
		if country == "" {
			return Decision{}, apierr.New(apierr.InvoiceVatTreatmentDeliveryCountryRequired, map[string]any{
				"field": "delivery_country", "vat_treatment": string(t)})
		}
		if country == "SE" || !euStates[country] {
			return Decision{}, mismatch(t, country)
		}
		switch {
		case b.qualifies():
			return Decision{Kind: EUTriangulation}, nil
		case b.unvalidated():
			return Decision{Kind: EUTriangulation, Unvalidated: true, Warnings: []Warning{reverseChargeUnvalidated}}, nil
		}
		return Decision{}, buyerVATRequired(b)
	case Export:
		if country == "" {
			if !b.outsideEU() {
				return Decision{}, apierr.New(apierr.InvoiceVatTreatmentDeliveryCountryRequired, map[string]any{
					"field": "delivery_country", "vat_treatment": string(t)})
			}
			return Decision{Kind: ExportOfServices}, nil
		}
		if country == "SE" || euStates[country] {
			return Decision{}, mismatch(t, country)
		}
		return Decision{Kind: ExportOfGoods}, nil
	}
	return Decision{}, apierr.Field("vat_treatment", "enum", "must be standard, reverse_charge, export or triangulation")
}

func mismatch(t Treatment, country string) error {
	return apierr.New(apierr.InvoiceVatTreatmentDeliveryCountryMismatch, map[string]any{"field": "delivery_country",
		"vat_treatment": string(t), "delivery_country": country})
}

func buyerVATRequired(b Buyer) error {
	reason := "vat_number_not_validated"
	switch {
	case b.Type != "eu_business":
		reason = "not_eu_business"
	case b.Country == "SE" || b.Country == "":
		reason = "buyer_in_sweden"
	case !b.VATNumber:
		reason = "vat_number_missing"
	}
	return apierr.New(apierr.InvoiceVatTreatmentBuyerVatNumberRequired, map[string]any{"field": "vat_treatment", "reason": reason})
}

// euStates are the EU's member states by ISO 3166-1 code, and XI
// (Northern Ireland), which trades goods as one.
var euStates = map[string]bool{
	"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true, "EE": true, "ES": true,
	"FI": true, "FR": true, "GR": true, "HR": true, "HU": true, "IE": true, "IT": true, "LT": true, "LU": true,
	"LV": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SE": true, "SI": true, "SK": true,
	"XI": true,
}

var (
	euCountryIsSE = Warning{"EU_BUSINESS_COUNTRY_IS_SE",
		"Kunden är registrerad som EU-företag men har land SE; svensk moms debiteras.",
		"The customer is an EU business but its country is SE; Swedish VAT is charged.",
		"Change the customer's type to swedish_business, or correct its country."}
	euVATMissing = Warning{"EU_BUSINESS_VAT_NUMBER_MISSING",
		"EU-kunden saknar momsregistreringsnummer; svensk moms debiteras i stället för omvänd skattskyldighet.",
		"The EU customer has no VAT number; Swedish VAT is charged instead of reverse charge.",
		"Add the customer's VAT number; once VIES validates it, invoices use reverse charge."}
	euVATNotValidated = Warning{"EU_BUSINESS_VAT_NUMBER_NOT_VALIDATED",
		"EU-kundens momsregistreringsnummer är inte bekräftat i VIES; svensk moms debiteras.",
		"The EU customer's VAT number is not validated in VIES; Swedish VAT is charged.",
		"Validate the customer's VAT number (PATCH the customer) before invoicing with reverse charge."}
	swedishToReverseCharge = Warning{"SWEDISH_VAT_TO_REVERSE_CHARGE_CUSTOMER",
		"Svensk momssats är angiven för en kund som omfattas av omvänd skattskyldighet.",
		"A Swedish VAT rate is set for a customer that qualifies for reverse charge.",
		"Leave vat_rate out, or set it to 0, to invoice with reverse charge."}
	reverseChargeUnvalidated = Warning{"REVERSE_CHARGE_VAT_NUMBER_NOT_VALIDATED",
		"Omvänd skattskyldighet utan att kundens momsregistreringsnummer är bekräftat i VIES; säljaren ansvarar för att numret är giltigt.",
		"Reverse charge without the customer's VAT number validated in VIES; the seller answers for the number being valid.",
		"Validate the number (PATCH the customer once VIES is configured), or keep proof that the buyer is a VAT-registered business."}
	swedishToExport = Warning{"SWEDISH_VAT_TO_EXPORT_CUSTOMER",
		"Svensk momssats är angiven för en kund utanför EU.",
		"A Swedish VAT rate is set for a customer outside the EU.",
		"Use vat_treatment export (with delivery_country for goods) if the sale is an export."}
)
