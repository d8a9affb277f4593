package capability_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/openapi"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The Capability enum of the document, which x-capability flags are
// checked against, is the list the store grants.
func TestCapabilitiesMatchDocument(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range c.Doc.Components.Schemas["Capability"].Value.Enum {
		enum = append(enum, v.(string))
	}
	var all []string
	for _, k := range capability.All {
		all = append(all, string(k))
	}
	if !slices.Equal(enum, all) {
		t.Fatalf("document %v, store %v", enum, all)
	}
}

func TestTrialThenBlocked(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	var company uuid.UUID
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	s := capability.NewStore(d)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	if err := s.StartTrial(ctx, company, start); err != nil {
		t.Fatal(err)
	}
	for _, k := range capability.All {
		if err := s.Require(ctx, company, k, start.AddDate(0, 0, 29)); err != nil {
			t.Fatalf("%s during the trial: %v", k, err)
		}
	}
	err := s.Require(ctx, company, capability.BankSync, start.AddDate(0, 0, capability.TrialDays))
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.CapabilityBlocked || e.Status != 403 {
		t.Fatalf("after the trial: %v", err)
	}
	if e.Details["ended_at"] != "2026-12-01T12:00:00Z" || e.Details["capability"] != capability.BankSync {
		t.Fatalf("details: %v", e.Details)
	}
	// A company never granted anything is blocked too, with no end date.
	if err := s.Require(ctx, uuid.New(), capability.Payroll, start); !apierr.Is(err, apierr.CapabilityBlocked) {
		t.Fatalf("no grant: %v", err)
	}
}

// After the trial an operator grants a capability for good and revokes
// it again; each change is audited. A default grant holds from the start.
func TestGrantAndRevoke(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	newCompany := func(name string) uuid.UUID {
		var id uuid.UUID
		if err := d.Get(&id, `WITH u AS (INSERT INTO users (email) VALUES ($1) RETURNING id)
			INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
			SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`, name+"@example.se"); err != nil {
			t.Fatal(err)
		}
		return id
	}
	company := newCompany("a")
	s := capability.NewStore(d)
	start := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	if err := s.StartTrial(ctx, company, start); err != nil {
		t.Fatal(err)
	}
	after := start.AddDate(0, 0, 60)
	if err := s.Require(ctx, company, capability.Payroll, after); !apierr.Is(err, apierr.CapabilityBlocked) {
		t.Fatalf("after the trial: %v", err)
	}
	if err := s.Grant(ctx, company, []capability.Capability{capability.Payroll}, after); err != nil {
		t.Fatal(err)
	}
	if err := s.Require(ctx, company, capability.Payroll, after.AddDate(5, 0, 0)); err != nil {
		t.Fatalf("granted: %v", err)
	}
	if err := s.Require(ctx, company, capability.Peppol, after); !apierr.Is(err, apierr.CapabilityBlocked) {
		t.Fatalf("peppol was not granted: %v", err)
	}
	// Granting again changes nothing; revoking ends it, the trial too.
	if err := s.Grant(ctx, company, []capability.Capability{capability.Payroll}, after.AddDate(0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	revoked := after.AddDate(0, 2, 0)
	if err := s.Revoke(ctx, company, capability.All, revoked); err != nil {
		t.Fatal(err)
	}
	if err := s.Require(ctx, company, capability.Payroll, revoked.Add(time.Second)); !apierr.Is(err, apierr.CapabilityBlocked) {
		t.Fatalf("revoked: %v", err)
	}
	if err := s.Require(ctx, company, capability.Payroll, revoked.Add(-time.Second)); err != nil {
		t.Fatalf("before the revocation: %v", err)
	}
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'company_capabilities'`,
		company); err != nil || n != 3 {
		t.Fatalf("%d audit rows, %v", n, err)
	}
	// An operator's default: held for good from the company's start.
	s.Default = []capability.Capability{capability.Payroll, capability.Inbox}
	other := newCompany("b")
	if err := s.StartTrial(ctx, other, start); err != nil {
		t.Fatal(err)
	}
	if err := s.Require(ctx, other, capability.Inbox, start.AddDate(3, 0, 0)); err != nil {
		t.Fatalf("default: %v", err)
	}
	if err := s.Require(ctx, other, capability.BankSync, start.AddDate(3, 0, 0)); !apierr.Is(err, apierr.CapabilityBlocked) {
		t.Fatalf("bank sync is not a default: %v", err)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]int{"": 0, "none": 0, "all": 4, "payroll": 1, "payroll, peppol payroll": 2} {
		got, err := capability.Parse(in)
		if err != nil || len(got) != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := capability.Parse("payroll,lager"); err == nil {
		t.Error("an unknown capability was taken")
	}
}
