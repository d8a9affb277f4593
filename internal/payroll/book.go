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
	var salaries ledger.Booking
	sums := map[string]money.Amount{}
	var order []string
	tax, net := money.Amount{}, money.Amount{}
	for _, s := range slips {
		for _, l := range s.Payslip.Lines {
			if l.Account == "" {
				continue
			}
			if _, seen := sums[l.Account]; !seen {
				order = append(order, l.Account)
			}
			sums[l.Account] = sums[l.Account].Add(l.Amount)
		}
		tax, net = tax.Add(s.Tax), net.Add(s.Payslip.Net)
	}
	for _, a := range order {
		salaries.Add(a, sums[a], false, nil, nil)
	}
	salaries.Add(AccountTax, tax, true, nil, nil)
	salaries.Add(netPay, net, true, nil, nil)
	var out []ledger.Input
	if len(salaries.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Löner " + period, Lines: salaries.Lines})
	}

	d := Declare(slips)
	avgifter := money.Amount{}
	for _, s := range slips {
		avgifter = avgifter.Add(s.Avgifter)
	}
	var contributions ledger.Booking
	contributions.Add(AccountAvgifter, avgifter, false, nil, nil)
	contributions.Add(AccountAvgiftDebt, money.Kr(d.Total), true, nil, nil)
	contributions.Add(AccountRounding, avgifter.Sub(money.Kr(d.Total)), true, nil, nil)
	if len(contributions.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Arbetsgivaravgifter " + period, Lines: contributions.Lines})
	}

	var liability ledger.Booking
	accrued := map[string]money.Amount{}
	total, totalAvg := money.Amount{}, money.Amount{}
	for _, s := range slips {
		a := s.Payslip.Accrual
		accrued[a.Account] = accrued[a.Account].Add(a.Amount)
		total, totalAvg = total.Add(a.Amount), totalAvg.Add(a.Avgifter)
	}
	accounts := make([]string, 0, len(accrued))
	for a := range accrued {
		accounts = append(accounts, a)
	}
	sort.Strings(accounts)
	for _, a := range accounts {
		liability.Add(a, accrued[a], false, nil, nil)
	}
	liability.Add(AccountVacationLiability, total, true, nil, nil)
	liability.Add(AccountAccrualAvgifter, totalAvg, false, nil, nil)
	liability.Add(AccountAccruedAvgifter, totalAvg, true, nil, nil)
	if len(liability.Lines) > 0 {
		out = append(out, ledger.Input{Description: "Semesterlöneskuld " + period, Lines: liability.Lines})
	}
	return out, d
}
