package banking

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// EventReconciled is announced when a transaction is settled against
// something already in the books.
const EventReconciled = "transaction.reconciled"

// Linked is the link of a transaction to a verifikat.
type Linked struct {
	Transaction Transaction
	Entry       ledger.Entry
}

// Link books transaction id by verifikat entry, already posted, which has
// a line on the transaction's account of its amount (money in a debit,
// out a credit): nothing new is booked. Uncategorize only unlinks it.
func (b *Bank) Link(ctx context.Context, company, id, entry uuid.UUID) (Linked, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Linked{}, err
	}
	if t.Booked() {
		return Linked{}, apierr.New(apierr.LinkTxAlreadyLinked, map[string]any{"transaction_id": id,
			"journal_entry_id": t.JournalEntryID})
	}
	if t.Ignored {
		return Linked{}, apierr.New(apierr.Conflict, map[string]any{"reason": "transaction_ignored", "transaction_id": id})
	}
	e, err := b.books.Entry(ctx, company, entry)
	if apierr.Is(err, apierr.JournalEntryNotFound) {
		return Linked{}, apierr.New(apierr.LinkTxEntryNotFound, map[string]any{"journal_entry_id": entry, "field": "journal_entry_id"})
	}
	if err != nil {
		return Linked{}, err
	}
	if e.Status != "posted" {
		return Linked{}, apierr.New(apierr.LinkTxEntryNotPosted, map[string]any{"journal_entry_id": entry, "status": e.Status})
	}
	amount, ok := t.SEK()
	if !ok {
		return Linked{}, apierr.New(apierr.Conflict, map[string]any{"reason": "exchange_rate_missing", "transaction_id": id,
			"hint": "refresh-exchange-rate first"})
	}
	if !hasLine(e, t.LedgerAccount, amount) {
		return Linked{}, apierr.New(apierr.LinkTxNoMatchingLine, map[string]any{"journal_entry_id": entry,
			"ledger_account": t.LedgerAccount, "amount": amount})
	}
	old := t
	method := "linked"
	t.JournalEntryID, t.ReconciliationMethod = &e.ID, &method
	if t, err = b.store.Save(ctx, t); err != nil {
		return Linked{}, err
	}
	if err := b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionen kopplades till verifikation "+e.Voucher()); err != nil {
		return Linked{}, err
	}
	_, err = outbox.Emit(ctx, b.store.db, t.CompanyID, EventReconciled, map[string]any{"transaction": TxDetail(t, nil, nil),
		"journal_entry_id": e.ID, "reconciliation_method": method})
	return Linked{Transaction: t, Entry: e}, err
}

// hasLine says whether e has a current line on account moving amount
// (positive: a debit).
func hasLine(e ledger.Entry, account string, amount money.Amount) bool {
	for _, l := range e.Lines {
		if l.Account != account || l.StruckBy != nil {
			continue
		}
		if l.Debit.Sub(l.Credit).Cmp(amount) == 0 {
			return true
		}
	}
	return false
}

// unlink releases a transaction linked to a verifikat it did not book:
// nothing is stornoed.
func (b *Bank) unlink(ctx context.Context, t Transaction) (Transaction, error) {
	old := t
	t.JournalEntryID, t.ReconciliationMethod, t.WasBooked = nil, nil, true
	t, err := b.store.Save(ctx, t)
	if err != nil {
		return t, err
	}
	if err := b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionens koppling till en verifikation togs bort"); err != nil {
		return t, err
	}
	if b.Released != nil {
		return t, b.Released(ctx, t.CompanyID, t.ID)
	}
	return t, nil
}

// RateRefresh is what a refresh of a transaction's rate came to.
type RateRefresh struct {
	Transaction Transaction
	Refreshed   bool
}

// RefreshRate sets the kronor of unbooked foreign transaction id at the
// Riksbank's rate of its day (fetched before the transaction; fx).
// A SEK transaction has nothing to refresh.
func (b *Bank) RefreshRate(ctx context.Context, company, id uuid.UUID) (RateRefresh, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return RateRefresh{}, err
	}
	if t.Currency == "SEK" {
		return RateRefresh{Transaction: t}, nil
	}
	if t.Booked() {
		return RateRefresh{}, apierr.New(apierr.TxExchangeRateBooked, map[string]any{"transaction_id": id,
			"journal_entry_id": t.JournalEntryID})
	}
	rate, err := b.books.Rate(ctx, t.Currency, t.Date)
	if err != nil {
		details := map[string]any{"transaction_id": id, "currency": t.Currency, "date": t.Date.Format(time.DateOnly)}
		if e, ok := apierr.As(err); ok {
			details["reason"] = e.Details["reason"]
		}
		if !fx.Known(t.Currency) {
			details["reason"] = "unknown_currency"
		}
		if apierr.Is(err, apierr.SIFXRateMissing) || !fx.Known(t.Currency) {
			return RateRefresh{}, apierr.New(apierr.TxExchangeRateUnavailable, details)
		}
		return RateRefresh{}, err
	}
	old := t
	sek := rate.Convert(t.Amount)
	day := t.Date
	t.AmountSEK, t.ExchangeRate, t.ExchangeRateDate = &sek, &rate, &day
	if t, err = b.store.SaveRate(ctx, t); err != nil {
		return RateRefresh{}, err
	}
	return RateRefresh{Transaction: t, Refreshed: true}, b.recordTx(ctx, audit.Update, &old, &t,
		"Banktransaktionens kronor sattes till kursen "+rate.String())
}
