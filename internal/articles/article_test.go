package articles

import (
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/money"
)

func TestNewTakesTheDefaults(t *testing.T) {
	number, name, price := "KONS-1", "  Konsulttimme ", money.Öre(115000)
	a := New(uuid.New(), Input{Number: &number, Name: &name, UnitPrice: &price})
	if a.Unit != "st" || a.VATRate.String() != "0.25" || !a.Active || a.Name != "Konsulttimme" || len(a.Accounts) != 0 ||
		a.Line().Description != "Konsulttimme" {
		t.Fatalf("%+v", a)
	}
}

// A change sets the treatments it gives, clears those given empty and
// leaves the others; a description cleared gives the line the name.
func TestApplyAccounts(t *testing.T) {
	text := "Timmar enligt avtal"
	a := Article{Name: "Konsulttimme", Description: &text, Accounts: Accounts{invoicing.SwedishSale: "3041",
		invoicing.EUServices: "3308"}}
	b := a.Apply(Input{Accounts: map[invoicing.Kind]string{invoicing.EUServices: "", invoicing.ExportOfServices: "3305"},
		DescriptionSet: true})
	if len(b.Accounts) != 2 || b.Accounts[invoicing.SwedishSale] != "3041" || b.Accounts[invoicing.ExportOfServices] != "3305" ||
		b.Line().Description != "Konsulttimme" {
		t.Fatalf("%+v", b)
	}
	if len(a.Accounts) != 2 || a.Accounts[invoicing.EUServices] != "3308" || a.Line().Description != text {
		t.Fatalf("the old article changed: %+v", a)
	}
	if got := b.Numbers(); len(got) != 2 || got[0] != "3041" || got[1] != "3305" {
		t.Fatal(got)
	}
}

// Each treatment's account must report where that treatment's sales do:
// box 05 under Swedish VAT, 39 for services to the EU, 36 for exported
// goods.
func TestCheckBoxes(t *testing.T) {
	boxes := map[string]string{"3041": "05", "3308": "39", "3105": "36", "3999": ""}
	ok := Article{Accounts: Accounts{invoicing.SwedishSale: "3041", invoicing.EUServices: "3308",
		invoicing.ExportOfGoods: "3105"}}
	if err := ok.CheckBoxes(boxes); err != nil {
		t.Fatal(err)
	}
	for kind, account := range map[invoicing.Kind]string{invoicing.SwedishSale: "3308", invoicing.EUServices: "3041",
		invoicing.EUGoods: "3105", invoicing.ExportOfServices: "3999"} {
		err := Article{Accounts: Accounts{kind: account}}.CheckBoxes(boxes)
		e, ok := apierr.As(err)
		if !ok || e.Code != apierr.ValidationError || e.Details["field"] != "revenue_accounts."+string(kind) {
			t.Errorf("%s on %s: %v", kind, account, err)
		}
	}
}
