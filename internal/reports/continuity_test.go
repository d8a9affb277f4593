package reports

import (
	"testing"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func TestCheckContinuity(t *testing.T) {
	m := money.MustParse
	rows := []ledger.ContinuityRow{
		{Account: "1930", Closing: m("62400"), NextOpening: m("62400")},
		{Account: "2611", Closing: m("0"), NextOpening: m("-2500")},
		{Account: "2650", Closing: m("-2500"), NextOpening: m("0")},
		{Account: "2081", Closing: m("-59900"), NextOpening: m("-59900")},
	}
	c := CheckContinuity(rows, true)
	// By hand: 2611 opens at -2500 against 0 (difference -2500), 2650
	// at 0 against -2500 (difference +2500); the columns each sum to 0.
	if c.OK() || c.Differing != 2 || c.Lines[1].Difference.String() != "-2500.00" ||
		c.Lines[2].Difference.String() != "2500.00" || !c.Previous.IsZero() || !c.Difference.IsZero() {
		t.Fatalf("%+v", c)
	}
	// Nothing in Kontera to compare with: the opening balances alone.
	c = CheckContinuity(rows, false)
	if !c.OK() || c.Previous != nil || c.Lines[1].Previous != nil || c.Opening.String() != "0.00" {
		t.Fatalf("%+v", c)
	}
	if c := CheckContinuity(rows[:1], true); !c.OK() || c.Lines[0].Previous.String() != "62400.00" {
		t.Fatalf("%+v", c)
	}
}
