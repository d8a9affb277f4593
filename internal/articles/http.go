package articles

import (
	"context"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the article register's operations.
type Handler struct {
	store   *Store
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(s *Store, c *cursor.Codec) *Handler { return &Handler{store: s, cursors: c} }

const list = "articles"

// ListArticles lists the company's articles by number.
func (h *Handler) ListArticles(ctx context.Context, req gen.ListArticlesRequestObject) (gen.ListArticlesResponseObject, error) {
	p := req.Params
	var after *position
	if pos := new(position); h.cursors.DecodeParam(list, p.Cursor, pos) {
		after = pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.store.List(ctx, req.CompanyId, p.Search, p.IncludeArchived != nil && *p.IncludeArchived, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, list, rows, limit, func(a Article) any { return position{Number: a.Number, ID: a.ID} })
	data := make([]gen.Article, len(rows))
	for i, a := range rows {
		data[i] = view(a)
	}
	return gen.ListArticles200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetArticle answers one article, archived ones too.
func (h *Handler) GetArticle(ctx context.Context, req gen.GetArticleRequestObject) (gen.GetArticleResponseObject, error) {
	a, err := h.store.Get(ctx, req.CompanyId, req.ArticleId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetArticle200JSONResponse{Data: view(a), Meta: envelope.Meta(ctx)}, nil
}

// CreateArticle adds an article.
func (h *Handler) CreateArticle(ctx context.Context, req gen.CreateArticleRequestObject) (gen.CreateArticleResponseObject, error) {
	b := req.Body
	in := Input{Number: &b.ArticleNumber, Name: &b.Name, Unit: b.Unit, UnitPrice: &b.UnitPrice, VATRate: b.VatRate,
		Active: b.Active, Accounts: accounts(b.RevenueAccounts)}
	in.Description, in.DescriptionSet = envelope.Optional(b.Description), true
	a, err := h.store.Insert(ctx, New(req.CompanyId, in))
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateArticle200JSONResponse{Data: gen.ArticleDryRun{DryRun: true, Preview: view(a)}, Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateArticle201JSONResponse{Data: view(a), Meta: envelope.Meta(ctx)}, nil
}

// UpdateArticle changes an article; the invoices made before keep what
// their lines took.
func (h *Handler) UpdateArticle(ctx context.Context, req gen.UpdateArticleRequestObject) (gen.UpdateArticleResponseObject, error) {
	old, err := h.store.Get(ctx, req.CompanyId, req.ArticleId, true)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := Input{Number: b.ArticleNumber, Name: b.Name, Unit: b.Unit, UnitPrice: b.UnitPrice, VATRate: b.VatRate,
		Active: b.Active, Accounts: accounts(b.RevenueAccounts)}
	if b.Description.IsSpecified() {
		in.Description, in.DescriptionSet = envelope.Optional(b.Description), true
	}
	a, err := h.store.Update(ctx, old, old.Apply(in))
	if err != nil {
		return nil, err
	}
	var data gen.ArticleOutcome
	if store.IsDryRun(ctx) {
		err = data.FromArticleDryRun(gen.ArticleDryRun{DryRun: true, Preview: view(a)})
	} else {
		err = data.FromArticle(view(a))
	}
	return gen.UpdateArticle200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteArticle removes an article no line names, and archives one
// that a line does.
func (h *Handler) DeleteArticle(ctx context.Context, req gen.DeleteArticleRequestObject) (gen.DeleteArticleResponseObject, error) {
	a, err := h.store.Get(ctx, req.CompanyId, req.ArticleId, true)
	if err != nil {
		return nil, err
	}
	deleted, err := h.store.Delete(ctx, a)
	if err != nil {
		return nil, err
	}
	res := gen.ArticleDeleted{ArticleId: a.ID, Deleted: deleted, Archived: !deleted}
	var data gen.ArticleDeletedOutcome
	if store.IsDryRun(ctx) {
		err = data.FromArticleDeletedDryRun(gen.ArticleDeletedDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromArticleDeleted(res)
	}
	return gen.DeleteArticle200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// accounts reads the treatments a body gives: null clears one ("").
func accounts(r *gen.ArticleRevenueAccounts) map[invoicing.Kind]string {
	if r == nil {
		return nil
	}
	out := map[invoicing.Kind]string{}
	for k, v := range map[invoicing.Kind]nullable.Nullable[string]{invoicing.SwedishSale: r.Standard,
		invoicing.EUServices: r.EuServices, invoicing.EUGoods: r.EuGoods, invoicing.ExportOfGoods: r.ExportGoods,
		invoicing.ExportOfServices: r.ExportServices, invoicing.EUTriangulation: r.EuTriangulation} {
		if v.IsSpecified() {
			out[k] = envelope.OptionalOr(v, "")
		}
	}
	return out
}

func view(a Article) gen.Article {
	acc := func(k invoicing.Kind) nullable.Nullable[string] {
		if n, ok := a.Accounts[k]; ok {
			return nullable.NewNullableWithValue(n)
		}
		return nullable.NewNullNullable[string]()
	}
	return gen.Article{Id: a.ID, ArticleNumber: a.Number, Name: a.Name, Description: envelope.Nullable(a.Description),
		Unit: a.Unit, UnitPrice: a.UnitPrice, VatRate: a.VATRate, Active: a.Active, InUse: a.InUse,
		RevenueAccounts: gen.ArticleRevenueAccountsSet{Standard: acc(invoicing.SwedishSale),
			EuServices: acc(invoicing.EUServices), EuGoods: acc(invoicing.EUGoods), ExportGoods: acc(invoicing.ExportOfGoods),
			ExportServices: acc(invoicing.ExportOfServices), EuTriangulation: acc(invoicing.EUTriangulation)},
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
}
