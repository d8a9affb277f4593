package reports

import (
	"fmt"
	"testing"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func amt(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

func TestDimensionPnlLayout(t *testing.T) {
	p1, p2 := "P1", "p1"
	totals := []ledger.DimensionTotal{
		{Account: "3001", Code: nil, Credit: amt("200")},
		{Account: "3001", Code: &p1, Credit: amt("1000")},
		{Account: "3001", Code: &p2, Credit: amt("500"), Debit: amt("100")},
		{Account: "5460", Code: &p1, Debit: amt("300")},
		{Account: "8999", Code: nil, Debit: amt("250")},
	}
	r := DimensionPnl(totals, map[string]string{"P1": "Alfa"}, map[string]string{"3001": "Försäljning"})
	var cols []string
	for _, c := range r.Columns {
		code := "-"
		if c.Code != nil {
			code = *c.Code
		}
		cols = append(cols, code+"="+c.Name)
	}
	if fmt.Sprint(cols) != "[P1=Alfa p1=p1 -=(Utan dimension)]" {
		t.Fatalf("columns %v", cols)
	}
	if len(r.Groups) != 3 || r.Groups[0].Key != "revenue" || r.Groups[1].Key != "other_external" || r.Groups[2].Key != "tax" {
		t.Fatalf("groups %+v", r.Groups)
	}
	if got := fmt.Sprint(r.Groups[0].Accounts[0].Amounts, r.Groups[0].Accounts[0].Name); got != "[1000.00 400.00 200.00]Försäljning" {
		t.Fatalf("revenue %s", got)
	}
	if got := fmt.Sprint(r.NetPerColumn, r.NetTotal); got != "[700.00 400.00 -50.00] 1050.00" {
		t.Fatalf("net %s", got)
	}
}
