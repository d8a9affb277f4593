package tests

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

// Inputs that the database refused with a 500 now get a 400 naming the
// field, and change nothing (issue 15, hardening).
func TestSettingsBoundsAnswer400(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	dim := b.get(b.base+"/dimensions", b.token).status(t, 200).str("data.dimensions.0.id")
	before := b.get(b.base+"/settings", b.token).status(t, 200)
	cases := []struct {
		method, path string
		body         any
		field        string
	}{
		{"PATCH", "/settings/tax-profile", map[string]any{"accounting_method": []any{}}, "accounting_method"},
		{"PATCH", "/settings/tax-profile", map[string]any{"accounting_method": true}, "accounting_method"},
		{"PATCH", "/settings/tax-profile", map[string]any{"accounting_method": "2026-02-30"}, "accounting_method"},
		{"PATCH", "/settings/tax-profile", map[string]any{"preliminary_tax_monthly": -1}, "preliminary_tax_monthly"},
		{"PATCH", "/settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "0000-01-01"}, "bookkeeping_locked_through"},
		{"PATCH", "/settings", map[string]any{"reminder_fee_amount": -1}, "reminder_fee_amount"},
		{"PATCH", "/settings", map[string]any{"company_name": " "}, "company_name"},
		{"PATCH", "/dimensions/" + dim, map[string]any{"sort_order": 2147483648}, "sort_order"},
	}
	for _, c := range cases {
		r := b.do(req{Method: c.method, Path: b.base + c.path, Token: b.token, Body: c.body,
			Header: map[string]string{"Idempotency-Key": ik()}})
		if r.Status != 400 || r.str("error.code") != "VALIDATION_ERROR" {
			t.Errorf("%s %s %v: %d %s", c.method, c.path, c.body, r.Status, r.Body)
			continue
		}
		named := false
		for _, i := range r.list("error.details.issues") {
			if f, _ := i.(map[string]any)["field"].(string); f == c.field {
				named = true
			}
		}
		if !named {
			t.Errorf("%s %s %v: the issues do not name %s: %s", c.method, c.path, c.body, c.field, r.Body)
		}
	}
	after := b.get(b.base+"/settings", b.token).status(t, 200)
	if after.str("data.accounting_method") != before.str("data.accounting_method") ||
		after.str("data.company_name") != before.str("data.company_name") {
		t.Fatalf("settings changed: %s", after.Body)
	}
}

// A statement that waits past KONTERA_STATEMENT_TIMEOUT is cancelled by
// the database and the request answers 503 DATABASE_TIMEOUT, rolled back,
// instead of hanging.
func TestStatementTimeoutAnswers503(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	d, err := store.Open(context.Background(), store.WithStatementTimeout(url, 300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	b := ledgerOn(t, envOn(t, d))
	// Another session holds the period's row.
	hold, err := d.BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Exec(`SELECT 1 FROM fiscal_periods WHERE id = $1 FOR UPDATE`, b.period); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := b.periodAction(b.period, "lock", nil).errorCode(t, 503, "DATABASE_TIMEOUT")
	if r.Header.Get("Retry-After") == "" || time.Since(start) > 5*time.Second {
		t.Fatalf("timeout answer: %v after %v", r.Header, time.Since(start))
	}
	_ = hold.Rollback()
	if s := b.get(b.base+"/fiscal-periods", b.token).status(t, 200).str("data.fiscal_periods.0.state"); s != "open" {
		t.Fatalf("the timed-out lock changed the period: %s", s)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
}

// When the database refuses a new connection (every slot taken) the
// request answers 503 DATABASE_TIMEOUT with Retry-After, not a 500, and
// the next one after the load passes is served.
func TestRefusedConnectionAnswers503(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	d, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	b := ledgerOn(t, envOn(t, d))
	admin, err := sqlx.Open("postgres", pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var name string
	if err := d.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	// Every request opens its connection anew, and the database takes none.
	d.SetMaxIdleConns(0)
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` CONNECTION LIMIT 0`); err != nil {
		t.Fatal(err)
	}
	r := b.get(b.base+"/fiscal-periods", b.token).errorCode(t, 503, "DATABASE_TIMEOUT")
	if r.Header.Get("Retry-After") == "" || r.str("error.details.reason") != "database_busy" {
		t.Fatalf("refused connection: %v %s", r.Header, r.Body)
	}
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` CONNECTION LIMIT -1`); err != nil {
		t.Fatal(err)
	}
	b.get(b.base+"/fiscal-periods", b.token).status(t, 200)
}
