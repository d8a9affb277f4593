package money

import (
	"database/sql/driver"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// QuantityDecimals is how many decimals a quantity keeps: 1.5 hours,
// 0.125 kg, 2.0625 m².
const QuantityDecimals = 4

// Quantity is an exact count of units on an invoice line, with at most
// four decimals; a credit note's is negated. Like Amount, it travels as a
// bare JSON number and never as a float.
type Quantity struct{ d apd.Decimal }

// ParseQuantity reads a decimal such as "2.5" into a Quantity, refusing
// more than QuantityDecimals decimals, more than 14 digits, NaN and
// infinities.
func ParseQuantity(s string) (Quantity, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form != apd.Finite {
		return Quantity{}, fmt.Errorf("money: %q is not a quantity", s)
	}
	var q Quantity
	c := ctx.WithPrecision(40)
	c.Traps = apd.Inexact | apd.InvalidOperation
	if _, err := c.Quantize(&q.d, d, -QuantityDecimals); err != nil {
		return Quantity{}, fmt.Errorf("money: quantity %s has more than %d decimals", d, QuantityDecimals)
	}
	if q.d.NumDigits() > 14 {
		return Quantity{}, fmt.Errorf("money: quantity %s has more than 14 digits", d)
	}
	if q.d.IsZero() {
		q.d.Negative = false
	}
	return q, nil
}

// Decimal is the quantity as an exact decimal, for reckoning with.
func (q Quantity) Decimal() *apd.Decimal {
	d := q.d
	if d.Form == apd.Finite && d.Exponent == 0 && d.IsZero() {
		d.SetFinite(0, -QuantityDecimals)
	}
	return &d
}

// Neg returns -q.
func (q Quantity) Neg() Quantity {
	var out Quantity
	out.d.Neg(q.Decimal())
	return out
}

// Sign returns -1, 0 or +1.
func (q Quantity) Sign() int { return q.Decimal().Sign() }

// String returns the quantity without trailing zeros: "2.5", "10".
func (q Quantity) String() string {
	var r apd.Decimal
	r.Reduce(q.Decimal())
	return r.Text('f')
}

// MarshalJSON writes a bare JSON number.
func (q Quantity) MarshalJSON() ([]byte, error) { return []byte(q.String()), nil }

// UnmarshalJSON reads a JSON number; strings and null are refused.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	s, err := jsonNumber(b)
	if err != nil {
		return err
	}
	return q.set(s)
}

// Value stores the quantity as numeric text.
func (q Quantity) Value() (driver.Value, error) { return q.Decimal().Text('f'), nil }

// Scan reads a numeric column.
func (q *Quantity) Scan(src any) error {
	s, err := columnText(src, "Quantity")
	if err != nil {
		return err
	}
	return q.set(s)
}

func (q *Quantity) set(s string) error {
	v, err := ParseQuantity(s)
	if err == nil {
		*q = v
	}
	return err
}
