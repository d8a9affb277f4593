// Package identifier checks and normalises Swedish identity numbers:
// organisationsnummer and personnummer (with samordningsnummer), all
// carrying a Luhn check digit.
package identifier

import (
	"errors"
	"strings"
	"time"
)

// Luhn reports whether the digit string passes the Luhn (mod 10) check
// with its last digit as the check digit.
func Luhn(digits string) bool {
	if len(digits) < 2 {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// Errors of the parsers; the messages are meant for details.issues.
var (
	ErrFormat     = errors.New("must be 10 digits (NNNNNN-NNNN) or 12 digits")
	ErrCheckDigit = errors.New("the check digit (Luhn) does not match")
	ErrNotOrg     = errors.New("is a personnummer, not an organisationsnummer")
	ErrNotPerson  = errors.New("is not a personnummer: the date part is not a valid date")
)

// digits strips the separators people write ("-", "+", spaces) and
// returns the digits and whether a "+" (age 100 or more) was present.
func digits(s string) (string, bool, error) {
	var b strings.Builder
	plus := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == ' ':
		case r == '+':
			plus = true
		default:
			return "", false, ErrFormat
		}
	}
	return b.String(), plus, nil
}

// OrgNumber checks an organisationsnummer (NNNNNN-NNNC, or the 12-digit
// form with prefix 16) and returns it as NNNNNN-NNNN.
func OrgNumber(s string) (string, error) {
	d, _, err := digits(s)
	if err != nil {
		return "", err
	}
	if len(d) == 12 && strings.HasPrefix(d, "16") {
		d = d[2:]
	}
	if len(d) != 10 {
		return "", ErrFormat
	}
	if !Luhn(d) {
		return "", ErrCheckDigit
	}
	if d[2] < '2' {
		return "", ErrNotOrg
	}
	return d[:6] + "-" + d[6:], nil
}

// PersonalNumber checks a personnummer or samordningsnummer (10 or 12
// digits) and returns it in the 10-digit form YYMMDD-NNNN (YYMMDD+NNNN for
// someone aged 100 or more), the form an enskild firma's
// organisationsnummer takes.
func PersonalNumber(s string) (string, error) {
	d, plus, err := digits(s)
	if err != nil {
		return "", err
	}
	var century string
	switch len(d) {
	case 12:
		century, d = d[:2], d[2:]
	case 10:
	default:
		return "", ErrFormat
	}
	if !Luhn(d) {
		return "", ErrCheckDigit
	}
	if !validDate(century, d[:6]) {
		return "", ErrNotPerson
	}
	sep := "-"
	if plus {
		sep = "+"
	}
	return d[:6] + sep + d[6:], nil
}

// validDate checks YYMMDD, with samordningsnummer days (+60) allowed.
func validDate(century, yymmdd string) bool {
	if century == "" {
		// The 10-digit form has no century. Leap years agree between 19xx
		// and 20xx except for 1900/2000, where 29 February is accepted.
		century = "20"
	}
	day := int(yymmdd[4]-'0')*10 + int(yymmdd[5]-'0')
	if day > 60 {
		day -= 60
	}
	t, err := time.Parse("20060102", century+yymmdd[:4]+"01")
	if err != nil || day < 1 {
		return false
	}
	return day <= t.AddDate(0, 1, -1).Day()
}

// Digits keeps the digits of a number written with separators
// (556677-8899, "SE 5566 7788 9901").
func Digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}
