package identifier

import (
	"errors"
	"math/big"
	"strings"
)

// Errors of the payment-number checks.
var (
	ErrBankgiro = errors.New("must be a bankgironummer: 7 or 8 digits (NNN-NNNN or NNNN-NNNN) with a valid Luhn check digit")
	ErrPlusgiro = errors.New("must be a plusgironummer: 2 to 8 digits (NNNNNN-N) with a valid Luhn check digit")
	ErrIBAN     = errors.New("must be an IBAN: country code, two check digits and up to 30 letters or digits, passing the mod-97 check")
	ErrVATNo    = errors.New("must be SE, a valid 10-digit organisation number or personnummer, and 01")
)

func onlyDigits(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == ' ':
		default:
			return "", false
		}
	}
	return b.String(), true
}

// Bankgiro checks a bankgironummer: 7 or 8 digits, the last a Luhn check
// digit over the whole number.
func Bankgiro(s string) error {
	d, ok := onlyDigits(s)
	if !ok || len(d) < 7 || len(d) > 8 || !Luhn(d) {
		return ErrBankgiro
	}
	return nil
}

// Plusgiro checks a plusgironummer: 2 to 8 digits, the last a Luhn check
// digit.
func Plusgiro(s string) error {
	d, ok := onlyDigits(s)
	if !ok || len(d) < 2 || len(d) > 8 || !Luhn(d) {
		return ErrPlusgiro
	}
	return nil
}

// IBAN checks an international bank account number (ISO 13616): moved
// four characters, letters as numbers, the whole mod 97 must be 1.
func IBAN(s string) error {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 15 || len(s) > 34 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' ||
		s[2] < '0' || s[2] > '9' || s[3] < '0' || s[3] > '9' {
		return ErrIBAN
	}
	var b strings.Builder
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
		default:
			return ErrIBAN
		}
	}
	n, _ := new(big.Int).SetString(b.String(), 10)
	if new(big.Int).Mod(n, big.NewInt(97)).Int64() != 1 {
		return ErrIBAN
	}
	return nil
}

// VATNumber checks a Swedish momsregistreringsnummer, SE + 10 digits + 01,
// and returns its 10 digits.
func VATNumber(s string) (string, error) {
	if len(s) != 14 || !strings.HasPrefix(s, "SE") || !strings.HasSuffix(s, "01") {
		return "", ErrVATNo
	}
	d, ok := onlyDigits(s[2:12])
	if !ok || len(d) != 10 || !Luhn(d) {
		return "", ErrVATNo
	}
	return d, nil
}

// VATNumberFor is the momsregistreringsnummer Skatteverket gives a
// company registered for VAT: SE, its organisationsnummer (a sole
// trader's personnummer) in 10 digits, and 01; "" when org is not one.
func VATNumberFor(org string) string {
	var d strings.Builder
	for _, r := range org {
		if r >= '0' && r <= '9' {
			d.WriteRune(r)
		}
	}
	if d.Len() != 10 || !Luhn(d.String()) {
		return ""
	}
	return "SE" + d.String() + "01"
}
