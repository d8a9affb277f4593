package payables

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Moved is a line moved to another account: Changed says the account
// changed, Corrected that the registration verifikat was corrected inline
// (rättelse) with it.
type Moved struct {
	Changed, Corrected bool
	Invoice            Invoice
}

// MoveItem puts line item of invoice id on account. Booked, the
// registration verifikat is corrected inline (the ledger's strike-lines
// rättelse: the line struck, what of it belonged to other lines and this
// line's kronor on the new account added); unbooked only the line moves.
// A cost already booked by a payment (kontantmetoden) or released from a
// prepaid account is SI_ITEM_ACCOUNT_SETTLED.
func (p *Payables) MoveItem(ctx context.Context, company, id, item uuid.UUID, account string) (Moved, error) {
	inv, err := p.store.Get(ctx, company, id, p.today(), true, true)
	if err != nil {
		return Moved{}, err
	}
	at := -1
	for i, it := range inv.Items {
		if it.ID == item {
			at = i
		}
	}
	if at < 0 {
		return Moved{}, apierr.New(apierr.NotFound, map[string]any{"resource": "supplier_invoice_item", "item_id": item})
	}
	it := inv.Items[at]
	if account == it.Account {
		return Moved{Invoice: inv}, nil
	}
	if err := p.movable(ctx, inv, it, account); err != nil {
		return Moved{}, err
	}
	corrected := false
	if inv.Booked() && it.AccrualAccount == nil {
		if err := p.correct(ctx, inv, it, account); err != nil {
			return Moved{}, err
		}
		corrected = true
	}
	if err := p.store.MoveItem(ctx, inv, item, account); err != nil {
		return Moved{}, err
	}
	old := inv
	inv.Items = append([]Item(nil), inv.Items...)
	inv.Items[at].Account = account
	desc := describe(inv) + ": raden \"" + it.Description + "\" flyttades från " + it.Account + " till " + account
	return Moved{Changed: true, Corrected: corrected, Invoice: inv}, p.record(ctx, audit.Update, desc, inv, &old, &inv)
}

// movable checks that line it of inv may go on account.
func (p *Payables) movable(ctx context.Context, inv Invoice, it Item, account string) error {
	d := map[string]any{"supplier_invoice_id": inv.ID, "item_id": it.ID, "account_number": it.Account}
	switch {
	case inv.CreditNote || inv.Status == Credited || inv.Status == Reversed:
		d["reason"], d["current_status"] = "not_open", inv.State()
		return apierr.New(apierr.Conflict, d)
	case it.SLP && !strings.HasPrefix(account, "741"):
		return apierr.New(apierr.SICreateSLPInvalidAccount, map[string]any{"field": "account_number", "account_number": account})
	case inv.Cash && !inv.PaidAmount.IsZero():
		d["reason"] = "paid_under_cash_method"
		return apierr.New(apierr.SIItemAccountSettled, d)
	}
	if inv.ReverseCharge {
		pct := it.VATRate.InÖre()
		from, _ := family(it.Account, pct)
		to, ok := family(account, pct)
		if !ok || reverseCharged[from].out != reverseCharged[to].out || reverseCharged[from].input != reverseCharged[to].input {
			return invalid("account_number", "reverse_charge_account", "account_number", account)
		}
	}
	if it.AccrualAccount != nil {
		months, err := p.store.Months(ctx, inv.CompanyID, inv.ID)
		if err != nil {
			return err
		}
		for _, m := range months {
			if m.ItemID == it.ID && m.Released() {
				d["reason"] = "accrual_released"
				return apierr.New(apierr.SIItemAccountSettled, d)
			}
		}
	}
	return p.books.KnownAccounts(ctx, inv.CompanyID, []string{account})
}

