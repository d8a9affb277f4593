package banking

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Suggestion is how an unbooked transaction might be booked: as the last
// one of the same merchant or counterparty account was.
type Suggestion struct {
	BasedOn      uuid.UUID
	IsBusiness   bool
	Category     *string
	Account      string
	VATTreatment string
	Dimensions   ledger.Dimensions
}

// Suggest reads how verifikat e booked a transaction on bank account
// bank: the account of its other side, its dimensions, and the VAT
// treatment its VAT lines show (2645: reverse charge; 2641 or the output
// accounts at 25, 12 or 6 % of the net; none: exempt). False when e has no
// other side to read.
func Suggest(e ledger.Entry, bank string) (Suggestion, bool) {
	var s Suggestion
	var other, vat *ledger.Line
	for i := range e.Lines {
		l := &e.Lines[i]
		switch {
		case l.StruckBy != nil || l.Account == bank:
		case l.Account == "2645" || l.Account == "2614":
			s.VATTreatment = ReverseCharge
		case l.Account == "2641" || l.Account == "2611" || l.Account == "2621" || l.Account == "2631":
			vat = l
		case other == nil:
			other = l
		}
	}
	if other == nil {
		return s, false
	}
	s.Account, s.Dimensions = other.Account, other.Dimensions
	if s.VATTreatment == "" {
		s.VATTreatment = Exempt
		if vat != nil {
			s.VATTreatment = rateOf(side(*other), side(*vat))
		}
	}
	return s, true
}

// side is what a line moves, whichever side it is on.
func side(l ledger.Line) money.Amount { return l.Debit.Add(l.Credit) }

// rateOf names the treatment whose rate makes vat of net, to the öre.
func rateOf(net, vat money.Amount) string {
	for _, t := range []string{Standard25, Reduced12, Reduced6} {
		if v, err := money.VATOn(net, rates[t]); err == nil && v.Sub(vat).Abs().Cmp(money.MustParse("0.01")) <= 0 {
			return t
		}
	}
	return Standard25
}

// Suggestion answers how unbooked transaction t might be booked, from the
// last categorization of the same merchant or counterparty account; nil
// when there is none to go by.
func (b *Bank) Suggestion(ctx context.Context, t Transaction) (*Suggestion, error) {
	if t.Booked() || (t.MerchantName == nil && t.CounterpartyAccount == nil) {
		return nil, nil
	}
	last, err := b.store.LastOf(ctx, t.CompanyID, t.MerchantName, t.CounterpartyAccount, t.ID)
	if err != nil || last == nil {
		return nil, err
	}
	e, err := b.books.Entry(ctx, t.CompanyID, *last.JournalEntryID)
	if err != nil {
		return nil, err
	}
	s, ok := Suggest(e, last.LedgerAccount)
	if !ok {
		return nil, nil
	}
	s.BasedOn, s.Category = last.ID, last.Category
	s.IsBusiness = last.IsBusiness == nil || *last.IsBusiness
	return &s, nil
}

// PotentialInvoice answers the open customer invoice unbooked money-in t
// likely pays: the one whose OCR its reference is, else the only one with
// that much left to pay in its currency.
func (b *Bank) PotentialInvoice(ctx context.Context, t Transaction) (*uuid.UUID, error) {
	if t.Booked() || t.Amount.Sign() <= 0 || b.books.OpenInvoice == nil {
		return nil, nil
	}
	var ocr *string
	if t.Reference != nil {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			if r == ' ' || r == '-' {
				return -1
			}
			return 'x'
		}, *t.Reference)
		if digits != "" && !strings.Contains(digits, "x") {
			ocr = &digits
		}
	}
	return b.books.OpenInvoice(ctx, t.CompanyID, ocr, t.Currency, t.Amount)
}
