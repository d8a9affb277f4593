// Package vat holds the VAT return (momsdeklaration): which box each
// account's turnover goes to, the return of a VAT period as a projection
// of the posted books, the eSKD file, the settlement verifikat that clears
// the VAT accounts, the record of filed periods and the EU sales list
// (periodisk sammanställning).
package vat

import (
	"sort"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/money"
)

// Boxes are the boxes (rutor) of the return, in form order; 49 is the
// only one computed from the others.
var Boxes = []string{"05", "06", "07", "08", "10", "11", "12", "20", "21", "22", "23", "24", "30", "31", "32",
	"35", "36", "37", "38", "39", "40", "41", "42", "48", "49", "50", "60", "61", "62"}

// outputBoxes are the boxes of tax to pay; 48 is the tax to deduct.
var outputBoxes = []string{"10", "11", "12", "30", "31", "32", "60", "61", "62"}

// debitSide are the boxes whose accounts count debit minus credit: the
// purchases taxed by reverse charge or import, and input VAT. The others
// count credit minus debit (sales, output VAT).
var debitSide = map[string]bool{"20": true, "21": true, "22": true, "23": true, "24": true, "48": true, "50": true}

type span struct{ lo, hi string }

// table is moms.md's mapping of the BAS accounts to boxes, the one
// bookkeeping programs ship for the BAS chart. Accounts it leaves out are
// not reported: vilande moms (2618, 2628, 2638, 2648) waits for its
// condition, OSS VAT (2670) goes in the OSS return, 3740 is rounding.
var table = map[string][]span{
	"05": {{"3000", "3003"}, {"3106", "3106"}, {"3500", "3520"}, {"3523", "3540"}, {"3543", "3599"},
		{"3600", "3699"}, {"3914", "3914"}},
	"06": {{"3401", "3403"}},
	"07": {{"3211", "3212"}},
	"08": {{"3913", "3913"}},
	"10": {{"2610", "2613"}, {"2616", "2616"}},
	"11": {{"2620", "2623"}, {"2626", "2626"}},
	"12": {{"2630", "2633"}, {"2636", "2636"}},
	"20": {{"4515", "4517"}},
	"21": {{"4535", "4537"}},
	"22": {{"4531", "4533"}},
	"23": {{"4415", "4417"}},
	"24": {{"4425", "4427"}},
	"30": {{"2614", "2614"}},
	"31": {{"2624", "2624"}},
	"32": {{"2634", "2634"}},
	"35": {{"3108", "3108"}, {"3521", "3521"}, {"3541", "3541"}},
	"36": {{"3105", "3105"}, {"3522", "3522"}, {"3542", "3542"}},
	"39": {{"3308", "3308"}},
	"40": {{"3305", "3305"}},
	"41": {{"3231", "3231"}},
	"42": {{"3004", "3004"}, {"3404", "3404"}},
	"48": {{"2640", "2642"}, {"2645", "2647"}, {"2649", "2649"}},
	"50": {{"4545", "4547"}},
	"60": {{"2615", "2615"}},
	"61": {{"2625", "2625"}},
	"62": {{"2635", "2635"}},
}

// TableBox is the box the BAS mapping puts account n in, "" for none.
func TableBox(n string) string {
	for box, spans := range table {
		for _, s := range spans {
			if n >= s.lo && n <= s.hi {
				return box
			}
		}
	}
	return ""
}

// salesBox and purchaseBox are where an account's VAT treatment puts its
// turnover: on a sales account (class 3) and a purchase account (class
// 4). A treatment missing from the map reports nothing.
var salesBox = map[string]string{
	"standard_25": "05", "reduced_12": "05", "reduced_6": "05", "own_use": "06", "vmb": "07",
	"rental_voluntary": "08", "reverse_charge_eu_goods": "35", "export_goods": "36",
	"triangulation_eu_goods": "38", "reverse_charge_eu_services": "39", "export_services": "40",
	"reverse_charge_non_eu_services": "40", "reverse_charge_domestic": "41", "exempt": "42",
}

var purchaseBox = map[string]string{
	"reverse_charge_eu_goods": "20", "reverse_charge_eu_services": "21", "reverse_charge_non_eu_services": "22",
	"reverse_charge_domestic": "24", "triangulation_eu_goods": "37", "import_goods": "50",
}

