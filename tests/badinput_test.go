package tests

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// Bad input never answers 5xx and never changes anything: every
// operation of the document is sent, field by field, a wrong type, a
// value out of its enum, null where it is not nullable, an impossible
// date, a 10 kB string and a number past the money range, in its body
// and its query; each answer must be a 4xx in the error envelope with a
// catalogue code, and the books' tables keep their row counts.
func TestBadInputNeverAnswers5xx(t *testing.T) {
	t.Parallel()
	// The operations are shared out over shards, each with its own server
	// and database, whose row counts only its own requests move: the
	// requests go one after another within a shard, side by side across.
	const shards = 3
	var sent atomic.Int64
	t.Run("shards", func(t *testing.T) {
		for shard := range shards {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				sent.Add(int64(badInputs(t, shard, shards)))
			})
		}
	})
	if n := sent.Load(); n < 1000 {
		t.Fatalf("only %d bad requests sent", n)
	} else {
		t.Logf("%d bad requests, none answered 5xx", n)
	}
}

// badInputs sends the bad requests of every shards-th operation from
// shard on, and answers how many it sent.
func badInputs(t *testing.T, shard, shards int) int {
	b := newLedger(t, rateLimit(0))
	contract := b.server.Contract()
	company := b.company.String()
	bad := []any{[]any{}, true, map[string]any{"x": 1}, "2026-02-30", nil, strings.Repeat("x", 10_000), 1e17, -1e17,
		"zz-not-in-any-enum", 2147483648.0}
	tables := []string{"companies", "company_settings", "accounts", "fiscal_periods", "journal_entries",
		"journal_lines", "customers", "suppliers", "dimensions", "dimension_values", "operations", "events", "audit_entries"}
	parts := make([]string, len(tables))
	for i, table := range tables {
		parts[i] = "(SELECT count(*) FROM " + table + ")::text"
	}
	countAll := "SELECT " + strings.Join(parts, " || ',' || ")
	counts := func() string {
		var s string
		if err := b.db.Get(&s, countAll); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// A bad value for one field may still make a good body (a free-text
	// name): those writes are fine, and the row counts move on with them.
	// Every refused request is held to the counts as they were.
	snapshot := counts()
	param := regexp.MustCompile(`\{[A-Za-z]+\}`)
	sent, failures := 0, 0
	for i, op := range contract.Operations {
		if i%shards != shard {
			continue
		}
		if op.Method == "GET" && len(queryParams(contract.Doc, op.Method, op.Path)) == 0 {
			continue // nothing a client could send wrong but the path
		}
		path := param.ReplaceAllStringFunc(op.Path, func(p string) string {
			if p == "{companyId}" {
				return company
			}
			if p == "{accountNumber}" {
				return "1930"
			}
			return uuid.NewString()
		})
		try := func(what string, r *response) {
			sent++
			if op.Method != "GET" {
				now := counts()
				if r.Status >= 400 && now != snapshot {
					failures++
					t.Errorf("%s %s %s: refused with %d, yet rows changed: %s -> %s", op.Method, op.Path, what,
						r.Status, snapshot, now)
				}
				snapshot = now
			}
			code := r.str("error.code")
			// A feature the test server runs without (a bank aggregator)
			// answers its documented 503 to a request that is well formed
			// apart from the field tried, as it must: the server, not the
			// input, lacks it.
			if e, ok := apierr.Lookup(apierr.Code(code)); ok && r.Status == 503 && e.Status == 503 &&
				strings.HasSuffix(code, "_NOT_CONFIGURED") {
				return
			}
			if r.Status >= 500 {
				failures++
				t.Errorf("%s %s %s: %d %s", op.Method, op.Path, what, r.Status, clip(r.Body))
				return
			}
			if r.Status >= 400 {
				if _, ok := apierr.Lookup(apierr.Code(code)); !ok {
					failures++
					t.Errorf("%s %s %s: %d without a catalogue code: %s", op.Method, op.Path, what, r.Status, clip(r.Body))
				}
			}
		}
		for _, name := range queryParams(contract.Doc, op.Method, op.Path) {
			for _, v := range []string{"[]", "true", "2026-02-30", "-1", "99999999999999999999", strings.Repeat("x", 10_000), "%00"} {
				q := url.Values{name: {v}}
				r := b.do(req{Method: op.Method, Path: path + "?" + q.Encode(), Token: b.token,
					Header: map[string]string{"Idempotency-Key": ik()}})
				try("query "+name+"="+clipString(v), r)
			}
		}
		for _, field := range bodyFields(contract.Doc, op.Method, op.Path) {
			for _, v := range bad {
				body, _ := json.Marshal(map[string]any{field: v})
				r := b.do(req{Method: op.Method, Path: path, Token: b.token, Body: string(body),
					Header: map[string]string{"Idempotency-Key": ik()}})
				try("body "+field+"="+clipString(string(mustJSON(v))), r)
			}
		}
		if failures > 20 {
			t.Fatal("too many failures")
		}
	}
	return sent
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func clipString(s string) string {
	if len(s) > 30 {
		return s[:30] + "…"
	}
	return s
}

// operation returns the document's operation at method and path, and
// the parameters its path item shares.
func operation(doc *openapi3.T, method, path string) (*openapi3.Operation, openapi3.Parameters) {
	item := doc.Paths.Find(path)
	if item == nil {
		return nil, nil
	}
	return item.GetOperation(method), item.Parameters
}

// queryParams lists the query parameters of an operation, sorted.
func queryParams(doc *openapi3.T, method, path string) []string {
	op, shared := operation(doc, method, path)
	if op == nil {
		return nil
	}
	var out []string
	for _, p := range append(shared, op.Parameters...) {
		if p.Value != nil && p.Value.In == "query" && p.Value.Name != "dry_run" {
			out = append(out, p.Value.Name)
		}
	}
	sort.Strings(out)
	return out
}

// bodyFields lists the top-level properties of an operation's JSON body.
func bodyFields(doc *openapi3.T, method, path string) []string {
	op, _ := operation(doc, method, path)
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	var out []string
	for name := range mt.Schema.Value.Properties {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
