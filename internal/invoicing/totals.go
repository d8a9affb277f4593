package invoicing

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/money"
)

// VAT rates, in percent: the four Swedish ones.
var Rates = []int{25, 12, 6, 0}

// Deduction is the husavdrag a line's labour counts toward.
type Deduction string

// The deductions (peer §4.2). Grön teknik is not taken yet.
const (
	NoDeduction Deduction = ""
	ROT         Deduction = "rot"
	RUT         Deduction = "rut"
)

// Item is one line of an invoice as its totals see it. A text line
// carries words only. Amounts are in the invoice's currency, without VAT.
type Item struct {
	Text      bool
	Quantity  money.Quantity // > 0
	UnitPrice money.Amount   // ≥ 0
	Discount  money.Amount   // percent, 0 to 100
	VATRate   int            // one of Rates
	Deduction Deduction      // labour that counts toward ROT or RUT
}

// LineTotal is what one item comes to.
type LineTotal struct {
	Net money.Amount // quantity × unit price less the discount, to the öre
	VAT money.Amount // its share of its rate's VAT (see Compute)
}

// RateTotal is the taxable amount and the VAT of one rate.
type RateTotal struct {
	Rate     int
	Net, VAT money.Amount
}

// Totals is what an invoice comes to.
type Totals struct {
	Lines     []LineTotal // one per item, text lines zero
	ByRate    []RateTotal // the rates used, highest first
	Subtotal  money.Amount
	VAT       money.Amount
	Rounding  money.Amount // to whole kronor (öresavrundning): + up, − down
	Total     money.Amount // Subtotal + VAT + Rounding
	Deduction money.Amount // ROT/RUT, whole kronor, paid by Skatteverket
	ROT       money.Amount // the ROT part of Deduction (the rest is RUT)
	Customer  money.Amount // Total − Deduction: what the customer pays
}

// Options are the company's and the invoice's settings the totals follow.
type Options struct {
	OreRounding bool      // round the total to whole kronor
	Date        time.Time // the invoice date, which sets the ROT rate
}

var hundred = apd.New(100, 0)

// Compute reckons the totals of items. Each line's amount is rounded to
// the öre; VAT is reckoned per rate on the sum of its lines (the taxable
// amount of that rate, as Skatteverket has it) and then shared among the
// lines in whole öre, largest remainder first, so the lines' VAT adds up
// to the invoice's. Amounts are never negative here: a credit note is
// its original negated.
func Compute(items []Item, o Options) (Totals, error) {
	t := Totals{Lines: make([]LineTotal, len(items))}
	byRate := map[int][]int{} // rate → the items at it
	for i, it := range items {
		if it.Text {
			continue
		}
		if !slices.Contains(Rates, it.VATRate) {
			return Totals{}, fmt.Errorf("invoicing: %d %% is not a Swedish VAT rate", it.VATRate)
		}
		net, err := lineNet(it)
		if err != nil {
			return Totals{}, fmt.Errorf("invoicing: item %d: %w", i, err)
		}
		t.Lines[i].Net = net
		t.Subtotal = t.Subtotal.Add(net)
		byRate[it.VATRate] = append(byRate[it.VATRate], i)
	}
	for _, rate := range Rates {
		idx := byRate[rate]
		if len(idx) == 0 {
			continue
		}
		var net int64
		for _, i := range idx {
			net += t.Lines[i].Net.InÖre()
		}
		vat := halfUpWide(net, int64(rate), 100)
		share(t.Lines, idx, rate, vat)
		t.ByRate = append(t.ByRate, RateTotal{Rate: rate, Net: money.Öre(net), VAT: money.Öre(vat)})
		t.VAT = t.VAT.Add(money.Öre(vat))
	}
	t.Total = t.Subtotal.Add(t.VAT)
	if o.OreRounding {
		whole := halfUpWide(t.Total.InÖre(), 1, 100) * 100
		t.Rounding = money.Öre(whole).Sub(t.Total)
		t.Total = money.Öre(whole)
	}
	if t.Total.OverMax() {
		return Totals{}, errors.New("invoicing: the total is past the largest amount")
	}
	t.Deduction, t.ROT = deduction(items, t.Lines, o.Date)
	t.Customer = t.Total.Sub(t.Deduction)
	return t, nil
}

// lineNet is quantity × unit price × (100 − discount) / 100, to the öre.
func lineNet(it Item) (money.Amount, error) {
	var f, keep apd.Decimal
	c := apd.BaseContext.WithPrecision(40)
	discount, _, err := apd.NewFromString(it.Discount.String())
	if err != nil {
		return money.Amount{}, err
	}
	if _, err := c.Sub(&keep, hundred, discount); err != nil {
		return money.Amount{}, err
	}
	if _, err := c.Mul(&f, it.Quantity.Decimal(), &keep); err != nil {
		return money.Amount{}, err
	}
	if _, err := c.Quo(&f, &f, hundred); err != nil {
		return money.Amount{}, err
	}
	return it.UnitPrice.MulRound(&f)
}

// share gives the lines idx, all at rate, their part of vat öre: each
// line's exact VAT rounded down, and the öre left over one each to the
// lines with the largest remainders (the first among equals).
func share(lines []LineTotal, idx []int, rate int, vat int64) {
	rest := vat
	rems := make([]int64, len(idx))
	for k, i := range idx {
		exact := lines[i].Net.InÖre() * int64(rate)
		lines[i].VAT = money.Öre(exact / 100)
		rems[k] = exact % 100
		rest -= exact / 100
	}
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rems[a] > rems[b]:
			return -1
		case rems[a] < rems[b]:
			return 1
		}
		return 0
	})
	for _, k := range order {
		if rest <= 0 {
			break
		}
		i := idx[k]
		lines[i].VAT = lines[i].VAT.Add(money.Öre(1))
		rest--
	}
}

// ROT and RUT in percent of the labour's price with VAT. ROT was 50 %
// for work paid from 12 May to 31 December 2025; the invoice date stands
// for the day of payment, which the invoice asks for.
func deductionRate(d Deduction, day time.Time) int64 {
	switch d {
	case RUT:
		return 50
	case ROT:
		if !day.Before(rotRaised) && day.Before(rotLowered) {
			return 50
		}
		return 30
	}
	return 0
}

var (
	rotRaised  = time.Date(2025, 5, 12, 0, 0, 0, 0, time.UTC)
	rotLowered = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// deduction is the husavdrag of the labour lines, and its ROT part: their
// price with VAT times the rate, each kind in whole kronor rounded down
// (Skatteverket pays whole kronor, and never more than the rules give).
func deduction(items []Item, lines []LineTotal, day time.Time) (money.Amount, money.Amount) {
	labour := map[Deduction]int64{}
	for i, it := range items {
		if it.Deduction != NoDeduction && !it.Text {
			labour[it.Deduction] += lines[i].Net.InÖre() + lines[i].VAT.InÖre()
		}
	}
	var sum, rot int64
	for d, öre := range labour {
		part := öre * deductionRate(d, day) / 100 / 100 * 100
		sum += part
		if d == ROT {
			rot = part
		}
	}
	return money.Öre(sum), money.Öre(rot)
}
