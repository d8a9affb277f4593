package payables

import (
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Settlement is a payment of a supplier invoice as its verifikat books
// it.
type Settlement struct {
	Amount money.Amount // in the invoice's currency
	SEK    money.Amount // what left the payment account, in kronor
	// Booked is the kronor of the debt the payment settles: 2440 at the
	// invoice's rate (under kontantmetoden, the costs it books).
	Booked money.Amount
	Lines  []ledger.Line
}

// Settle books a payment of amount, sek kronor from account: under
// faktureringsmetoden D 2440 at the invoice's rate (the last payment
// takes what is left of the debt in kronor, so 2440 comes to zero), under
// kontantmetoden the costs' shares (CashLines) of what partial credit
// notes left of it (inv.Less); C the payment account;
// the difference on 3960 (paid less: a gain) or 7960 (paid more: a loss).
func Settle(inv Invoice, amount, sek money.Amount, account string) Settlement {
	s := Settlement{Amount: amount, SEK: sek}
	var b ledger.Booking
	if inv.Booked() {
		s.Booked = sekOf(inv, amount)
		if amount.Cmp(inv.Remaining()) == 0 {
			s.Booked = inv.TotalSEK.Sub(inv.PaidSEK)
		}
		b.Lines = append(b.Lines, payableLine(inv, s.Booked, amount, false))
	} else {
		r := inv.rest()
		b.Lines = CashLines(r, r.PaidAmount, amount)
		s.Booked = net(b.Lines)
	}
	b.Add(account, sek, true, nil, nil)
	if diff := sek.Sub(s.Booked); diff.Sign() > 0 {
		b.Add(FXLoss, diff, false, nil, nil)
	} else {
		b.Add(FXGain, diff.Neg(), true, nil, nil)
	}
	s.Lines = b.Lines
	return s
}
