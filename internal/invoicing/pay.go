package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// EventPaid is announced when an invoice is paid in full.
const EventPaid = "invoice.paid"

// The source types of a payment's verifikat: against the receivable
// (faktureringsmetoden), or the sale itself (kontantmetoden); and of
// Skatteverket's payout of a ROT/RUT deduction.
const (
	SourcePaid        = "invoice_paid"
	SourceCashPayment = "invoice_cash_payment"
	SourcePayout      = "rot_rut_payout"
)

// TaxAccount is where Skatteverket's payout of a deduction arrives unless
// told: skattekontot.
const TaxAccount = "1630"

// Pay is a payment as asked (mark-paid).
type Pay struct {
	Amount  *money.Amount // default: what is left to pay
	Date    *time.Time    // default: today in Sweden
	SEK     *money.Amount // the kronor that arrived, for another currency
	Rate    *money.Rate   // or the rate they arrived at
	Account string        // default 1930
	Notes   *string
	Force   bool // record a payment that looks like one already recorded
	Payout  bool // Skatteverket's payment of the ROT/RUT deduction
	// source is the payment's source when not a manual one: a customer's
	// credit applied (which never pays more than is left).
	source string
}

// Paid is an invoice with a payment recorded, and the lines the payment's
// verifikat posted.
type Paid struct {
	Invoice Invoice
	Payment Payment
	Lines   []ledger.Line
	// Credit is what the payment left over as the customer's credit.
	Credit *Credit
}

