package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/payables"
	"github.com/kontera/kontera/internal/store"
)

// newBank is the bank on the company's chart: a cash account's ledger
// account is added from BAS when it is there, else as an asset account of
// the company's own; payees are checked as the settings' payment details.
func newBank(db *store.DB, audits *audit.Store, accounts *chart.Store, companies *company.Store,
	journal *ledger.Store, rates *fx.Rates, docs *documents.Store, archive *documents.Archive,
	sales *invoicing.Store, ops *jobs.Store,
	selling func() *invoicing.Sales, bought func() *payables.Payables) *banking.Bank {
	return banking.New(banking.NewStore(db, audits), banking.Books{
		EnsureAccount: func(ctx context.Context, c uuid.UUID, number, name string) error {
			_, err := accounts.Ensure(ctx, c, []string{number})
			if !apierr.Is(err, apierr.AccountsNotInChart) {
				return err
			}
			asset, debit := bas.Asset, bas.Debit
			_, err = accounts.Create(ctx, c, chart.Input{Number: number, Name: &name, Type: &asset, NormalBalance: &debit})
			return err
		},
		CheckPayee: company.PaymentIssues,
		Policy: func(ctx context.Context, c uuid.UUID) (banking.Policy, error) {
			a, err := companies.ArrivalFacts(ctx, c)
			return banking.Policy{VATRegistered: a.VATRegistered, EntityType: a.EntityType}, err
		},
		EnsureAccounts: func(ctx context.Context, c uuid.UUID, numbers []string) error {
			_, err := accounts.Ensure(ctx, c, numbers)
			return err
		},
		Entry:       journal.Get,
		OpenInvoice: sales.Payable,
		Enqueue:     ops.Enqueue,
		OpenSupplierInvoices: func(ctx context.Context, c uuid.UUID, currency string, amount money.Amount) ([]uuid.UUID, error) {
			return bought().Payable(ctx, c, currency, amount)
		},
		Document: func(ctx context.Context, c, id uuid.UUID) error {
			_, err := docs.Get(ctx, c, id, false)
			return err
		},
		Link: linkUnderlag(archive),
		Receive: func(ctx context.Context, c uuid.UUID, r banking.Remittance) (banking.Settled, error) {
			parts := make([]invoicing.Allocation, len(r.Parts))
			for i, p := range r.Parts {
				parts[i] = invoicing.Allocation{InvoiceID: p.InvoiceID, Amount: p.Amount}
			}
			got, err := selling().Receive(ctx, c, invoicing.Remittance{Account: r.Account, Series: r.Series, Date: r.Date,
				Description: r.Description, Currency: r.Currency, Amount: r.Amount, SEK: r.SEK, Parts: parts, Force: r.Force})
			out := banking.Settled{Entry: got.Entry, Rounding: got.Rounding}
			for i, inv := range got.Invoices {
				var at *time.Time
				if inv.Status == "paid" {
					at = inv.PaidAt
				}
				out.Parts = append(out.Parts, banking.SettledPart{InvoiceID: inv.ID, PaymentID: got.Payments[i].ID,
					Status: inv.State(), PaidAt: at, Amount: got.Payments[i].Amount, Paid: inv.Paid,
					Remaining: inv.Remaining(), Allocated: r.Parts[i].Amount})
			}
			return out, err
		},
		Disburse: func(ctx context.Context, c uuid.UUID, r banking.Remittance) (banking.Settled, error) {
			parts := make([]payables.Allocation, len(r.Parts))
			for i, p := range r.Parts {
				parts[i] = payables.Allocation{InvoiceID: p.InvoiceID, Amount: p.Amount}
			}
			got, err := bought().Disburse(ctx, c, payables.Disbursement{Account: r.Account, Series: r.Series, Date: r.Date,
				Description: r.Description, Currency: r.Currency, Amount: r.Amount, SEK: r.SEK, Parts: parts, Force: r.Force})
			out := banking.Settled{Entry: got.Entry, Fee: got.Fee, Rounding: got.Rounding}
			for i, inv := range got.Invoices {
				out.Parts = append(out.Parts, banking.SettledPart{InvoiceID: inv.ID, PaymentID: got.Payments[i].ID,
					Status: inv.State(), PaidAt: inv.PaidAt, Amount: got.Payments[i].Amount, Paid: inv.PaidAmount,
					Remaining: inv.Remaining(), Allocated: r.Parts[i].Amount})
			}
			return out, err
		},
		Rate:    rates.Rate,
		Post:    journal.Post,
		Reverse: journal.Reverse,
	}, audits)
}
