package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/expenses"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/inbox"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/payfiles"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/store"
)

// expenseClaims is the expense claims' service on the books it posts in.
func expenseClaims(db *store.DB, audits *audit.Store, companies *company.Store, staff *payroll.Payroll,
	docs *documents.Store, archive *documents.Archive, mailbox *inbox.Store, accounts *chart.Store,
	dims *dimensions.Store, journal *ledger.Store, rates *fx.Rates, batches *payfiles.Batches, now func() time.Time) *expenses.Expenses {
	return expenses.New(expenses.NewStore(db), expenses.Books{
		Facts: func(ctx context.Context, c uuid.UUID) (expenses.Facts, error) {
			id, err := companies.Identity(ctx, c)
			return expenses.Facts{Form: id.Form, VATRegistered: id.VATRegistered}, err
		},
		Employee: func(ctx context.Context, c, id uuid.UUID) (string, error) {
			e, err := staff.Employee(ctx, c, id, false)
			return e.FirstName + " " + e.LastName, err
		},
		Linked: underlagOf(docs),
		InboxDocument: func(ctx context.Context, c, item uuid.UUID) (*uuid.UUID, error) {
			it, err := mailbox.Get(ctx, c, item, true)
			return it.DocumentID, err
		},
		Link:            linkUnderlag(archive),
		EnsureAccounts:  ensureAccounts(accounts),
		CheckDimensions: dims.Check,
		Post:            journal.Post,
		Reverse:         journal.Reverse,
		Rate:            rates.Rate,
		Reserved:        batches.Reserved,
	}, audits, now)
}

// expenseRate looks up, before the transaction, the rate a claim in
// another currency without exchange_rate is booked at.
func expenseRate(rates *fx.Rates) outsideWork {
	return func(ctx context.Context, _ string, raw []byte, _ func(string) string) context.Context {
		var b struct {
			Currency     string          `json:"currency"`
			ExchangeRate json.RawMessage `json:"exchange_rate"`
			ExpenseDate  string          `json:"expense_date"`
		}
		if json.Unmarshal(raw, &b) != nil || len(b.ExchangeRate) > 0 && string(b.ExchangeRate) != "null" ||
			!fx.Known(b.Currency) || b.Currency == "SEK" {
			return ctx
		}
		day, err := time.Parse(time.DateOnly, b.ExpenseDate)
		if err != nil {
			return ctx
		}
		return rates.Resolve(ctx, b.Currency, day)
	}
}
