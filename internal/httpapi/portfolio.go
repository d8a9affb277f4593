package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/inbox"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/portfolio"
	"github.com/kontera/kontera/internal/reconciliation"
)

// portfolioSources gathers the overview's figures from the domains that
// keep them.
func portfolioSources(keys *auth.Store, companies *company.Store, bank *banking.Store, mailbox *inbox.Store,
	journal *ledger.Store, sales *invoicing.Store, deadlines *deadline.Store, recon *reconciliation.Store,
	now func() time.Time) portfolio.Sources {
	return portfolio.Sources{
		Reach: func(ctx context.Context) ([]auth.Access, error) { return keys.Reachable(ctx, auth.KeyFrom(ctx)) },
		Companies: func(ctx context.Context, ids []uuid.UUID, after *cursor.Position, limit int) ([]portfolio.Listed, error) {
			rows, err := companies.List(ctx, ids, after, limit)
			out := make([]portfolio.Listed, len(rows))
			for i, c := range rows {
				out[i] = portfolio.Listed{ID: c.ID, Name: c.Name, OrgNumber: c.OrgNumber, CreatedAt: c.CreatedAt}
			}
			return out, err
		},
		UnbookedBank: bank.UnbookedCounts, InboxWaiting: mailbox.WaitingCounts, DraftEntries: journal.DraftCounts,
		Invoices: sales.Standings, Deadlines: deadlines.NextOf, Reconciliation: recon.Standings,
		Today: func() time.Time { return ledger.Today(now()) },
	}
}
