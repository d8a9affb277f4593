package tests

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func (e *env) patch(path, token string, body any, header ...string) *response {
	e.t.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return e.do(req{Method: "PATCH", Path: path, Token: token, Body: body, Header: h})
}

func (e *env) exec(query string, args ...any) {
	e.t.Helper()
	if _, err := e.db.ExecContext(context.Background(), query, args...); err != nil {
		e.t.Fatal(err)
	}
}

// postSale posts a sale of 100 on account (against 1930) on the last day
// of period through the API: a draft, then its commit.
func (e *env) postSale(token string, company, period uuid.UUID, account string) {
	e.t.Helper()
	var end time.Time
	if err := e.db.GetContext(context.Background(), &end, `SELECT period_end FROM fiscal_periods WHERE id = $1`, period); err != nil {
		e.t.Fatal(err)
	}
	base := "/api/v1/companies/" + company.String() + "/journal-entries"
	id := e.post(base, token, map[string]any{"fiscal_period_id": period, "entry_date": end.Format(time.DateOnly),
		"description": "Försäljning", "lines": []map[string]any{
			{"account_number": "1930", "debit_amount": 100}, {"account_number": account, "credit_amount": 100}}},
		"Idempotency-Key", uuid.NewString()).status(e.t, 201).str("data.id")
	e.post(base+"/"+id+"/commit", token, nil, "Idempotency-Key", uuid.NewString()).status(e.t, 200)
}

// basRows reads the public BAS list, skipping the test when it is absent.
func basRows(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "shared", "data", "bas", "bas-accounts.csv"))
	if err != nil {
		t.Skipf("BAS reference data absent (%v)", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows[1:] {
		out[r[0]] = r
	}
	return out
}

// Each company form gets the BAS grundkonton and the equity accounts of its
// form, every account as BAS names it, with its SRU code.
func TestSeededChartPerForm(t *testing.T) {
	t.Parallel()
	bas := basRows(t)
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	forms := map[string]struct {
		org    string
		equity []string
		absent []string
	}{
		"aktiebolag":      {"556677-8899", []string{"2081", "2091", "2098", "2099"}, []string{"2010", "2060"}},
		"enskild_firma":   {"811218-9876", []string{"2010", "2013", "2018", "2019"}, []string{"2081", "2099", "2060"}},
		"ideell_forening": {"802000-1239", []string{"2060", "2067", "2069"}, []string{"2081", "2010"}},
	}
	for form, f := range forms {
		r := e.post("/api/v1/companies", owner, map[string]any{"name": "Bolag " + form, "entity_type": form,
			"vat_registered": false, "f_skatt": true, "org_number": f.org}).status(t, 201)
		id := r.str("data.id")
		accounts := e.get("/api/v1/companies/"+id+"/accounts", owner).status(t, 200).list("data.accounts")
		have := map[string]map[string]any{}
		prev := ""
		for _, a := range accounts {
			m := a.(map[string]any)
			n := m["account_number"].(string)
			if n <= prev {
				t.Fatalf("%s: accounts out of order at %s", form, n)
			}
			prev = n
			have[n] = m
			b, ok := bas[n]
			if !ok {
				t.Errorf("%s: %s not in BAS", form, n)
				continue
			}
			sru, _ := m["sru_code"].(string)
			if m["account_name"] != b[1] || sru != b[2] {
				t.Errorf("%s: %s %q sru %q, BAS %q sru %q", form, n, m["account_name"], sru, b[1], b[2])
			}
		}
		for n, b := range bas {
			if b[6] == "1" && !strings.HasPrefix(n, "20") && have[n] == nil {
				t.Errorf("%s: grundkonto %s missing", form, n)
			}
		}
		for _, n := range f.equity {
			if have[n] == nil {
				t.Errorf("%s: equity account %s missing", form, n)
			}
		}
		for _, n := range f.absent {
			if have[n] != nil {
				t.Errorf("%s: another form's equity account %s seeded", form, n)
			}
		}
	}
}

func TestFirstFiscalPeriod(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	now := time.Now().UTC()
	firstOfMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	long := firstOfMonth.AddDate(0, 18, -1) // a first year of exactly 18 months
	cases := []struct {
		body       map[string]any
		start, end string
		days       int
	}{
		{map[string]any{}, time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly),
			time.Date(now.Year(), 12, 31, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), 0},
		{map[string]any{"first_fiscal_year": map[string]any{"start": firstOfMonth.Format(time.DateOnly), "end": long.Format(time.DateOnly)}},
			firstOfMonth.Format(time.DateOnly), long.Format(time.DateOnly), int(long.Sub(firstOfMonth).Hours()/24) + 1},
	}
	for _, c := range cases {
		body := map[string]any{"name": "År AB", "entity_type": "aktiebolag", "vat_registered": false, "f_skatt": true}
		for k, v := range c.body {
			body[k] = v
		}
		r := e.post("/api/v1/companies", owner, body).status(t, 201)
		id := r.str("data.id")
		p := e.get("/api/v1/companies/"+id+"/fiscal-periods", owner).status(t, 200)
		periods := p.list("data.fiscal_periods")
		if len(periods) != 1 {
			t.Fatalf("periods: %s", p.Body)
		}
		fp := periods[0].(map[string]any)
		if fp["state"] != "open" || fp["period_start"] != c.start || fp["period_end"] != c.end ||
			fp["name"] != r.str("data.fiscal_period.name") || fp["exceeds_18_months"] != false {
			t.Fatalf("period %v, want %s..%s", fp, c.start, c.end)
		}
		if c.days > 0 && fp["duration_days"] != float64(c.days) {
			t.Fatalf("18-month year: %v", fp)
		}
		if c.days == 0 && fp["name"] != fmt.Sprintf("Räkenskapsår %d", now.Year()) {
			t.Fatalf("calendar year name: %v", fp["name"])
		}
	}
	// A broken year for an aktiebolag starting in May.
	r := e.post("/api/v1/companies", owner, map[string]any{"name": "Brutet AB", "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": true, "fiscal_year_start_month": 5}).status(t, 201)
	if !strings.HasSuffix(r.str("data.fiscal_period.start_date"), "-05-01") || !strings.HasSuffix(r.str("data.fiscal_period.end_date"), "-04-30") ||
		!strings.Contains(r.str("data.fiscal_period.name"), "/") {
		t.Fatalf("broken year: %s", r.Body)
	}
}

func TestAccountsLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Konto AB")
	base := "/api/v1/companies/" + company.String() + "/accounts"

	before := e.count(`SELECT count(*) FROM accounts`)
	e.post(base+"?dry_run=true", owner, map[string]any{"account_number": "3550"}).status(t, 200)
	if e.count(`SELECT count(*) FROM accounts`) != before {
		t.Fatal("dry run stored an account")
	}
	r := e.post(base, owner, map[string]any{"account_number": "3550"}).status(t, 201)
	if r.str("data.account_type") != "revenue" || r.str("data.account_name") == "" {
		t.Fatalf("BAS prefill: %s", r.Body)
	}
	e.post(base, owner, map[string]any{"account_number": "3550"}).errorCode(t, 409, "ACCOUNT_EXISTS")
	e.post(base, owner, map[string]any{"account_number": "1999"}).errorCode(t, 400, "VALIDATION_ERROR")
	e.post(base, owner, map[string]any{"account_number": "1999", "account_name": "Egen", "account_type": "revenue"}).
		errorCode(t, 400, "ACCOUNT_TYPE_CLASS_CONFLICT")
	r = e.post(base, owner, map[string]any{"account_number": "1999", "account_name": "Egen kassa", "account_type": "asset"}).status(t, 201)
	if r.str("data.normal_balance") != "debit" || r.at("data.is_bas") != false {
		t.Fatalf("own account: %s", r.Body)
	}
	e.patch(base+"/1999", owner, map[string]any{}).errorCode(t, 400, "ACCOUNT_NOTHING_TO_UPDATE")
	e.patch(base+"/1930", owner, map[string]any{"is_active": false}).errorCode(t, 400, "ACCOUNT_SYSTEM_DEACTIVATE")
	e.patch(base+"/1999", owner, map[string]any{"is_active": false}).status(t, 200)
	if n := len(e.get(base+"?class=1", owner).list("data.accounts")); n == 0 {
		t.Fatal("class filter")
	}
	for _, a := range e.get(base+"?class=1", owner).list("data.accounts") {
		if a.(map[string]any)["account_number"] == "1999" {
			t.Fatal("deactivated account listed by default")
		}
	}
	found := false
	for _, a := range e.get(base+"?active=false", owner).list("data.accounts") {
		found = found || a.(map[string]any)["account_number"] == "1999"
	}
	if !found {
		t.Fatal("active=false leaves out the deactivated account")
	}
	e.post(base, owner, map[string]any{"account_number": "1999"}).errorCode(t, 409, "ACCOUNT_EXISTS_INACTIVE")
	e.get(base+"?class=x", owner).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(base+"/4999", owner, map[string]any{"account_name": "X"}).errorCode(t, 404, "ACCOUNT_NOT_FOUND")

	del := func(n string) *response {
		return e.do(req{Method: "DELETE", Path: base + "/" + n, Token: owner})
	}
	del("1930").errorCode(t, 400, "ACCOUNT_SYSTEM_DELETE")
	// A line on 3550 makes it used.
	var fp uuid.UUID
	if err := e.db.GetContext(context.Background(), &fp, `SELECT id FROM fiscal_periods WHERE company_id = $1`, company); err != nil {
		t.Fatal(err)
	}
	e.postSale(owner, company, fp, "3550")
	r = del("3550").errorCode(t, 409, "ACCOUNT_IN_USE")
	if r.at("error.details.usage_count") != float64(1) {
		t.Fatalf("usage: %s", r.Body)
	}
	del("1999").status(t, 200)
	if e.count(`SELECT count(*) FROM accounts WHERE company_id = $1 AND account_number = '1999'`, company) != 0 {
		t.Fatal("deleted account still there")
	}

	// Another company's chart is out of reach.
	stranger := e.key("stranger@example.se", keySpec{})
	e.get(base, stranger).errorCode(t, 404, "NOT_FOUND")
}

