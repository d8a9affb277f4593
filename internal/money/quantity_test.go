package money

import (
	"encoding/json"
	"testing"
)

func TestQuantity(t *testing.T) {
	for in, want := range map[string]string{"2.5": "2.5", "10": "10", "0.125": "0.125", "1.2500": "1.25", "-3": "-3", "0": "0"} {
		q, err := ParseQuantity(in)
		if err != nil || q.String() != want {
			t.Errorf("%s: %s (%v), want %s", in, q, err, want)
		}
	}
	for _, bad := range []string{"1.23456", "NaN", "Inf", "x", "123456789012345"} {
		if _, err := ParseQuantity(bad); err == nil {
			t.Errorf("%s taken", bad)
		}
	}
	var q Quantity
	if err := json.Unmarshal([]byte(`"2"`), &q); err == nil {
		t.Error("a quoted quantity taken")
	}
	if err := json.Unmarshal([]byte(`1.5`), &q); err != nil || q.String() != "1.5" || q.Neg().String() != "-1.5" || q.Sign() != 1 {
		t.Errorf("1.5: %s %v", q, err)
	}
	b, _ := json.Marshal(struct{ Q Quantity }{q})
	if string(b) != `{"Q":1.5}` {
		t.Errorf("marshalled %s", b)
	}
	v, _ := q.Value()
	var back Quantity
	if err := back.Scan([]byte(v.(string))); err != nil || back.String() != "1.5" {
		t.Errorf("scanned %s (%v) from %v", back, err, v)
	}
	var zero Quantity
	if zero.String() != "0" || zero.Sign() != 0 {
		t.Errorf("zero value: %s", zero)
	}
}
