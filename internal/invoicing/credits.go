package invoicing

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// CreditAccount is where money a customer paid beyond an invoice waits:
// förskott från kunder, a debt to the customer (not netted on 1510).
const CreditAccount = "2420"

// SourceCreditRefund is the source type of the verifikat that pays a
// customer's credit back.
const SourceCreditRefund = "customer_credit_refund"

// Excess splits extra, paid above what is left of an invoice, into the
// reminder fee and interest it pays (the fees first, neither past what is
// outstanding: Charges) and what is over: the customer's credit.
func Excess(extra, fees, interest money.Amount) (fee, rate, credit money.Amount) {
	take := extra
	if claimed := fees.Add(interest); take.Cmp(claimed) > 0 {
		take = claimed
	}
	fee, rate, _ = Charges(take, fees, interest)
	return fee, rate, extra.Sub(take)
}

// inKronor is part of whole in kronor when whole came to sek: the rate's
// conversion when the rate is known, else sek's share, rounded half up.
func inKronor(part, whole, sek money.Amount, rate *money.Rate) money.Amount {
	if rate != nil {
		return rate.Convert(part)
	}
	return money.Öre(halfUpWide(sek.InÖre(), part.InÖre(), whole.InÖre()))
}

// creditLines adds to a payment's lines the part of the money that is
// the customer's credit: on account (the one debit on it grows) and
// credited to 2420.
func creditLines(lines []ledger.Line, account string, sek money.Amount) []ledger.Line {
	if sek.IsZero() {
		return lines
	}
	what := "Kundkredit, inbetalt utöver fakturan"
	return append(moreOn(lines, account, sek), ledger.Line{Account: CreditAccount, Credit: sek, Description: &what})
}

// WriteOffAccount is where a payment short of an invoice writes the
// difference off: öresutjämning (3740) below a krona, else bank costs
// (6570), what the customer's bank kept.
func WriteOffAccount(short money.Amount) string {
	if short.Cmp(MaxRounding) < 0 {
		return RoundingAccount
	}
	return BankCostAccount
}

// BankCostAccount is bankkostnader.
const BankCostAccount = "6570"

// writeOffLines moves short of a payment's debit on account (it settled
// the invoice in full) to the account it is written off on.
func writeOffLines(lines []ledger.Line, account string, short money.Amount) []ledger.Line {
	if short.IsZero() {
		return lines
	}
	lines = moreOn(lines, account, short.Neg())
	what := "Öresavrundning"
	if WriteOffAccount(short) != RoundingAccount {
		what = "Kortbetalning, avskriven"
	}
	return append(lines, ledger.Line{Account: WriteOffAccount(short), Debit: short, Description: &what})
}

// writesOff is what of a payment short of an invoice in kronor by short
// the company writes off: all of it, up to its
// short_payment_write_off_limit, else none.
func (s *Sales) writesOff(ctx context.Context, company uuid.UUID, short money.Amount) (money.Amount, error) {
	set, err := s.books.Settings(ctx, company)
	if err != nil || short.Cmp(set.WriteOffLimit) > 0 {
		return money.Amount{}, err
	}
	return short, nil
}

// keepCredit writes what a payment of inv paid beyond it (amount in the
// invoice's currency, sek in kronor) as the customer's credit, booked by
// verifikat entry.
func (s *Sales) keepCredit(ctx context.Context, inv Invoice, amount, sek money.Amount, day time.Time, entry uuid.UUID) (*Credit, error) {
	if amount.Sign() <= 0 {
		return nil, nil
	}
	c := Credit{CompanyID: inv.CompanyID, ID: uuid.New(), CustomerID: inv.CustomerID, InvoiceID: inv.ID, Currency: inv.Currency,
		Amount: amount, SEK: sek, Date: day, EntryID: entry}
	if err := s.store.AddCredit(ctx, &c); err != nil {
		return nil, err
	}
	return &c, s.recordCredit(ctx, c, "Kundkredit "+amount.String()+" "+c.Currency+" från betalning av faktura "+text(inv.Number))
}

func (s *Sales) recordCredit(ctx context.Context, c Credit, desc string) error {
	return s.audit.Record(ctx, audit.Change{CompanyID: c.CompanyID, Action: audit.Insert, Table: "customer_credits",
		RecordID: c.ID.String(), Description: desc, New: audit.Of(map[string]any{"id": c.ID, "customer_id": c.CustomerID,
			"invoice_id": c.InvoiceID, "currency": c.Currency, "amount": c.Amount, "amount_sek": c.SEK,
			"remaining_amount": c.Remaining(), "journal_entry_id": c.EntryID})})
}

