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
