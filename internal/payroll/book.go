package payroll

import (
	"sort"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Slip is what booking reads of one calculated payslip: the calculation
// and the tax and avgifter in effect (the overrides where set).
type Slip struct {
	Payslip  Payslip
	Tax      money.Amount
	Avgifter money.Amount
}

// Declaration is the arbetsgivaravgifter the AGI declares: per category,
// the persons' whole-krona bases summed and the avgift on them with the
// öre dropped.
type Declaration struct {
	Base   map[Category]int64
	Avgift map[Category]int64
	Total  int64
}

// Declare sums the slips' avgift parts by category (socialavgiftslagen
// 2 kap. 26 §; the AGI's field 487).
func Declare(slips []Slip) Declaration {
	d := Declaration{Base: map[Category]int64{}, Avgift: map[Category]int64{}}
	rates := map[Category]*apd.Decimal{}
	for _, s := range slips {
		for _, part := range s.Payslip.Avgifter {
			d.Base[part.Category] += kronorDown(of(part.Base))
			rates[part.Category] = part.Rate
		}
	}
	for c, base := range d.Base {
		d.Avgift[c] = Declared(rates[c], base)
		d.Total += d.Avgift[c]
	}
	return d
}

// Entries are the verifikat booking a run posts, in order:
//
//  1. the salaries: each cost account its lines' sum (so absence lowers
//     the salary account, and sjuklön less karens may come to nothing),
//     the tax-free allowances, nettolöneavdrag credited 2790; K 2710 the
//     tax withheld, K netPay the net paid;
//  2. the avgifter: D 7510 their sum at the öre, K 2731 what the AGI
//     declares in whole kronor, 3740 the difference;
//  3. the vacation liability when it moved: D 7290/7090 K 2920, and its
//     avgifter D 7519 K 2940 (a fall swaps the sides).
//
// Amounts of none leave a verifikat out.
func Entries(period string, slips []Slip, netPay string) ([]ledger.Input, Declaration) {
	var salaries, contributions, liability ledger.Booking
	var cost, avg, accrual tagged
	tax, net, avgifter, total, totalAvg := money.Amount{}, money.Amount{}, money.Amount{}, money.Amount{}, money.Amount{}
	for _, s := range slips {
		dims := s.Payslip.Dimensions
		for _, l := range s.Payslip.Lines {
			if l.Account != "" {
				cost.add(l.Account, dims, l.Amount)
			}
		}
		tax, net, avgifter = tax.Add(s.Tax), net.Add(s.Payslip.Net), avgifter.Add(s.Avgifter)
		avg.add(AccountAvgifter, dims, s.Avgifter)
		a := s.Payslip.Accrual
		accrual.add(a.Account, dims, a.Amount)
		accrual.add(AccountAccrualAvgifter, dims, a.Avgifter)
		total, totalAvg = total.Add(a.Amount), totalAvg.Add(a.Avgifter)
	}
	cost.book(&salaries)
	salaries.Add(AccountTax, tax, true, nil, nil)
	salaries.Add(netPay, net, true, nil, nil)
	var out []ledger.Input
	if len(salaries.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Löner " + period, Lines: salaries.Lines})
	}

	d := Declare(slips)
	avg.book(&contributions)
	contributions.Add(AccountAvgiftDebt, money.Kr(d.Total), true, nil, nil)
	contributions.Add(AccountRounding, avgifter.Sub(money.Kr(d.Total)), true, nil, nil)
	if len(contributions.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Arbetsgivaravgifter " + period, Lines: contributions.Lines})
	}

	accrual.book(&liability)
	liability.Add(AccountVacationLiability, total, true, nil, nil)
	liability.Add(AccountAccruedAvgifter, totalAvg, true, nil, nil)
	if len(liability.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Semesterlöneskuld " + period, Lines: liability.Lines})
	}
	return out, d
}

// tagged sums amounts by account and dimensions, in the order first met,
// so each cost account nets (an absence lowers the salary it was
// deducted from) before it is booked on its side.
type tagged struct {
	keys []taggedKey
	sums map[string]money.Amount
}

type taggedKey struct {
	key     string
	account string
	dims    ledger.Dimensions
}

func (t *tagged) add(account string, dims ledger.Dimensions, a money.Amount) {
	if t.sums == nil {
		t.sums = map[string]money.Amount{}
	}
	k := account + "|" + dimsKey(dims)
	if _, seen := t.sums[k]; !seen {
		t.keys = append(t.keys, taggedKey{key: k, account: account, dims: dims})
	}
	t.sums[k] = t.sums[k].Add(a)
}

// book debits each sum (a negative one credits).
func (t *tagged) book(b *ledger.Booking) {
	for _, k := range t.keys {
		b.Add(k.account, t.sums[k.key], false, k.dims, nil)
	}
}

func dimsKey(d ledger.Dimensions) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		out += k + "=" + d[k] + ";"
	}
	return out
}
