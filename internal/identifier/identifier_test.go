package identifier

import "testing"

func TestLuhn(t *testing.T) {
	for _, s := range []string{"8112189876", "5563343689", "5560000167", "5566778899"} {
		if !Luhn(s) {
			t.Errorf("Luhn(%s) = false", s)
		}
	}
	for _, s := range []string{"8112189875", "5563343680", "", "1", "55a"} {
		if Luhn(s) {
			t.Errorf("Luhn(%s) = true", s)
		}
	}
}

func TestOrgNumber(t *testing.T) {
	ideell := withCheck("802000000")
	ok := map[string]string{"556334-3689": "556334-3689", "5563343689": "556334-3689", "16556334-3689": "556334-3689",
		" " + ideell[:6] + "-" + ideell[6:] + " ": ideell[:6] + "-" + ideell[6:]}
	for in, want := range ok {
		if got, err := OrgNumber(in); err != nil || got != want {
			t.Errorf("OrgNumber(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]error{"556334-3680": ErrCheckDigit, "811218-9876": ErrNotOrg, "55633": ErrFormat, "55633x3689": ErrFormat}
	for in, want := range bad {
		if _, err := OrgNumber(in); err != want {
			t.Errorf("OrgNumber(%q) error = %v, want %v", in, err, want)
		}
	}
}

func TestPersonalNumber(t *testing.T) {
	ok := map[string]string{"811218-9876": "811218-9876", "198112189876": "811218-9876", "19811218-9876": "811218-9876", "811218+9876": "811218+9876"}
	for in, want := range ok {
		if got, err := PersonalNumber(in); err != nil || got != want {
			t.Errorf("PersonalNumber(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// Samordningsnummer: day + 60. 811278-987? with a valid check digit.
	if _, err := PersonalNumber(withCheck("811278987")); err != nil {
		t.Errorf("samordningsnummer refused: %v", err)
	}
	if _, err := PersonalNumber(withCheck("811332987")); err != ErrNotPerson {
		t.Errorf("month 13 accepted: %v", err)
	}
	if _, err := PersonalNumber("811218-9875"); err != ErrCheckDigit {
		t.Errorf("bad check digit: %v", err)
	}
	if _, err := PersonalNumber("556334-3689"); err == nil {
		t.Error("an organisationsnummer passed as a personnummer")
	}
}

// withCheck appends the Luhn check digit to a 9-digit payload.
func withCheck(p string) string {
	for c := '0'; c <= '9'; c++ {
		if Luhn(p + string(c)) {
			return p + string(c)
		}
	}
	panic("no check digit")
}