// Credits answers a customer's credits, oldest first.
// A customer the company does not have is 404 CUSTOMER_NOT_FOUND; an
// archived one's credits stay readable.
func (s *Sales) Credits(ctx context.Context, company, customer uuid.UUID) ([]Credit, error) {
	out, err := s.store.Credits(ctx, company, customer)
	if err != nil || len(out) > 0 {
		return out, err
	}
	_, err = s.books.Customer(ctx, company, customer)
	if e, ok := apierr.As(err); ok && e.Details["reason"] != "archived" {
		return nil, err
	}
	return out, nil
}

// Spend is a use of a credit as asked: apply (to Invoice) or refund.
type Spend struct {
	Invoice *uuid.UUID    // apply: the invoice it pays
	Amount  *money.Amount // default: all it can
	Date    *time.Time    // default today
	Account string        // refund: the account it is paid from (default 1930)
}

// Spent is a credit after a use, and what the use booked.
type Spent struct {
	Credit  Credit
	Invoice *Invoice // applied to
	Payment Payment  // the invoice's payment it made
	EntryID uuid.UUID
	Lines   []ledger.Line
}

// credit holds a customer's credit for a use; 404 NOT_FOUND when the
// customer has none of that id, 409 CONFLICT when nothing is left of it.
func (s *Sales) credit(ctx context.Context, company, customer, id uuid.UUID) (Credit, error) {
	c, err := s.store.HoldCredit(ctx, company, customer, id)
	switch {
	case err != nil:
		return Credit{}, err
	case c == nil:
		return Credit{}, apierr.New(apierr.NotFound, map[string]any{"resource": "customer_credit", "credit_id": id})
	case c.Remaining().Sign() <= 0:
		return Credit{}, apierr.New(apierr.Conflict, map[string]any{"reason": "credit_used", "credit_id": id})
	}
	return *c, nil
}

// take is what a use of up to asked takes of c (all that is left when
// not asked, and no more than most): the amount and its kronor, the last
// of the credit taking the last krona.
func take(c Credit, asked *money.Amount, most money.Amount) (money.Amount, money.Amount, error) {
	amount := c.Remaining()
	if most.Cmp(amount) < 0 {
		amount = most
	}
	if asked != nil {
		if asked.Sign() <= 0 {
			return amount, money.Amount{}, apierr.Field("amount", "exclusiveMinimum", "must be greater than 0")
		}
		if asked.Cmp(amount) > 0 {
			return amount, money.Amount{}, apierr.Field("amount", "remaining", "is more than the "+amount.String()+" "+
				c.Currency+" the credit can give here")
		}
		amount = *asked
	}
	if amount.Cmp(c.Remaining()) == 0 {
		return amount, c.RemainingSEK(), nil
	}
	return amount, inKronor(amount, c.Amount, c.SEK, nil), nil
}

// ApplyCredit pays invoice sp.Invoice of the customer from credit id: a
// payment of the invoice (source customer_credit) from 2420 through the
// one payment path (MarkPaid: D 2420 / C 1510, the exchange difference on
// 3960/7960, or under kontantmetoden the sale's share), in the credit's
// currency, which must be the invoice's. Default amount: what the credit
// has left or the invoice does, the less.
func (s *Sales) ApplyCredit(ctx context.Context, company, customer, id uuid.UUID, sp Spend) (Spent, error) {
	c, err := s.credit(ctx, company, customer, id)
	if err != nil {
		return Spent{}, err
	}
	inv, err := s.store.Get(ctx, company, *sp.Invoice, s.today(), false, Read)
	switch {
	case apierr.Is(err, apierr.InvoiceNotFound):
		return Spent{}, apierr.Field("invoice_id", "exists", "the company has no such invoice")
	case err != nil:
		return Spent{}, err
	case inv.CustomerID != customer:
		return Spent{}, apierr.Field("invoice_id", "customer", "the invoice is another customer's")
	case inv.Currency != c.Currency:
		return Spent{}, apierr.New(apierr.MatchCurrencyMismatch, map[string]any{"invoice_id": inv.ID,
			"invoice_currency": inv.Currency, "credit_currency": c.Currency, "field": "invoice_id"})
	case inv.DocumentType != "invoice" || inv.CreditedID != nil || (inv.Status != "sent" && inv.Status != "partially_paid"):
		return Spent{}, apierr.New(apierr.Conflict, map[string]any{"reason": "not_payable", "invoice_id": inv.ID,
			"current_status": inv.State(), "field": "invoice_id"})
	}
	amount, sek, err := take(c, sp.Amount, inv.Remaining())
	if err != nil {
		return Spent{}, err
	}
	p := Pay{Amount: &amount, Date: sp.Date, Account: CreditAccount, Force: true, source: "customer_credit"}
	if inv.Currency != "SEK" {
		p.SEK = &sek
	}
	paid, err := s.MarkPaid(ctx, company, inv.ID, p)
	if err != nil {
		return Spent{}, err
	}
	use := Use{CompanyID: company, ID: uuid.New(), CreditID: c.ID, Kind: "applied", InvoiceID: &inv.ID, Amount: amount,
		SEK: sek, Date: paid.Payment.Date, EntryID: *paid.Payment.EntryID}
	if err := s.store.AddUse(ctx, use); err != nil {
		return Spent{}, err
	}
	c.Used, c.UsedSEK = c.Used.Add(amount), c.UsedSEK.Add(sek)
	if err := s.recordCredit(ctx, c, "Kundkredit "+amount.String()+" "+c.Currency+" avräknades mot faktura "+
		text(inv.Number)); err != nil {
		return Spent{}, err
	}
	return Spent{Credit: c, Invoice: &paid.Invoice, Payment: paid.Payment, EntryID: use.EntryID, Lines: paid.Lines}, nil
}

