package invoicing

import (
	"testing"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/peppol"
)

func TestEInvoiceCategories(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		rate string
		cat  peppol.Category
		pct  int
	}{{SwedishSale, "0.25", peppol.Standard, 25}, {SwedishSale, "0.12", peppol.Standard, 12}, {SwedishSale, "0.06", peppol.Standard, 6},
		{SwedishSale, "0", peppol.Exempt, 0}, {EUServices, "0", peppol.ReverseCharge, 0}, {EUGoods, "0", peppol.IntraEU, 0},
		{ExportOfGoods, "0", peppol.Export, 0}, {ExportOfServices, "0", peppol.Export, 0}} {
		if cat, pct := category(c.kind, money.MustParse(c.rate)); cat != c.cat || pct != c.pct {
			t.Errorf("%s at %s: %s %d, want %s %d", c.kind, c.rate, cat, pct, c.cat, c.pct)
		}
	}
}

// The sender and recipient: 0007 and an organisationsnummer, never a
// sole trader's personnummer; the customer's own identifier first; a
// VAT-registered seller's VAT number formed from its org number.
func TestEInvoiceParties(t *testing.T) {
	if id := Sender(Seller{OrgNumber: "556123-4567"}); id.String() != "0007:5561234567" {
		t.Errorf("sender %s", id)
	}
	if id := Sender(Seller{OrgNumber: "556123-4568"}); !id.IsZero() {
		t.Errorf("a bad check digit sends from %s", id)
	}
	for _, c := range []struct {
		b            Addressee
		want, source string
	}{
		{Addressee{Type: "swedish_business", OrgNumber: "556000-0001"}, "0007:5560000001", "org_number"},
		{Addressee{Type: "swedish_business", OrgNumber: "556000-0001", PeppolID: "0088:7300010000001"}, "0088:7300010000001", "customer"},
		{Addressee{Type: "swedish_business", OrgNumber: "19800101-0019", SoleTrader: true}, ":", ""},
		{Addressee{Type: "individual"}, ":", ""},
		{Addressee{Type: "eu_business", PeppolID: "9955:SE556000000101"}, "9955:SE556000000101", "customer"},
	} {
		if id, src := Recipient(c.b); id.String() != c.want || src != c.source {
			t.Errorf("%+v: %s (%s), want %s (%s)", c.b, id, src, c.want, c.source)
		}
	}
	if v := sellerVAT(Seller{OrgNumber: "556123-4567", VATRegistered: true}); v != "SE556123456701" {
		t.Errorf("formed VAT number %q", v)
	}
	if v := sellerVAT(Seller{OrgNumber: "556123-4567"}); v != "" {
		t.Errorf("an unregistered company has no VAT number, got %q", v)
	}
}
