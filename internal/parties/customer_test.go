package parties

import (
	"errors"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
)

func ptr[T any](v T) *T { return &v }

func set(s string) Field[string] { return Field[string]{Set: true, Value: &s} }

func newCustomer(t CustomerType, ch CustomerChange) (Customer, Outcome, error) {
	ch.Name, ch.Type = ptr("Kund"), &t
	return ApplyCustomer(Customer{PaymentTerms: 30}, ch, true)
}

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestRule2PersonnummerMoves(t *testing.T) {
	c, out, err := newCustomer(Individual, CustomerChange{OrgNumber: set("198112189876")})
	if err != nil || c.OrgNumber != nil || !out.PersonalNumberSet || *out.PersonalNumber != "811218-9876" || *c.PersonalLast4 != "9876" {
		t.Fatalf("moved: %+v %+v %v", c, out, err)
	}
	if _, _, err := newCustomer(Individual, CustomerChange{OrgNumber: set("811218-9876"), PersonalNumber: set("701063-2391")}); code(err) != apierr.CustomerPersonalNumberConflict {
		t.Fatalf("conflict: %v", err)
	}
	if _, _, err := newCustomer(Individual, CustomerChange{OrgNumber: set("811218-9876"), PersonalNumber: set("8112189876")}); err != nil {
		t.Fatalf("the same number twice: %v", err)
	}
}

func TestRule3SoleTrader(t *testing.T) {
	c, _, err := newCustomer(SwedishBusiness, CustomerChange{OrgNumber: set("8112189876")})
	if err != nil || *c.OrgNumber != "811218-9876" || !c.SoleTrader() || c.PersonalLast4 != nil {
		t.Fatalf("sole trader: %+v %v", c, err)
	}
	for _, typ := range []CustomerType{EUBusiness, NonEUBusiness} {
		if _, _, err := newCustomer(typ, CustomerChange{OrgNumber: set("811218-9876")}); code(err) != apierr.CustomerOrgNumberIsPersonal {
			t.Errorf("%s: %v", typ, err)
		}
	}
	// A foreign registration number is kept as supplied.
	c, _, err = newCustomer(NonEUBusiness, CustomerChange{OrgNumber: set("NO 923 609 016")})
	if err != nil || *c.OrgNumber != "NO 923 609 016" {
		t.Fatalf("foreign: %v %v", c.OrgNumber, err)
	}
	c, _, _ = newCustomer(SwedishBusiness, CustomerChange{OrgNumber: set("556334-3689")})
	if c.SoleTrader() {
		t.Fatal("an aktiebolag taken for a sole trader")
	}
}

func TestRule4PersonalNumberOnlyIndividual(t *testing.T) {
	if _, _, err := newCustomer(SwedishBusiness, CustomerChange{PersonalNumber: set("811218-9876")}); code(err) != apierr.CustomerPersonalNumberNotAllowed {
		t.Fatalf("business: %v", err)
	}
	c, _, err := newCustomer(Individual, CustomerChange{PersonalNumber: set("811218-9876")})
	if err != nil {
		t.Fatal(err)
	}
	// The masked value is no change; leaving individual clears it.
	c2, out, err := ApplyCustomer(c, CustomerChange{PersonalNumber: set("********-9876")}, false)
	if err != nil || out.PersonalNumberSet || *c2.PersonalLast4 != "9876" {
		t.Fatalf("masked: %+v %v", out, err)
	}
	c3, out, err := ApplyCustomer(c, CustomerChange{Type: ptr(NonEUBusiness)}, false)
	if err != nil || !out.PersonalNumberSet || out.PersonalNumber != nil || c3.PersonalLast4 != nil {
		t.Fatalf("type change: %+v %v", out, err)
	}
	c4, out, err := ApplyCustomer(c, CustomerChange{PersonalNumber: Field[string]{Set: true}}, false)
	if err != nil || !out.PersonalNumberSet || c4.PersonalLast4 != nil {
		t.Fatalf("null clears: %+v %v", out, err)
	}
}

