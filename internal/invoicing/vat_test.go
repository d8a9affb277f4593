package invoicing

import (
	"testing"

	"github.com/kontera/kontera/internal/apierr"
)

var (
	qualified   = Buyer{Type: "eu_business", Country: "DE", VATNumber: true, VATValidated: true}
	unvalidated = Buyer{Type: "eu_business", Country: "DE", VATNumber: true}
	noNumber    = Buyer{Type: "eu_business", Country: "DE"}
	euInSweden  = Buyer{Type: "eu_business", Country: "SE", VATNumber: true, VATValidated: true}
	american    = Buyer{Type: "non_eu_business", Country: "US"}
	swede       = Buyer{Type: "swedish_business", Country: "SE"}
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name    string
		buyer   Buyer
		ask     Ask
		kind    Kind
		warning string
	}{
		{"a qualifying EU business", qualified, Ask{}, EUServices, ""},
		{"a Swedish rate set for it", qualified, Ask{SwedishRateSet: true}, SwedishSale, "SWEDISH_VAT_TO_REVERSE_CHARGE_CUSTOMER"},
		{"not validated", unvalidated, Ask{}, SwedishSale, "EU_BUSINESS_VAT_NUMBER_NOT_VALIDATED"},
		{"no VAT number", noNumber, Ask{}, SwedishSale, "EU_BUSINESS_VAT_NUMBER_MISSING"},
		{"an EU business in Sweden", euInSweden, Ask{}, SwedishSale, "EU_BUSINESS_COUNTRY_IS_SE"},
		{"outside the EU", american, Ask{}, SwedishSale, ""},
		{"outside the EU, Swedish rate", american, Ask{SwedishRateSet: true}, SwedishSale, "SWEDISH_VAT_TO_EXPORT_CUSTOMER"},
		{"a Swede", swede, Ask{SwedishRateSet: true}, SwedishSale, ""},
		{"standard, always", qualified, Ask{Treatment: Standard, DeliveryCountry: "DE"}, SwedishSale, ""},
		{"shipped within Sweden", qualified, Ask{DeliveryCountry: "SE"}, SwedishSale, ""},
		{"goods to Germany", qualified, Ask{DeliveryCountry: "DE"}, EUGoods, ""},
		{"goods to Germany, asked", qualified, Ask{Treatment: ReverseCharge, DeliveryCountry: "DE"}, EUGoods, ""},
		{"goods to Northern Ireland", qualified, Ask{DeliveryCountry: "XI"}, EUGoods, ""},
		{"goods to Norway", swede, Ask{DeliveryCountry: "NO"}, ExportOfGoods, ""},
		{"services outside the EU", american, Ask{Treatment: Export}, ExportOfServices, ""},
		{"services reverse charged", qualified, Ask{Treatment: ReverseCharge}, EUServices, ""},
	} {
		d, err := Decide(c.buyer, c.ask, true)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := ""
		if len(d.Warnings) > 0 {
			got = d.Warnings[0].Code
		}
		if d.Kind != c.kind || got != c.warning || len(d.Warnings) > 1 {
			t.Errorf("%s: %s %v, want %s %s", c.name, d.Kind, d.Warnings, c.kind, c.warning)
		}
		for _, w := range d.Warnings {
			if w.Message == "" || w.MessageEN == "" || w.Remediation == "" {
				t.Errorf("%s: warning %s is not fully worded", c.name, w.Code)
			}
		}
	}
}

