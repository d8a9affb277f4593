package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The operator switches a capability on for good after the trial ended,
// and off again.
func TestCapabilitiesGrantRevoke(t *testing.T) {
	d, _ := migrated(t)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	var company string
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id),
		c AS (INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
			SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id),
		t AS (INSERT INTO company_capabilities (company_id, capability, source, active_from, active_until)
			SELECT id, k, 'trial', now() - interval '60 days', now() - interval '30 days' FROM c,
				unnest(ARRAY['payroll', 'peppol', 'bank_sync', 'inbox']) k)
		SELECT id::text FROM c`); err != nil {
		t.Fatal(err)
	}
	active := func() string {
		t.Helper()
		var s string
		if err := d.Get(&s, `SELECT coalesce(string_agg(capability, ',' ORDER BY capability), '') FROM company_capabilities
			WHERE company_id = $1 AND active_from <= now() AND (active_until IS NULL OR active_until > now())`, company); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a := active(); a != "" {
		t.Fatalf("after the trial: %q", a)
	}
	if err := run(ctx, []string{"capabilities", "grant", "--company", company, "payroll", "peppol"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if a := active(); a != "payroll,peppol" || !strings.Contains(out.String(), "subscription") {
		t.Fatalf("granted: %q\n%s", a, out.String())
	}
	if err := run(ctx, []string{"capabilities", "revoke", "payroll", "--company", company}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if a := active(); a != "peppol" {
		t.Fatalf("revoked: %q", a)
	}
	out.Reset()
	if err := run(ctx, []string{"capabilities", "list", "--company", company}, &out, &errOut); err != nil ||
		strings.Count(out.String(), "\n") != 7 {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	for _, bad := range [][]string{
		{"capabilities", "grant", "--company", company},
		{"capabilities", "grant", "--company", company, "lager"},
		{"capabilities", "grant", "payroll"},
		{"capabilities", "grant", "--company", "3f1c2a7e-4b5d-4c3a-8e6f-0b1a2c3d4e5f", "payroll"},
		{"capabilities", "frob"},
	} {
		if err := run(ctx, bad, &out, &errOut); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}
