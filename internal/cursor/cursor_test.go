package cursor

import (
	"strings"
	"testing"
)

type pos struct {
	At string `json:"at"`
	ID string `json:"id"`
}

func TestRoundTripAndTamper(t *testing.T) {
	c := New([]byte("secret"))
	s := c.Encode("companies", pos{"2026-11-21T10:00:00Z", "abc"})
	var p pos
	if !c.Decode("companies", s, &p) || p.ID != "abc" {
		t.Fatalf("round trip failed: %+v", p)
	}
	body, sig, _ := strings.Cut(s, ".")
	for name, bad := range map[string]string{
		"other list":    s,
		"flipped sig":   body + "." + strings.Repeat("A", len(sig)),
		"no signature":  body,
		"garbage":       "%%%not-a-cursor",
		"other secret":  New([]byte("other")).Encode("companies", pos{"x", "y"}),
		"empty payload": "." + sig,
	} {
		list := "companies"
		if name == "other list" {
			list = "audit"
		}
		var q pos
		if c.Decode(list, bad, &q) {
			t.Errorf("%s: decoded %+v", name, q)
		}
	}
}

func TestLimit(t *testing.T) {
	n := func(i int) *int { return &i }
	cases := []struct {
		in   *int
		want int
	}{{nil, 50}, {n(1), 1}, {n(100), 100}, {n(101), 100}, {n(5000), 100}, {n(0), 50}}
	for _, c := range cases {
		if got := Limit(c.in, DefaultLimit, MaxLimit); got != c.want {
			t.Errorf("Limit(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}
