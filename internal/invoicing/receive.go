package invoicing

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// SourceReceipts is the source type of the one verifikat in which money
// that arrived settles several invoices (a bank transaction's match-batch).
const SourceReceipts = "invoice_batch_payment"

// Remittance is money that arrived on a cash account, settling invoices:
// a bank transaction matched to them.
type Remittance struct {
	Account     string    // the cash account's ledger account, debited
	Series      string    // its voucher series ("" the default)
	Date        time.Time // the day the money arrived
	Description string
	// Currency and Amount are what arrived (positive), SEK the same in
	// kronor.
	Currency    string
	Amount, SEK money.Amount
	// Parts names the invoices and what of Amount each takes. Exactly one
	// part is a match of the whole (match-invoice): reminder charges and
	// an öre short are then reckoned; several are the caller's exact
	// split (match-batch).
	Parts []Allocation
	// Force writes a payment that looks like one already there.
	Force bool
}

// Allocation is what of a remittance settles one invoice, in the remittance's
// currency.
type Allocation struct {
	InvoiceID uuid.UUID
	Amount    money.Amount
}

// Received is what a remittance did: the verifikat, the invoices as it
// left them, what each payment was, and the öre written off on 3740.
type Received struct {
	Entry    ledger.Entry
	Invoices []Invoice
	Payments []Payment
	Rounding money.Amount
	Lines    []ledger.Line
	// Credits are what the money left over, the customers' credits.
	Credits []Credit
}

