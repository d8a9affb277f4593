package articles

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/store"
)

// Boxes answers the box of the VAT return each of numbers reports in
// ("" for none), refusing (ACCOUNTS_NOT_IN_CHART) a number neither the
// company's chart nor BAS has, or one the chart has deactivated.
type Boxes func(ctx context.Context, company uuid.UUID, numbers []string) (map[string]string, error)

// Store holds the SQL of articles.
type Store struct {
	db    *store.DB
	audit *audit.Store
	boxes Boxes
}

// NewStore returns the store on db.
func NewStore(db *store.DB, a *audit.Store, boxes Boxes) *Store {
	return &Store{db: db, audit: a, boxes: boxes}
}

const columns = `a.company_id, a.id, a.article_number, a.name, a.description, a.unit, a.unit_price, a.vat_rate,
	a.revenue_accounts, a.active, a.created_at, a.updated_at,
	EXISTS (SELECT FROM invoice_items l WHERE l.company_id = a.company_id AND l.article_id = a.id) AS in_use`

// position is where a page of the list ends: article numbers compare
// byte for byte.
type position struct {
	Number string    `json:"n"`
	ID     uuid.UUID `json:"id"`
}

// List answers a page of the company's articles by number: active only
// unless archived, those whose number or name holds search when given.
func (s *Store) List(ctx context.Context, company uuid.UUID, search *string, archived bool, after *position,
	limit int) ([]Article, error) {
	var like *string
	if search != nil {
		l := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(*search)) + "%"
		like = &l
	}
	var n *string
	var id *uuid.UUID
	if after != nil {
		n, id = &after.Number, &after.ID
	}
	var out []Article
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns+` FROM articles a
		WHERE a.company_id = $1 AND ($2 OR a.active)
		  AND ($3::text IS NULL OR lower(a.article_number) LIKE $3 OR lower(a.name) LIKE $3)
		  AND ($4::text IS NULL OR (a.article_number COLLATE "C", a.id) > ($4 COLLATE "C", $5))
		ORDER BY a.article_number COLLATE "C", a.id LIMIT $6`, company, archived, like, n, id, limit+1)
	return out, err
}

// Get answers one article, held FOR UPDATE when lock: ARTICLE_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, lock bool) (Article, error) {
	q := `SELECT ` + columns + ` FROM articles a WHERE a.company_id = $1 AND a.id = $2`
	if lock {
		q += ` FOR UPDATE OF a`
	}
	var a Article
	err := s.db.Q(ctx).GetContext(ctx, &a, q, company, id)
	if store.NotFound(err) {
		return a, apierr.New(apierr.ArticleNotFound, map[string]any{"article_id": id})
	}
	return a, err
}

// Lines answers what invoice lines take from the articles of ids the
// company has, archived ones too (the caller refuses them). The rows
// are held FOR KEY SHARE, as the lines' foreign key would, so that none
// is deleted before the lines naming it are written.
func (s *Store) Lines(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]invoicing.LineArticle, error) {
	var found []Article
	if err := s.db.Q(ctx).SelectContext(ctx, &found, `SELECT a.company_id, a.id, a.article_number, a.name,
			a.description, a.unit, a.unit_price, a.vat_rate, a.revenue_accounts, a.active, a.created_at, a.updated_at
		FROM articles a WHERE a.company_id = $1 AND a.id = ANY($2) FOR KEY SHARE`, company, pq.Array(ids)); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]invoicing.LineArticle, len(found))
	for _, a := range found {
		out[a.ID] = a.Line()
	}
	return out, nil
}

// check refuses an article whose accounts report in another box than
// their treatments' sales, or that the chart lacks.
func (s *Store) check(ctx context.Context, a Article) error {
	numbers := a.Numbers()
	if len(numbers) == 0 {
		return nil
	}
	boxes, err := s.boxes(ctx, a.CompanyID, numbers)
	if err != nil {
		return err
	}
	return a.CheckBoxes(boxes)
}

