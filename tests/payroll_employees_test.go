package tests

import (
	"strings"
	"testing"
	"time"
)

// Valid personnummer of the May 2026 example: Anna born 1985, Bo 1970,
// Cleo 2005.
const (
	annaPN = "198503122387"
	boPN   = "197006014570"
	cleoPN = "200502013741"
)

func annaBody() map[string]any {
	return map[string]any{"personnummer": "19850312-2387", "first_name": "Anna", "last_name": "Lindqvist",
		"employment_type": "employee", "employment_start": "2024-09-01", "salary_type": "monthly", "monthly_salary": 36000,
		"tax_table_number": 30, "tax_column": 1, "clearing_number": "8327", "bank_account_number": "9145678"}
}

func payrollNow() time.Time { return time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC) }

func TestEmployeesRegister(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(payrollNow))
	// A dry run stores nothing and shows no id.
	dry := b.do(req{Method: "POST", Path: b.path("employees?dry_run=true"), Token: b.token, Body: annaBody(),
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.preview.id") != nil || dry.str("data.preview.personnummer") != annaPN {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM employees`); n != 0 {
		t.Fatalf("a dry run stored %d employees", n)
	}
	r := b.write("POST", "employees", annaBody()).status(t, 201)
	anna := r.str("data.id")
	if r.str("data.personnummer") != annaPN || r.str("data.personnummer_masked") != "19850312XXXX" ||
		r.str("data.birth_date") != "1985-03-12" || r.str("data.vacation_rule") != "sammaloneregeln" ||
		r.at("data.vacation_days_per_year") != float64(25) || r.str("data.personnel_category") != "tjansteman" {
		t.Fatalf("created: %s", r.Body)
	}
	// Never in clear in the table, the audit trail or the list.
	if n := b.count(`SELECT count(*) FROM employees WHERE personnummer_sealed::text LIKE '%8503122387%'`); n != 0 {
		t.Error("the personnummer is stored in clear")
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE new_state::text LIKE '%2387%' OR old_state::text LIKE '%2387%'`); n != 0 {
		t.Error("an audit snapshot holds the personnummer's last four")
	}
	list := b.get(b.path("employees"), b.token).status(t, 200)
	if strings.Contains(string(list.Body), "2387") || list.str("data.0.personnummer_masked") != "19850312XXXX" {
		t.Errorf("list: %s", list.Body)
	}
	// The same person again, in another form: 409 naming the first.
	dup := annaBody()
	dup["personnummer"], dup["first_name"] = "8503122387", "Annika"
	b.write("POST", "employees", dup).errorCode(t, 409, "EMPLOYEE_DUPLICATE_PERSONNUMMER")
	if r := b.write("POST", "employees", dup); r.str("error.details.existing_employee_id") != anna {
		t.Errorf("duplicate: %s", r.Body)
	}
	// Bad input changes nothing and names its field.
	bad := func(mut func(m map[string]any), field string) {
		t.Helper()
		m := annaBody()
		m["personnummer"] = "19700601-4570"
		mut(m)
		r := b.write("POST", "employees", m).errorCode(t, 400, "VALIDATION_ERROR")
		if f := r.issueFields(); len(f) == 0 || !strings.HasPrefix(f[0], "body:"+field+":") {
			t.Errorf("%s: %s", field, r.Body)
		}
	}
	bad(func(m map[string]any) { m["personnummer"] = "19700601-4571" }, "personnummer")
	bad(func(m map[string]any) { m["hourly_rate"] = 180 }, "hourly_rate")
	bad(func(m map[string]any) { delete(m, "monthly_salary") }, "monthly_salary")
	bad(func(m map[string]any) { delete(m, "tax_column") }, "tax_column")
	bad(func(m map[string]any) { m["tax_table_number"] = 43 }, "tax_table_number")
	bad(func(m map[string]any) { m["vacation_days_per_year"] = 24 }, "vacation_days_per_year")
	bad(func(m map[string]any) { m["employment_end"] = "2024-08-31" }, "employment_end")
	bad(func(m map[string]any) { m["clearing_number"] = nil }, "bank_account_number")
	if n := b.count(`SELECT count(*) FROM employees`); n != 1 {
		t.Errorf("%d employees after refusals", n)
	}

	// PATCH: the personnummer never changes; sent back unchanged it is fine.
	b.write("PATCH", "employees/"+anna, map[string]any{"personnummer": "197006014570"}).errorCode(t, 400, "VALIDATION_ERROR")
	p := b.write("PATCH", "employees/"+anna, map[string]any{"personnummer": "850312-2387", "monthly_salary": 37500,
		"jamkning_percentage": nil}).status(t, 200)
	if p.at("data.monthly_salary") != float64(37500) || p.str("data.personnummer") != annaPN {
		t.Errorf("patched: %s", p.Body)
	}
	// Hourly now: the monthly salary goes with the old type.
	p = b.write("PATCH", "employees/"+anna, map[string]any{"salary_type": "hourly", "hourly_rate": 210}).status(t, 200)
	if p.at("data.monthly_salary") != nil || p.at("data.hourly_rate") != float64(210) {
		t.Errorf("to hourly: %s", p.Body)
	}
	b.write("PATCH", "employees/"+anna, map[string]any{"hourly_rate": nil}).errorCode(t, 400, "VALIDATION_ERROR")

	// Search and deactivation.
	bo := b.write("POST", "employees", map[string]any{"personnummer": boPN, "first_name": "Bo", "last_name": "Ström",
		"employment_type": "employee", "personnel_category": "kollektiv", "employment_start": "2025-01-01",
		"salary_type": "hourly", "hourly_rate": 180, "tax_table_number": 30, "tax_column": 1}).status(t, 201)
	if bo.str("data.vacation_rule") != "semesterersattning" {
		t.Errorf("hourly default vacation rule: %s", bo.Body)
	}
	if l := b.get(b.path("employees?search=STR"), b.token).status(t, 200).list("data"); len(l) != 1 {
		t.Errorf("search ström: %v", l)
	}
	b.write("DELETE", "employees/"+bo.str("data.id"), nil).status(t, 204)
	if l := b.get(b.path("employees"), b.token).status(t, 200).list("data"); len(l) != 1 {
		t.Errorf("active: %v", l)
	}
	if l := b.get(b.path("employees?include_inactive=true&limit=1"), b.token).status(t, 200); len(l.list("data")) != 1 ||
		l.at("meta.next_cursor") == nil {
		t.Errorf("inactive, paged: %s", l.Body)
	}
	b.get(b.path("employees/"+newKey()), b.token).errorCode(t, 404, "EMPLOYEE_NOT_FOUND")

	// Scopes: payroll:read reads and cannot write; without it, nothing.
	reader := b.key("kund@example.se", keySpec{scopes: []string{"payroll:read"}})
	b.get(b.path("employees/"+anna), reader).status(t, 200)
	b.do(req{Method: "POST", Path: b.path("employees"), Token: reader, Body: annaBody(),
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	other := b.key("kund@example.se", keySpec{scopes: []string{"customers:read"}})
	b.get(b.path("employees"), other).errorCode(t, 403, "INSUFFICIENT_SCOPE")
}

func TestEmployeeAbsence(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(payrollNow))
	anna := b.write("POST", "employees", annaBody()).status(t, 201).str("data.id")
	abs := "employees/" + anna + "/absence"
	// Mon 11 – Sun 17 May: Thursday 14 May is Ascension Day, the weekend
	// has no working hours: four days.
	r := b.write("PUT", abs, map[string]any{"from": "2026-05-11", "to": "2026-05-17", "absence_type": "vacation"}).status(t, 200)
	if r.at("data.written") != float64(4) || r.at("data.days.0.hours") != float64(8) {
		t.Fatalf("vacation: %s", r.Body)
	}
	// Half a day of VAB on Tuesday beside it is fine; 20 hours of sick is not.
	b.write("PUT", abs, map[string]any{"from": "2026-05-12", "to": "2026-05-12", "absence_type": "vab", "hours": 4}).status(t, 200)
	b.write("PUT", abs, map[string]any{"from": "2026-05-12", "to": "2026-05-12", "absence_type": "sick", "hours": 20}).
		errorCode(t, 409, "ABSENCE_HOURS_CONFLICT")
	// Rewriting a day's type replaces its hours.
	b.write("PUT", abs, map[string]any{"from": "2026-05-12", "to": "2026-05-12", "absence_type": "vab", "hours": 2.5, "notes": "Förskolan stängd"}).status(t, 200)
	l := b.get(b.path(abs+"?from=2026-05-01&to=2026-05-31"), b.token).status(t, 200).list("data")
	if len(l) != 5 {
		t.Fatalf("days: %v", l)
	}
	if v := b.get(b.path(abs+"?from=2026-05-01&to=2026-05-31&type=vab"), b.token).status(t, 200).list("data"); len(v) != 1 ||
		v[0].(map[string]any)["hours"] != 2.5 || v[0].(map[string]any)["notes"] != "Förskolan stängd" {
		t.Errorf("vab: %v", v)
	}
	// 92 days inclusive read; 93 are too many, also to write or delete.
	b.get(b.path(abs+"?from=2026-03-01&to=2026-05-31"), b.token).status(t, 200)
	b.get(b.path(abs+"?from=2026-03-01&to=2026-06-01"), b.token).errorCode(t, 400, "ABSENCE_RANGE_TOO_LARGE")
	b.write("PUT", abs, map[string]any{"from": "2026-03-01", "to": "2026-06-01", "absence_type": "sick"}).errorCode(t, 400, "ABSENCE_RANGE_TOO_LARGE")
	b.write("DELETE", abs+"?from=2026-03-01&to=2026-06-01", nil).errorCode(t, 400, "ABSENCE_RANGE_TOO_LARGE")
	b.get(b.path(abs+"?from=2026-05-31&to=2026-05-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path(abs+"?from=2026-05-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	// Delete one type, then the rest.
	if d := b.write("DELETE", abs+"?from=2026-05-01&to=2026-05-31&type=vab", nil).status(t, 200); d.at("data.deleted_count") != float64(1) {
		t.Errorf("delete vab: %s", d.Body)
	}
	if d := b.write("DELETE", abs+"?from=2026-05-01&to=2026-05-31", nil).status(t, 200); d.at("data.deleted_count") != float64(4) {
		t.Errorf("delete rest: %s", d.Body)
	}
	b.get(b.path("employees/"+newKey()+"/absence?from=2026-05-01&to=2026-05-31"), b.token).errorCode(t, 404, "EMPLOYEE_NOT_FOUND")
}

func TestEmployeeBalancesAndSettings(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(payrollNow))
	cleo := b.write("POST", "employees", map[string]any{"personnummer": cleoPN, "first_name": "Cleo", "last_name": "Berg",
		"employment_type": "employee", "employment_start": "2025-08-01", "salary_type": "monthly", "monthly_salary": 24000,
		"tax_table_number": 30, "tax_column": 1}).status(t, 201).str("data.id")
	ob := "employees/" + cleo + "/opening-balances"
	b.get(b.path(ob), b.token).errorCode(t, 404, "NOT_FOUND")
	b.get(b.path("employees/"+cleo+"/vacation-balance"), b.token).errorCode(t, 404, "VACATION_BALANCE_NOT_FOUND")
	r := b.write("PUT", ob, map[string]any{"cutover_date": "2026-01-01", "ytd_gross": 0, "vacation_paid_days_remaining": 25}).status(t, 200)
	if r.at("data.locked") != false || r.at("data.vacation_paid_days_remaining") != float64(25) {
		t.Fatalf("opening: %s", r.Body)
	}
	b.get(b.path(ob), b.token).status(t, 200)
	// Before any run: the opening days, at today's day value 24 000 ×
	// (4.6 % + 0.43 %) = 1 207.20: 25 × 1 207.20 = 30 180.
	v := b.get(b.path("employees/"+cleo+"/vacation-balance"), b.token).status(t, 200)
	if v.at("data.remaining_days") != float64(25) || v.at("data.estimated_liability_sek") != float64(30180) ||
		v.str("data.vacation_year_start") != "2026-01-01" {
		t.Errorf("balance: %s", v.Body)
	}

	s := b.get(b.path("salary/settings"), b.token).status(t, 200)
	if s.at("data.pay_day") != float64(25) || s.str("data.net_pay_account") != "1930" || s.at("data.voucher_series") != nil {
		t.Errorf("defaults: %s", s.Body)
	}
	s = b.write("PATCH", "salary/settings", map[string]any{"voucher_series": "L", "agi_contact_name": "Karin Ek",
		"agi_contact_phone": "060-12 34 56", "pay_day": 27}).status(t, 200)
	if s.str("data.voucher_series") != "L" || s.at("data.pay_day") != float64(27) || s.str("data.agi_contact_name") != "Karin Ek" {
		t.Errorf("patched: %s", s.Body)
	}
	cs := b.get(b.path("settings"), b.token).status(t, 200)
	if cs.str("data.default_voucher_series_per_source_type.salary_payment") != "L" {
		t.Errorf("company settings: %s", cs.Body)
	}
	b.write("PATCH", "salary/settings", map[string]any{"net_pay_account": "1940"}).status(t, 200)
	b.write("PATCH", "salary/settings", map[string]any{"net_pay_account": "1899"}).errorCode(t, 400, "ACCOUNTS_NOT_IN_CHART")
	b.write("PATCH", "salary/settings", map[string]any{"pay_day": 29}).errorCode(t, 400, "VALIDATION_ERROR")
	s = b.write("PATCH", "salary/settings", map[string]any{"voucher_series": nil, "net_pay_account": nil}).status(t, 200)
	if s.at("data.voucher_series") != nil || s.str("data.net_pay_account") != "1930" {
		t.Errorf("back to defaults: %s", s.Body)
	}
}
