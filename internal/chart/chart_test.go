package chart_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func numbers(as []bas.Account) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Number
	}
	return out
}

func TestSeedPerForm(t *testing.T) {
	ab, ef, ideell := numbers(chart.Seed("aktiebolag")), numbers(chart.Seed("enskild_firma")), numbers(chart.Seed("ideell_forening"))
	for _, c := range []struct {
		form     string
		got      []string
		has, not []string
	}{
		{"aktiebolag", ab, []string{"1930", "2081", "2091", "2098", "2099"}, []string{"2010", "2083", "2060", "2082"}},
		{"enskild_firma", ef, []string{"1930", "2010", "2013", "2019"}, []string{"2081", "2099", "2060", "2020"}},
		{"ideell_forening", ideell, []string{"1930", "2060", "2069", "2070"}, []string{"2081", "2010"}},
	} {
		for _, n := range c.has {
			if !slices.Contains(c.got, n) {
				t.Errorf("%s lacks %s", c.form, n)
			}
		}
		for _, n := range c.not {
			if slices.Contains(c.got, n) {
				t.Errorf("%s has %s", c.form, n)
			}
		}
		if !slices.IsSorted(c.got) {
			t.Errorf("%s seed not in number order", c.form)
		}
	}
}

func TestNewAndPatch(t *testing.T) {
	name, typ := "Egen kassa", bas.Asset
	a, err := chart.New(chart.Input{Number: "1999", Name: &name, Type: &typ})
	if err != nil || a.NormalBalance != bas.Debit || a.BAS {
		t.Fatalf("own account: %+v %v", a, err)
	}
	rev := bas.Revenue
	if _, err := chart.New(chart.Input{Number: "1999", Name: &name, Type: &rev}); !apierr.Is(err, apierr.AccountTypeClassConflict) {
		t.Fatalf("class conflict: %v", err)
	}
	treatment := "standard_25"
	if _, err := chart.New(chart.Input{Number: "1930", VATTreatment: &treatment}); !apierr.Is(err, apierr.AccountVATTreatmentClass) {
		t.Fatalf("VAT treatment on class 1: %v", err)
	}
	box := "10"
	if _, err := chart.New(chart.Input{Number: "2650", VATBox: &box}); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("VAT box on 2650: %v", err)
	}
	b, _ := chart.New(chart.Input{Number: "1930"})
	off := false
	if _, err := (chart.Patch{Active: &off}).Apply(b); !apierr.Is(err, apierr.AccountSystemDeactivate) {
		t.Fatalf("deactivating 1930: %v", err)
	}
	if _, err := (chart.Patch{}).Apply(b); !apierr.Is(err, apierr.AccountNothingToUpdate) {
		t.Fatalf("empty patch: %v", err)
	}
}

// Ensure adds missing BAS accounts once and refuses unknown or
// deactivated ones, naming them.
func TestEnsure(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	var company uuid.UUID
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	s := chart.NewStore(d, audit.NewStore(d))
	err := d.InTx(ctx, func(ctx context.Context) error {
		if _, err := s.Seed(ctx, company, "aktiebolag"); err != nil {
			return err
		}
		added, err := s.Ensure(ctx, company, []string{"1930", "3550", "3550", "6993"})
		if err != nil {
			return err
		}
		if len(added) != 2 || added[0].Number != "3550" || added[1].Number != "6993" || !added[0].BAS {
			t.Errorf("added %+v", added)
		}
		again, err := s.Ensure(ctx, company, []string{"3550"})
		if err != nil || len(again) != 0 {
			t.Errorf("second Ensure added %v (%v)", again, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var audits int
	if err := d.Get(&audits, `SELECT count(*) FROM audit_entries WHERE table_name = 'accounts' AND company_id = $1`, company); err != nil {
		t.Fatal(err)
	}
	if audits != 3 { // the seed and the two added accounts
		t.Errorf("%d audit entries", audits)
	}
	if _, err := d.Exec(`UPDATE accounts SET is_active = false WHERE company_id = $1 AND account_number = '3550'`, company); err != nil {
		t.Fatal(err)
	}
	_, err = s.Ensure(ctx, company, []string{"1930", "9999", "3550"})
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.AccountsNotInChart || e.Status != 400 ||
		!slices.Equal(e.Details["unknown"].([]string), []string{"9999"}) || !slices.Equal(e.Details["inactive"].([]string), []string{"3550"}) {
		t.Fatalf("refusal: %v", err)
	}
}