// MarkPaid records a payment of an issued invoice and books it through
// the ledger, dated the payment date (#2019: a payment is always a row).
// An invoice booked at issue has its receivable settled (1510, with the
// exchange difference on 3960/7960); one whose booking was deferred is
// booked first; one issued under kontantmetoden books its share of the
// sale now. More than is left is 400 (amount); the same amount on the
// same day again is 409 INVOICE_PAID_LIKELY_DUPLICATE unless forced.
func (s *Sales) MarkPaid(ctx context.Context, company, id uuid.UUID, p Pay) (Paid, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), false, Hold)
	if err != nil {
		return Paid{}, err
	}
	var paidOut money.Amount
	if inv.DeductionTotal.Sign() > 0 {
		if paidOut, err = s.store.PaidOut(ctx, company, id); err != nil {
			return Paid{}, err
		}
	}
	switch {
	case p.Payout && (inv.DocumentType != "invoice" || inv.DeductionTotal.Sign() <= 0 ||
		(inv.Status != "sent" && inv.Status != "partially_paid" && inv.Status != "paid")):
		return Paid{}, apierr.New(apierr.Conflict, map[string]any{"reason": "no_rot_rut_claim", "invoice_id": id,
			"current_status": inv.State()})
	case p.Payout && paidOut.Cmp(inv.DeductionTotal) >= 0:
		return Paid{}, apierr.New(apierr.Conflict, map[string]any{"reason": "rot_rut_paid_out", "invoice_id": id})
	case p.Payout:
	case inv.DocumentType != "invoice" || inv.Total.IsZero() || (inv.Status != "sent" && inv.Status != "partially_paid"):
		return Paid{}, apierr.New(apierr.Conflict, map[string]any{"reason": "not_payable", "invoice_id": id,
			"current_status": inv.State()})
	}
	// A credit note's amounts are negative: what is paid of it is paid
	// back, and amount is the money moved either way.
	signed := func(a money.Amount) money.Amount {
		if inv.Total.Sign() < 0 {
			return a.Neg()
		}
		return a
	}
	left, what := inv.Remaining().Abs(), "left to pay"
	if p.Payout {
		left, what = inv.DeductionTotal.Sub(paidOut), "of the deduction still to come"
	}
	amount := left
	if p.Amount != nil {
		amount = *p.Amount
	}
	// Above what is left of an invoice, a payment pays the reminders' fee
	// and interest (in kronor), up to what they claimed; the rest is the
	// customer's credit (2420).
	var fee, interest, excess money.Amount
	whole := amount
	switch {
	case amount.Sign() <= 0:
		return Paid{}, apierr.Field("amount", "exclusiveMinimum", "must be greater than 0")
	case amount.Cmp(left) > 0 && (p.Payout || inv.CreditedID != nil || p.source != ""):
		return Paid{}, apierr.Field("amount", "remaining", "is more than the "+left.String()+" "+what)
	case amount.Cmp(left) > 0 && inv.Currency == "SEK":
		fees, owed, err := s.store.Outstanding(ctx, company, id)
		if err != nil {
			return Paid{}, err
		}
		fee, interest, excess = Excess(amount.Sub(left), fees, owed)
		amount = left
	case amount.Cmp(left) > 0:
		excess, amount = amount.Sub(left), left
	}
	// Short of what is left by no more than the company writes off, a
	// payment in kronor closes the invoice (WriteOffAccount).
	var short money.Amount
	if d := left.Sub(amount); d.Sign() > 0 && inv.Currency == "SEK" && !p.Payout && inv.CreditedID == nil && p.source == "" {
		if short, err = s.writesOff(ctx, company, d); err != nil {
			return Paid{}, err
		}
		amount = amount.Add(short)
	}
	day := s.today()
	if p.Date != nil {
		day = *p.Date
	}
	if inv.Currency != "SEK" && p.SEK == nil && p.Rate == nil {
		// Neither what arrived nor the rate: the day's rate of the payment date.
		rate, err := s.rate(ctx, inv, day, apierr.MatchInvoiceBookingRateMissing)
		if err != nil {
			return Paid{}, err
		}
		p.Rate = &rate
	}
	sek, rate, err := kronor(inv, amount, p)
	if err != nil {
		return Paid{}, err
	}
	var excessSEK money.Amount
	if excess.Sign() > 0 {
		// What arrived in kronor is split between the invoice and the credit.
		all, _, _ := kronor(inv, whole, p)
		excessSEK = inKronor(excess, whole, all, rate)
		if inv.Currency == "SEK" {
			excessSEK = excess
		} else if rate == nil {
			sek = all.Sub(excessSEK)
		}
	}
	old := inv
	account := p.Account
	switch {
	case account != "":
	case p.Payout:
		account = TaxAccount
	default:
		account = PaymentAccount
	}
	var lines []ledger.Line
	source, desc, kind := SourcePaid, "Betalning av faktura ", "manual"
	if p.source != "" {
		kind = p.source
	}
	switch {
	case inv.CreditedID != nil:
		desc = "Återbetalning av kreditfaktura "
		if lines, err = s.refundLines(ctx, inv, account, amount, sek); err != nil {
			return Paid{}, err
		}
	case p.Payout:
		desc, kind = "Skatteverkets utbetalning av husavdrag, faktura ", SourcePayout
		if lines, _, err = s.paymentLines(ctx, &inv, account, amount, sek, paidOut, true); err != nil {
			return Paid{}, err
		}
		source = SourcePayout
	}
	// The payment is written first and its verifikat posted last: the
	// posting's locks are then held only until the commit.
	entry := uuid.New()
	pay := Payment{ID: uuid.New(), Date: day, Amount: signed(amount), SEK: signed(sek), Rate: rate, Account: &account,
		Source: kind, Notes: p.Notes, EntryID: &entry}
	var paid Invoice
	switch {
	case p.Payout:
		paid, err = s.store.AddPayout(ctx, inv, pay, s.today(), !p.Force)
	case inv.CreditedID != nil:
		paid, err = s.store.AddPayment(ctx, inv, pay, s.today(), !p.Force)
	default:
		paid, lines, source, err = s.settle(ctx, inv, pay, paidOut, fee, interest, !p.Force)
	}
	if err != nil {
		return Paid{}, err
	}
	lines = writeOffLines(creditLines(lines, account, excessSEK), account, short)
	credit, err := s.keepCredit(ctx, inv, excess, excessSEK, day, entry)
	if err != nil {
		return Paid{}, err
	}
	if _, err := s.post(ctx, inv, entry, true, day, "payment_date", source, desc+*inv.Number+", "+inv.CustomerName, lines); err != nil {
		return Paid{}, err
	}
	if err := s.record(ctx, audit.Update, describe(paid)+": betalning "+amount.String()+" "+inv.Currency+" registrerades",
		paid, &old, &paid); err != nil {
		return Paid{}, err
	}
	if paid.Status == "paid" && !p.Payout {
		if _, err := outbox.Emit(ctx, s.store.db, company, EventPaid, map[string]any{"invoice": Detail(paid),
			"paymentAmount": pay.Amount, "paymentDate": day.Format(time.DateOnly), "companyId": company}); err != nil {
			return Paid{}, err
		}
	}
	return Paid{Invoice: paid, Payment: pay, Lines: lines, Credit: credit}, nil
}

