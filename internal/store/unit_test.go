package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newCompany writes a company "X AB" and its owner, and answers its id.
func newCompany(t *testing.T, d *store.DB) string {
	t.Helper()
	var company string
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	return company
}

// Rows waiting for the unit's end go with a failed Attempt, as the rows it
// wrote do, but for what it kept (store.Keep), and the rest are written at
// commit; a rolled-back unit writes none.
func TestAppendFollowsTheUnit(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	company := newCompany(t, d)
	event := func(typ string) store.Append {
		return store.Append{Into: "events (company_id, type, payload, api_version)", Values: "($1, $2, '{}', 'v')",
			Args: []any{company, typ}}
	}
	failed := errors.New("item refused")
	err := d.InTx(ctx, func(ctx context.Context) error {
		if err := d.Attempt(ctx, func(ctx context.Context) error {
			if err := d.Append(ctx, event("kept.before")); err != nil {
				return err
			}
			return nil
		}); err != nil {
			return err
		}
		if err := d.Attempt(ctx, func(ctx context.Context) error {
			if err := d.Append(ctx, event("dropped")); err != nil {
				return err
			}
			if err := d.Keep(ctx, event("kept.refusal")); err != nil {
				return err
			}
			return failed
		}); !errors.Is(err, failed) {
			t.Fatalf("attempt: %v", err)
		}
		return d.Append(ctx, event("kept.after"))
	})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	if err := d.Select(&types, `SELECT type FROM events ORDER BY created_at`); err != nil {
		t.Fatal(err)
	}
	if len(types) != 3 || types[0] != "kept.before" || types[1] != "kept.refusal" || types[2] != "kept.after" {
		t.Fatalf("events written: %v", types)
	}
	rollback := errors.New("rolled back")
	if err := d.InTx(ctx, func(ctx context.Context) error {
		_ = d.Append(ctx, event("never"))
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM events WHERE type = 'never'`); err != nil || n != 0 {
		t.Fatalf("a rolled-back unit wrote %d rows (%v)", n, err)
	}
}

// A closing leads the statement of waiting rows: they and the response
// get its values in place of their tokens; a refusal is mapped as its
// package maps it and leaves nothing; a failed Attempt takes its closing
// with it; and a unit has one closing at most.
func TestClosingLeadsTheWaitingRows(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	company := newCompany(t, d)
	tok := strconv.Itoa(store.Token())
	if store.Close(ctx, store.Closing{SQL: "SELECT 1"}) {
		t.Fatal("closed without a unit of work")
	}
	tx, err := d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	u := &store.Unit{Tx: tx}
	uctx := store.WithUnit(ctx, u)
	// The closing returns the company's name as the value of tok.
	closing := store.Closing{SQL: "UPDATE companies SET updated_at = now() WHERE id = $1 RETURNING name",
		Args: []any{company}, Tokens: []string{tok}}
	if !store.Close(uctx, closing) || store.Close(uctx, closing) {
		t.Fatal("a unit takes one closing")
	}
	if err := d.Append(uctx, store.Append{Into: "events (company_id, type, payload, api_version)",
		Values: "($1, $2, $3::jsonb, 'v')", Args: []any{company, "t" + tok, `{"name": "` + tok + `"}`}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(uctx); err != nil {
		t.Fatal(err)
	}
	var typ, name string
	if err := d.QueryRowx(`SELECT type, payload->>'name' FROM events WHERE company_id = $1`, company).Scan(&typ, &name); err != nil {
		t.Fatal(err)
	}
	if typ != "tX AB" || name != "X AB" {
		t.Fatalf("waiting row got %q, %q", typ, name)
	}
	if got := string(u.Fill([]byte(`{"name":"` + tok + `"}`))); got != `{"name":"X AB"}` {
		t.Fatalf("filled response %s", got)
	}

	// A lead joins the closing: its write in the same statement, its value
	// in the waiting rows and the response.
	lead := strconv.Itoa(store.Token())
	tx, err = d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	u = &store.Unit{Tx: tx}
	uctx = store.WithUnit(ctx, u)
	if store.Join(uctx, store.Lead{CTEs: []string{"ev AS (SELECT 1)"}}) {
		t.Fatal("joined a unit without a closing")
	}
	store.Close(uctx, store.Closing{SQL: "UPDATE companies SET updated_at = now() WHERE id = $1 RETURNING name",
		Args: []any{company}, Tokens: []string{tok}})
	if !store.Join(uctx, store.Lead{CTEs: []string{"ev AS (INSERT INTO events (company_id, type, payload, api_version) " +
		"VALUES ($1, $2, '{}', 'v') RETURNING type)"}, Args: []any{company, "ledd"},
		Returning: []string{"(SELECT type FROM ev)"}, Tokens: []string{lead}}) {
		t.Fatal("the lead did not join")
	}
	if err := d.Append(uctx, store.Append{Into: "events (company_id, type, payload, api_version)",
		Values: "($1, $2, $3::jsonb, 'v')", Args: []any{company, "efter", `{"lead": "` + lead + `", "name": "` + tok + `"}`}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(uctx); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := d.Get(&got, `SELECT payload::text FROM events WHERE company_id = $1 AND type = 'efter'`, company); err != nil ||
		got != `{"lead": "ledd", "name": "X AB"}` {
		t.Fatalf("lead row %s (%v)", got, err)
	}
	if f := string(u.Fill([]byte(lead + " " + tok))); f != "ledd X AB" {
		t.Fatalf("filled %s", f)
	}

	refused := errors.New("mapped refusal")
	tx, err = d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	u = &store.Unit{Tx: tx}
	uctx = store.WithUnit(ctx, u)
	store.Close(uctx, store.Closing{SQL: "UPDATE companies SET name = NULL WHERE id = $1 RETURNING name",
		Args: []any{company}, Tokens: []string{tok}, Refused: func(error) error { return refused }})
	_ = d.Append(uctx, store.Append{Into: "events (company_id, type, payload, api_version)",
		Values: "($1, 'never', '{}', 'v')", Args: []any{company}})
	if err := u.Commit(uctx); !errors.Is(err, refused) {
		t.Fatalf("refused closing: %v", err)
	}
	_ = tx.Rollback()
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM events WHERE type = 'never'`); err != nil || n != 0 {
		t.Fatalf("a refused closing left %d rows (%v)", n, err)
	}

	err = d.InTx(ctx, func(ctx context.Context) error {
		_ = d.Attempt(ctx, func(ctx context.Context) error {
			store.Close(ctx, store.Closing{SQL: "UPDATE companies SET name = 'Fel AB' WHERE id = $1 RETURNING name",
				Args: []any{company}, Tokens: []string{tok}})
			return refused
		})
		if !store.Close(ctx, store.Closing{SQL: "UPDATE companies SET name = 'Rätt AB' WHERE id = $1 RETURNING name",
			Args: []any{company}, Tokens: []string{tok}}) {
			t.Error("the failed attempt's closing stayed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company); err != nil || name != "Rätt AB" {
		t.Fatalf("after the attempt: %q (%v)", name, err)
	}
}