func TestFiscalPeriods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "År AB")
	base := "/api/v1/companies/" + company.String() + "/fiscal-periods"
	cur := e.get(base, owner).list("data.fiscal_periods")[0].(map[string]any)
	end, _ := time.Parse(time.DateOnly, cur["period_end"].(string))
	next := end.AddDate(0, 0, 1)
	d := func(t time.Time) string { return t.Format(time.DateOnly) }

	e.post(base, owner, map[string]any{"period_start": d(next.AddDate(0, 1, 0)), "period_end": d(next.AddDate(1, 1, -1))}).
		errorCode(t, 400, "FISCAL_PERIOD_NOT_CONTIGUOUS")
	e.post(base, owner, map[string]any{"period_start": d(next.AddDate(0, -1, 0)), "period_end": d(next.AddDate(1, -1, -1))}).
		errorCode(t, 409, "FISCAL_PERIOD_OVERLAP")
	e.post(base, owner, map[string]any{"period_start": d(next), "period_end": d(next.AddDate(0, 19, -1))}).
		errorCode(t, 400, "FISCAL_PERIOD_TOO_LONG")
	before := e.count(`SELECT count(*) FROM fiscal_periods`)
	e.post(base+"?dry_run=true", owner, map[string]any{"period_start": d(next), "period_end": d(next.AddDate(1, 0, -1))}).status(t, 200)
	if e.count(`SELECT count(*) FROM fiscal_periods`) != before {
		t.Fatal("dry run stored a period")
	}
	r := e.post(base, owner, map[string]any{"period_start": d(next), "period_end": d(next.AddDate(1, 0, -1))}).status(t, 201)
	if r.str("data.fiscal_period.previous_period_id") != cur["id"] || r.at("meta.warnings.0.code") != "PRIOR_FISCAL_YEAR_STILL_OPEN" {
		t.Fatalf("next year: %s", r.Body)
	}
	id := r.str("data.fiscal_period.id")
	list := e.get(base, owner).list("data.fiscal_periods")
	if len(list) != 2 || list[0].(map[string]any)["id"] != id {
		t.Fatal("newest first")
	}
	e.patch(base+"/"+id, owner, map[string]any{"name": "Nästa år"}).status(t, 200)
	e.patch(base+"/"+id, owner, map[string]any{"period_end": d(next.AddDate(1, 3, -1))}).status(t, 200)
	e.exec(`UPDATE fiscal_periods SET locked_at = now() WHERE id = $1`, id)
	e.patch(base+"/"+id, owner, map[string]any{"name": "X"}).errorCode(t, 409, "FISCAL_PERIOD_UPDATE_LOCKED")
	e.exec(`UPDATE fiscal_periods SET is_closed = true, closed_at = now(), closed_externally = true WHERE id = $1`, id) // a year closed outside Kontera
	e.patch(base+"/"+id, owner, map[string]any{"name": "X"}).errorCode(t, 409, "FISCAL_PERIOD_UPDATE_CLOSED")
	e.postSale(owner, company, uuid.MustParse(cur["id"].(string)), "3001")
	e.patch(base+"/"+cur["id"].(string), owner, map[string]any{"period_start": d(next.AddDate(-1, -1, 0))}).
		errorCode(t, 409, "FISCAL_PERIOD_HAS_POSTED_ENTRIES")
	e.patch(base+"/"+uuid.NewString(), owner, map[string]any{"name": "X"}).errorCode(t, 404, "PERIOD_NOT_FOUND")
}

func TestSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	r := e.post("/api/v1/companies", owner, map[string]any{"name": "Inställning AB", "entity_type": "aktiebolag",
		"vat_registered": true, "moms_period": "quarterly", "org_number": "556677-8899", "f_skatt": true}).status(t, 201)
	base := "/api/v1/companies/" + r.str("data.id") + "/settings"

	s := e.get(base, owner).status(t, 200)
	if s.at("data.bankgiro") != nil || s.at("data.invoice_default_days") != nil || s.at("data.vat_registered") != true ||
		s.str("data.moms_period") != "quarterly" || s.str("data.company_name") != "Inställning AB" {
		t.Fatalf("read model: %s", s.Body)
	}
	e.patch(base, owner, map[string]any{"bankgiro": "5050-1056"}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(base, owner, map[string]any{"reminder_days_level_1": 20, "reminder_days_level_2": 10}).errorCode(t, 400, "VALIDATION_ERROR")
	// Every year's opening balance is IB1: it takes no series of its own.
	if r := e.patch(base, owner, map[string]any{"default_voucher_series_per_source_type": map[string]any{"opening_balance": "B"}}).
		errorCode(t, 400, "VALIDATION_ERROR"); !strings.Contains(string(r.Body), "default_voucher_series_per_source_type.opening_balance") {
		t.Fatalf("opening balance series: %s", r.Body)
	}
	e.patch(base+"?dry_run=true", owner, map[string]any{"bankgiro": "5050-1055"}).status(t, 200)
	if e.get(base, owner).at("data.bankgiro") != nil {
		t.Fatal("dry run changed settings")
	}
	r = e.patch(base, owner, map[string]any{"bankgiro": "5050-1055", "invoice_default_days": 20, "company_name": "Nytt Namn AB", "city": ""}).status(t, 200)
	if r.str("data.bankgiro") != "5050-1055" || r.at("data.invoice_default_days") != float64(20) || r.str("data.company_name") != "Nytt Namn AB" || r.at("data.city") != nil {
		t.Fatalf("patched: %s", r.Body)
	}
	member := e.key("member@example.se", keySpec{})
	e.member(uuid.MustParse(r.str("data.company_id")), "member@example.se", "member", false)
	e.patch(base, member, map[string]any{"city": "Lund"}).errorCode(t, 403, "FORBIDDEN")

	// The lock date, and filed VAT periods it would reopen.
	e.patch(base+"/bookkeeping-lock", owner, map[string]any{"bookkeeping_locked_through": "2099-01-01"}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(base+"/bookkeeping-lock", owner, map[string]any{"bookkeeping_locked_through": "2026-06-30"}).status(t, 200)
	e.exec(`INSERT INTO vat_filings (company_id, period_type, period_start, period_end, filed_on, source) VALUES ($1, 'quarterly', '2026-04-01', '2026-06-30', '2026-08-12', 'manual')`,
		r.str("data.company_id"))
	c := e.patch(base+"/bookkeeping-lock", owner, map[string]any{"bookkeeping_locked_through": "2026-03-31"}).errorCode(t, 409, "BOOKKEEPING_LOCK_REOPENS_FILED_VAT")
	if c.str("error.details.filed_periods.0.period_start") != "2026-04-01" {
		t.Fatalf("filed periods: %s", c.Body)
	}
	w := e.patch(base+"/bookkeeping-lock", owner, map[string]any{"bookkeeping_locked_through": "2026-03-31", "acknowledge_filed_vat_periods": true}).status(t, 200)
	if w.str("meta.warnings.0.code") != "BOOKKEEPING_LOCK_MOVED_BACKWARDS" || w.str("data.bookkeeping_locked_through") != "2026-03-31" {
		t.Fatalf("acknowledged: %s", w.Body)
	}

	// The tax profile.
	tp := base + "/tax-profile"
	e.patch(tp, owner, map[string]any{"vat_taxable_base_over_40m": true}).errorCode(t, 400, "VALIDATION_ERROR")
	q := e.patch(tp, owner, map[string]any{"moms_period": "monthly", "vat_taxable_base_over_40m": true}).status(t, 200)
	if q.at("data.deadlines_regenerated") != true {
		t.Fatalf("regenerated: %s", q.Body)
	}
	dl := e.get("/api/v1/companies/"+r.str("data.company_id")+"/deadlines?type=vat_return", owner).status(t, 200).list("data.deadlines")
	if len(dl) < 12 || dl[0].(map[string]any)["period_type"] != "monthly" {
		t.Fatalf("deadlines: %v", dl)
	}
	q = e.patch(tp, owner, map[string]any{"vat_registered": false}).status(t, 200)
	if q.at("data.moms_period") != nil || q.at("data.vat_taxable_base_over_40m") != false {
		t.Fatalf("not registered clears VAT: %s", q.Body)
	}
	if n := len(e.get("/api/v1/companies/"+r.str("data.company_id")+"/deadlines?type=vat_return&status=upcoming", owner).list("data.deadlines")); n != 0 {
		t.Fatalf("%d VAT deadlines left after deregistering", n)
	}
	e.patch(tp, owner, map[string]any{"aktiekapital": 25000}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(tp, owner, map[string]any{"aktiekapital": 25000, "antal_aktier": 500}).status(t, 200)
	var fp uuid.UUID
	if err := e.db.GetContext(context.Background(), &fp, `SELECT id FROM fiscal_periods WHERE company_id = $1`,
		r.str("data.company_id")); err != nil {
		t.Fatal(err)
	}
	e.postSale(owner, uuid.MustParse(r.str("data.company_id")), fp, "3001")
	e.patch(tp, owner, map[string]any{"accounting_method": "cash"}).errorCode(t, 409, "ACCOUNTING_METHOD_CHANGE_MID_YEAR")
}

func TestCapabilitiesTrial(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Prov AB")
	r := e.get("/api/v1/companies/"+company.String()+"/capabilities", owner).status(t, 200)
	caps := r.list("data.capabilities")
	if len(caps) != 4 || caps[0].(map[string]any)["active"] != true || r.at("data.trial_ends_at") == nil {
		t.Fatalf("trial: %s", r.Body)
	}
	e.exec(`UPDATE company_capabilities SET active_from = now() - interval '31 days', active_until = now() - interval '1 day' WHERE company_id = $1`, company)
	r = e.get("/api/v1/companies/"+company.String()+"/capabilities", owner).status(t, 200)
	if r.at("data.capabilities.0.active") != false {
		t.Fatalf("ended trial still active: %s", r.Body)
	}
	// No operation of this issue is paid yet, so this server flags the
	// deadline list as needing payroll: the guard reads x-capability from
	// the document it enforces, and must refuse before the handler runs.
	deadlines := "/api/v1/companies/" + company.String() + "/deadlines"
	e.get(deadlines, owner).status(t, 200)
	e.server.Contract().ByID("listDeadlines").Capability = "payroll"
	r = e.get(deadlines, owner).errorCode(t, 403, "CAPABILITY_BLOCKED")
	if r.str("error.details.capability") != "payroll" || r.at("error.details.ended_at") == nil {
		t.Fatalf("details: %s", r.Body)
	}
	// Another company whose trial still runs passes the same gate.
	other := e.company(owner, "Ny AB")
	e.get("/api/v1/companies/"+other.String()+"/deadlines", owner).status(t, 200)
}

// Another company's books answer 404, as if they did not exist.
func TestBooksOfAnotherCompany(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Eget AB")
	stranger := e.key("stranger@example.se", keySpec{})
	e.company(stranger, "Främmande AB")
	base := "/api/v1/companies/" + company.String()
	for _, p := range []string{"/settings", "/deadlines", "/fiscal-periods", "/capabilities", "/accounts"} {
		e.get(base+p, stranger).errorCode(t, 404, "NOT_FOUND")
	}
	e.patch(base+"/settings", stranger, map[string]any{"city": "Lund"}).errorCode(t, 404, "NOT_FOUND")
	e.patch(base+"/settings/tax-profile", stranger, map[string]any{"f_skatt": false}).errorCode(t, 404, "NOT_FOUND")
	e.patch(base+"/settings/bookkeeping-lock", stranger, map[string]any{"bookkeeping_locked_through": nil}).errorCode(t, 404, "NOT_FOUND")
	e.post(base+"/fiscal-periods", stranger, map[string]any{"period_start": "2030-01-01", "period_end": "2030-12-31"}).errorCode(t, 404, "NOT_FOUND")
	e.post(base+"/accounts", stranger, map[string]any{"account_number": "3550"}).errorCode(t, 404, "NOT_FOUND")
	// The stranger's own period id is not found in this company either.
	var theirs string
	if err := e.db.GetContext(context.Background(), &theirs, `SELECT p.id FROM fiscal_periods p JOIN companies c ON c.id = p.company_id
		WHERE c.name = 'Främmande AB'`); err != nil {
		t.Fatal(err)
	}
	e.patch(base+"/fiscal-periods/"+theirs, owner, map[string]any{"name": "X"}).errorCode(t, 404, "PERIOD_NOT_FOUND")
}

// An enskild firma's personnummer never shows whole in settings.
func TestSettingsMaskPersonnummer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	r := e.post("/api/v1/companies", owner, map[string]any{"name": "Firma Berg", "entity_type": "enskild_firma",
		"vat_registered": true, "moms_period": "yearly", "org_number": "19811218-9876", "f_skatt": true}).status(t, 201)
	s := e.get("/api/v1/companies/"+r.str("data.id")+"/settings", owner).status(t, 200)
	if s.str("data.org_number") != "811218-****" || strings.Contains(string(s.Body), "9876") {
		t.Fatalf("masked: %s", s.Body)
	}
	// The tax profile still checks the VAT number against the whole number.
	tp := "/api/v1/companies/" + r.str("data.id") + "/settings/tax-profile"
	e.patch(tp, owner, map[string]any{"vat_number": "SE556677889901"}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(tp, owner, map[string]any{"vat_number": "SE811218987601"}).status(t, 200)
	e.patch(tp, owner, map[string]any{"fiscal_year_start_month": 7}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(tp, owner, map[string]any{"aktiekapital": 25000, "antal_aktier": 500}).errorCode(t, 400, "VALIDATION_ERROR")
}

// Dry runs of the settings changes store nothing, and a VAT-only setting
// sent while deregistering is refused rather than silently dropped.
func TestSettingsDryRunsAndContradictions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	r := e.post("/api/v1/companies", owner, map[string]any{"name": "Prov AB", "entity_type": "aktiebolag",
		"vat_registered": true, "moms_period": "quarterly", "org_number": "556677-8899", "f_skatt": true}).status(t, 201)
	base := "/api/v1/companies/" + r.str("data.id") + "/settings"
	snapshot := func() string {
		var s string
		if err := e.db.GetContext(context.Background(), &s, `SELECT to_jsonb(s)::text FROM company_settings s WHERE company_id = $1`,
			r.str("data.id")); err != nil {
			t.Fatal(err)
		}
		return s
	}
	deadlines := e.count(`SELECT count(*) FROM tax_deadlines`)
	before := snapshot()
	d := e.patch(base+"/bookkeeping-lock?dry_run=true", owner, map[string]any{"bookkeeping_locked_through": "2026-01-31"}).status(t, 200)
	if d.at("data.dry_run") != true || d.str("data.preview.bookkeeping_locked_through") != "2026-01-31" {
		t.Fatalf("lock preview: %s", d.Body)
	}
	d = e.patch(base+"/tax-profile", owner, map[string]any{"moms_period": "monthly"}, "X-Dry-Run", "true").status(t, 200)
	if d.at("data.dry_run") != true || d.str("data.preview.moms_period") != "monthly" || d.at("data.preview.deadlines_regenerated") != true {
		t.Fatalf("tax-profile preview: %s", d.Body)
	}
	if snapshot() != before || e.count(`SELECT count(*) FROM tax_deadlines`) != deadlines {
		t.Fatal("a dry run changed the settings or the deadlines")
	}
	e.patch(base+"/tax-profile", owner, map[string]any{"vat_registered": false, "oss_enabled": true}).errorCode(t, 400, "VALIDATION_ERROR")
	e.patch(base+"/tax-profile", owner, map[string]any{"vat_number": "SE556036079301"}).errorCode(t, 400, "VALIDATION_ERROR")
	if snapshot() != before {
		t.Fatal("a refused change changed the settings")
	}
}
