package payables

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// SourceDisbursed is the source type of the one verifikat in which money
// that left a cash account pays several supplier invoices (a bank
// transaction's match-batch).
const SourceDisbursed = "supplier_invoice_batch_payment"

// BankFee is where the part of a payment above what the invoice asked is
// booked: the bank's charge for sending it (bankkostnader).
const BankFee = "6570"

// MaxBankFee is the most a whole match books as the bank's fee; more than
// that above what is left is no fee but a mistake
// (MATCH_SI_AMOUNT_EXCEEDS_REMAINING).
var MaxBankFee = money.Öre(500000)

// MaxRounding is the most short a whole match in kronor settles anyway,
// the öre credited to 3740 (öresutjämning).
var MaxRounding = money.Öre(100)

// Disbursement is money that left a cash account, paying supplier
// invoices: a bank transaction matched to them.
type Disbursement struct {
	Account     string    // the cash account's ledger account, credited
	Series      string    // its voucher series ("" the default)
	Date        time.Time // the day the money left
	Description string
	// Currency and Amount are what left (positive), SEK the same in
	// kronor.
	Currency    string
	Amount, SEK money.Amount
	// Parts names the invoices and what of Amount each takes: one is a
	// match of the whole (a bank fee or an öre short is then reckoned),
	// several the caller's exact split (match-batch).
	Parts []Allocation
	// Force writes a payment that looks like one already there, or whose
	// kronor are far from the invoice's rate.
	Force bool
}

// Allocation is what of a disbursement pays one invoice, in the
// disbursement's currency.
type Allocation struct {
	InvoiceID uuid.UUID
	Amount    money.Amount
}

// Disbursed is what a disbursement did: the verifikat, the invoices as it
// left them, their payments, and the bank's fee and the öre it booked.
type Disbursed struct {
	Entry    ledger.Entry
	Invoices []Invoice
	Payments []Payment
	Fee      money.Amount
	Rounding money.Amount
	Lines    []ledger.Line
}