// RefundCredit pays a customer's credit id back from a cash account
// (default 1930): D 2420 / C the account, in kronor what the part of the
// credit was booked at, dated sp.Date (default today), source
// customer_credit_refund.
func (s *Sales) RefundCredit(ctx context.Context, company, customer, id uuid.UUID, sp Spend) (Spent, error) {
	c, err := s.credit(ctx, company, customer, id)
	if err != nil {
		return Spent{}, err
	}
	amount, sek, err := take(c, sp.Amount, c.Remaining())
	if err != nil {
		return Spent{}, err
	}
	account := sp.Account
	if account == "" {
		account = PaymentAccount
	}
	day := s.today()
	if sp.Date != nil {
		day = *sp.Date
	}
	if day.Before(c.Date) {
		return Spent{}, apierr.Field("payment_date", "not_before_credit", "a credit is not paid back before it arose, "+
			c.Date.Format(time.DateOnly))
	}
	what := "Återbetalning av kundkredit"
	lines := []ledger.Line{{Account: CreditAccount, Debit: sek, Description: &what}, {Account: account, Credit: sek}}
	if c.Currency != "SEK" {
		cur := c.Currency
		lines[1].Currency, lines[1].AmountInCurrency = &cur, &amount
	}
	entry := uuid.New()
	inv := Invoice{CompanyID: company, ID: c.InvoiceID, CustomerID: customer}
	if name, err := s.customerName(ctx, company, customer); err != nil {
		return Spent{}, err
	} else {
		inv.CustomerName = name
	}
	if _, err := s.post(ctx, inv, entry, true, day, "payment_date", SourceCreditRefund,
		"Återbetalning av kundkredit, "+inv.CustomerName, lines); err != nil {
		return Spent{}, err
	}
	use := Use{CompanyID: company, ID: uuid.New(), CreditID: c.ID, Kind: "refunded", Account: &account, Amount: amount,
		SEK: sek, Date: day, EntryID: entry}
	if err := s.store.AddUse(ctx, use); err != nil {
		return Spent{}, err
	}
	c.Used, c.UsedSEK = c.Used.Add(amount), c.UsedSEK.Add(sek)
	if err := s.recordCredit(ctx, c, "Kundkredit "+amount.String()+" "+c.Currency+" återbetalades"); err != nil {
		return Spent{}, err
	}
	return Spent{Credit: c, EntryID: entry, Lines: lines}, nil
}

// customerName is the customer's name, as a verifikat names its
// counterparty.
func (s *Sales) customerName(ctx context.Context, company, customer uuid.UUID) (string, error) {
	c, err := s.books.Customer(ctx, company, customer)
	if e, ok := apierr.As(err); ok && e.Details["reason"] == "archived" {
		// An archived customer keeps its credit and is paid it back.
		return c.Name, nil
	}
	return c.Name, err
}

// undoCredits is a storno of verifikat orig (by st) as the credits see
// it: a credit it made and nothing has used is reversed whole (a used one
// keeps the storno from being made, 409 CONFLICT); a use it booked is
// given back.
func (s *Sales) undoCredits(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
	made, err := s.store.CreditsBy(ctx, company, orig.ID)
	if err != nil {
		return err
	}
	for _, c := range made {
		if !c.Used.IsZero() {
			return apierr.New(apierr.Conflict, map[string]any{"reason": "customer_credit_used", "credit_id": c.ID,
				"journal_entry_id": orig.ID, "hint": "undo the credit's uses first: storno their verifikat"})
		}
		if err := s.store.AddUse(ctx, Use{CompanyID: company, ID: uuid.New(), CreditID: c.ID, Kind: "reversed",
			Amount: c.Amount, SEK: c.SEK, Date: st.Date, EntryID: st.ID}); err != nil {
			return err
		}
	}
	uses, err := s.store.UsesBy(ctx, company, orig.ID)
	if err != nil {
		return err
	}
	for _, u := range uses {
		id := u.ID
		if err := s.store.AddUse(ctx, Use{CompanyID: company, ID: uuid.New(), CreditID: u.CreditID, Kind: "restored",
			Amount: u.Amount.Neg(), SEK: u.SEK.Neg(), Date: st.Date, EntryID: st.ID, ReversesID: &id}); err != nil {
			return err
		}
	}
	return nil
}