func TestDecideRefuses(t *testing.T) {
	for _, c := range []struct {
		name       string
		buyer      Buyer
		ask        Ask
		registered bool
		code       apierr.Code
		reason     string
	}{
		{"reverse charge, no number", noNumber, Ask{Treatment: ReverseCharge}, true, apierr.InvoiceVatTreatmentBuyerVatNumberRequired, "vat_number_missing"},
		{"reverse charge, a Swede", swede, Ask{Treatment: ReverseCharge}, true, apierr.InvoiceVatTreatmentBuyerVatNumberRequired, "not_eu_business"},
		{"reverse charge, EU business in Sweden", euInSweden, Ask{Treatment: ReverseCharge}, true, apierr.InvoiceVatTreatmentBuyerVatNumberRequired, "buyer_in_sweden"},
		{"goods to Germany, not validated", unvalidated, Ask{DeliveryCountry: "DE"}, true, apierr.InvoiceVatTreatmentBuyerVatNumberRequired, "vat_number_not_validated"},
		{"reverse charge to the US", qualified, Ask{Treatment: ReverseCharge, DeliveryCountry: "US"}, true, apierr.InvoiceVatTreatmentDeliveryCountryMismatch, ""},
		{"reverse charge within Sweden", qualified, Ask{Treatment: ReverseCharge, DeliveryCountry: "SE"}, true, apierr.InvoiceVatTreatmentDeliveryCountryMismatch, ""},
		{"export to Germany", qualified, Ask{Treatment: Export, DeliveryCountry: "DE"}, true, apierr.InvoiceVatTreatmentDeliveryCountryMismatch, ""},
		{"export of services to an EU buyer", qualified, Ask{Treatment: Export}, true, apierr.InvoiceVatTreatmentDeliveryCountryRequired, ""},
		{"not VAT-registered", qualified, Ask{Treatment: ReverseCharge}, false, apierr.InvoiceVatTreatmentNotVatRegistered, ""},
		{"not VAT-registered, goods abroad", swede, Ask{DeliveryCountry: "NO"}, false, apierr.InvoiceVatTreatmentNotVatRegistered, ""},
		{"no such treatment", swede, Ask{Treatment: "zero"}, true, apierr.ValidationError, ""},
		{"triangulation, nowhere", qualified, Ask{Treatment: Triangulation}, true, apierr.InvoiceVatTreatmentDeliveryCountryRequired, ""},
		{"triangulation to Norway", qualified, Ask{Treatment: Triangulation, DeliveryCountry: "NO"}, true, apierr.InvoiceVatTreatmentDeliveryCountryMismatch, ""},
		{"triangulation into Sweden", qualified, Ask{Treatment: Triangulation, DeliveryCountry: "SE"}, true, apierr.InvoiceVatTreatmentDeliveryCountryMismatch, ""},
		{"triangulation, no number", noNumber, Ask{Treatment: Triangulation, DeliveryCountry: "DE"}, true, apierr.InvoiceVatTreatmentBuyerVatNumberRequired, "vat_number_missing"},
		{"triangulation, not VAT-registered", qualified, Ask{Treatment: Triangulation, DeliveryCountry: "DE"}, false, apierr.InvoiceVatTreatmentNotVatRegistered, ""},
	} {
		_, err := Decide(c.buyer, c.ask, c.registered)
		e, ok := apierr.As(err)
		if !ok || e.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if c.reason != "" && e.Details["reason"] != c.reason {
			t.Errorf("%s: reason %v, want %s", c.name, e.Details["reason"], c.reason)
		}
	}
	// Reverse charge asked for in so many words for a number VIES has not
	// validated: taken as asked, recorded, and warned of. A delivery
	// country alone does not ask for it.
	for _, ask := range []Ask{{Treatment: ReverseCharge}, {Treatment: ReverseCharge, DeliveryCountry: "DE"}} {
		d, err := Decide(unvalidated, ask, true)
		if err != nil || !d.Unvalidated || len(d.Warnings) != 1 || d.Warnings[0].Code != "REVERSE_CHARGE_VAT_NUMBER_NOT_VALIDATED" ||
			(d.Kind != EUServices && d.Kind != EUGoods) {
			t.Errorf("%+v for an unvalidated number: %+v %v", ask, d, err)
		}
	}
	// Trepartshandel: goods to the buyer's EU state, ruta 38, on 3107.
	if d, err := Decide(qualified, Ask{Treatment: Triangulation, DeliveryCountry: "DE"}, true); err != nil ||
		d.Kind != EUTriangulation || d.Kind.Box() != "38" || d.Kind.Revenue() != "3107" || !d.Kind.ZeroRated() {
		t.Errorf("triangulation: %+v %v", d, err)
	}
	if _, err := Decide(swede, Ask{Treatment: Standard}, false); err != nil {
		t.Errorf("standard refused to a company not VAT-registered: %v", err)
	}
}

func TestKinds(t *testing.T) {
	for k, w := range map[Kind][3]string{SwedishSale: {"", "05"}, EUServices: {"3308", "39"}, EUGoods: {"3108", "35"},
		ExportOfGoods: {"3105", "36"}, ExportOfServices: {"3305", "40"}} {
		if k.Revenue() != w[0] || k.Box() != w[1] {
			t.Errorf("%s: %s, ruta %s", k, k.Revenue(), k.Box())
		}
	}
	if SwedishSale.ZeroRated() || !ExportOfServices.ZeroRated() || !EUGoods.ZeroRated() {
		t.Error("zero rating told wrong")
	}
}
