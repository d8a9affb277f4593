// Package peppol holds what Kontera needs of Peppol BIS Billing 3.0: the
// participant identifiers, the UBL 2.1 invoice and credit note a sale is
// sent as, the readiness rules checked before one is sent, and the access
// point that carries it into the network.
package peppol

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kontera/kontera/internal/identifier"
)

// ID is a Peppol participant identifier: an ICD scheme and a value.
type ID struct {
	Scheme, Value string
}

// The schemes Kontera accepts for Swedish participants.
const (
	SchemeOrgNumber = "0007" // Swedish organisationsnummer
	SchemeGLN       = "0088" // GS1 Global Location Number
	SchemeVAT       = "9955" // Swedish VAT number
)

// String writes the identifier as scheme:value.
func (id ID) String() string { return id.Scheme + ":" + id.Value }

// IsZero reports whether id is unset.
func (id ID) IsZero() bool { return id.Scheme == "" && id.Value == "" }

// ParseID reads scheme:value and checks the value by its scheme: 0007
// ten digits with a Luhn check digit, 0088 thirteen digits with the GS1
// check digit, 9955 SE + ten digits + 01. The value is stored compacted
// (no hyphen, upper case), so one participant has one spelling.
func ParseID(s string) (ID, error) {
	scheme, value, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || scheme == "" || value == "" {
		return ID{}, errors.New("must be scheme:value, such as 0007:5561234567")
	}
	value = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(value))
	switch scheme {
	case SchemeOrgNumber:
		if len(value) != 10 || !identifier.Luhn(value) {
			return ID{}, errors.New("0007 takes a 10-digit organisationsnummer with a valid check digit")
		}
	case SchemeGLN:
		if !GLN(value) {
			return ID{}, errors.New("0088 takes a 13-digit GLN with a valid GS1 check digit")
		}
	case SchemeVAT:
		if _, err := identifier.VATNumber(value); err != nil {
			return ID{}, errors.New("9955 takes a Swedish VAT number: SE, 10 digits with a valid check digit, 01")
		}
	default:
		return ID{}, fmt.Errorf("scheme %q is not one Kontera sends to: 0007 (organisationsnummer), 0088 (GLN) or 9955 (Swedish VAT number)", scheme)
	}
	return ID{Scheme: scheme, Value: value}, nil
}

// GLN reports whether s is 13 digits with a valid GS1 check digit: the
// digits before it weighted 1 and 3 alternately from the left, the check
// digit making their sum a multiple of ten.
func GLN(s string) bool {
	if len(s) != 13 {
		return false
	}
	sum := 0
	for i := 0; i < 13; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if i == 12 {
			return (sum+d)%10 == 0
		}
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return false
}

// OrgID is the 0007 identifier of an organisationsnummer, in either of
// its written forms; ok is false when it is not a valid one.
func OrgID(org string) (ID, bool) {
	id, err := ParseID(SchemeOrgNumber + ":" + org)
	return id, err == nil
}
