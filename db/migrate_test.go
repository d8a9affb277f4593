package db_test

import (
	"context"
	"testing"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestMigrateIsIdempotent(t *testing.T) {
	d := pgtest.NewOwner(t)
	applied, err := db.Migrate(context.Background(), d.DB.DB)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Fatalf("second migrate applied %v, want nothing", applied)
	}
}

func TestAuditTrailIsAppendOnly(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	var uid, cid string
	if err := d.GetContext(ctx, &uid, `INSERT INTO users (email) VALUES ('a@example.se') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := d.GetContext(ctx, &cid, `INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		VALUES ('X AB', 'aktiebolag', '2026-01-01', '2026-12-31', $1) RETURNING id`, uid); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ExecContext(ctx, `INSERT INTO audit_entries (company_id, action) VALUES ($1, 'INSERT')`, cid); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ExecContext(ctx, `UPDATE audit_entries SET description = 'changed'`); err == nil {
		t.Fatal("UPDATE of audit_entries succeeded")
	}
	if _, err := d.ExecContext(ctx, `DELETE FROM audit_entries`); err == nil {
		t.Fatal("DELETE of audit_entries succeeded")
	}
}
