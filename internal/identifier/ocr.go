package identifier

import "strconv"

// MaxOCRPayload is the most digits of an invoice number an OCR reference
// carries: with its length and check digits it reaches Bankgirot's 25.
const MaxOCRPayload = 23

// OCR builds the payment reference of an invoice number: the number's
// digits, a length digit (the whole reference's length modulo 10) and a
// Luhn check digit over both, so it passes Bankgirot's hard check as well
// as the soft one. 2026-0042 gives 2026004206. A number with no digits,
// or more than MaxOCRPayload, has none (false).
func OCR(number string) (string, bool) {
	payload := make([]byte, 0, len(number)+2)
	for i := 0; i < len(number); i++ {
		if c := number[i]; c >= '0' && c <= '9' {
			payload = append(payload, c)
		}
	}
	if len(payload) == 0 || len(payload) > MaxOCRPayload {
		return "", false
	}
	payload = strconv.AppendInt(payload, int64((len(payload)+2)%10), 10)
	return string(append(payload, luhnDigit(payload))), true
}

// ValidOCR reports whether s is an OCR reference: 2 to 25 digits whose
// last is the Luhn check digit of the rest, and, when withLength, whose
// second to last is its length modulo 10.
func ValidOCR(s string, withLength bool) bool {
	if len(s) < 2 || len(s) > 25 || !Luhn(s) {
		return false
	}
	return !withLength || len(s) >= 3 && int(s[len(s)-2]-'0') == len(s)%10
}

// luhnDigit is the check digit that makes payload followed by it pass
// Luhn: payload holds digits only.
func luhnDigit(payload []byte) byte {
	sum := 0
	double := true // the check digit will be the rightmost, undoubled
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}
