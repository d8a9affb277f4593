package money

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestMulRound(t *testing.T) {
	dec := func(s string) *apd.Decimal {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct{ a, f, want string }{
		{"1250.00", "1.5", "1875.00"},
		{"99.99", "0.333", "33.30"},  // 33.29667
		{"0.10", "0.25", "0.03"},     // 0.025: half away from zero
		{"-0.10", "0.25", "-0.03"},   // and so for a credit
		{"19.99", "0.875", "17.49"},  // 17.49125
		{"0.01", "0.4", "0.00"},      // never -0.00
		{"1000.00", "0.9", "900.00"}, // 10 % off
		{"123.45", "1", "123.45"},
	} {
		got, err := MustParse(c.a).MulRound(dec(c.f))
		if err != nil || got.String() != c.want {
			t.Errorf("%s × %s = %s (%v), want %s", c.a, c.f, got, err, c.want)
		}
	}
	if _, err := Max.MulRound(dec("2")); err == nil {
		t.Error("past Max taken")
	}
}

func TestInÖre(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "12.5": 1250, "-0.01": -1, "999999999999.99": 99999999999999} {
		if got := MustParse(s).InÖre(); got != want {
			t.Errorf("%s: %d öre, want %d", s, got, want)
		}
	}
	var zero Amount
	if zero.InÖre() != 0 || Öre(-12345).InÖre() != -12345 {
		t.Error("Öre does not round-trip")
	}
}