// Disburse books d: each invoice of its parts paid with its share in one
// verifikat through the ledger (D 2440 at the invoice's rate, or the
// costs under kontantmetoden / C the cash account, the exchange
// difference on 3960/7960), dated the day the money left, each payment a
// row of source bank. An invoice in another currency paid in kronor is
// paid whole. A part that cannot be booked is a *apierr.PartError naming it.
func (p *Payables) Disburse(ctx context.Context, company uuid.UUID, d Disbursement) (Disbursed, error) {
	whole := len(d.Parts) == 1
	entry := uuid.New()
	var out Disbursed
	var lines []ledger.Line
	source, sekLeft := SourceDisbursed, d.SEK
	numbers := make([]string, 0, len(d.Parts))
	var link *uuid.UUID
	for i, part := range d.Parts {
		inv, err := p.store.Get(ctx, company, part.InvoiceID, p.today(), true, true)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		if err := awaitsPayment(inv); err != nil {
			return out, apierr.Part(i, err)
		}
		sek := sekLeft
		if i < len(d.Parts)-1 {
			sek = share(d.SEK, part.Amount, d.Amount)
		}
		sekLeft = sekLeft.Sub(sek)
		amount, fee, rounding, err := takes(inv, d.Currency, part.Amount, sek, whole)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		settled := sek.Sub(fee).Add(rounding)
		if !d.Force {
			if err := plausible(inv, amount, settled); err != nil {
				return out, apierr.Part(i, err)
			}
			same, err := p.store.SamePayment(ctx, company, inv.ID, d.Date, amount)
			if err != nil {
				return out, err
			}
			if len(same) > 0 {
				return out, apierr.Part(i, apierr.New(apierr.SIPaidLikelyDuplicate, map[string]any{
					"supplier_invoice_id": inv.ID, "candidates": same, "match_reason": "same_amount_same_day"}))
			}
		}
		old := inv
		paid, pay, ls, err := p.pay(ctx, inv, amount, settled, d.Account, entry, d.Date, "bank", nil)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		lines = append(lines, ls...)
		if fee.Sign() > 0 {
			what := "Bankavgift"
			lines = append(lines, ledger.Line{Account: BankFee, Debit: fee, Description: &what},
				ledger.Line{Account: d.Account, Credit: fee})
			out.Fee = out.Fee.Add(fee)
		}
		if rounding.Sign() > 0 {
			what := "Öresavrundning"
			lines = append(lines, ledger.Line{Account: Rounding, Credit: rounding, Description: &what},
				ledger.Line{Account: d.Account, Debit: rounding})
			out.Rounding = out.Rounding.Add(rounding)
		}
		if whole {
			source = SourcePaid
			if inv.Cash {
				source = SourceCashPayment
			}
		}
		// Under kontantmetoden the first payment's verifikat is the one
		// the invoice's document is underlag of.
		if inv.Cash && inv.DocumentID != nil && inv.PaidAmount.IsZero() && whole {
			link = inv.DocumentID
		}
		out.Invoices, out.Payments = append(out.Invoices, paid), append(out.Payments, pay)
		numbers = append(numbers, inv.Number)
		if err := p.record(ctx, audit.Update, describe(paid)+": betalning "+part.Amount.String()+" "+d.Currency+
			" från banken", paid, &old, &paid); err != nil {
			return out, err
		}
	}
	if !sekLeft.IsZero() {
		return out, apierr.Field("parts", "sum", "the parts must add up to what left")
	}
	accounts := []string{d.Account}
	if !out.Fee.IsZero() {
		accounts = append(accounts, BankFee)
	}
	if !out.Rounding.IsZero() {
		accounts = append(accounts, Rounding)
	}
	if err := p.books.EnsureAccounts(ctx, company, accounts); err != nil {
		return out, err
	}
	out.Lines = mergeCredits(lines, d.Account)
	in := ledger.Input{ID: entry, Last: link == nil, Date: d.Date, Series: d.Series, SourceType: source,
		Description: d.Description, Lines: out.Lines}
	if in.Description == "" {
		in.Description = "Betalning leverantörsfaktura " + strings.Join(numbers, ", ")
	}
	if whole {
		inv := out.Invoices[0]
		id, supplier, name := inv.ID.String(), inv.SupplierID, inv.SupplierName
		in.SourceID = &id
		in.Counterparty = ledger.Counterparty{CounterpartySupplierID: &supplier, CounterpartyName: &name}
		if d.Description == "" {
			in.Description += ", " + name
		}
	}
	e, err := p.books.Post(ctx, company, in)
	if err != nil {
		return out, noPeriod(err, d.Date, "date")
	}
	out.Entry = e
	if link != nil {
		if err := p.books.Link(ctx, company, *link, entry); err != nil {
			return out, err
		}
	}
	for _, paid := range out.Invoices {
		if paid.Status != Paid {
			continue
		}
		if _, err := outbox.Emit(ctx, p.db, company, EventPaid, map[string]any{"supplier_invoice": Event(paid)}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// awaitsPayment refuses an invoice money out does not pay: one paid or
// credited (MATCH_SI_ALREADY_PAID), a credit note, disputed, reversed or
// not yet booked (MATCH_SI_ALREADY_PAID's neighbour CONFLICT, naming why).
func awaitsPayment(inv Invoice) error {
	d := map[string]any{"supplier_invoice_id": inv.ID, "current_status": inv.State()}
	switch {
	case inv.Status == Paid || inv.Status == Credited:
		return apierr.New(apierr.MatchSIAlreadyPaid, d)
	case inv.CreditNote:
		d["reason"] = "credit_note"
	case inv.Status == Disputed || inv.Status == Reversed:
		d["reason"] = inv.Status
	case inv.BookingDeferred && inv.EntryID == nil:
		d["reason"] = "not_booked"
	default:
		return nil
	}
	return apierr.New(apierr.Conflict, d)
}

// takes is what a part of paid (in currency, sek in kronor) pays of inv:
// the amount in the invoice's currency, the bank's fee above it and the
// öre short of it (whole: the part is the whole disbursement). An
// invoice in another currency paid in kronor is paid whole.
func takes(inv Invoice, currency string, paid, sek money.Amount, whole bool) (amount, fee, rounding money.Amount, err error) {
	left := inv.Remaining()
	switch {
	case currency == inv.Currency:
		amount = paid
	case currency == "SEK":
		return left, fee, rounding, nil
	default:
		return amount, fee, rounding, apierr.New(apierr.MatchCurrencyMismatch, map[string]any{
			"supplier_invoice_id": inv.ID, "invoice_currency": inv.Currency, "transaction_currency": currency})
	}
	over := amount.Sub(left)
	switch {
	case over.Sign() < 0 && whole && inv.Currency == "SEK" && over.Neg().Cmp(MaxRounding) < 0:
		return left, fee, over.Neg(), nil
	case over.Sign() <= 0:
		return amount, fee, rounding, nil
	}
	// Above what is left: the bank's fee, in kronor, when small enough.
	overSEK := over
	if inv.Currency != "SEK" {
		overSEK = share(sek, over, amount)
	}
	if !whole || overSEK.Cmp(MaxBankFee) > 0 {
		return amount, fee, rounding, apierr.New(apierr.MatchSIAmountExceedsRemaining, map[string]any{
			"supplier_invoice_id": inv.ID, "remaining_amount": left, "amount": amount, "max_bank_fee_sek": MaxBankFee})
	}
	return left, overSEK, rounding, nil
}

// mergeCredits makes the credits of the money from account, one per
// invoice paid and one per fee, less the öre it did not carry, one line:
// the bank statement's one movement.
func mergeCredits(lines []ledger.Line, account string) []ledger.Line {
	var net money.Amount
	out := make([]ledger.Line, 0, len(lines))
	at := -1
	for _, l := range lines {
		if l.Account != account || l.Currency != nil || l.Description != nil {
			out = append(out, l)
			continue
		}
		net = net.Add(l.Credit).Sub(l.Debit)
		if at < 0 {
			at = len(out)
			out = append(out, l)
		}
	}
	if at >= 0 {
		out[at].Debit, out[at].Credit = money.Amount{}, net
	}
	return out
}
