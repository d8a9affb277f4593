package portfolio

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/reconciliation"
)

// Listed is a company as the company register lists it.
type Listed struct {
	ID        uuid.UUID
	Name      string
	OrgNumber *string
	CreatedAt time.Time
}

// Counts answers a count per company of ids; a company missing has none.
type Counts func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error)

// Sources are where the overview's figures come from, each the domain
// that keeps them, asked for a page of companies at once.
type Sources struct {
	// Reach answers the companies the request's key reaches.
	Reach func(ctx context.Context) ([]auth.Access, error)
	// Companies answers a page of ids' companies, in the register's order.
	Companies      func(ctx context.Context, ids []uuid.UUID, after *cursor.Position, limit int) ([]Listed, error)
	UnbookedBank   Counts
	InboxWaiting   Counts
	DraftEntries   Counts
	Invoices       func(ctx context.Context, ids []uuid.UUID, today time.Time) (map[uuid.UUID]invoicing.Standing, error)
	Deadlines      func(ctx context.Context, ids []uuid.UUID, today time.Time) (map[uuid.UUID]deadline.Next, error)
	Reconciliation func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]reconciliation.Standing, error)
	// Today is the day in Stockholm.
	Today func() time.Time
}

// Handler serves the overview.
type Handler struct {
	src     Sources
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(src Sources, c *cursor.Codec) *Handler { return &Handler{src: src, cursors: c} }

const list = "portfolio"

// overview gathers a page of the companies the key reaches, on day today.
func (h *Handler) overview(ctx context.Context, after *cursor.Position, limit int, today time.Time) ([]Company, string, error) {
	reach, err := h.src.Reach(ctx)
	if err != nil {
		return nil, "", err
	}
	roles := make(map[uuid.UUID]auth.Role, len(reach))
	ids := make([]uuid.UUID, len(reach))
	for i, a := range reach {
		roles[a.CompanyID], ids[i] = a.Role, a.CompanyID
	}
	rows, err := h.src.Companies(ctx, ids, after, limit)
	if err != nil {
		return nil, "", err
	}
	rows, next := cursor.Next(h.cursors, list, rows, limit, func(c Listed) any { return cursor.Position{At: c.CreatedAt, ID: c.ID} })
	page := make([]uuid.UUID, len(rows))
	for i, c := range rows {
		page[i] = c.ID
	}
	var bank, inbox, drafts map[uuid.UUID]int
	for _, c := range []struct {
		into *map[uuid.UUID]int
		from Counts
	}{{&bank, h.src.UnbookedBank}, {&inbox, h.src.InboxWaiting}, {&drafts, h.src.DraftEntries}} {
		if *c.into, err = c.from(ctx, page); err != nil {
			return nil, "", err
		}
	}
	invoices, err := h.src.Invoices(ctx, page, today)
	if err != nil {
		return nil, "", err
	}
	deadlines, err := h.src.Deadlines(ctx, page, today)
	if err != nil {
		return nil, "", err
	}
	recon, err := h.src.Reconciliation(ctx, page)
	if err != nil {
		return nil, "", err
	}
	out := make([]Company, len(rows))
	for i, c := range rows {
		out[i] = Company{ID: c.ID, Name: c.Name, OrgNumber: c.OrgNumber, Role: roles[c.ID], UnbookedBank: bank[c.ID],
			InboxWaiting: inbox[c.ID], DraftEntries: drafts[c.ID], Invoices: invoices[c.ID], Reconciliation: recon[c.ID]}
		if d, ok := deadlines[c.ID]; ok {
			out[i].Next = &d
		}
		out[i].ReconciledState = ReconciledState(out[i].Reconciliation, today)
	}
	return out, next, nil
}

// GetPortfolioOverview answers the overview's page.
func (h *Handler) GetPortfolioOverview(ctx context.Context, req gen.GetPortfolioOverviewRequestObject) (gen.GetPortfolioOverviewResponseObject, error) {
	var after *cursor.Position
	if p := new(cursor.Position); h.cursors.DecodeParam(list, req.Params.Cursor, p) {
		after = p
	}
	today := h.src.Today()
	rows, next, err := h.overview(ctx, after, cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit), today)
	if err != nil {
		return nil, err
	}
	data := gen.PortfolioOverview{AsOf: openapi_types.Date{Time: today}, Companies: make([]gen.PortfolioCompany, len(rows))}
	for i, c := range rows {
		v := gen.PortfolioCompany{CompanyId: c.ID, Name: c.Name, OrgNumber: envelope.Nullable(c.OrgNumber), Role: gen.Role(c.Role),
			UnbookedBankTransactions: c.UnbookedBank, InboxItemsWaiting: c.InboxWaiting, DraftJournalEntries: c.DraftEntries,
			DraftInvoices:   c.Invoices.Drafts,
			OverdueInvoices: gen.PortfolioOverdue{Count: c.Invoices.Overdue, AmountSek: c.Invoices.OverdueSEK},
			NextDeadline:    nullable.NewNullNullable[gen.PortfolioDeadline](),
			Reconciliation: gen.PortfolioReconciliation{Status: gen.PortfolioReconciliationStatus(c.ReconciledState),
				BankAccounts: c.Reconciliation.Accounts, SignedOff: c.Reconciliation.SignedOff,
				SignedOffThrough: envelope.NullableDate(c.Reconciliation.Through)}}
		if d := c.Next; d != nil {
			status := gen.PortfolioDeadlineStatusUpcoming
			if d.Due.Before(today) {
				status = gen.PortfolioDeadlineStatusOverdue
			}
			v.NextDeadline = nullable.NewNullableWithValue(gen.PortfolioDeadline{DeadlineType: gen.PortfolioDeadlineDeadlineType(d.Type),
				Form: gen.PortfolioDeadlineForm(d.Form), TaxPeriod: d.TaxPeriod, DueDate: openapi_types.Date{Time: d.Due},
				Status: status})
		}
		data.Companies[i] = v
	}
	return gen.GetPortfolioOverview200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}
