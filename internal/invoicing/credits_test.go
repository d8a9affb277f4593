package invoicing

import (
	"testing"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func TestExcess(t *testing.T) {
	m := money.MustParse
	for _, c := range []struct {
		extra, fees, interest, fee, rate, credit string
	}{
		{"100", "0", "0", "0", "0", "100"},      // nothing claimed: all of it is credit
		{"30", "60", "10", "30", "0", "0"},      // the fee first
		{"65", "60", "10", "60", "5", "0"},      // then the interest
		{"100", "60", "10", "60", "10", "30"},   // the rest is credit
		{"70", "60", "10", "60", "10", "0"},     // exactly the charges
		{"0.01", "0", "0", "0", "0", "0.01"},    // an öre over
		{"60.01", "60", "0", "60", "0", "0.01"}, // an öre past the fee
	} {
		fee, rate, credit := Excess(m(c.extra), m(c.fees), m(c.interest))
		if fee.Cmp(m(c.fee)) != 0 || rate.Cmp(m(c.rate)) != 0 || credit.Cmp(m(c.credit)) != 0 {
			t.Errorf("Excess(%s, %s, %s) = %s, %s, %s; want %s, %s, %s", c.extra, c.fees, c.interest, fee, rate, credit,
				c.fee, c.rate, c.credit)
		}
	}
}

func TestWriteOffAndCreditLines(t *testing.T) {
	m := money.MustParse
	if WriteOffAccount(m("0.99")) != "3740" || WriteOffAccount(m("1")) != "6570" {
		t.Fatal("below a krona on 3740, else 6570")
	}
	// 12 500 settled by 12 460 and 40 written off.
	paid := []ledger.Line{{Account: "1930", Debit: m("12500")}, {Account: "1510", Credit: m("12500")}}
	got := writeOffLines(paid, "1930", m("40"))
	if len(got) != 3 || got[0].Debit.Cmp(m("12460")) != 0 || got[2].Account != "6570" || got[2].Debit.Cmp(m("40")) != 0 {
		t.Fatalf("write-off lines %+v", got)
	}
	// 12 600 for 12 500: the 100 over on 2420, the bank's one debit grown.
	paid = []ledger.Line{{Account: "1930", Debit: m("12500")}, {Account: "1510", Credit: m("12500")}}
	got = creditLines(paid, "1930", m("100"))
	if len(got) != 3 || got[0].Debit.Cmp(m("12600")) != 0 || got[2].Account != "2420" || got[2].Credit.Cmp(m("100")) != 0 {
		t.Fatalf("credit lines %+v", got)
	}
	var debit, credit money.Amount
	for _, l := range got {
		debit, credit = debit.Add(l.Debit), credit.Add(l.Credit)
	}
	if debit.Cmp(credit) != 0 {
		t.Fatalf("unbalanced: %s against %s", debit, credit)
	}
}

func TestTake(t *testing.T) {
	m := money.MustParse
	// 100 € booked at 1 120 kr, 40 € used: 60 € (672 kr) left.
	c := Credit{Currency: "EUR", Amount: m("100"), SEK: m("1120"), Used: m("40"), UsedSEK: m("448")}
	amount, sek, err := take(c, nil, m("1000"))
	if err != nil || amount.Cmp(m("60")) != 0 || sek.Cmp(m("672")) != 0 {
		t.Fatalf("all that is left: %s %s %v", amount, sek, err)
	}
	// Up to what the invoice has left: 25 € at the credit's rate, 280 kr.
	amount, sek, err = take(c, nil, m("25"))
	if err != nil || amount.Cmp(m("25")) != 0 || sek.Cmp(m("280")) != 0 {
		t.Fatalf("capped: %s %s %v", amount, sek, err)
	}
	asked := m("60.01")
	if _, _, err := take(c, &asked, m("1000")); err == nil {
		t.Fatal("more than is left was taken")
	}
}
