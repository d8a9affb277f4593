// Package money holds Amount, the one type every amount in Kontera has:
// an exact decimal with two decimals (öre), never a float.
package money

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MaxDigits is the most significant digits an amount read from a request
// may have; it matches the numeric(18,2) columns amounts are stored in.
const MaxDigits = 18

// SumDigits is the most significant digits a sum read from the database
// may have: the month balances are numeric(28,2), so no reachable count
// of postings overflows them.
const SumDigits = 28

// Max is the largest amount one line, one entry's total or one account's
// balance may have: 999 999 999 999.99 kronor. The document states it as
// the bound of every Amount; the ledger refuses an entry or a balance past
// it, so every figure the books hold fits its column with room to spare.
var Max = MustParse("999999999999.99")

// ctx rounds nothing silently: an amount with more than two decimals is an
// error, not a rounded value.
var ctx = apd.BaseContext.WithPrecision(40)

// Amount is an exact amount in a currency's major unit with two decimals.
// The zero value is 0.00.
type Amount struct{ d apd.Decimal }

// ErrNotNumber is returned when JSON holds something other than a number.
var ErrNotNumber = errors.New("money: amount must be a JSON number")

// Parse reads a decimal string such as "1250.5" or "1e2" into an Amount. It
// refuses more than two decimals, more than MaxDigits digits, NaN and
// infinities.
func Parse(s string) (Amount, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return Amount{}, fmt.Errorf("money: %q is not a number", s)
	}
	return fromDecimal(d)
}

func fromDecimal(d *apd.Decimal) (Amount, error) {
	return fromDecimalDigits(d, MaxDigits)
}

func fromDecimalDigits(d *apd.Decimal, digits int64) (Amount, error) {
	if d.Form != apd.Finite {
		return Amount{}, fmt.Errorf("money: %s is not a finite amount", d)
	}
	var a Amount
	c := ctx.WithPrecision(40)
	// Inexact, not Rounded: 12.340 loses only a zero and is exactly 12.34;
	// 12.345 would lose a 5.
	c.Traps = apd.Inexact | apd.InvalidOperation
	if _, err := c.Quantize(&a.d, d, -2); err != nil {
		return Amount{}, fmt.Errorf("money: %s has more than two decimals", d)
	}
	if a.d.NumDigits() > digits {
		return Amount{}, fmt.Errorf("money: %s has more than %d digits", d, digits)
	}
	if a.d.IsZero() {
		a.d.Negative = false
	}
	return a, nil
}

// MustParse is Parse for constants in code and tests; it panics on error.
func MustParse(s string) Amount {
	a, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// Öre returns the amount of n öre (hundredths).
func Öre(n int64) Amount {
	var a Amount
	a.d.SetFinite(n, -2)
	return a
}

func (a Amount) dec() *apd.Decimal {
	if a.d.Exponent == 0 && a.d.IsZero() {
		var z apd.Decimal
		z.SetFinite(0, -2)
		return &z
	}
	return &a.d
}

// Add returns a+b.
func (a Amount) Add(b Amount) Amount {
	var r Amount
	if _, err := ctx.Add(&r.d, a.dec(), b.dec()); err != nil {
		panic(err) // cannot happen at 40 digits of precision for 18-digit inputs
	}
	return r
}

// Sub returns a-b.
func (a Amount) Sub(b Amount) Amount {
	var r Amount
	if _, err := ctx.Sub(&r.d, a.dec(), b.dec()); err != nil {
		panic(err)
	}
	return r
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	var r Amount
	r.d.Neg(a.dec())
	return r
}

// Abs returns |a|.
func (a Amount) Abs() Amount {
	var r Amount
	r.d.Abs(a.dec())
	return r
}

// OverMax reports whether |a| is past Max.
func (a Amount) OverMax() bool { return a.Abs().Cmp(Max) > 0 }

// Cmp compares a and b: -1, 0 or +1.
func (a Amount) Cmp(b Amount) int { return a.dec().Cmp(b.dec()) }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int { return a.dec().Sign() }

// IsZero reports whether a is 0.00.
func (a Amount) IsZero() bool { return a.dec().IsZero() }

// String returns the amount with exactly two decimals: "1250.50".
func (a Amount) String() string { return a.dec().Text('f') }

// MarshalJSON writes a bare JSON number with two decimals.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalJSON reads a JSON number; strings and null are refused.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s, err := jsonNumber(b)
	if err != nil {
		return err
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Value stores the amount as numeric text.
func (a Amount) Value() (driver.Value, error) { return a.String(), nil }

// Scan reads a numeric column: an amount, or a sum of up to SumDigits
// digits.
func (a *Amount) Scan(src any) error {
	s, err := columnText(src, "Amount")
	if err != nil {
		return err
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return fmt.Errorf("money: %q is not a number", s)
	}
	v, err := fromDecimalDigits(d, SumDigits)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// jsonNumber is the text of a JSON number; strings and null are refused,
// so an amount never arrives quoted.
func jsonNumber(b []byte) (string, error) {
	if len(b) == 0 || b[0] == '"' || string(b) == "null" {
		return "", ErrNotNumber
	}
	return string(b), nil
}

// columnText is the text of a numeric column as the driver hands it over.
func columnText(src any, into string) (string, error) {
	switch v := src.(type) {
	case []byte:
		return string(v), nil
	case string:
		return v, nil
	case int64:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("money: cannot scan %T into %s", src, into)
}
