package invoicing

import (
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The money on the bank account is one line however many invoices it
// pays; lines in another currency, or with a text of their own, stay.
func TestMergeBank(t *testing.T) {
	a := money.MustParse
	what, eur := "Öresavrundning", "EUR"
	got := mergeBank([]ledger.Line{{Account: "1930", Debit: a("8000")}, {Account: "1510", Credit: a("8000")},
		{Account: "1930", Debit: a("4500")}, {Account: "1510", Credit: a("4500")},
		{Account: "1930", Debit: a("1"), Currency: &eur}, {Account: "3740", Debit: a("0.40"), Description: &what}}, "1930")
	if len(got) != 5 || got[0].Debit.String() != "12500.00" || got[3].Currency == nil {
		t.Fatalf("%+v", got)
	}
}

// Money in settles only an issued invoice waiting for payment.
func TestAwaitsPayment(t *testing.T) {
	a := money.MustParse
	for _, c := range []struct {
		inv  Invoice
		want string
	}{
		{Invoice{DocumentType: "invoice", Status: "sent", Total: a("100")}, ""},
		{Invoice{DocumentType: "invoice", Status: "partially_paid", Total: a("100")}, ""},
		{Invoice{DocumentType: "invoice", Status: "paid", Total: a("100")}, "MATCH_INVOICE_NOT_OPEN"},
		{Invoice{DocumentType: "invoice", Status: "draft", Total: a("100")}, "MATCH_INVOICE_NOT_OPEN"},
		{Invoice{DocumentType: "proforma", Status: "sent", Total: a("100")}, "MATCH_INVOICE_NOT_INVOICE_TYPE"},
		{Invoice{DocumentType: "invoice", Status: "sent", Total: a("-100")}, "MATCH_INVOICE_NOT_INVOICE_TYPE"},
	} {
		err := awaitsPayment(c.inv)
		if got := codeOf(err); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.inv.DocumentType, c.inv.Status, got, c.want)
		}
	}
}

func codeOf(err error) string {
	if e, ok := apierr.As(err); ok {
		return string(e.Code)
	}
	return ""
}
