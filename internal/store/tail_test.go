package store

import (
	"reflect"
	"testing"
)

// The rows waiting in a unit become one statement: one multi-row INSERT
// per table and suffix, in first-seen order, placeholders renumbered.
func TestAppendSQL(t *testing.T) {
	q, args := appendSQL([]Append{
		{Into: "audit_entries (a, b)", Values: "($1, NULLIF($2, ''))", Args: []any{1, "x"}},
		{Into: "events (c)", Values: "($1::jsonb)", Args: []any{"{}"}},
		{Into: "audit_entries (a, b)", Values: "($1, NULLIF($2, ''))", Args: []any{2, "y"}},
		{Into: "idempotency_keys (k)", Values: "($1)", Suffix: "ON CONFLICT (k) DO NOTHING", Args: []any{"key"}},
	})
	want := "WITH w0 AS (INSERT INTO audit_entries (a, b) VALUES ($1, NULLIF($2, '')), ($4, NULLIF($5, ''))), " +
		"w1 AS (INSERT INTO events (c) VALUES ($3::jsonb)) " +
		"INSERT INTO idempotency_keys (k) VALUES ($6) ON CONFLICT (k) DO NOTHING"
	if q != want {
		t.Fatalf("statement\n got %s\nwant %s", q, want)
	}
	if !reflect.DeepEqual(args, []any{1, "x", "{}", 2, "y", "key"}) {
		t.Fatalf("args %v", args)
	}
	if q, _ := appendSQL([]Append{{Into: "events (c)", Values: "($1)", Args: []any{1}}}); q != "INSERT INTO events (c) VALUES ($1)" {
		t.Fatalf("one row: %s", q)
	}
}
