package money

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// SplitGross splits gross, an amount VAT included at rate percent (25, 12,
// 6), into its net and its VAT: the VAT is gross × rate / (100 + rate)
// rounded half away from zero to the öre, the net what is left, so the two
// always add up to gross (−10.00 at 12 %: −8.93 and −1.07).
func SplitGross(gross, rate Amount) (net, vat Amount, err error) {
	var denom, f apd.Decimal
	if _, err := ctx.Add(&denom, apd.New(100, 0), rate.dec()); err != nil {
		return Amount{}, Amount{}, err
	}
	if denom.IsZero() || denom.Negative {
		return Amount{}, Amount{}, fmt.Errorf("money: a VAT rate of %s percent", rate)
	}
	c := ctx.WithPrecision(40)
	if _, err := c.Quo(&f, rate.dec(), &denom); err != nil {
		return Amount{}, Amount{}, err
	}
	if vat, err = gross.MulRound(&f); err != nil {
		return Amount{}, Amount{}, err
	}
	return gross.Sub(vat), vat, nil
}

// VATOn is the VAT at rate percent on net, rounded half away from zero to
// the öre (reverse charge: the buyer's own VAT on what it paid).
func VATOn(net, rate Amount) (Amount, error) {
	var f apd.Decimal
	if _, err := ctx.Quo(&f, rate.dec(), apd.New(100, 0)); err != nil {
		return Amount{}, err
	}
	return net.MulRound(&f)
}

// Kronor is a in whole kronor as a tax form takes it: the öre are left
// out, truncating toward zero (-12.99 is -12), each field on its own.
func (a Amount) Kronor() int64 { return a.InÖre() / 100 }

// Kr is n whole kronor as an amount.
func Kr(n int64) Amount { return Öre(n * 100) }
