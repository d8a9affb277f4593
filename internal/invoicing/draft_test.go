package invoicing

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// In another currency, total_sek is what the verifikat will come to, each
// line converted: 0.03 EUR + 0.01 EUR VAT at 11.50 is 0.35 + 0.12 = 0.47
// kronor, where the total converted at once would be 0.46.
func TestPlanTotalSEK(t *testing.T) {
	rate, err := money.ParseRate("11.5")
	if err != nil {
		t.Fatal(err)
	}
	q, price, unit := qty("1"), money.MustParse("0.03"), "st"
	d := Draft{CustomerID: uuid.New(), InvoiceDate: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Currency: "EUR",
		ExchangeRate: &rate, Lines: []DraftLine{{Description: "Pennor", Quantity: &q, Unit: &unit, UnitPrice: &price}}}
	inv, _, err := Plan(d, Customer{Name: "Kund AB", PaymentTerms: 30, Buyer: Buyer{Type: "swedish_business", Country: "SE"}}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Total.String() != "0.04" || inv.TotalSEK == nil || inv.TotalSEK.String() != "0.47" {
		t.Fatalf("total %s, in kronor %v", inv.Total, inv.TotalSEK)
	}
	if inv.DueDate.Format(time.DateOnly) != "2026-03-31" || inv.Treatment != SwedishSale {
		t.Fatalf("due %s, treatment %s", inv.DueDate, inv.Treatment)
	}
}