// settle books pay, a payment of inv's customer not yet written (paidOut:
// what Skatteverket paid out of its deduction), with fee and interest of
// the reminders it also took: the lines of its verifikat (the sale booked
// first when its booking waited) and their source type, and the invoice
// with it written (unlessSame: unless a lookalike is there).
func (s *Sales) settle(ctx context.Context, inv Invoice, pay Payment, paidOut, fee, interest money.Amount,
	unlessSame bool) (Invoice, []ledger.Line, string, error) {
	lines, source, err := s.paymentLines(ctx, &inv, *pay.Account, pay.Amount, pay.SEK, paidOut, false)
	if err != nil {
		return inv, nil, "", err
	}
	lines = chargeLines(lines, *pay.Account, fee, interest)
	paid, err := s.store.AddPayment(ctx, inv, pay, s.today(), unlessSame)
	if err != nil {
		return inv, nil, "", err
	}
	if fee.Sign() > 0 || interest.Sign() > 0 {
		if err := s.store.PayCharges(ctx, inv.CompanyID, inv.ID, pay.ID, fee, interest); err != nil {
			return inv, nil, "", err
		}
	}
	return paid, lines, source, nil
}

// chargeLines adds to a payment's lines the reminder charges it paid:
// the money on account, the fee credited to 3990 and the interest to
// 8313.
func chargeLines(lines []ledger.Line, account string, fee, interest money.Amount) []ledger.Line {
	extra := fee.Add(interest)
	if extra.IsZero() {
		return lines
	}
	lines = moreOn(lines, account, extra)
	if fee.Sign() > 0 {
		what := "Påminnelseavgift"
		lines = append(lines, ledger.Line{Account: FeeAccount, Credit: fee, Description: &what})
	}
	if interest.Sign() > 0 {
		what := "Dröjsmålsränta"
		lines = append(lines, ledger.Line{Account: InterestAccount, Credit: interest, Description: &what})
	}
	return lines
}

// moreOn adds extra to the money that arrived on account: the first
// debit on it grows (the bank statement's one movement), or a line of its
// own when there is none.
func moreOn(lines []ledger.Line, account string, extra money.Amount) []ledger.Line {
	for i := range lines {
		if lines[i].Account == account && lines[i].Debit.Sign() > 0 {
			lines[i].Debit = lines[i].Debit.Add(extra)
			return lines
		}
	}
	return append(lines, ledger.Line{Account: account, Debit: extra})
}

