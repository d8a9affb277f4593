package invoicing

import (
	"reflect"
	"testing"

	"github.com/kontera/kontera/internal/money"
)

func TestLegalContent(t *testing.T) {
	rate := func(s string) *money.Rate {
		r, err := money.ParseRate(s)
		if err != nil {
			t.Fatal(err)
		}
		return &r
	}
	seller := Party{Name: "Verifikat AB", Street: "Storgatan 1", PostalCode: "111 22", City: "Stockholm", Country: "SE",
		HasVATNumber: true, VATRegistered: true}
	buyer := Party{Name: "Byggbolaget i Norrland AB", Street: "Norra vägen 5", PostalCode: "901 10", City: "Umeå", Country: "SE"}
	// 10 hours at 1 000 kr and 25 %: 12 500 kr, a full invoice.
	sale := Invoice{DocumentType: "invoice", Treatment: SwedishSale, Currency: "SEK", Total: money.MustParse("12500"),
		Lines: []Line{{Type: "product", Description: "Konsulttimmar"}, {Type: "text", Description: ""}}}
	small := sale
	small.Total = money.MustParse("4000") // the limit itself is still simplified
	over := sale
	over.Total = money.MustParse("4000.01")
	euro := small
	euro.Currency, euro.Total = "EUR", money.MustParse("350") // 350 € at 11.50 = 4 025 kr
	euro.ExchangeRate = rate("11.50")
	cheapEuro := euro
	cheapEuro.ExchangeRate = rate("11.40") // 3 990 kr
	noRate := cheapEuro
	noRate.ExchangeRate = nil
	rot := small
	rot.DeductionTotal = money.MustParse("1000")
	credit := small
	credit.Total = money.MustParse("-1250")
	eu := sale
	eu.Treatment = EUServices
	euSmall := small
	euSmall.Treatment = EUServices
	blank := sale
	blank.Lines = []Line{{Type: "product", Description: "Konsulttimmar"}, {Type: "product", Description: "  "}}

	bare := Party{Name: "Verifikat AB", VATRegistered: true}
	noPostal := buyer
	noPostal.PostalCode = ""
	abroad := Party{Name: "Müller GmbH", Street: "Hauptstraße 1", City: "Berlin", Country: "DE"}
	unregistered := seller
	unregistered.VATRegistered, unregistered.HasVATNumber = false, false
	euBuyer := abroad
	euBuyer.HasVATNumber = true

	for _, c := range []struct {
		name          string
		inv           Invoice
		seller, buyer Party
		missing       []string
		simplified    bool
	}{
		{"complete", sale, seller, buyer, nil, false},
		{"nothing but names", sale, bare, Party{Name: "Kund AB"}, []string{"company.address", "company.vat_number", "customer.address"}, false},
		{"no seller name", sale, Party{Street: "Storgatan 1", PostalCode: "111 22", City: "Stockholm"}, buyer, []string{"company.name"}, false},
		{"a Swedish address needs its postal code", sale, seller, noPostal, []string{"customer.address"}, false},
		{"a German one does not", sale, seller, abroad, nil, false},
		{"no VAT number for one not registered", sale, unregistered, buyer, nil, false},
		{"a blank line", blank, seller, buyer, []string{"items[1].description"}, false},
		{"simplified at 4 000 kr", small, bare, Party{Name: "Kund AB"}, nil, true},
		{"full above it", over, bare, buyer, []string{"company.address", "company.vat_number"}, false},
		{"euros above it in kronor", euro, bare, buyer, []string{"company.address", "company.vat_number"}, false},
		{"euros below it in kronor", cheapEuro, bare, Party{Name: "Kund AB"}, nil, true},
		{"euros without a rate are held to the full rule", noRate, bare, buyer, []string{"company.address", "company.vat_number"}, false},
		{"ROT/RUT is always full", rot, seller, Party{Name: "Anna Andersson"}, []string{"customer.address"}, false},
		{"a small credit note", credit, bare, Party{Name: "Kund AB"}, nil, true},
		{"reverse charge needs the buyer's VAT number", eu, seller, abroad, []string{"customer.vat_number"}, false},
		{"and is never simplified", euSmall, seller, euBuyer, nil, false},
		{"simplified still names the seller", small, Party{}, Party{}, []string{"company.name"}, true},
	} {
		got := LegalContent(c.inv, c.seller, c.buyer)
		if !reflect.DeepEqual(got.Missing, c.missing) || got.Simplified != c.simplified || got.Complete() != (len(c.missing) == 0) {
			t.Errorf("%s: missing %v simplified %v, want %v %v", c.name, got.Missing, got.Simplified, c.missing, c.simplified)
		}
		want := RuleFull
		if c.simplified {
			want = RuleSimplified
		}
		if got.Rule != want {
			t.Errorf("%s: rule %q, want %q", c.name, got.Rule, want)
		}
		if err := got.Err(c.inv); (err == nil) != got.Complete() {
			t.Errorf("%s: Err %v with complete %v", c.name, err, got.Complete())
		}
	}
}
