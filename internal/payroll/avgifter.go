package payroll

import (
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/money"
)

// Category is how the law rates a person's pay for arbetsgivaravgifter;
// the AGI declares each category's sum on its own.
type Category string

// The categories (socialavgiftslagen 2 kap. 26–31 §§).
const (
	// CategoryStandard is full avgifter (2 kap. 26 §).
	CategoryStandard Category = "standard"
	// CategoryPensioner is only ålderspensionsavgift, for those 66 or more
	// at the start of the year (2 kap. 27 §).
	CategoryPensioner Category = "pensioner"
	// CategoryExempt is none at all, for those born 1937 or earlier
	// (2 kap. 31 §).
	CategoryExempt Category = "exempt"
	// CategoryYouth is the temporary reduction for those 18–22 at the
	// start of the year (2 kap. 27 a §, SFS 2026 changes).
	CategoryYouth Category = "youth"
	// CategoryNone is pay no avgifter are due on: under 1 000 kr a year,
	// or paid to an F-skatt holder.
	CategoryNone Category = "none"
)

// Youth is a temporary reduced rate for the young: those born from
// BornFrom through BornThrough, on pay paid from From through Through,
// up to Ceiling a month; above it the standard rate.
type Youth struct {
	BornFrom, BornThrough int
	From, Through         time.Time
	Rate                  *apd.Decimal
	Ceiling               money.Amount
}

// Rates are one year's arbetsgivaravgifter, by the payment date's year.
type Rates struct {
	Year int
	// Standard is the full rate; Components name its parts.
	Standard   *apd.Decimal
	Components map[string]*apd.Decimal
	// Pensioner is the rate of those born PensionerBornThrough or
	// earlier (but after ExemptBornThrough).
	Pensioner            *apd.Decimal
	PensionerBornThrough int
	// ExemptBornThrough: those born this year or earlier pay none.
	ExemptBornThrough int
	Youth             *Youth
	// Source names where the figures were taken from.
	Source string
}

// Floor is the yearly pay to one person below which no avgifter are due
// (socialavgiftslagen 2 kap. 1 § third paragraph).
var Floor = money.Kr(1000)

func pct(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	d.Exponent -= 2
	return d
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// rates holds the years shipped. A payment date in a year not here is
// refused (SALARY_PAYROLL_CONFIG_MISSING), never guessed.
var rates = map[int]Rates{
	2025: {Year: 2025, Standard: pct("31.42"), Components: standardParts(), Pensioner: pct("10.21"),
		PensionerBornThrough: 1958, ExemptBornThrough: 1937,
		Source: "Skatteverket, Arbetsgivaravgifter 2025; socialavgiftslagen (2000:980) 2 kap."},
	2026: {Year: 2026, Standard: pct("31.42"), Components: standardParts(), Pensioner: pct("10.21"),
		PensionerBornThrough: 1959, ExemptBornThrough: 1937,
		Youth: &Youth{BornFrom: 2003, BornThrough: 2007, From: day(2026, time.April, 1), Through: day(2027, time.September, 30),
			Rate: pct("20.81"), Ceiling: money.Kr(25000)},
		Source: "Skatteverket, Arbetsgivaravgifter 2026; socialavgiftslagen (2000:980) 2 kap., the youth reduction 1 April 2026–30 September 2027"},
}

func standardParts() map[string]*apd.Decimal {
	return map[string]*apd.Decimal{"alderspensionsavgift": pct("10.21"), "efterlevandepensionsavgift": pct("0.30"),
		"sjukforsakringsavgift": pct("3.55"), "foraldraforsakringsavgift": pct("2.00"), "arbetsmarknadsavgift": pct("2.64"),
		"arbetsskadeavgift": pct("0.10"), "allman_loneavgift": pct("12.62")}
}

// RatesFor answers the rates of the payment date's year; ok is false for
// a year Kontera does not ship.
func RatesFor(payment time.Time) (Rates, bool) {
	r, ok := rates[payment.Year()]
	return r, ok
}

// Part is one category's share of a person's pay and the avgifter on it.
type Part struct {
	Category Category     `json:"category"`
	Rate     *apd.Decimal `json:"rate"`
	Base     money.Amount `json:"base"`
	Avgift   money.Amount `json:"avgift"`
}

// Avgifter splits a month's avgift base of a person born in birthYear,
// paid on payment, into its categories and books each at the öre (half
// up). A youth's pay above the ceiling is standard-rated.
func (r Rates) Avgifter(birthYear int, payment time.Time, base money.Amount) []Part {
	if base.IsZero() {
		return nil
	}
	switch {
	case birthYear <= r.ExemptBornThrough:
		return []Part{{Category: CategoryExempt, Rate: new(apd.Decimal), Base: base, Avgift: money.Amount{}}}
	case birthYear <= r.PensionerBornThrough:
		return []Part{part(CategoryPensioner, r.Pensioner, base)}
	}
	if y := r.Youth; y != nil && birthYear >= y.BornFrom && birthYear <= y.BornThrough &&
		!payment.Before(y.From) && !payment.After(y.Through) {
		if base.Cmp(y.Ceiling) <= 0 || base.Sign() < 0 {
			return []Part{part(CategoryYouth, y.Rate, base)}
		}
		return []Part{part(CategoryYouth, y.Rate, y.Ceiling), part(CategoryStandard, r.Standard, base.Sub(y.Ceiling))}
	}
	return []Part{part(CategoryStandard, r.Standard, base)}
}

func part(c Category, rate *apd.Decimal, base money.Amount) Part {
	a, err := base.MulRound(rate)
	if err != nil {
		panic(err) // a month's pay within Max times at most 31.42 % is within Max
	}
	return Part{Category: c, Rate: rate, Base: base, Avgift: a}
}

// Declared is what the AGI declares for a category: the whole-krona
// bases of its persons summed, times the rate, the öre dropped
// (socialavgiftslagen 2 kap. 26 §; SFL 26 kap. 19 §).
func Declared(rate *apd.Decimal, wholeKronor int64) int64 {
	return kronorDown(mul(apd.New(wholeKronor, 0), rate)) // toward zero: a correction's negative too
}
