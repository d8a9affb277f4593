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