// Receive books r: each invoice of its parts paid with its share, in one
// verifikat through the ledger (D the cash account / C 1510, the sale's
// share under kontantmetoden, the exchange difference on 3960/7960),
// dated the day the money arrived, each payment a row of source bank. An
// invoice in another currency than kronor paid in kronor is settled
// whole. A part that cannot be booked is a *apierr.PartError naming it.
func (s *Sales) Receive(ctx context.Context, company uuid.UUID, r Remittance) (Received, error) {
	whole := len(r.Parts) == 1
	entry := uuid.New()
	var out Received
	var lines []ledger.Line
	source, sekLeft, amountLeft := SourcePaid, r.SEK, r.Amount
	numbers := make([]string, 0, len(r.Parts))
	for i, part := range r.Parts {
		inv, err := s.store.Get(ctx, company, part.InvoiceID, s.today(), false, Hold)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		if err := awaitsPayment(inv); err != nil {
			return out, apierr.Part(i, err)
		}
		// The kronor of this part: its share of what arrived, the last
		// part what is left, so the parts add up to the öre.
		sek := sekLeft
		if i < len(r.Parts)-1 {
			sek = money.Öre(halfUpWide(r.SEK.InÖre(), part.Amount.InÖre(), r.Amount.InÖre()))
		}
		sekLeft, amountLeft = sekLeft.Sub(sek), amountLeft.Sub(part.Amount)
		amount, rate, rounding, fee, interest, excess, err := s.takes(ctx, inv, r.Currency, part.Amount, sek, whole)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		// What was paid beyond the invoice is the customer's credit: its
		// kronor come off what settles the invoice.
		excessSEK := inKronor(excess, part.Amount, sek, nil)
		sek = sek.Sub(excessSEK)
		var paidOut money.Amount
		if inv.DeductionTotal.Sign() > 0 {
			if paidOut, err = s.store.PaidOut(ctx, company, inv.ID); err != nil {
				return out, err
			}
		}
		old := inv
		account := r.Account
		settled := sek.Add(rounding).Sub(fee).Sub(interest)
		pay := Payment{ID: uuid.New(), Date: r.Date, Amount: amount, SEK: settled, Rate: rate, Account: &account,
			Source: "bank", EntryID: &entry}
		paid, ls, src, err := s.settle(ctx, inv, pay, paidOut, fee, interest, !r.Force)
		if err != nil {
			return out, apierr.Part(i, err)
		}
		// The customer paid a little less: the difference is written off.
		ls = writeOffLines(ls, account, rounding)
		out.Rounding = out.Rounding.Add(rounding)
		ls = creditLines(ls, account, excessSEK)
		credit, err := s.keepCredit(ctx, inv, excess, excessSEK, r.Date, entry)
		if err != nil {
			return out, err
		}
		if credit != nil {
			out.Credits = append(out.Credits, *credit)
		}
		source = src
		lines = append(lines, ls...)
		out.Invoices, out.Payments = append(out.Invoices, paid), append(out.Payments, pay)
		numbers = append(numbers, *inv.Number)
		if err := s.record(ctx, audit.Update, describe(paid)+": inbetalning "+part.Amount.String()+" "+r.Currency+
			" från banken", paid, &old, &paid); err != nil {
			return out, err
		}
	}
	if !amountLeft.IsZero() || !sekLeft.IsZero() {
		return out, apierr.Field("parts", "sum", "the parts must add up to what arrived")
	}
	out.Lines = mergeBank(lines, r.Account)
	in := ledger.Input{ID: entry, Last: true, Date: r.Date, Series: r.Series, SourceType: source,
		Description: r.Description, Lines: out.Lines}
	if in.Description == "" {
		in.Description = "Inbetalning faktura " + strings.Join(numbers, ", ")
	}
	if whole {
		id, customer, name := out.Invoices[0].ID.String(), out.Invoices[0].CustomerID, out.Invoices[0].CustomerName
		in.SourceID = &id
		in.Counterparty = ledger.Counterparty{CounterpartyCustomerID: &customer, CounterpartyName: &name}
		if in.Description == "Inbetalning faktura "+numbers[0] {
			in.Description += ", " + name
		}
	} else {
		in.SourceType = SourceReceipts
	}
	e, err := s.ledger.Post(ctx, company, in)
	if apierr.Is(err, apierr.PeriodNotFound) {
		return out, apierr.New(apierr.InvoiceBookNoFiscalPeriod, map[string]any{"date": r.Date.Format(time.DateOnly)})
	}
	if err != nil {
		return out, err
	}
	out.Entry = e
	for i, paid := range out.Invoices {
		if paid.Status != "paid" {
			continue
		}
		if _, err := outbox.Emit(ctx, s.store.db, company, EventPaid, map[string]any{"invoice": Detail(paid),
			"paymentAmount": out.Payments[i].Amount, "paymentDate": r.Date.Format(time.DateOnly), "companyId": company}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// awaitsPayment refuses an invoice money in does not settle: anything but
// an issued invoice (MATCH_INVOICE_NOT_INVOICE_TYPE), or one not waiting
// for payment (MATCH_INVOICE_NOT_OPEN).
func awaitsPayment(inv Invoice) error {
	if inv.DocumentType != "invoice" || inv.CreditedID != nil || inv.Total.Sign() <= 0 {
		return apierr.New(apierr.MatchInvoiceNotInvoiceType, map[string]any{"invoice_id": inv.ID,
			"document_type": inv.DocumentType, "is_credit_note": inv.CreditedID != nil})
	}
	if inv.Status != "sent" && inv.Status != "partially_paid" {
		return apierr.New(apierr.MatchInvoiceNotOpen, map[string]any{"invoice_id": inv.ID, "current_status": inv.State()})
	}
	return nil
}

// MaxRounding is the most short of an invoice in kronor a whole match
// settles anyway, writing the öre off on 3740 (öresutjämning).
var MaxRounding = money.Öre(100)

// takes is what a part of paid (in currency, sek in kronor) pays of inv:
// the amount in the invoice's currency and the rate it came at, the öre
// short written off, and the reminder fee and interest it also pays
// (whole: the part is the whole remittance), and what a whole match pays
// beyond all that: the customer's credit. An invoice in another currency
// paid in kronor is paid whole.
func (s *Sales) takes(ctx context.Context, inv Invoice, currency string, paid, sek money.Amount,
	whole bool) (amount money.Amount, rate *money.Rate, rounding, fee, interest, excess money.Amount, err error) {
	left := inv.Remaining()
	switch {
	case currency == inv.Currency:
		amount = paid
	case currency == "SEK":
		// Kronor for a foreign invoice: what is left of it, at the rate
		// the kronor make.
		amount = left
	default:
		return amount, nil, rounding, fee, interest, excess, apierr.New(apierr.MatchCurrencyMismatch, map[string]any{
			"invoice_id": inv.ID, "invoice_currency": inv.Currency, "transaction_currency": currency})
	}
	if inv.Currency != "SEK" && amount.Sign() > 0 {
		if r, err := money.ParseRate(rateOf(amount, sek)); err == nil {
			rate = &r
		}
	}
	short := left.Sub(amount)
	switch {
	case short.Sign() > 0 && whole && inv.Currency == "SEK" && short.Cmp(MaxRounding) < 0:
		return left, rate, short, fee, interest, excess, nil
	case short.Sign() > 0 && whole && inv.Currency == "SEK":
		// More than öre short: written off up to the company's limit.
		off, err := s.writesOff(ctx, inv.CompanyID, short)
		if err != nil || off.Sign() > 0 {
			return left, rate, off, fee, interest, excess, err
		}
		return amount, rate, rounding, fee, interest, excess, nil
	case short.Sign() >= 0:
		return amount, rate, rounding, fee, interest, excess, nil
	case !whole:
		// A batch's parts are the caller's split: none pays more than is left.
		return amount, rate, rounding, fee, interest, excess, apierr.New(apierr.MatchInvoiceAmountExceedsRemaining,
			map[string]any{"invoice_id": inv.ID, "remaining_amount": left, "amount": amount})
	case inv.Currency != "SEK":
		return left, rate, rounding, fee, interest, short.Neg(), nil
	}
	// More than is left pays the reminders' fee and interest, up to what
	// they claimed; the rest is the customer's credit.
	fees, owed, err := s.store.Outstanding(ctx, inv.CompanyID, inv.ID)
	if err != nil {
		return amount, rate, rounding, fee, interest, excess, err
	}
	fee, interest, excess = Excess(short.Neg(), fees, owed)
	return left, rate, rounding, fee, interest, excess, nil
}

// rateOf is sek / amount to six decimals: the rate a payment came at.
func rateOf(amount, sek money.Amount) string {
	return new(big.Rat).SetFrac(big.NewInt(sek.InÖre()), big.NewInt(amount.InÖre())).FloatString(money.RateDecimals)
}

// mergeBank makes the debits of the money on account, one per invoice
// paid, one line: the bank statement's one movement.
func mergeBank(lines []ledger.Line, account string) []ledger.Line {
	out := make([]ledger.Line, 0, len(lines))
	at := -1
	for _, l := range lines {
		if l.Account == account && l.Debit.Sign() > 0 && l.Currency == nil && l.Description == nil {
			if at >= 0 {
				out[at].Debit = out[at].Debit.Add(l.Debit)
				continue
			}
			at = len(out)
		}
		out = append(out, l)
	}
	return out
}
