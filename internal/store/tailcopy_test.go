package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/pgtest"
)

// A unit's end writes thousands of audit rows and events by COPY, and
// they read back as the INSERT would have written them: ” as NULL where
// the row said NULLIF, JSON as JSON, arrays as arrays, in their order;
// a table with few rows still goes in the INSERT beside them.
func TestAFlushCopiesABigTable(t *testing.T) {
	d := pgtest.New(t)
	ctx := audit.WithActor(context.Background(), audit.System)
	company := uuid.MustParse(newCompany(t, d))
	audits := audit.NewStore(d)
	const n = 1200
	err := d.InTx(ctx, func(ctx context.Context) error {
		for i := range n {
			table := "invoices"
			if i%2 == 1 {
				table = "" // NULLIF($3, ''): NULL
			}
			if err := audits.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: table,
				RecordID: fmt.Sprint(i), Description: fmt.Sprintf("rad %d", i),
				Old: json.RawMessage(`{"n": 0}`), New: json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)),
				Fields: []string{"n", "ö"}}); err != nil {
				return err
			}
			if _, err := outbox.Emit(ctx, d, company, "invoice.paid", map[string]any{"n": i}); err != nil {
				return err
			}
		}
		_, err := outbox.Emit(ctx, d, company, "customer.created", map[string]any{"n": -1}) // one: the INSERT
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows, NullTables, Ordered, Fields int
		Last                              string
	}
	if err := d.QueryRow(`SELECT count(*), count(*) FILTER (WHERE table_name IS NULL),
			count(*) FILTER (WHERE (new_state ->> 'n')::int = record_id::int AND old_state = '{"n": 0}'),
			count(*) FILTER (WHERE changed_fields = '{n,ö}'),
			(array_agg(description ORDER BY created_at, id))[`+fmt.Sprint(n)+`]
		FROM audit_entries WHERE company_id = $1 AND description LIKE 'rad %'`, company).
		Scan(&got.Rows, &got.NullTables, &got.Ordered, &got.Fields, &got.Last); err != nil {
		t.Fatal(err)
	}
	if got.Rows != n || got.NullTables != n/2 || got.Ordered != n || got.Fields != n || got.Last != fmt.Sprintf("rad %d", n-1) {
		t.Fatalf("audit rows: %+v", got)
	}
	var events, sum, one int
	if err := d.QueryRow(`SELECT count(*) FILTER (WHERE type = 'invoice.paid'), coalesce(sum((payload ->> 'n')::int)
			FILTER (WHERE type = 'invoice.paid'), 0), count(*) FILTER (WHERE type = 'customer.created')
		FROM events WHERE company_id = $1`, company).Scan(&events, &sum, &one); err != nil {
		t.Fatal(err)
	}
	if events != n || sum != n*(n-1)/2 || one != 1 {
		t.Fatalf("events %d, sum %d, the single one %d", events, sum, one)
	}
}
