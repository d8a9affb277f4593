package payables

import (
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The accounts a supplier invoice books on besides its lines.
const (
	Payable        = "2440" // leverantörsskulder
	InputVAT       = "2641" // debiterad ingående moms
	Rounding       = "3740" // öres- och kronutjämning
	SLPCost        = "7533" // särskild löneskatt för pensionskostnader
	SLPDebt        = "2514" // beräknad särskild löneskatt
	FXGain         = "3960" // valutakursvinster på fordringar och skulder av rörelsekaraktär
	FXLoss         = "7960" // valutakursförluster på fordringar och skulder av rörelsekaraktär
	DefaultPayment = "1930"
)

// SLPRate is särskild löneskatt on pension costs: 24.26 %.
var SLPRate = apd.New(2426, -4)

// percent is amount × pct %, half up to the öre.
func percent(amount money.Amount, pct int64) money.Amount {
	v, err := amount.MulRound(apd.New(pct, -2))
	if err != nil {
		panic(err) // a line within Max times at most 25 % is within Max
	}
	return v
}

// toKrona rounds a to whole kronor, half up (öresavrundning).
func toKrona(a money.Amount) money.Amount {
	ore := a.InÖre()
	q, r := ore/100, ore%100
	switch {
	case r >= 50:
		q++
	case r <= -50:
		q--
	}
	return money.Öre(q * 100)
}

// sekOf converts an amount of inv's currency to kronor at its rate.
func sekOf(inv Invoice, a money.Amount) money.Amount {
	if inv.ExchangeRate == nil {
		return a
	}
	return inv.ExchangeRate.Convert(a)
}

// tags are a line's dimensions over the invoice's defaults: the line's
// win per key.
func tags(inv Invoice, it Item) ledger.Dimensions {
	out := ledger.Dimensions{}
	for k, v := range inv.DefaultDimensions {
		out[k] = v
	}
	for k, v := range it.Dimensions {
		out[k] = v
	}
	return out
}

// costs are the debits (and a negative line's credits) a supplier
// invoice books in kronor besides what it owes: each line on its account
// (or, accrued, on the account its cost waits on), input VAT on 2641, or
// under reverse charge the buyer's output VAT (2614/2624/2634, import
// 2615/…) against input VAT (2645, domestic 2647) — in another currency
// the rate of the lines' kronor, per rate, rounded once — special payroll tax
// on 7533 against 2514, and öresavrundning on 3740.
//
// An accrued line's cost waits on its 17xx account, but for the kronor
// released says have reached its cost account already (a credit takes
// each back from where it is). A foreign invoice's lines are converted
// one by one; what their öre roundings leave against the total at the
// rate goes on 3740 too, so 2440 carries exactly total × rate.
func costs(inv Invoice, released map[uuid.UUID]money.Amount) ledger.Booking {
	var b ledger.Booking
	var vat money.Amount
	type rc struct{ out, input string }
	reverse, base, rate := map[rc]money.Amount{}, map[rc]money.Amount{}, map[rc]money.Amount{}
	var order []rc
	for _, it := range inv.Items {
		net := sekOf(inv, it.Amount)
		d := it.Description
		if it.AccrualAccount != nil {
			done := released[it.ID]
			b.Add(it.Account, done, false, tags(inv, it), &d)
			b.Add(*it.AccrualAccount, net.Sub(done), false, tags(inv, it), &d)
		} else {
			b.Add(it.Account, net, false, tags(inv, it), &d)
		}
		tax := sekOf(inv, it.VAT)
		if inv.ReverseCharge {
			pct := it.VATRate.InÖre()
			f, _ := family(it.Account, pct)
			k := rc{out: bump(reverseCharged[f].out, outStep[pct]), input: reverseCharged[f].input}
			if _, seen := reverse[k]; !seen {
				order = append(order, k)
			}
			reverse[k], base[k], rate[k] = reverse[k].Add(tax), base[k].Add(net), it.VATRate
		} else {
			vat = vat.Add(tax)
		}
		if it.SLP {
			slp, err := net.MulRound(SLPRate)
			if err != nil {
				panic(err)
			}
			b.Add(SLPCost, slp, false, tags(inv, it), nil)
			b.Add(SLPDebt, slp, true, nil, nil)
		}
	}
	b.Add(InputVAT, vat, false, nil, nil)
	for _, k := range order {
		if inv.ExchangeRate != nil {
			// The buyer's VAT is the rate of the kronor base, rounded
			// once (ML 11 kap.): not the currency's VAT converted, which
			// is off by öre.
			reverse[k] = share(base[k], rate[k], whole)
		}
		b.Add(k.input, reverse[k], false, nil, nil)
		b.Add(k.out, reverse[k], true, nil, nil)
	}
	b.Add(Rounding, sekOf(inv, inv.Rounding), false, nil, nil)
	if inv.ExchangeRate != nil {
		b.Add(Rounding, inv.ExchangeRate.Convert(inv.Total).Sub(net(b.Lines)), false, nil, nil)
	}
	return b
}

// whole is 100 %, what a VAT rate (0.25) is a share of.
var whole = money.Öre(100)

// bump is account n moved by step: "2614" + 10 = "2624".
func bump(account string, step int) string {
	n := 0
	for _, c := range account {
		n = n*10 + int(c-'0')
	}
	n += step
	return string([]byte{byte('0' + n/1000), byte('0' + n/100%10), byte('0' + n/10%10), byte('0' + n%10)})
}

// creditorSEK is what a registration credits 2440 with: the kronor of its
// costs, debits less credits, so the verifikat balances to the öre
// however its lines were rounded.
func creditorSEK(inv Invoice) money.Amount {
	var sum money.Amount
	for _, l := range costs(inv, nil).Lines {
		sum = sum.Add(l.Debit).Sub(l.Credit)
	}
	return sum
}

// Registration is the verifikat that books a supplier invoice under
// faktureringsmetoden: its costs against 2440, which carries the
// invoice's currency and rate.
func Registration(inv Invoice) []ledger.Line {
	b := costs(inv, nil)
	b.Lines = append(b.Lines, payableLine(inv, inv.TotalSEK, inv.Total, true))
	return b.Lines
}

// payableLine is 2440 for sek (foreign in the invoice's currency),
// credited or debited.
func payableLine(inv Invoice, sek, foreign money.Amount, credit bool) ledger.Line {
	l := ledger.Line{Account: Payable, Dimensions: ledger.Dimensions{}}
	if sek.Sign() < 0 {
		sek, foreign, credit = sek.Neg(), foreign.Neg(), !credit
	}
	if credit {
		l.Credit = sek
	} else {
		l.Debit = sek
	}
	if inv.Currency != "SEK" {
		cur, f := inv.Currency, foreign
		l.Currency, l.AmountInCurrency, l.ExchangeRate = &cur, &f, inv.ExchangeRate
	}
	return l
}

// share is whole × part / of, half away from zero to the öre: the part
// of a line a payment settles.
func share(whole, part, of money.Amount) money.Amount {
	if part.Cmp(of) == 0 {
		return whole
	}
	n := new(big.Int).Mul(big.NewInt(whole.InÖre()), big.NewInt(part.InÖre()))
	d := big.NewInt(of.InÖre())
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	// Half away from zero: |2r| >= |d| moves q one away from zero.
	if new(big.Int).Abs(new(big.Int).Mul(r, big.NewInt(2))).Cmp(new(big.Int).Abs(d)) >= 0 {
		if n.Sign()*d.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return money.Öre(q.Int64())
}

// CashLines are the costs a payment of now, after before was paid,
// books under kontantmetoden: each cost line's share of what is paid
// after it less its share of what was paid before. The largest debit
// takes what the others' rounding leaves, so the lines of each payment
// come to exactly its share of the invoice in kronor, and the payments
// of an invoice to its costs. They come without the payment's own line.
func CashLines(inv Invoice, before, now money.Amount) []ledger.Line {
	after := before.Add(now)
	all := costs(inv, nil).Lines
	plug := 0
	for i, l := range all {
		if l.Debit.Cmp(all[plug].Debit) > 0 {
			plug = i
		}
	}
	cumulative := func(paid money.Amount) []money.Amount {
		out := make([]money.Amount, len(all))
		rest := share(inv.TotalSEK, paid, inv.Total)
		for i, l := range all {
			if i == plug {
				continue
			}
			out[i] = share(l.Debit.Sub(l.Credit), paid, inv.Total)
			rest = rest.Sub(out[i])
		}
		out[plug] = rest
		return out
	}
	was, is := cumulative(before), cumulative(after)
	var b ledger.Booking
	for i, l := range all {
		b.Add(l.Account, is[i].Sub(was[i]), false, l.Dimensions, l.Description)
	}
	return b.Lines
}

// net is the debits less the credits of lines.
func net(lines []ledger.Line) money.Amount {
	var sum money.Amount
	for _, l := range lines {
		sum = sum.Add(l.Debit).Sub(l.Credit)
	}
	return sum
}

// SourcePrivate is the source type of the one verifikat of an invoice
// paid with private funds: registered and paid at once.
const SourcePrivate = "supplier_invoice_privately_paid"

// The accounts an invoice paid with private funds is owed on: the owner
// of an aktiebolag (2893), of an enskild firma (2018), a member of an
// ideell förening (2890), or an employee (2820).
const (
	OwedToOwnerAB = "2893"
	OwedToOwnerEF = "2018"
	OwedToMember  = "2890"
	OwedEmployee  = "2820"
)

// PrivateAccount is the account an invoice paid with private funds is
// owed on.
func PrivateAccount(inv Invoice, entityType string) string {
	return OwedAccount(inv.EmployeeID != nil, entityType)
}

// OwedAccount is the account what someone paid for the company out of
// their own pocket is owed on: an employee's (2820), else the owner's by
// the company's form (2893 an aktiebolag's, 2018 an enskild firma's
// own deposit, 2890 a förening's member).
func OwedAccount(employee bool, entityType string) string {
	switch {
	case employee:
		return OwedEmployee
	case entityType == "enskild_firma":
		return OwedToOwnerEF
	case entityType == "ideell_forening":
		return OwedToMember
	}
	return OwedToOwnerAB
}

// PrivateLines are the one verifikat of an invoice paid with private
// funds: its costs (and input VAT) against what the company owes the one
// who paid (account).
func PrivateLines(inv Invoice, account string) []ledger.Line {
	b := costs(inv, nil)
	b.Add(account, inv.TotalSEK, true, nil, nil)
	return b.Lines
}
