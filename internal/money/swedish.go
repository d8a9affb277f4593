package money

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Swedish writes a the way a Swedish document prints an amount: spaces
// between thousands, a decimal comma and two decimals, "-12 500,00".
func (a Amount) Swedish() string {
	öre := a.InÖre()
	sign := ""
	if öre < 0 {
		sign, öre = "-", -öre
	}
	kr := strconv.FormatInt(öre/100, 10)
	return sign + thousands(kr) + "," + pad2(öre%100)
}

// Swedish writes q with a decimal comma and no trailing zeros: "2,5".
func (q Quantity) Swedish() string {
	s := q.String()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		frac = "," + frac
	}
	return sign + thousands(whole) + frac
}

// thousands groups a string of digits in threes with spaces.
func thousands(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// SwedishPercent writes a fraction as a Swedish percentage without
// trailing zeros: 0.25 is "25", 0.125 is "12,5".
func (a Amount) SwedishPercent() string {
	var p, r apd.Decimal
	p.Set(a.dec())
	p.Exponent += 2
	r.Reduce(&p)
	s := r.Text('f')
	return strings.Replace(s, ".", ",", 1)
}
