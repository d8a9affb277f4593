package company

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the companies operations.
type Handler struct {
	companies *Store
	auth      *auth.Store
	cursors   *cursor.Codec
	now       func() time.Time
	// ImportHold is the imports' word on locking days from..to: an error
	// while an import still writes or undoes a year among them.
	ImportHold func(ctx context.Context, company uuid.UUID, from, to time.Time) error
	// AccrualsPending is the invoice registers' word on a lock date: an
	// error (ACCRUALS_PENDING) while accrued months dated on or before it
	// wait to be booked.
	AccrualsPending func(ctx context.Context, company uuid.UUID, through time.Time) error
}

// NewHandler returns the companies handler.
func NewHandler(companies *Store, a *auth.Store, cursors *cursor.Codec, now func() time.Time) *Handler {
	return &Handler{companies: companies, auth: a, cursors: cursors, now: now}
}

const listName = "companies"

// ListCompanies lists the companies the key reaches.
func (h *Handler) ListCompanies(ctx context.Context, req gen.ListCompaniesRequestObject) (gen.ListCompaniesResponseObject, error) {
	key := auth.KeyFrom(ctx)
	reach, err := h.auth.Reachable(ctx, key)
	if err != nil {
		return nil, err
	}
	roles := make(map[uuid.UUID]auth.Role, len(reach))
	ids := make([]uuid.UUID, 0, len(reach))
	for _, a := range reach {
		roles[a.CompanyID] = a.Role
		ids = append(ids, a.CompanyID)
	}
	var after *cursor.Position
	if p := new(cursor.Position); h.cursors.DecodeParam(listName, req.Params.Cursor, p) {
		after = p
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.companies.List(ctx, ids, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, listName, rows, limit, func(c Company) any {
		return cursor.Position{At: c.CreatedAt, ID: c.ID}
	})
	data := make([]gen.CompanyListItem, len(rows))
	for i, c := range rows {
		data[i] = listItem(c, roles[c.ID])
	}
	return gen.ListCompanies200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetCompany shows one company the key reaches, as the list does.
func (h *Handler) GetCompany(ctx context.Context, req gen.GetCompanyRequestObject) (gen.GetCompanyResponseObject, error) {
	rows, err := h.companies.List(ctx, []uuid.UUID{req.CompanyId}, nil, 1)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 { // archived since the key was looked up
		return nil, apierr.New(apierr.NotFound, map[string]any{"company_id": req.CompanyId})
	}
	return gen.GetCompany200JSONResponse{Meta: envelope.Meta(ctx), Data: listItem(rows[0], auth.AccessFrom(ctx).Role)}, nil
}

// CreateCompany creates a company owned by the key's user.
func (h *Handler) CreateCompany(ctx context.Context, req gen.CreateCompanyRequestObject) (gen.CreateCompanyResponseObject, error) {
	key := auth.KeyFrom(ctx)
	c, err := New(inputFrom(req.Body), h.now())
	if err != nil {
		return nil, err
	}
	c, err = h.companies.Insert(ctx, c, key.UserID)
	if err != nil {
		return nil, err
	}
	if _, err := h.auth.AddMember(ctx, c.ID, key.UserID, auth.Owner, false); err != nil {
		return nil, err
	}
	if err := h.companies.SetUpBooks(ctx, c, h.now()); err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateCompany200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.CompanyDryRun{DryRun: true, Preview: preview(c)}}, nil
	}
	return gen.CreateCompany201JSONResponse{Meta: envelope.Meta(ctx), Data: created(c)}, nil
}

func inputFrom(b *gen.CreateCompanyJSONRequestBody) Input {
	in := Input{
		Name: b.Name, EntityType: EntityType(b.EntityType), VATRegistered: b.VatRegistered, FSkatt: b.FSkatt,
		OrgNumber: envelope.Optional(b.OrgNumber), AddressLine1: envelope.Optional(b.AddressLine1), PostalCode: envelope.Optional(b.PostalCode),
		City: envelope.Optional(b.City), VATNumber: envelope.Optional(b.VatNumber), FiscalYearStartMonth: envelope.Optional(b.FiscalYearStartMonth),
	}
	if p := envelope.Optional(b.MomsPeriod); p != nil {
		s := string(*p)
		in.MomsPeriod = &s
	}
	if b.AccountingMethod != nil {
		s := string(*b.AccountingMethod)
		in.AccountingMethod = &s
	}
	if t := envelope.Optional(b.TeamId); t != nil {
		id := uuid.UUID(*t)
		in.TeamID = &id
	}
	if fy := envelope.Optional(b.FirstFiscalYear); fy != nil {
		in.FirstFiscalYear = &Span{Start: fy.Start.Time, End: fy.End.Time}
	}
	in.BooksFromImport = b.BooksFromImport != nil && *b.BooksFromImport
	return in
}

func listItem(c Company, role auth.Role) gen.CompanyListItem {
	return gen.CompanyListItem{Id: c.ID, Name: c.Name, OrgNumber: envelope.Nullable(c.OrgNumber),
		EntityType: gen.EntityType(c.EntityType), Role: gen.Role(role), CreatedAt: c.CreatedAt.UTC()}
}

func created(c Company) gen.CompanyCreated {
	p := preview(c)
	return gen.CompanyCreated{Id: c.ID, Name: p.Name, EntityType: p.EntityType, OrgNumber: p.OrgNumber,
		VatRegistered: p.VatRegistered, VatNumber: p.VatNumber, MomsPeriod: p.MomsPeriod, AccountingMethod: p.AccountingMethod,
		FiscalPeriod: p.FiscalPeriod, TeamId: p.TeamId}
}

func preview(c Company) gen.CompanyPreview {
	p := gen.CompanyPreview{
		Name: c.Name, EntityType: gen.EntityType(c.EntityType), OrgNumber: envelope.Nullable(c.OrgNumber),
		VatRegistered: c.VATRegistered, VatNumber: envelope.Nullable(c.VATNumber),
		AccountingMethod: gen.AccountingMethod(c.AccountingMethod), MomsPeriod: nullable.NewNullNullable[gen.MomsPeriod](), TeamId: nullable.NewNullNullable[openapi_types.UUID](),
		FiscalPeriod: gen.FiscalPeriodSummary{
			StartDate: openapi_types.Date{Time: c.FirstYear.Start}, EndDate: openapi_types.Date{Time: c.FirstYear.End},
			Name: c.FirstYear.Name(),
		},
	}
	if c.MomsPeriod != nil {
		p.MomsPeriod = nullable.NewNullableWithValue(gen.MomsPeriod(*c.MomsPeriod))
	}
	if c.TeamID != nil {
		p.TeamId = nullable.NewNullableWithValue(openapi_types.UUID(*c.TeamID))
	}
	return p
}
