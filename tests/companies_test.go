package tests

import (
	"fmt"
	"strings"
	"testing"
)

func TestCreateCompany(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	y := today.Year()

	r := e.post("/api/v1/companies", owner, map[string]any{
		"name": "Fjällbacka Snickeri AB", "entity_type": "aktiebolag", "org_number": "5566778899",
		"vat_registered": true, "moms_period": "quarterly", "f_skatt": true, "address_line1": "Sjögatan 4",
		"postal_code": "457 40", "city": "Fjällbacka",
	}).status(t, 201)
	if r.str("data.org_number") != "556677-8899" || r.str("data.accounting_method") != "accrual" ||
		r.str("data.fiscal_period.name") != fmt.Sprintf("Räkenskapsår %d", y) ||
		r.str("data.fiscal_period.start_date") != fmt.Sprintf("%d-01-01", y) || r.at("data.team_id") != nil {
		t.Fatalf("created: %s", r.Body)
	}
	id := r.str("data.id")
	if n := e.count(`SELECT count(*) FROM company_members WHERE company_id = $1 AND role = 'owner'`, id); n != 1 {
		t.Fatal("no owner membership")
	}
	l := e.get("/api/v1/companies", owner).status(t, 200)
	if l.str("data.0.id") != id || l.str("data.0.role") != "owner" || l.str("data.0.entity_type") != "aktiebolag" {
		t.Fatalf("list: %s", l.Body)
	}

	// An enskild firma: cash by default, calendar year even when asked otherwise.
	r = e.post("/api/v1/companies", owner, map[string]any{"name": "Anna Berg Konsult", "entity_type": "enskild_firma",
		"org_number": "811218-9876", "vat_registered": false, "f_skatt": true, "fiscal_year_start_month": 7}).status(t, 201)
	if r.str("data.accounting_method") != "cash" || r.str("data.fiscal_period.start_date") != fmt.Sprintf("%d-01-01", y) {
		t.Fatalf("enskild firma: %s", r.Body)
	}
	// A broken year for an aktiebolag, named YYYY/YYYY.
	r = e.post("/api/v1/companies", owner, map[string]any{"name": "Bruten AB", "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": false, "fiscal_year_start_month": 5, "accounting_method": "cash"}).status(t, 201)
	if name := r.str("data.fiscal_period.name"); !strings.Contains(name, "/") || r.str("data.accounting_method") != "cash" {
		t.Fatalf("broken year: %s", r.Body)
	}
	// A first year of 18 months.
	start := today.AddDate(0, 0, 1-today.Day())
	end := start.AddDate(0, 18, -1)
	r = e.post("/api/v1/companies", owner, map[string]any{"name": "Ny AB", "entity_type": "aktiebolag", "vat_registered": false,
		"f_skatt": true, "first_fiscal_year": map[string]any{"start": start.Format("2006-01-02"), "end": end.Format("2006-01-02")}}).status(t, 201)
	if r.str("data.fiscal_period.end_date") != end.Format("2006-01-02") {
		t.Fatalf("first year: %s", r.Body)
	}
}

func TestCreateCompanyRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	base := func(over map[string]any) map[string]any {
		b := map[string]any{"name": "X AB", "entity_type": "aktiebolag", "vat_registered": false, "f_skatt": true}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	start := today.AddDate(0, 0, 1-today.Day())
	cases := map[string]struct {
		body map[string]any
		want string
	}{
		"vat without org or period": {base(map[string]any{"vat_registered": true}), "body:moms_period:required body:org_number:required"},
		"bad check digit":           {base(map[string]any{"org_number": "556677-8898"}), "body:org_number:luhn"},
		"f_skatt not stated":        {map[string]any{"name": "X", "entity_type": "aktiebolag", "vat_registered": false}, "body:f_skatt:required"},
		"blank name":                {base(map[string]any{"name": "   "}), "body:name:minLength"},
		"unknown form":              {base(map[string]any{"entity_type": "ekonomisk_forening"}), "body:entity_type:enum"},
		"team":                      {base(map[string]any{"team_id": "6d2e8a40-91c7-4b3f-8e25-1a9c0f7b4d62"}), "body:team_id:exists"},
		"first year too long": {base(map[string]any{"first_fiscal_year": map[string]any{
			"start": start.Format("2006-01-02"), "end": start.AddDate(0, 19, -1).Format("2006-01-02")}}), "body:first_fiscal_year.end:first_fiscal_year"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.post("/api/v1/companies", owner, c.body).errorCode(t, 400, "VALIDATION_ERROR")
			if got := strings.Join(r.issueFields(), " "); got != c.want {
				t.Fatalf("issues %q, want %q", got, c.want)
			}
		})
	}
	if n := e.count(`SELECT count(*) FROM companies`); n != 0 {
		t.Fatalf("%d companies after refusals", n)
	}
}
