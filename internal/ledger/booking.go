package ledger

import "github.com/kontera/kontera/internal/money"

// Booking collects a verifikat's lines as a domain reckons them: one line
// per account, side and tags (dimensions), in the order first seen.
type Booking struct{ Lines []Line }

// Add books amount on account: a debit, or a credit when credit is set;
// a negative amount goes on the other side, nothing on none.
func (b *Booking) Add(account string, amount money.Amount, credit bool, dims Dimensions, desc *string) {
	if amount.IsZero() {
		return
	}
	if amount.Sign() < 0 {
		amount, credit = amount.Neg(), !credit
	}
	if dims == nil {
		dims = Dimensions{}
	}
	for i, l := range b.Lines {
		if l.Account == account && (l.Credit.Sign() > 0) == credit && SameTags(l.Dimensions, dims) && l.Currency == nil {
			if credit {
				b.Lines[i].Credit = l.Credit.Add(amount)
			} else {
				b.Lines[i].Debit = l.Debit.Add(amount)
			}
			return
		}
	}
	l := Line{Account: account, Dimensions: dims, Description: desc}
	if credit {
		l.Credit = amount
	} else {
		l.Debit = amount
	}
	b.Lines = append(b.Lines, l)
}

// SameTags reports whether two lines carry the same dimensions.
func SameTags(a, b Dimensions) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
