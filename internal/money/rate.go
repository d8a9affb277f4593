package money

import (
	"database/sql/driver"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// RateDecimals is how many decimals an exchange rate keeps; Riksbanken
// publishes four, banks quote up to six.
const RateDecimals = 6

// Rate is an exchange rate: kronor per one unit of a foreign currency,
// exact, greater than 0 and below 100000, with at most six decimals.
type Rate struct{ d apd.Decimal }

// ParseRate reads a decimal string such as "11.4523" into a Rate.
func ParseRate(s string) (Rate, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form != apd.Finite {
		return Rate{}, fmt.Errorf("money: %q is not a rate", s)
	}
	var r Rate
	c := ctx.WithPrecision(40)
	c.Traps = apd.Inexact | apd.InvalidOperation // trailing zeros are exact
	if _, err := c.Quantize(&r.d, d, -RateDecimals); err != nil {
		return Rate{}, fmt.Errorf("money: rate %s has more than %d decimals", d, RateDecimals)
	}
	if r.d.Sign() <= 0 || r.d.Cmp(apd.New(100000, 0)) >= 0 {
		return Rate{}, fmt.Errorf("money: rate %s is not between 0 and 100000", d)
	}
	return r, nil
}

// String returns the rate without trailing zeros: "11.4523".
func (r Rate) String() string {
	var d apd.Decimal
	d.Reduce(&r.d)
	return d.Text('f')
}

// MarshalJSON writes a bare JSON number.
func (r Rate) MarshalJSON() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalJSON reads a JSON number; strings and null are refused.
func (r *Rate) UnmarshalJSON(b []byte) error {
	s, err := jsonNumber(b)
	if err != nil {
		return err
	}
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Value stores the rate as numeric text.
func (r Rate) Value() (driver.Value, error) { return r.String(), nil }

// Scan reads a numeric column.
func (r *Rate) Scan(src any) error {
	s, err := columnText(src, "Rate")
	if err != nil {
		return err
	}
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Convert returns foreign × r in kronor, rounded half up to the öre.
func (r Rate) Convert(foreign Amount) Amount {
	var exact, out Amount
	if _, err := ctx.Mul(&exact.d, foreign.dec(), &r.d); err != nil {
		panic(err) // cannot happen at 40 digits for 18 × 11 digits
	}
	c := ctx.WithPrecision(40)
	c.Rounding = apd.RoundHalfUp
	if _, err := c.Quantize(&out.d, &exact.d, -2); err != nil {
		panic(err)
	}
	return out
}

// Matches reports whether sek is foreign × r to within öre rounding: the
// exact product and sek differ by less than one öre, so either rounding
// of a half öre is accepted and nothing coarser is. Signs are ignored (a
// storno carries the foreign amount negated).
func (r Rate) Matches(foreign, sek Amount) bool {
	var exact, diff apd.Decimal
	if _, err := ctx.Mul(&exact, foreign.Abs().dec(), &r.d); err != nil {
		return false
	}
	if _, err := ctx.Sub(&diff, &exact, sek.Abs().dec()); err != nil {
		return false
	}
	diff.Abs(&diff)
	return diff.Cmp(apd.New(1, -2)) < 0
}

// MustParseRate is ParseRate for constants in code and tests; it panics
// on error.
func MustParseRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}
