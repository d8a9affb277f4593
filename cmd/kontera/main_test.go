package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestKeysCreateAndMembersAdd(t *testing.T) {
	url := pgtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"migrate"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"keys", "create", "--email", "Ägare@Example.se", "--scopes", "companies:read,reports:read", "--mode", "test"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var k struct {
		Key    string   `json:"key"`
		UserID string   `json:"user_id"`
		Mode   string   `json:"mode"`
		Scopes []string `json:"scopes"`
	}
	if err := json.Unmarshal(out.Bytes(), &k); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if !strings.HasPrefix(k.Key, "kontera_sk_test_") || k.Mode != "test" || len(k.Scopes) != 2 || k.UserID == "" {
		t.Fatalf("keys create printed %+v", k)
	}

	d, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := db.Migrate(ctx, d.DB.DB); err != nil {
		t.Fatal(err)
	}
	var company string
	if err := d.Get(&company, `INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by) VALUES ('X AB', 'aktiebolag', '2026-01-01', '2026-12-31', $1) RETURNING id`, k.UserID); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(ctx, []string{"members", "add", "--company", company, "--email", "lisa@example.se", "--role", "viewer", "--read-only"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var role string
	var ro bool
	if err := d.QueryRow(`SELECT role, read_only FROM company_members m JOIN users u ON u.id = m.user_id WHERE u.email = 'lisa@example.se'`).Scan(&role, &ro); err != nil || role != "viewer" || !ro {
		t.Fatalf("membership %s %v %v", role, ro, err)
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "create", "--email", "lisa@example.se", "--company-access", "allowlist", "--company", company}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var n int
	_ = d.Get(&n, `SELECT count(*) FROM api_key_companies WHERE company_id = $1`, company)
	if n != 1 {
		t.Fatalf("allowlist rows %d", n)
	}

	for _, bad := range [][]string{
		{"keys", "create"},
		{"keys", "create", "--email", "a@example.se", "--scopes", "nope:read"},
		{"keys", "create", "--email", "a@example.se", "--company", company},
		{"members", "add", "--company", company, "--email", "x@example.se", "--role", "boss"},
		{"members", "add", "--company", "nope", "--email", "x@example.se", "--role", "viewer"},
		{"frobnicate"},
	} {
		if err := run(ctx, bad, &out, &errOut); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}

// kontera fx import loads an operator's rates; a bad line loads none.
func TestFXImport(t *testing.T) {
	url := pgtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"migrate"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "kurser.csv"), filepath.Join(dir, "fel.csv")
	if err := os.WriteFile(good, []byte("currency,date,rate\nEUR,2026-03-02,11.4725\nUSD,2026-03-02,10.1200\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("EUR,2026-03-03,11.40\nXYZ,2026-03-03,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(ctx, []string{"fx", "import", good}, &out, &errOut); err != nil || !strings.Contains(out.String(), "2 exchange rates") {
		t.Fatalf("%v: %s", err, out.String())
	}
	if err := run(ctx, []string{"fx", "import", bad}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a bad file: %v", err)
	}
	d, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM fx_rates`); err != nil || n != 2 {
		t.Fatalf("%d rates (%v)", n, err)
	}
}

// kontera payroll tax-tables loads a year's month tables; a two-week
// file or a missing table loads nothing.
func TestPayrollTaxTables(t *testing.T) {
	url := pgtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"migrate"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	fixture := "../../internal/payroll/testdata/month-tables-fixture.txt"
	out.Reset()
	if err := run(ctx, []string{"payroll", "tax-tables", "2026", fixture}, &out, &errOut); err != nil ||
		!strings.Contains(out.String(), "34 rows of tables 29–42 for 2026") {
		t.Fatalf("%v: %s", err, out.String())
	}
	dir := t.TempDir()
	twoWeek := filepath.Join(dir, "tvaveckor.txt")
	if err := os.WriteFile(twoWeek, []byte("14B30      1  80000 1000 1000 1000 1000 1000 1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"payroll", "tax-tables", "2027", twoWeek}, &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "two-week") {
		t.Fatalf("a two-week file: %v", err)
	}
	if err := run(ctx, []string{"payroll", "tax-tables", "twenty", fixture}, &out, &errOut); err == nil {
		t.Fatal("a year that is no number loaded")
	}
	d, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM payroll_tax_tables WHERE year = 2026 AND row_count = 34`); err != nil || n != 1 {
		t.Fatalf("%d loads (%v)", n, err)
	}
}
