package money

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	ok := map[string]string{
		"0.07": "0.07", "19.99": "19.99", "1250.5": "1250.50", "1e2": "100.00",
		"-42.1": "-42.10", "0": "0.00", "-0": "0.00", "9999999999999999.99": "9999999999999999.99",
	}
	for in, want := range ok {
		a, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if a.String() != want {
			t.Errorf("Parse(%q) = %s, want %s", in, a, want)
		}
	}
	for _, in := range []string{"12.345", "1.005", "10000000000000000.00", "NaN", "Inf", "abc", ""} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", in)
		}
	}
}

func TestArithmetic(t *testing.T) {
	a, b := MustParse("0.10"), MustParse("0.20")
	if got := a.Add(b); got.Cmp(MustParse("0.30")) != 0 {
		t.Errorf("0.10+0.20 = %s", got)
	}
	if got := a.Sub(b); got.String() != "-0.10" || got.Sign() != -1 {
		t.Errorf("0.10-0.20 = %s", got)
	}
	var zero Amount
	if zero.String() != "0.00" || !zero.IsZero() || zero.Add(a).String() != "0.10" {
		t.Errorf("zero value misbehaves: %s", zero)
	}
	if Öre(12345).String() != "123.45" || a.Neg().String() != "-0.10" {
		t.Error("Öre or Neg wrong")
	}
}

func TestJSON(t *testing.T) {
	var v struct{ A Amount }
	if err := json.Unmarshal([]byte(`{"A":1250.5}`), &v); err != nil || v.A.String() != "1250.50" {
		t.Fatalf("unmarshal: %v %s", err, v.A)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"A":1250.50}` {
		t.Errorf("marshal = %s", out)
	}
	for _, bad := range []string{`{"A":"12.00"}`, `{"A":null}`, `{"A":1.001}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("unmarshal %s succeeded", bad)
		}
	}
}

func TestScanValue(t *testing.T) {
	var a Amount
	if err := a.Scan([]byte("1234567890123456.78")); err != nil || a.String() != "1234567890123456.78" {
		t.Fatalf("scan: %v %s", err, a)
	}
	v, _ := a.Value()
	if v != "1234567890123456.78" {
		t.Errorf("value = %v", v)
	}
}

func TestTrailingZerosAreExact(t *testing.T) {
	for in, want := range map[string]string{"12.340": "12.34", "100.000": "100.00", "0.070": "0.07", "5.0000000": "5.00"} {
		a, err := Parse(in)
		if err != nil || a.String() != want {
			t.Errorf("Parse(%q) = %s, %v; want %s", in, a, err, want)
		}
	}
	for _, in := range []string{"12.341", "0.0701", "1.005"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded: a third significant decimal must be refused", in)
		}
	}
	if r, err := ParseRate("11.2345670"); err != nil || r.String() != "11.234567" {
		t.Errorf("ParseRate with a trailing zero = %s, %v", r, err)
	}
}

func TestMax(t *testing.T) {
	if Max.String() != "999999999999.99" || Max.OverMax() || !Max.Add(Öre(1)).OverMax() || !Max.Neg().Add(Öre(-1)).OverMax() {
		t.Errorf("Max or OverMax wrong: %s", Max)
	}
	var a Amount
	if err := a.Scan("12345678901234567890123456.78"); err != nil || a.String() != "12345678901234567890123456.78" {
		t.Errorf("a sum of 28 digits must scan: %v %s", err, a)
	}
	if _, err := Parse("12345678901234567890.00"); err == nil {
		t.Error("a request amount of 22 digits must be refused")
	}
}

func TestRateMatches(t *testing.T) {
	r := MustParseRate("11.234567")
	// EUR 100 at 11.234567 is 1123.4567 kronor.
	for _, sek := range []string{"1123.46", "1123.45"} {
		if !r.Matches(MustParse("100"), MustParse(sek)) {
			t.Errorf("100 × 11.234567 should match %s", sek)
		}
	}
	for _, sek := range []string{"5000.00", "1123.44", "1123.47"} {
		if r.Matches(MustParse("100"), MustParse(sek)) {
			t.Errorf("100 × 11.234567 must not match %s", sek)
		}
	}
	if !r.Matches(MustParse("-100"), MustParse("1123.46")) {
		t.Error("a storno's negated foreign amount must match")
	}
	if got := r.Convert(MustParse("100")); got.String() != "1123.46" {
		t.Errorf("Convert = %s", got)
	}
}
