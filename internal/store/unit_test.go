package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Rows waiting for the unit's end go with a failed Attempt, as the rows it
// wrote do, and the rest are written at commit; a rolled-back unit writes
// none.
func TestAppendFollowsTheUnit(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	var company string
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
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
	if len(types) != 2 || types[0] != "kept.before" || types[1] != "kept.after" {
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
