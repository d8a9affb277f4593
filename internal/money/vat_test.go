package money

import "testing"

func TestSplitGross(t *testing.T) {
	for _, c := range []struct{ gross, rate, net, vat string }{
		{"-10.00", "12", "-8.93", "-1.07"},
		{"-1250.00", "25", "-1000.00", "-250.00"},
		{"100.00", "6", "94.34", "5.66"},
		{"0.01", "25", "0.01", "0.00"},
		{"12500", "0", "12500.00", "0.00"},
	} {
		net, vat, err := SplitGross(MustParse(c.gross), MustParse(c.rate))
		if err != nil || net.Cmp(MustParse(c.net)) != 0 || vat.Cmp(MustParse(c.vat)) != 0 {
			t.Errorf("%s at %s%%: %s + %s (%v), want %s + %s", c.gross, c.rate, net, vat, err, c.net, c.vat)
		}
	}
	if v, _ := VATOn(MustParse("1000"), MustParse("25")); v.Cmp(MustParse("250")) != 0 {
		t.Errorf("VATOn: %s", v)
	}
}