// numberTaken refuses a number another article of the company holds.
func (s *Store) numberTaken(ctx context.Context, a Article) error {
	var other uuid.UUID
	err := s.db.Q(ctx).GetContext(ctx, &other, `SELECT id FROM articles WHERE company_id = $1 AND article_number = $2
		AND id <> $3`, a.CompanyID, a.Number, a.ID)
	if store.NotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return apierr.New(apierr.ArticleNumberTaken, map[string]any{"field": "article_number",
		"article_number": a.Number, "existing_article_id": other})
}

// taken maps the unique number's violation (two writes at once) to
// ARTICLE_NUMBER_TAKEN.
func taken(err error, a Article) error {
	if store.UniqueViolation(err, "articles_company_id_article_number_key") {
		return apierr.New(apierr.ArticleNumberTaken, map[string]any{"field": "article_number", "article_number": a.Number})
	}
	return err
}

// Insert stores a new article and audits it.
func (s *Store) Insert(ctx context.Context, a Article) (Article, error) {
	if err := s.check(ctx, a); err != nil {
		return a, err
	}
	if err := s.numberTaken(ctx, a); err != nil {
		return a, err
	}
	var out Article
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH a AS (
			INSERT INTO articles (company_id, id, article_number, name, description, unit, unit_price, vat_rate,
				revenue_accounts, active)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *)
		SELECT a.*, false AS in_use FROM a`,
		a.CompanyID, a.ID, a.Number, a.Name, a.Description, a.Unit, a.UnitPrice, a.VATRate, a.Accounts, a.Active)
	if err != nil {
		return a, taken(err, a)
	}
	return out, s.record(ctx, audit.Insert, out.ID, "Artikeln "+out.Number+" "+out.Name+" lades till", nil, out)
}

// Update stores a over old (read under lock) and audits the change.
func (s *Store) Update(ctx context.Context, old, a Article) (Article, error) {
	if err := s.check(ctx, a); err != nil {
		return a, err
	}
	if a.Number != old.Number {
		if err := s.numberTaken(ctx, a); err != nil {
			return a, err
		}
	}
	var out Article
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH a AS (
			UPDATE articles SET article_number = $3, name = $4, description = $5, unit = $6, unit_price = $7,
				vat_rate = $8, revenue_accounts = $9, active = $10, updated_at = now()
			WHERE company_id = $1 AND id = $2 RETURNING *)
		SELECT a.*, $11::boolean AS in_use FROM a`,
		a.CompanyID, a.ID, a.Number, a.Name, a.Description, a.Unit, a.UnitPrice, a.VATRate, a.Accounts, a.Active, old.InUse)
	if err != nil {
		return a, taken(err, a)
	}
	desc := "Artikeln " + out.Number + " ändrades"
	if old.Active && !out.Active {
		desc = "Artikeln " + out.Number + " arkiverades"
	}
	return out, s.record(ctx, audit.Update, out.ID, desc, old, out)
}

// Delete removes a (read under lock) when no invoice line names it, and
// archives it otherwise; it answers whether it was removed.
func (s *Store) Delete(ctx context.Context, a Article) (bool, error) {
	if a.InUse {
		if !a.Active {
			return false, nil // archived already: nothing to do
		}
		archived := a
		archived.Active = false
		_, err := s.Update(ctx, a, archived)
		return false, err
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM articles WHERE company_id = $1 AND id = $2`,
		a.CompanyID, a.ID); err != nil {
		return false, err
	}
	return true, s.record(ctx, audit.Delete, a.ID, "Artikeln "+a.Number+" "+a.Name+" togs bort", a, nil)
}

func (s *Store) record(ctx context.Context, action audit.Action, id uuid.UUID, desc string, old, new any) error {
	var company uuid.UUID
	for _, v := range []any{old, new} {
		if a, ok := v.(Article); ok {
			company = a.CompanyID
		}
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "articles", RecordID: id.String(),
		Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}
