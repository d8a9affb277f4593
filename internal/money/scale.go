package money

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MulRound returns a × f rounded half away from zero to the öre: a line's
// amount from its unit price and quantity, or a share of an amount. It
// errs past Max, as an amount read from a request would.
func (a Amount) MulRound(f *apd.Decimal) (Amount, error) {
	var exact apd.Decimal
	if _, err := ctx.Mul(&exact, a.dec(), f); err != nil {
		return Amount{}, fmt.Errorf("money: %s × %s: %w", a, f, err)
	}
	c := ctx.WithPrecision(60)
	c.Rounding = apd.RoundHalfUp
	var out Amount
	if _, err := c.Quantize(&out.d, &exact, -2); err != nil {
		return Amount{}, fmt.Errorf("money: %s × %s: %w", a, f, err)
	}
	if out.OverMax() {
		return Amount{}, fmt.Errorf("money: %s × %s is past %s", a, f, Max)
	}
	if out.d.IsZero() {
		out.d.Negative = false
	}
	return out, nil
}

// InÖre returns a as a count of öre. Every Amount within Max fits.
func (a Amount) InÖre() int64 {
	var n apd.Decimal
	if _, err := ctx.Quantize(&n, a.dec(), -2); err != nil || !n.Coeff.IsInt64() {
		panic(fmt.Sprintf("money: %s does not fit in öre", a))
	}
	if n.Negative {
		return -n.Coeff.Int64()
	}
	return n.Coeff.Int64()
}
