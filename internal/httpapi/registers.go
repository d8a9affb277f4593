package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/articles"
	"github.com/kontera/kontera/internal/assets"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/payables"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/vat"
)

// articleStore is the article register on db, its accounts checked
// against the company's chart and the VAT return's boxes: an account the
// chart has reports where its VAT treatment says, one only BAS has where
// the BAS table puts it.
func articleStore(db *store.DB, audits *audit.Store, accounts *chart.Store) *articles.Store {
	return articles.NewStore(db, audits, func(ctx context.Context, company uuid.UUID, numbers []string) (map[string]string, error) {
		if err := accounts.Known(ctx, company, numbers); err != nil {
			return nil, err
		}
		have, err := accounts.Lookup(ctx, company, numbers)
		if err != nil {
			return nil, err
		}
		out := make(map[string]string, len(numbers))
		for _, n := range numbers {
			if a, ok := have[n]; ok {
				out[n] = vat.BoxOf(vat.Account{Number: n, Box: a.VATBox, Treatment: a.VATTreatment, Rate: a.VATRate})
			} else {
				out[n] = vat.TableBox(n)
			}
		}
		return out, nil
	})
}

// assetRegister is the fixed-asset register on the books it posts in.
func assetRegister(db *store.DB, audits *audit.Store, companies *company.Store, accounts *chart.Store,
	dims *dimensions.Store, journal *ledger.Store, bought *payables.Payables, now func() time.Time) *assets.Register {
	return assets.NewRegister(assets.NewStore(db), assets.Books{
		EnsureAccounts:  ensureAccounts(accounts),
		CheckDimensions: dims.Check,
		Post:            journal.Post,
		VATRegistered: func(ctx context.Context, c uuid.UUID) (bool, error) {
			m, err := companies.Settings(ctx, c)
			registered, _ := m["vat_registered"].(bool)
			return registered, err
		},
		Entry: func(ctx context.Context, c, id uuid.UUID) error {
			_, err := journal.Get(ctx, c, id)
			return named(err, "journal_entry_id")
		},
		SupplierInvoice: func(ctx context.Context, c, id uuid.UUID) error {
			_, err := bought.Get(ctx, c, id, false)
			return named(err, "supplier_invoice_id")
		},
		Balances: journal.BalancesAt,
	}, audits, now)
}

// named adds the request field a not-found error came from to its details.
func named(err error, field string) error {
	if e, ok := apierr.As(err); ok && e.Status == 404 {
		details := map[string]any{"field": field}
		for k, v := range e.Details {
			details[k] = v
		}
		return apierr.New(e.Code, details)
	}
	return err
}

// ensureAccounts is chart.Store.Ensure as an engine's books call it: the
// accounts a verifikat is about to book on, BAS's added to the chart.
func ensureAccounts(accounts *chart.Store) func(ctx context.Context, company uuid.UUID, numbers []string) error {
	return func(ctx context.Context, company uuid.UUID, numbers []string) error {
		_, err := accounts.Ensure(ctx, company, numbers)
		return err
	}
}

// underlagOf is the archive as an engine's books ask it: whether a
// document of the company is underlag of a verifikat already (404
// DOC_NOT_FOUND for one it lacks), held until the transaction ends.
func underlagOf(docs *documents.Store) func(ctx context.Context, company, doc uuid.UUID) (bool, error) {
	return func(ctx context.Context, company, doc uuid.UUID) (bool, error) {
		d, err := docs.Get(ctx, company, doc, true)
		return d.EntryID != nil, err
	}
}

// linkUnderlag makes a document underlag of a verifikat by the archive's
// linking rule.
func linkUnderlag(archive *documents.Archive) func(ctx context.Context, company, doc, entry uuid.UUID) error {
	return func(ctx context.Context, company, doc, entry uuid.UUID) error {
		_, err := archive.Link(ctx, company, doc, documents.LinkTo{EntryID: entry})
		return err
	}
}
