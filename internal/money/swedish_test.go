package money

import "testing"

func TestSwedish(t *testing.T) {
	for in, want := range map[string]string{
		"12500": "12 500,00", "0": "0,00", "-1234567.5": "-1 234 567,50", "999.99": "999,99",
		"100": "100,00", "1000": "1 000,00", "0.05": "0,05",
	} {
		if got := MustParse(in).Swedish(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"2.5": "2,5", "10": "10", "1500": "1 500", "-0.25": "-0,25"} {
		q, err := ParseQuantity(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Swedish(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"0.25": "25", "0.12": "12", "0.06": "6", "0": "0", "12.5": "1250"} {
		if got := MustParse(in).SwedishPercent(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
