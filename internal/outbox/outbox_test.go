package outbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func company(t *testing.T, d *store.DB) uuid.UUID {
	var id uuid.UUID
	err := d.Get(&id, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Events live and die with the transaction of the change that caused them.
func TestEmitJoinsTheTransaction(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	c := company(t, d)
	rollback := errors.New("rolled back")
	err := d.InTx(ctx, func(ctx context.Context) error {
		if _, err := outbox.Emit(ctx, d, c, "customer.created", map[string]any{"id": "1"}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if ev, _ := outbox.Pending(ctx, d.DB, c, 10); len(ev) != 0 {
		t.Fatalf("a rolled-back event survived: %v", ev)
	}
	err = d.InTx(ctx, func(ctx context.Context) error {
		_, err := outbox.Emit(ctx, d, c, "customer.created", map[string]any{"id": "2", "name": "Åsa"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := outbox.Pending(ctx, d.DB, c, 10)
	if err != nil || len(ev) != 1 || ev[0].Type != "customer.created" || string(ev[0].Payload) != `{"id": "2", "name": "Åsa"}` {
		t.Fatalf("pending: %v %+v", err, ev)
	}
	var version string
	_ = d.Get(&version, `SELECT api_version FROM events`)
	if version != "2026-05-12" {
		t.Fatalf("api_version %q", version)
	}
}

// The catalogue holds spec 002's 28 subscribable types, and every type an
// emitter names; Emit refuses one it does not hold.
func TestCatalogue(t *testing.T) {
	if n := len(outbox.Subscribable()); n != 28 {
		t.Fatalf("%d subscribable types: %v", n, outbox.Subscribable())
	}
	for _, typ := range []string{"operation.completed", "transaction.synced", "webhook.test"} {
		if k, ok := outbox.Lookup(typ); !ok || k.Subscribable {
			t.Fatalf("%s: %+v %v", typ, k, ok)
		}
	}
	if k, _ := outbox.Lookup("salary_run.booked"); k.Scope != "payroll:read" {
		t.Fatalf("payroll scope %q", k.Scope)
	}
	if _, err := outbox.Emit(context.Background(), nil, uuid.New(), "invoice.deleted", nil); err == nil {
		t.Fatal("an uncatalogued type was taken")
	}
}