// paymentLines are the lines of a payment of inv and their source type:
// against the receivable (Skatteverket's claim on 1513 for a payout), the
// sale booked first when its booking waited (inv then names its
// verifikat), or under kontantmetoden the payment's share of the sale,
// reckoned after what the customer paid and Skatteverket paid out.
func (s *Sales) paymentLines(ctx context.Context, inv *Invoice, account string, amount, sek, paidOut money.Amount,
	payout bool) ([]ledger.Line, string, error) {
	var err error
	cash := inv.EntryID == nil && !inv.BookingDeferred
	if inv.EntryID == nil {
		// The sale's lines are booked now: its share (kontantmetoden), or
		// all of it first when its booking was deferred.
		if inv.Lines, err = s.store.Lines(ctx, inv.CompanyID, inv.ID); err != nil {
			return nil, "", err
		}
	}
	if !cash && inv.EntryID == nil {
		entry, issued, err := s.book(ctx, *inv)
		if err != nil {
			return nil, "", err
		}
		sek := kronorOf(issued)
		inv.EntryID, inv.TotalSEK = &entry, &sek
	}
	if payout && !cash {
		return PayoutLines(account, amount), SourcePayout, nil
	}
	sale := Sale{Currency: inv.Currency, Rate: inv.ExchangeRate, Totals: Totals{Customer: inv.Total.Sub(inv.DeductionTotal),
		Total: inv.Total}, Booked: receivable(*inv)}
	before := inv.Paid
	if cash {
		if sale, err = s.cashSale(ctx, *inv, nil); err != nil {
			return nil, "", err
		}
		before = before.Sub(sale.CreditedTotal).Add(paidOut)
	}
	lines, err := PaymentLines(sale, Receipt{Account: account, Amount: amount, SEK: sek, Before: before}, cash)
	if cash {
		return lines, SourceCashPayment, err
	}
	return lines, SourcePaid, err
}

// kronor is what a payment of amount came to in kronor, and the rate it
// arrived at: the amount itself in SEK; in another currency amount_sek,
// or exchange_rate applied, one of which is needed.
func kronor(inv Invoice, amount money.Amount, p Pay) (money.Amount, *money.Rate, error) {
	if inv.Currency == "SEK" {
		if p.SEK != nil || p.Rate != nil {
			return money.Amount{}, nil, apierr.Field("amount_sek", "currency", "a payment in SEK takes no amount_sek or exchange_rate")
		}
		return amount, nil, nil
	}
	switch {
	case p.SEK != nil && p.Rate != nil:
		return money.Amount{}, nil, apierr.Field("amount_sek", "one_of", "send amount_sek or exchange_rate, not both")
	case p.SEK != nil:
		return *p.SEK, nil, nil
	case p.Rate != nil:
		return p.Rate.Convert(amount), p.Rate, nil
	}
	return money.Amount{}, nil, apierr.New(apierr.MatchInvoiceBookingRateMissing, map[string]any{"invoice_id": inv.ID,
		"currency": inv.Currency, "field": "amount_sek"})
}

// post books lines of invoice inv through the ledger as verifikat entry
// (uuid.Nil: the ledger names it; last: nothing after reads it, so its
// posting may close the unit), dated day in the period holding it
// (the ledger finds it), the customer as counterparty: the one door every
// verifikat of an invoice goes through. No period for day is
// INVOICE_BOOK_NO_FISCAL_PERIOD naming field, the body's date.
func (s *Sales) post(ctx context.Context, inv Invoice, entry uuid.UUID, last bool, day time.Time, field, source, desc string,
	lines []ledger.Line) (ledger.Entry, error) {
	id, customer, name := inv.ID.String(), inv.CustomerID, inv.CustomerName
	e, err := s.ledger.Post(ctx, inv.CompanyID, ledger.Input{ID: entry, Last: last, Date: day, Description: desc, SourceType: source,
		SourceID: &id, Counterparty: ledger.Counterparty{CounterpartyCustomerID: &customer, CounterpartyName: &name},
		Lines: lines})
	if apierr.Is(err, apierr.PeriodNotFound) {
		return e, apierr.New(apierr.InvoiceBookNoFiscalPeriod, map[string]any{"date": day.Format(time.DateOnly), "field": field})
	}
	return e, err
}

// receivable is the kronor an invoice's sale debited 1510 with: what it
// came to in kronor less Skatteverket's part (1513).
func receivable(inv Invoice) *money.Amount {
	if inv.TotalSEK == nil {
		return nil
	}
	claim := inv.DeductionTotal
	if inv.Currency != "SEK" && inv.ExchangeRate != nil {
		claim = inv.ExchangeRate.Convert(claim)
	}
	r := inv.TotalSEK.Sub(claim)
	return &r
}
