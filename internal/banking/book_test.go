package banking

import (
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// lines writes a booking as "D 6110 1000.00, C 1930 1250.00".
func lines(ls []ledger.Line) string {
	var out []string
	for _, l := range ls {
		if !l.Debit.IsZero() {
			out = append(out, "D "+l.Account+" "+l.Debit.String())
		} else {
			out = append(out, "C "+l.Account+" "+l.Credit.String())
		}
	}
	return strings.Join(out, ", ")
}

func tx(amount string) Transaction {
	return Transaction{LedgerAccount: "1930", Currency: "SEK", Amount: money.MustParse(amount)}
}

func s(v string) *string { return &v }

func TestBook(t *testing.T) {
	ab := Policy{VATRegistered: true, EntityType: "aktiebolag"}
	for _, c := range []struct {
		name   string
		t      Transaction
		c      Categorization
		p      Policy
		want   string
		wantOK bool
	}{
		{"office 25 %", tx("-1250.00"), Categorization{IsBusiness: true, Category: s("expense_office")}, ab,
			"C 1930 1250.00, D 6110 1000.00, D 2641 250.00", true},
		{"bank fee", tx("-45.00"), Categorization{IsBusiness: true, TemplateID: s("bank_fee")}, ab,
			"C 1930 45.00, D 6570 45.00", true},
		{"interest", tx("0.37"), Categorization{IsBusiness: true, TemplateID: s("bank_interest")}, ab,
			"D 1930 0.37, C 8311 0.37", true},
		{"12 % splits 8.93 + 1.07", tx("-10.00"), Categorization{IsBusiness: true, Category: s("expense_other"),
			VATTreatment: s(Reduced12)}, ab, "C 1930 10.00, D 6990 8.93, D 2641 1.07", true},
		{"a sale", tx("12500.00"), Categorization{IsBusiness: true, Category: s("income_services")}, ab,
			"D 1930 12500.00, C 3001 10000.00, C 2611 2500.00", true},
		{"reverse charge", tx("-1000.00"), Categorization{IsBusiness: true, TemplateID: s("eu_service_reverse_charge")}, ab,
			"C 1930 1000.00, D 4535 1000.00, D 2645 250.00, C 2614 250.00", true},
		{"vat as the receipt says", tx("-1250.00"), Categorization{IsBusiness: true, Category: s("expense_office"),
			VATAmount: amt("200")}, ab, "C 1930 1250.00, D 6110 1050.00, D 2641 200.00", true},
		{"not VAT-registered", tx("-1250.00"), Categorization{IsBusiness: true, Category: s("expense_office")},
			Policy{EntityType: "aktiebolag"}, "C 1930 1250.00, D 6110 1250.00", true},
		{"private, aktiebolag", tx("-500.00"), Categorization{}, ab, "C 1930 500.00, D 2893 500.00", true},
		{"private withdrawal, enskild firma", tx("-500.00"), Categorization{}, Policy{VATRegistered: true, EntityType: "enskild_firma"},
			"C 1930 500.00, D 2013 500.00", true},
		{"private deposit, enskild firma", tx("500.00"), Categorization{}, Policy{EntityType: "enskild_firma"},
			"D 1930 500.00, C 2018 500.00", true},
		{"transfer to own account", tx("-5000.00"), Categorization{IsBusiness: true, TemplateID: s("own_transfer"),
			AccountOverride: s("1940")}, ab, "C 1930 5000.00, D 1940 5000.00", true},
		{"override keeps 25 %", tx("-125.00"), Categorization{IsBusiness: true, AccountOverride: s("5460")}, ab,
			"C 1930 125.00, D 5460 100.00, D 2641 25.00", true},
	} {
		b, err := Book(c.t, c.c, c.p)
		if err != nil || lines(b.Lines) != c.want {
			t.Errorf("%s: %s (%v), want %s", c.name, lines(b.Lines), err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		c    Categorization
		code apierr.Code
	}{
		{"1510", Categorization{IsBusiness: true, AccountOverride: s("1510")}, apierr.TxCategorizeInvalidAccount},
		{"2440", Categorization{IsBusiness: true, AccountOverride: s("2440")}, apierr.TxCategorizeInvalidAccount},
		{"nothing to book on", Categorization{IsBusiness: true}, apierr.ValidationError},
		{"unknown category", Categorization{IsBusiness: true, Category: s("expense_yachts")}, apierr.ValidationError},
		{"transfer without its account", Categorization{IsBusiness: true, TemplateID: s("own_transfer")}, apierr.ValidationError},
		{"more VAT than paid", Categorization{IsBusiness: true, Category: s("expense_office"), VATAmount: amt("2000")}, apierr.ValidationError},
	} {
		if _, err := Book(tx("-1250.00"), c.c, ab); !apierr.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	foreign := Transaction{LedgerAccount: "1932", Currency: "EUR", Amount: money.MustParse("-100")}
	if _, err := Book(foreign, Categorization{IsBusiness: true, Category: s("expense_office")}, ab); !apierr.Is(err, apierr.Conflict) {
		t.Errorf("a foreign amount without its SEK: %v", err)
	}
	sek := money.MustParse("-1145.12")
	foreign.AmountSEK = &sek
	if b, err := Book(foreign, Categorization{IsBusiness: true, TemplateID: s("bank_fee")}, ab); err != nil ||
		lines(b.Lines) != "C 1932 1145.12, D 6570 1145.12" {
		t.Errorf("a foreign amount: %s %v", lines(b.Lines), err)
	}
}

func amt(v string) *money.Amount { a := money.MustParse(v); return &a }

func TestSuggest(t *testing.T) {
	p := Policy{VATRegistered: true, EntityType: "aktiebolag"}
	for _, c := range []struct {
		name string
		tx   Transaction
		c    Categorization
		want string
	}{
		{"25 %", tx("-1250.00"), Categorization{IsBusiness: true, Category: s("expense_office")}, "6110 standard_25"},
		{"12 %", tx("-10.00"), Categorization{IsBusiness: true, Category: s("expense_other"), VATTreatment: s(Reduced12)}, "6990 reduced_12"},
		{"6 % sale", tx("106.00"), Categorization{IsBusiness: true, Category: s("income_other"), VATTreatment: s(Reduced6)}, "3990 reduced_6"},
		{"fee", tx("-45.00"), Categorization{IsBusiness: true, TemplateID: s("bank_fee")}, "6570 exempt"},
		{"reverse charge", tx("-1000.00"), Categorization{IsBusiness: true, TemplateID: s("eu_service_reverse_charge")}, "4535 reverse_charge"},
	} {
		b, err := Book(c.tx, c.c, p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Suggest(ledger.Entry{Lines: b.Lines}, "1930")
		if !ok || got.Account+" "+got.VATTreatment != c.want {
			t.Errorf("%s: %s %s, want %s", c.name, got.Account, got.VATTreatment, c.want)
		}
	}
	if _, ok := Suggest(ledger.Entry{Lines: []ledger.Line{line("1930", money.MustParse("5"), nil, nil)}}, "1930"); ok {
		t.Error("a suggestion from a bank line alone")
	}
}

// Every account a category or template books on is a BAS account, so the
// chart takes it when it is missing.
func TestKindsAreBAS(t *testing.T) {
	var kinds []Kind
	for _, k := range Categories {
		kinds = append(kinds, k)
	}
	for _, tp := range Templates {
		kinds = append(kinds, tp.Kind)
	}
	for _, k := range kinds {
		if _, ok := bas.Lookup(k.Account); k.Account != "" && !ok {
			t.Errorf("%s is not in BAS", k.Account)
		}
	}
	for _, a := range []string{"2013", "2018", "2893", "2641", "2611", "2621", "2631", "2645", "2614"} {
		if _, ok := bas.Lookup(a); !ok {
			t.Errorf("%s is not in BAS", a)
		}
	}
}
