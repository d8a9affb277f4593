package payables

import (
	"context"
	"math/big"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// PaymentDraft is what a mark-paid body says.
type PaymentDraft struct {
	Amount     *money.Amount
	Date       *time.Time
	SEK        *money.Amount
	Difference *money.Amount
	Account    string
	Notes      *string
	Force      bool
}

// refund is a payment draft of a credit note: the money comes back, so
// its amounts are booked negated (what the supplier owes shrinks).
func (pd PaymentDraft) refund() PaymentDraft {
	neg := func(a *money.Amount) *money.Amount {
		if a == nil {
			return nil
		}
		n := a.Abs().Neg()
		return &n
	}
	pd.Amount, pd.SEK = neg(pd.Amount), neg(pd.SEK)
	if pd.Difference != nil {
		d := pd.Difference.Neg()
		pd.Difference = &d
	}
	return pd
}

// PaidOut is a payment recorded: the invoice after it, the payment and
// the lines its verifikat posted.
type PaidOut struct {
	Invoice Invoice
	Payment Payment
	Lines   []ledger.Line
}

// MarkPaid records a payment of an open invoice and books it (Settle),
// dated its day, in the request's unit of work.
func (p *Payables) MarkPaid(ctx context.Context, company, id uuid.UUID, pd PaymentDraft) (PaidOut, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), true, true)
	if err != nil {
		return PaidOut{}, err
	}
	d := map[string]any{"supplier_invoice_id": id, "current_status": inv.State()}
	switch {
	case inv.Status == Paid:
		return PaidOut{}, apierr.New(apierr.SIPaidAlready, d)
	case inv.Status == Disputed:
		d["reason"] = "disputed"
		return PaidOut{}, apierr.New(apierr.Conflict, d)
	case inv.Status == Credited || inv.Status == Reversed:
		d["reason"] = "not_payable"
		return PaidOut{}, apierr.New(apierr.Conflict, d)
	case inv.BookingDeferred && inv.EntryID == nil:
		d["reason"] = "not_booked"
		return PaidOut{}, apierr.New(apierr.Conflict, d)
	}
	if inv.CreditNote {
		// What the supplier pays back: sent as the positive sums they are.
		pd = pd.refund()
	}
	amount := inv.Remaining()
	if pd.Amount != nil {
		amount = *pd.Amount
	}
	if amount.Sign() != inv.Remaining().Sign() || amount.Abs().Cmp(inv.Remaining().Abs()) > 0 {
		return PaidOut{}, apierr.Field("amount", "remaining", "more than 0 and at most what is left: "+inv.Remaining().Abs().String())
	}
	day := p.today()
	if pd.Date != nil {
		day = *pd.Date
	}
	if inv.Currency != "SEK" && pd.SEK == nil && pd.Difference == nil && p.books.Rate != nil {
		// Neither sent: the kronor at the Riksbank's rate of the day.
		r, err := p.books.Rate(ctx, inv.Currency, day)
		if err != nil {
			return PaidOut{}, err
		}
		sek := r.Convert(amount)
		pd.SEK = &sek
	}
	sek, err := paidSEK(inv, amount, pd)
	if err != nil {
		return PaidOut{}, err
	}
	if !pd.Force {
		if err := plausible(inv, amount, sek); err != nil {
			return PaidOut{}, err
		}
		same, err := p.store.SamePayment(ctx, company, id, day, amount)
		if err != nil {
			return PaidOut{}, err
		}
		if len(same) > 0 {
			return PaidOut{}, apierr.New(apierr.SIPaidLikelyDuplicate, map[string]any{"supplier_invoice_id": id,
				"candidates": same, "match_reason": "same_amount_same_day"})
		}
	}
	account := pd.Account
	if account == "" {
		account = DefaultPayment
	}
	if err := p.books.EnsureAccounts(ctx, company, []string{account}); err != nil {
		return PaidOut{}, err
	}
	entry := uuid.New()
	old := inv
	paid, pay, lines, err := p.pay(ctx, inv, amount, sek, account, entry, day, PaidManually, pd.Notes)
	if err != nil {
		return PaidOut{}, err
	}
	source := SourcePaid
	if inv.Cash {
		source = SourceCashPayment
	}
	// Under kontantmetoden the first payment's verifikat is the one the
	// invoice's document is underlag of.
	link := inv.Cash && inv.DocumentID != nil && inv.PaidAmount.IsZero()
	if _, err := p.post(ctx, inv, entry, !link, day, source, "Betalning leverantörsfaktura "+inv.Number+", "+inv.SupplierName,
		lines); err != nil {
		return PaidOut{}, err
	}
	if link {
		if err := p.books.Link(ctx, company, *inv.DocumentID, entry); err != nil {
			return PaidOut{}, err
		}
	}
	if err := p.record(ctx, audit.Update, describe(paid)+": betalning "+amount.String()+" "+inv.Currency, paid, &old, &paid); err != nil {
		return PaidOut{}, err
	}
	if paid.Status == Paid {
		if _, err := outbox.Emit(ctx, p.db, company, EventPaid, map[string]any{"supplier_invoice": Event(paid)}); err != nil {
			return PaidOut{}, err
		}
	}
	return PaidOut{Invoice: paid, Payment: pay, Lines: lines}, nil
}