// Account is what decides where an account reports.
type Account struct {
	Number string
	// Box is the account's own vat_box (set on a 26xx account), if any.
	Box *string
	// Treatment and Rate are the account's default VAT treatment and rate.
	Treatment *string
	Rate      *money.Amount
}

// BoxOf is the box account a reports in, "" for none. The account's own
// vat_box rules a VAT account (26xx). On a sales or purchase account
// (classes 3-4) a VAT treatment the company set rules, where it is not
// the one the BAS chart gives the account anyway: the BAS table knows
// finer distinctions than a treatment (4415 goods and 4425 services are
// both domestic reverse charge; 4518 untaxed EU goods is not reported).
// An untaxed (rate 0) purchase under reverse charge reports nothing.
func BoxOf(a Account) string {
	if a.Box != nil && len(a.Number) == 4 && a.Number[:2] == "26" {
		return *a.Box
	}
	if a.Treatment != nil && len(a.Number) == 4 && (a.Number[0] == '3' || a.Number[0] == '4') {
		if b, ok := bas.Lookup(a.Number); !ok || b.VAT.Treatment != *a.Treatment {
			if a.Number[0] == '3' {
				return salesBox[*a.Treatment]
			}
			if a.Rate != nil && a.Rate.IsZero() && *a.Treatment != "import_goods" {
				return ""
			}
			return purchaseBox[*a.Treatment]
		}
	}
	return TableBox(a.Number)
}

// Turnover is an account's debits and credits over the period.
type Turnover struct {
	Debit, Credit money.Amount
}

// Return is the VAT return of a period: each box to the öre and as filed
// in whole kronor, and the accounts behind each box.
type Return struct {
	// Exact holds every box but 49 to the öre, and 49 from them.
	Exact map[string]money.Amount
	// Filed holds every box in whole kronor, each truncated toward zero,
	// and 49 computed from the truncated boxes, as Skatteverket takes it.
	Filed map[string]int64
	// Accounts lists per box the accounts it was read from, in number
	// order, with the amount each gave (signed as the box counts).
	Accounts map[string][]BoxAccount
}

// BoxAccount is one account's share of a box.
type BoxAccount struct {
	Account string
	Amount  money.Amount
}

// Declare computes the return from each account's turnover in the period
// (settlements already taken out) and where each account reports.
func Declare(turnover map[string]Turnover, boxOf map[string]string) Return {
	r := Return{Exact: map[string]money.Amount{}, Filed: map[string]int64{}, Accounts: map[string][]BoxAccount{}}
	for _, b := range Boxes {
		r.Exact[b] = money.Amount{}
		r.Accounts[b] = []BoxAccount{}
	}
	numbers := make([]string, 0, len(turnover))
	for n := range turnover {
		numbers = append(numbers, n)
	}
	sort.Strings(numbers)
	for _, n := range numbers {
		box := boxOf[n]
		if box == "" || box == "49" {
			continue
		}
		t := turnover[n]
		amt := t.Credit.Sub(t.Debit)
		if debitSide[box] {
			amt = amt.Neg()
		}
		if amt.IsZero() {
			continue
		}
		r.Exact[box] = r.Exact[box].Add(amt)
		r.Accounts[box] = append(r.Accounts[box], BoxAccount{Account: n, Amount: amt})
	}
	for _, b := range Boxes {
		if b != "49" {
			r.Filed[b] = r.Exact[b].Kronor()
		}
	}
	r.Exact["49"], r.Filed["49"] = net(r.Exact, r.Filed)
	return r
}

// net is box 49, to pay (positive) or to get back (negative): the output
// boxes less box 48, both to the öre and over the boxes as filed.
func net(exact map[string]money.Amount, filed map[string]int64) (money.Amount, int64) {
	e, f := exact["48"].Neg(), -filed["48"]
	for _, b := range outputBoxes {
		e, f = e.Add(exact[b]), f+filed[b]
	}
	return e, f
}

// VATAccounts are the accounts that hold a box's tax (26xx) among those
// of the chart: with a line on 2650 or 1650 beside one of them, an entry
// settles VAT rather than makes it.
func VATAccounts(boxOf map[string]string) []string {
	var out []string
	for n, b := range boxOf {
		if n[:2] == "26" && b != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
