package store

import (
	"strings"
	"testing"
)

// Which waiting rows go by COPY: a big table whose values COPY can write
// as the INSERT would; not a small one, one with an ON CONFLICT, one of
// two templates, or one with bytes no cast says are text.
func TestSplitCopies(t *testing.T) {
	many := func(into, values, suffix string, n int, args ...any) []Append {
		out := make([]Append, n)
		for i := range out {
			out[i] = Append{Into: into, Values: values, Suffix: suffix, Args: args}
		}
		return out
	}
	var rows []Append
	rows = append(rows, many("events (company_id, type, payload)", "($1, NULLIF($2, ''), $3::jsonb)", "", copyMin, "c", "", []byte(`{}`))...)
	rows = append(rows, many("few (a)", "($1)", "", 3, "x")...)
	rows = append(rows, many("keys (a, b)", "($1, $2)", "ON CONFLICT DO NOTHING", copyMin, "x", "y")...)
	rows = append(rows, many("blobs (a, b)", "($1, $2)", "", copyMin, "x", []byte("raw"))...)
	rows = append(rows, many("mixed (a, b)", "($1, $2)", "", copyMin, "x", "y")...)
	rows = append(rows, many("mixed (a, b)", "($1, now())", "", 1, "x")...)
	rows = append(rows, many("calls (a, b)", "($1, lower($2))", "", copyMin, "x", "Y")...)
	rest, copies := splitCopies(rows)
	if len(copies) != 1 || copies[0].table != "events" || len(copies[0].rows) != copyMin ||
		strings.Join(copies[0].columns, ",") != "company_id,type,payload" {
		t.Fatalf("copies: %+v", copies)
	}
	if len(rest) != len(rows)-copyMin {
		t.Fatalf("%d rows left for the INSERT, want %d", len(rest), len(rows)-copyMin)
	}
	c := copies[0]
	if got := copyArg(c.rows[0].Args[c.values[1].arg-1], c.values[1].emptyNil); got != nil {
		t.Fatalf("NULLIF(''): %v", got)
	}
	if got := copyArg(c.rows[0].Args[c.values[2].arg-1], c.values[2].emptyNil); got != "{}" {
		t.Fatalf("jsonb bytes: %#v", got)
	}
}
