package payroll

import (
	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/money"
)

// exact reckons without rounding: every step of a payslip stays exact
// until a line's amount is rounded once, to the öre, half up.
var exact = apd.BaseContext.WithPrecision(50)

// dec is a decimal constant.
func dec(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

// of is an amount as an exact decimal.
func of(a money.Amount) *apd.Decimal { return dec(a.String()) }

func mul(xs ...*apd.Decimal) *apd.Decimal {
	out := apd.New(1, 0)
	for _, x := range xs {
		if _, err := exact.Mul(out, out, x); err != nil {
			panic(err)
		}
	}
	return out
}

func quo(a, b *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if _, err := exact.Quo(out, a, b); err != nil {
		panic(err)
	}
	return out
}

func add(a, b *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if _, err := exact.Add(out, a, b); err != nil {
		panic(err)
	}
	return out
}

func sub(a, b *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if _, err := exact.Sub(out, a, b); err != nil {
		panic(err)
	}
	return out
}

// öre rounds x to the öre, half away from zero.
func öre(x *apd.Decimal) money.Amount {
	a, err := money.Kr(1).MulRound(x)
	if err != nil {
		panic(err)
	}
	return a
}

// kronorDown is x with its öre dropped (toward zero), as whole kronor.
func kronorDown(x *apd.Decimal) int64 {
	c := exact.WithPrecision(50)
	c.Rounding = apd.RoundDown
	var out apd.Decimal
	if _, err := c.Quantize(&out, x, 0); err != nil {
		panic(err)
	}
	n, err := out.Int64()
	if err != nil {
		panic(err)
	}
	return n
}

// minDec is the smaller of a and b.
func minDec(a, b *apd.Decimal) *apd.Decimal {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}
