package documents

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// books writes, in SQL, a company with a 2026 fiscal year, two accounts
// and a verifikat: posted when post, else a draft. It answers the company
// and the entry.
func books(t *testing.T, d *store.DB, post bool) (uuid.UUID, uuid.UUID) {
	t.Helper()
	var company, period, entry uuid.UUID
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('d' || gen_random_uuid() || '@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'Underlag AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&period, `INSERT INTO fiscal_periods (company_id, name, period_start, period_end)
		VALUES ($1, '2026', '2026-01-01', '2026-12-31') RETURNING id`, company); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(`INSERT INTO accounts (company_id, account_number, account_name, account_type, normal_balance, is_bas)
		VALUES ($1, '1930', 'Bank', 'asset', 'debit', true), ($1, '3001', 'Försäljning', 'revenue', 'credit', true)`, company); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&entry, `WITH e AS (INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description)
			VALUES ($1, $2, '2026-03-15', 'Försäljning') RETURNING id, company_id)
		INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount, credit_amount)
		SELECT company_id, id, 0, '1930', 100, 0 FROM e UNION ALL SELECT company_id, id, 1, '3001', 0, 100 FROM e
		RETURNING journal_entry_id`, company, period); err != nil {
		t.Fatal(err)
	}
	if post {
		if _, err := d.Exec(`UPDATE journal_entries SET status = 'posted', posted_by_type = 'system', posted_by_label = 'test'
			WHERE company_id = $1 AND id = $2`, company, entry); err != nil {
			t.Fatal(err)
		}
	}
	return company, entry
}

func hash(c string) string { return strings.Repeat(c, 64) }

// Rows go in as described and come out with their key, version and
// whether they are linked; another company's id is not found; the list
// pages newest first and filters by link, entry and upload day.
func TestStore(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	s := NewStore(d)
	company, posted := books(t, d, true)
	pdf := "application/pdf"
	insert := func(sha string, entry *uuid.UUID) Doc {
		t.Helper()
		doc, _, err := s.Insert(ctx, Doc{CompanyID: company, ID: uuid.New(), FileName: "kvitto.pdf", MimeType: &pdf,
			Size: 1250, SHA256: sha, Version: 1, Source: "api", EntryID: entry})
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	free := insert(hash("a"), nil)
	linked := insert(hash("b"), &posted)
	if free.Linked || !linked.Linked || free.StorageKey != Key(company, hash("a")) || free.Version != 1 || !free.Current {
		t.Fatalf("inserted: %+v / %+v", free, linked)
	}
	if linked.RetentionUntil == nil || linked.RetentionUntil.Format(time.DateOnly) != "2033-12-31" {
		t.Fatalf("linked kept until %v", linked.RetentionUntil)
	}
	got, err := s.Get(ctx, company, linked.ID, false)
	if err != nil || got.ID != linked.ID || !got.Linked || got.SHA256 != hash("b") {
		t.Fatalf("get: %+v %v", got, err)
	}
	other, _ := books(t, d, false)
	if _, err := s.Get(ctx, other, linked.ID, false); !apierr.Is(err, apierr.DocNotFound) {
		t.Fatalf("another company's document: %v", err)
	}

	third := insert(hash("c"), nil)
	page, err := s.List(ctx, company, Filter{}, nil, 2)
	if err != nil || len(page) != 3 || page[0].ID != third.ID || page[1].ID != linked.ID {
		t.Fatalf("first page: %v %v", ids(page), err)
	}
	rest, err := s.List(ctx, company, Filter{}, &cursor.Position{At: page[1].CreatedAt, ID: page[1].ID}, 2)
	if err != nil || len(rest) != 1 || rest[0].ID != free.ID {
		t.Fatalf("second page: %v %v", ids(rest), err)
	}
	yes, no := true, false
	for name, tc := range map[string]struct {
		f    Filter
		want []uuid.UUID
	}{
		"linked":       {Filter{Linked: &yes}, []uuid.UUID{linked.ID}},
		"not linked":   {Filter{Linked: &no}, []uuid.UUID{third.ID, free.ID}},
		"of the entry": {Filter{EntryID: &posted}, []uuid.UUID{linked.ID}},
		"uploaded today": {Filter{From: ptr(time.Now().UTC()), To: ptr(time.Now().UTC())},
			[]uuid.UUID{third.ID, linked.ID, free.ID}},
		"uploaded before today":  {Filter{To: ptr(time.Now().UTC().AddDate(0, 0, -1))}, nil},
		"uploaded from tomorrow": {Filter{From: ptr(time.Now().UTC().AddDate(0, 0, 1))}, []uuid.UUID{}},
	} {
		got, err := s.List(ctx, company, tc.f, nil, 50)
		if err != nil || !slices.Equal(ids(got), tc.want) {
			t.Errorf("%s: %v (%v), want %v", name, ids(got), err, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func ids(ds []Doc) []uuid.UUID {
	out := []uuid.UUID{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}
