package peppol

import "testing"

func TestParseID(t *testing.T) {
	good := map[string]string{
		"0007:556123-4567":    "0007:5561234567",
		" 0007:5561234567 ":   "0007:5561234567",
		"0088:7300010000001":  "0088:7300010000001",
		"9955:se556123456701": "9955:SE556123456701",
	}
	for in, want := range good {
		id, err := ParseID(in)
		if err != nil || id.String() != want {
			t.Errorf("ParseID(%q) = %v, %v; want %s", in, id, err, want)
		}
	}
	for _, in := range []string{"", "5561234567", "0007:5561234568", "0007:55612345", "0088:7300010000002",
		"9955:SE556123456801", "0192:987654321", ":5561234567"} {
		if id, err := ParseID(in); err == nil {
			t.Errorf("ParseID(%q) = %v; want an error", in, id)
		}
	}
}

func TestGLN(t *testing.T) {
	// 730001000000 weighted 1,3,1,3…: 7+9+0+0+0+3+0+0+0+0+0+0 = 19 → check 1.
	if !GLN("7300010000001") || GLN("7300010000009") {
		t.Fatal("GS1 check digit misread")
	}
}
