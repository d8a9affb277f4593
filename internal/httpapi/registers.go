package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/articles"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
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