// correct strikes the registration line carrying it and adds it back on
// account, with what else that line carried left on its old account.
func (p *Payables) correct(ctx context.Context, inv Invoice, it Item, account string) error {
	e, err := p.books.Entry(ctx, inv.CompanyID, *inv.EntryID)
	if err != nil {
		return err
	}
	amount := sekOf(inv, it.Amount)
	credit := amount.Sign() < 0
	if credit {
		amount = amount.Neg()
	}
	want := tags(inv, it)
	var line *ledger.Line
	for i, l := range e.Lines {
		side := l.Debit
		if credit {
			side = l.Credit
		}
		if l.Account == it.Account && l.Currency == nil && ledger.SameTags(l.Dimensions, want) && side.Cmp(amount) >= 0 {
			line = &e.Lines[i]
			break
		}
	}
	if line == nil {
		return apierr.New(apierr.SIItemAccountNoMatchingLine, map[string]any{"supplier_invoice_id": inv.ID,
			"item_id": it.ID, "journal_entry_id": e.ID, "account_number": it.Account})
	}
	var b ledger.Booking
	side := line.Debit
	if credit {
		side = line.Credit
	}
	b.Add(it.Account, side.Sub(amount), credit, line.Dimensions, line.Description)
	d := it.Description
	b.Add(account, amount, credit, want, &d)
	_, err = p.books.Strike(ctx, inv.CompanyID, e.ID, []uuid.UUID{line.ID}, b.Lines)
	return err
}

// ReleaseAccruals books a company's prepaid months due through the day
// (at most today): one
// verifikat per invoice and day (D cost / C 17xx), each under a savepoint
// of its own (store.EachGroup). It answers how many were posted and the
// ones the ledger refused (a locked period), which wait for a later run.
func (p *Payables) ReleaseAccruals(ctx context.Context, company uuid.UUID, through time.Time) (int, []error, error) {
	if today := p.today(); through.After(today) {
		through = today
	}
	due, err := p.store.DueMonths(ctx, company, through)
	if err != nil {
		return 0, nil, err
	}
	type key struct {
		invoice uuid.UUID
		day     time.Time
	}
	return store.EachGroup(ctx, p.db, due, func(m Month) key { return key{m.InvoiceID, m.Day} },
		func(ctx context.Context, group []Month) error {
			inv, err := p.store.Get(ctx, company, group[0].InvoiceID, p.today(), true, false)
			if err != nil {
				return err
			}
			return p.release(ctx, inv, group)
		}, func(ctx context.Context, group []Month, refusal error) error {
			return p.refused(ctx, company, group, refusal)
		})
}

// refused keeps the ledger's refusal of group, one invoice's months due
// on one day, on its months, and announces it the first time.
func (p *Payables) refused(ctx context.Context, company uuid.UUID, group []Month, refusal error) error {
	m := group[0]
	first, err := p.store.Refused(ctx, company, group, accrual.RefusalCode(refusal))
	if err != nil || !first {
		return err
	}
	inv, err := p.store.Get(ctx, company, m.InvoiceID, p.today(), false, false)
	if err != nil {
		return err
	}
	var sum money.Amount
	months := make([]time.Time, len(group))
	for i, x := range group {
		sum, months[i] = sum.Add(x.Amount), x.Month
	}
	_, err = outbox.Emit(ctx, p.db, company, accrual.EventReleaseRefused,
		accrual.Refusal(accrual.SupplierInvoice, m.InvoiceID, inv.Number, m.Day, months, sum, refusal))
	return err
}

// release books months of inv due on one day: one verifikat of source
// accrual on that day (D cost / C 17xx), named on the months.
func (p *Payables) release(ctx context.Context, inv Invoice, months []Month) error {
	entry, day := uuid.New(), months[0].Day
	if err := p.store.MarkReleased(ctx, inv.CompanyID, months, entry); err != nil {
		return err
	}
	_, err := p.post(ctx, inv, entry, false, day, SourceAccrual, "Periodisering, leverantörsfaktura "+inv.Number+
		", "+inv.SupplierName+", "+day.Format("2006-01"), ReleaseLines(inv, months))
	return err
}

// Waiting lists the company's prepaid months released on or before
// through and not yet booked, by invoice and month.
func (p *Payables) Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]accrual.Waiting, error) {
	return p.store.Waiting(ctx, company, through)
}

// ListAccruals lists the company's prepaid months as f asks.
func (p *Payables) ListAccruals(ctx context.Context, company uuid.UUID, f accrual.Filter) ([]accrual.Month, error) {
	return p.store.ListAccruals(ctx, company, f)
}

// DueAccruals answers the companies with prepaid months due today.
func (p *Payables) DueAccruals(ctx context.Context) ([]uuid.UUID, error) {
	return p.store.DueCompanies(ctx, p.today())
}
