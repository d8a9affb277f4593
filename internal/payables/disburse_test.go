package payables

import (
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
)

// What a whole match of money out takes of an invoice with 6 250.00 left:
// up to 5 000 kr above it is the bank's fee, under 1 kr short is written
// off, kronor for a foreign invoice pay it whole; more is refused.
func TestTakes(t *testing.T) {
	sek := Invoice{Currency: "SEK", Total: amt("6250"), Status: Registered}
	eur := Invoice{Currency: "EUR", Total: amt("100"), PaidAmount: amt("40"), Status: PartiallyPaid}
	for _, c := range []struct {
		name          string
		inv           Invoice
		currency      string
		paid, sek     string
		whole         bool
		amount, fee   string
		rounding, err string
	}{
		{"exact", sek, "SEK", "6250", "6250", true, "6250.00", "0.00", "0.00", ""},
		{"part", sek, "SEK", "1000", "1000", true, "1000.00", "0.00", "0.00", ""},
		{"öre short", sek, "SEK", "6249.01", "6249.01", true, "6250.00", "0.00", "0.99", ""},
		{"a krona short is a part", sek, "SEK", "6249", "6249", true, "6249.00", "0.00", "0.00", ""},
		{"fee", sek, "SEK", "6260", "6260", true, "6250.00", "10.00", "0.00", ""},
		{"fee at most 5 000", sek, "SEK", "11250", "11250", true, "6250.00", "5000.00", "0.00", ""},
		{"more than a fee", sek, "SEK", "11250.01", "11250.01", true, "", "", "", string(apierr.MatchSIAmountExceedsRemaining)},
		{"no fee in a batch", sek, "SEK", "6260", "6260", false, "", "", "", string(apierr.MatchSIAmountExceedsRemaining)},
		{"no rounding in a batch", sek, "SEK", "6249.60", "6249.60", false, "6249.60", "0.00", "0.00", ""},
		{"kronor for euro pay it whole", eur, "SEK", "700", "700", true, "60.00", "0.00", "0.00", ""},
		{"euro fee in kronor", eur, "EUR", "61", "700.01", true, "60.00", "11.48", "0.00", ""},
		{"another currency", eur, "USD", "60", "600", true, "", "", "", string(apierr.MatchCurrencyMismatch)},
	} {
		amount, fee, rounding, err := takes(c.inv, c.currency, amt(c.paid), amt(c.sek), c.whole)
		if c.err != "" {
			if !apierr.Is(err, apierr.Code(c.err)) {
				t.Errorf("%s: %v, want %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil || amount.String() != c.amount || fee.String() != c.fee || rounding.String() != c.rounding {
			t.Errorf("%s: %s, fee %s, rounding %s (%v); want %s, %s, %s", c.name, amount, fee, rounding, err,
				c.amount, c.fee, c.rounding)
		}
	}
}

// The money from the bank account is one line: the payments' credits, the
// fee's and less the öre it did not carry.
func TestMergeCredits(t *testing.T) {
	what := "Bankavgift"
	got := mergeCredits([]ledger.Line{{Account: "2440", Debit: amt("750")}, {Account: "1930", Credit: amt("750")},
		{Account: "2440", Debit: amt("2500")}, {Account: "1930", Credit: amt("2500")},
		{Account: BankFee, Debit: amt("10"), Description: &what}, {Account: "1930", Credit: amt("10")},
		{Account: Rounding, Credit: amt("0.40")}, {Account: "1930", Debit: amt("0.40")}}, "1930")
	if len(got) != 5 || got[1].Account != "1930" || got[1].Credit.String() != "3259.60" || !got[1].Debit.IsZero() {
		t.Fatalf("%+v", got)
	}
}