func TestLuhnAndFormats(t *testing.T) {
	for name, ch := range map[string]CustomerChange{
		"org check digit":    {OrgNumber: set("556334-3688")},
		"personal digit":     {PersonalNumber: set("811218-9875")},
		"personal date":      {PersonalNumber: set("811318-9870")},
		"email":              {Email: set("kund@")},
		"cc":                 {CC: Field[[]string]{Set: true, Value: &[]string{"a@b.se", "nej"}}},
		"swedish vat number": {VATNumber: set("SE556334368801")},
		"blank name":         {Name: ptr("  ")},
	} {
		typ := SwedishBusiness
		if name == "personal digit" || name == "personal date" {
			typ = Individual
		}
		ch.Type = &typ
		if ch.Name == nil {
			ch.Name = ptr("Kund")
		}
		if _, _, err := ApplyCustomer(Customer{}, ch, true); code(err) != apierr.ValidationError {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Samordningsnummer: day + 60.
	if _, _, err := newCustomer(Individual, CustomerChange{PersonalNumber: set("701063-2391")}); err != nil {
		t.Fatalf("samordningsnummer: %v", err)
	}
}

func TestRule5WhenVIESIsAsked(t *testing.T) {
	c, out, _ := newCustomer(EUBusiness, CustomerChange{VATNumber: set("de123456789")})
	if !out.CheckVAT || *c.VATNumber != "DE123456789" {
		t.Fatalf("new eu customer: %+v", out)
	}
	c.VATValidated = true
	if c2, out, _ := ApplyCustomer(c, CustomerChange{Notes: set("x")}, false); out.CheckVAT || !c2.VATValidated {
		t.Fatal("an unrelated change dropped the validation")
	}
	if c2, out, _ := ApplyCustomer(c, CustomerChange{VATNumber: set("DE999999999")}, false); !out.CheckVAT || c2.VATValidated {
		t.Fatal("a new number kept the old validation")
	}
	if c2, out, _ := ApplyCustomer(c, CustomerChange{Type: ptr(NonEUBusiness)}, false); out.CheckVAT || c2.VATValidated {
		t.Fatal("a non-EU customer is validated")
	}
	if _, out, _ := newCustomer(SwedishBusiness, CustomerChange{VATNumber: set("SE556334368901")}); out.CheckVAT {
		t.Fatal("a Swedish customer is looked up")
	}
}

func TestDefaults(t *testing.T) {
	c, _, err := newCustomer(Individual, CustomerChange{})
	if err != nil || c.Country != "SE" || c.Language != "sv" || c.PaymentTerms != 30 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	s, err := ApplySupplier(Supplier{}, SupplierChange{Name: ptr("Lev"), Type: ptr(SupplierEU), Bankgiro: set(" 5050-1055x ")}, true)
	if err != nil || s.Currency != "SEK" || s.PaymentTerms != 30 || s.Country != "SE" || *s.Bankgiro != "5050-1055x" {
		t.Fatalf("supplier defaults: %+v %v", s, err)
	}
	if _, err := ApplySupplier(Supplier{}, SupplierChange{Name: ptr("Lev"), Type: ptr(SupplierSwedish), OrgNumber: set("556334-3688")}, true); code(err) != apierr.ValidationError {
		t.Fatalf("supplier org: %v", err)
	}
}

func TestIdentity(t *testing.T) {
	org := "556334-3689"
	if Identity("SE", &org, nil) != "org:SE:5563343689" || Identity("DE", nil, ptr("de 123-456 789")) != "vat:DE123456789" || Identity("SE", nil, nil) != "" {
		t.Fatal("identity")
	}
}

func TestFailedNamesTheWrite(t *testing.T) {
	if code(failed(apierr.CustomerCreateFailed, errors.New("pq: connection reset"))) != apierr.CustomerCreateFailed {
		t.Fatal("an unexpected error is not CUSTOMER_CREATE_FAILED")
	}
	dup := apierr.New(apierr.CustomerDuplicateOrgNumber, nil)
	if failed(apierr.CustomerCreateFailed, dup) != error(dup) {
		t.Fatal("a catalogue error was renamed")
	}
}
