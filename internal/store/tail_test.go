package store

import (
	"reflect"
	"testing"
)

// The rows waiting in a unit become one statement: one multi-row INSERT
// per table and suffix, in first-seen order, placeholders renumbered.
func TestAppendSQL(t *testing.T) {
	q, args := chain(appendSQL([]Append{
		{Into: "audit_entries (a, b)", Values: "($1, NULLIF($2, ''))", Args: []any{1, "x"}},
		{Into: "events (c)", Values: "($1::jsonb)", Args: []any{"{}"}},
		{Into: "audit_entries (a, b)", Values: "($1, NULLIF($2, ''))", Args: []any{2, "y"}},
		{Into: "idempotency_keys (k)", Values: "($1)", Suffix: "ON CONFLICT (k) DO NOTHING", Args: []any{"key"}},
	}, 0, nil))
	want := "WITH w0 AS (INSERT INTO audit_entries (a, b) VALUES ($1, NULLIF($2, '')), ($4, NULLIF($5, ''))), " +
		"w1 AS (INSERT INTO events (c) VALUES ($3::jsonb)) " +
		"INSERT INTO idempotency_keys (k) VALUES ($6) ON CONFLICT (k) DO NOTHING"
	if q != want {
		t.Fatalf("statement\n got %s\nwant %s", q, want)
	}
	if !reflect.DeepEqual(args, []any{1, "x", "{}", 2, "y", "key"}) {
		t.Fatalf("args %v", args)
	}
	if q, _ := chain(appendSQL([]Append{{Into: "events (c)", Values: "($1)", Args: []any{1}}}, 0, nil)); q != "INSERT INTO events (c) VALUES ($1)" {
		t.Fatalf("one row: %s", q)
	}
}

// An argument carrying a closing's token reads the closing's value in its
// place, as text or as UTF-8 bytes; one without keeps its placeholder.
func TestClosingFill(t *testing.T) {
	exprs := map[string]string{"-1000000000000001": "(SELECT v0 FROM closing)", "-1000000000000002": "(SELECT v1 FROM closing)"}
	for _, tc := range []struct {
		arg  any
		want string
	}{
		{"Verifikation A-1000000000000001 bokförd", "replace($4::text, '-1000000000000001', (SELECT v0 FROM closing))"},
		{[]byte(`{"n":-1000000000000002}`), "convert_to(replace(convert_from($4::bytea, 'UTF8'), '-1000000000000002', (SELECT v1 FROM closing)), 'UTF8')"},
		{"nothing to fill", "$4"},
		{42, "$4"},
	} {
		if got := fill(exprs, "$4", tc.arg); got != tc.want {
			t.Errorf("fill(%v)\n got %s\nwant %s", tc.arg, got, tc.want)
		}
	}
}

// A tail past PostgreSQL's 65,535 parameters is written in runs that fit,
// in order.
func TestPartsFitOneStatement(t *testing.T) {
	rows := make([]Append, 50000)
	for i := range rows {
		rows[i] = Append{Into: "events (a, b, c)", Values: "($1, $2, $3)", Args: []any{i, i, i}}
	}
	ps := parts(rows)
	n := 0
	for _, p := range ps {
		args := 0
		for _, r := range p {
			args += len(r.Args)
		}
		if args > maxParams {
			t.Fatalf("a run of %d parameters", args)
		}
		if p[0].Args[0] != n {
			t.Fatalf("run starts at row %v, want %d", p[0].Args[0], n)
		}
		n += len(p)
	}
	if n != len(rows) || len(ps) != 3 {
		t.Fatalf("%d rows in %d runs", n, len(ps))
	}
	if got := parts(rows[:2]); len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("small tail split: %v", got)
	}
}
