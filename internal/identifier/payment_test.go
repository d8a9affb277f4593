package identifier

import "testing"

func TestPaymentNumbers(t *testing.T) {
	for s, ok := range map[string]bool{"5050-1055": true, "991-2346": true, "5050-1056": false, "12": false, "5050x1055": false} {
		if (Bankgiro(s) == nil) != ok {
			t.Errorf("Bankgiro(%q) ok = %v", s, !ok)
		}
	}
	for s, ok := range map[string]bool{"4512-0": true, "4512-5": false, "90 20 00-5": false, "1": false, "28 65 43-4": true} {
		if (Plusgiro(s) == nil) != ok {
			t.Errorf("Plusgiro(%q) ok = %v", s, !ok)
		}
	}
	for s, ok := range map[string]bool{"SE45 5000 0000 0583 9825 7466": true, "SE4550000000058398257467": false,
		"GB82 WEST 1234 5698 7654 32": true, "XX": false} {
		if (IBAN(s) == nil) != ok {
			t.Errorf("IBAN(%q) ok = %v", s, !ok)
		}
	}
	for s, ok := range map[string]bool{"SE556677889901": true, "SE556036079301": true, "SE55603607930": false, "SE556036079302": false} {
		if _, err := VATNumber(s); (err == nil) != ok {
			t.Errorf("VATNumber(%q) ok = %v", s, !ok)
		}
	}
}

func TestVATNumberFor(t *testing.T) {
	for org, want := range map[string]string{
		"556334-3689": "SE556334368901", // an aktiebolag
		"802481-1658": "SE802481165801", // an ideell förening
		"811218-9876": "SE811218987601", // a sole trader's personnummer
		"811218+9876": "SE811218987601",
		"556334-3688": "", // the Luhn digit is wrong
		"5563343":     "",
		"":            "",
	} {
		if got := VATNumberFor(org); got != want {
			t.Errorf("VATNumberFor(%q) = %q, want %q", org, got, want)
		}
		if want != "" {
			if _, err := VATNumber(want); err != nil {
				t.Errorf("%s does not pass VATNumber: %v", want, err)
			}
		}
	}
}