// pay writes a payment of amount of inv (sek kronor from account, on day,
// from source), to be booked by verifikat entry: the invoice it leaves,
// the payment, and the lines that book it (Settle).
func (p *Payables) pay(ctx context.Context, inv Invoice, amount, sek money.Amount, account string, entry uuid.UUID,
	day time.Time, source string, notes *string) (Invoice, Payment, []ledger.Line, error) {
	if inv.Cash {
		if err := p.withCredits(ctx, &inv, nil); err != nil {
			return inv, Payment{}, nil, err
		}
	}
	s := Settle(inv, amount, sek, account)
	pay := Payment{ID: uuid.New(), InvoiceID: inv.ID, Date: day, Amount: amount, SEK: sek, BookedSEK: s.Booked,
		Account: &account, Source: source, Notes: notes, EntryID: &entry}
	if inv.Currency != "SEK" {
		r, err := money.ParseRate(rateOf(amount, sek))
		if err == nil {
			pay.ExchangeRate = &r
		}
	}
	status, paidAt := PartiallyPaid, (*time.Time)(nil)
	if amount.Cmp(inv.Remaining()) == 0 {
		status, paidAt = Paid, &day
	}
	paid, err := p.store.Pay(ctx, inv, pay, status, paidAt, p.today())
	return paid, pay, s.Lines, err
}

// paidSEK is what a payment of amount cost in kronor: the amount itself
// in kronor; abroad amount_sek, or the booked kronor and the difference.
func paidSEK(inv Invoice, amount money.Amount, pd PaymentDraft) (money.Amount, error) {
	if inv.Currency == "SEK" {
		if pd.SEK != nil && pd.SEK.Cmp(amount) != 0 || pd.Difference != nil && !pd.Difference.IsZero() {
			return amount, apierr.Field("amount_sek", "sek", "an invoice in kronor is paid in kronor")
		}
		return amount, nil
	}
	switch {
	case pd.SEK != nil && pd.Difference != nil:
		return amount, apierr.Field("amount_sek", "one_of", "send amount_sek or exchange_rate_difference, not both")
	case pd.SEK != nil:
		if pd.SEK.Sign() != amount.Sign() {
			return amount, apierr.Field("amount_sek", "positive", "what left the account, in kronor")
		}
		return *pd.SEK, nil
	case pd.Difference != nil:
		booked := Settle(inv, amount, money.Amount{}, DefaultPayment).Booked
		sek := booked.Add(*pd.Difference)
		if sek.Sign() != amount.Sign() {
			return amount, apierr.Field("exchange_rate_difference", "range", "leaves nothing paid in kronor")
		}
		return sek, nil
	}
	return amount, apierr.New(apierr.SIFXRateMissing, map[string]any{"currency": inv.Currency, "field": "amount_sek",
		"reason": "send amount_sek or exchange_rate_difference"})
}

// plausible refuses kronor of a foreign payment more than 10 % off what
// the invoice booked them at: most likely a mistyped amount_sek
// (SI_PAID_SEK_UNRESOLVED, reason ledger_rate_mismatch).
func plausible(inv Invoice, amount, sek money.Amount) error {
	if inv.Currency == "SEK" {
		return nil
	}
	booked := Settle(inv, amount, sek, DefaultPayment).Booked
	off := new(big.Int).Abs(big.NewInt(sek.Sub(booked).InÖre()))
	if off.Mul(off, big.NewInt(10)).Cmp(new(big.Int).Abs(big.NewInt(booked.InÖre()))) <= 0 {
		return nil
	}
	return apierr.New(apierr.SIPaidSEKUnresolved, map[string]any{"reason": "ledger_rate_mismatch",
		"supplier_invoice_id": inv.ID, "booked_sek": booked, "amount_sek": sek, "field": "amount_sek"})
}

// rateOf is sek / amount to six decimals: the rate a payment was made at.
func rateOf(amount, sek money.Amount) string {
	return new(big.Rat).SetFrac(big.NewInt(sek.InÖre()), big.NewInt(amount.InÖre())).FloatString(money.RateDecimals)
}
