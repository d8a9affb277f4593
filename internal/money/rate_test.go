package money

import (
	"encoding/json"
	"testing"
)

func TestRate(t *testing.T) {
	for in, want := range map[string]string{"11.4523": "11.4523", "10.500000": "10.5", "1e1": "10", "0.000001": "0.000001"} {
		r, err := ParseRate(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseRate(%s) = %s, %v; want %s", in, r, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "100000", "1.0000001", "x", "NaN"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%s) accepted", in)
		}
	}
	var r Rate
	if err := json.Unmarshal([]byte(`"11.45"`), &r); err != ErrNotNumber {
		t.Errorf("a quoted rate: %v", err)
	}
	if err := r.Scan([]byte("11.452300")); err != nil || r.String() != "11.4523" {
		t.Errorf("scan: %s %v", r, err)
	}
}
