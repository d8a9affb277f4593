package tests

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/payroll"
)

// loadTaxTables loads the fixture month tables (whose table 30 rows carry
// the figures) for 2026, as `kontera payroll tax-tables` does.
func loadTaxTables(t *testing.T, e *env) {
	t.Helper()
	raw, err := os.ReadFile("../internal/payroll/testdata/month-tables-fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := payroll.LoadTaxTables(context.Background(), e.db, 2026, raw, "test fixture"); err != nil {
		t.Fatal(err)
	}
}

// may2026 registers the three employees with their May absence,
// and opens the May run paid 25 May with Bo's hours on it.
type may2026 struct {
	*partiesBooks
	anna, bo, cleo, run string
	now                 time.Time
}

func newMay2026(t *testing.T) *may2026 {
	m := &may2026{now: payrollNow()}
	e := newEnv(t, clock(func() time.Time { return m.now }))
	token := e.key("lon@example.se", keySpec{})
	r := e.post("/api/v1/companies", token, map[string]any{"name": "Sundsvalls Bygg AB", "entity_type": "aktiebolag",
		"org_number": "5566778899", "vat_registered": false, "f_skatt": true}).status(t, 201)
	b := &partiesBooks{env: e, token: token, company: uuid.MustParse(r.str("data.id"))}
	m.partiesBooks = b
	m.anna = b.write("POST", "employees", annaBody()).status(t, 201).str("data.id")
	m.bo = b.write("POST", "employees", map[string]any{"personnummer": boPN, "first_name": "Bo", "last_name": "Ström",
		"employment_type": "employee", "personnel_category": "kollektiv", "employment_start": "2025-01-01",
		"salary_type": "hourly", "hourly_rate": 180, "tax_table_number": 30, "tax_column": 1,
		"clearing_number": "6000", "bank_account_number": "123456789"}).status(t, 201).str("data.id")
	m.cleo = b.write("POST", "employees", map[string]any{"personnummer": cleoPN, "first_name": "Cleo", "last_name": "Berg",
		"employment_type": "employee", "employment_start": "2025-08-01", "salary_type": "monthly", "monthly_salary": 24000,
		"tax_table_number": 30, "tax_column": 1, "clearing_number": "5000", "bank_account_number": "11122233"}).status(t, 201).str("data.id")
	b.write("PUT", "employees/"+m.cleo+"/opening-balances", map[string]any{"cutover_date": "2026-01-01", "ytd_gross": 96000,
		"vacation_paid_days_remaining": 25}).status(t, 200)
	b.write("PUT", "employees/"+m.anna+"/absence", map[string]any{"from": "2026-05-12", "to": "2026-05-12",
		"absence_type": "sick", "hours": 8}).status(t, 200)
	b.write("PUT", "employees/"+m.cleo+"/absence", map[string]any{"from": "2026-05-04", "to": "2026-05-08",
		"absence_type": "vacation"}).status(t, 200)
	r = b.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 5, "payment_date": "2026-05-25"}).status(t, 201)
	m.run = r.str("data.id")
	if r.at("data.employee_count") != float64(3) || r.str("data.status") != "draft" {
		t.Fatalf("run: %s", r.Body)
	}
	b.write("POST", "salary-runs/"+m.run+"/employees/"+m.bo+"/lines", map[string]any{"item_type": "hours",
		"description": "Arbetade timmar maj", "quantity": 140, "unit_price": 180}).status(t, 201)
	return m
}

func (m *may2026) slip(employee string) *response {
	return m.get(m.path("salary-runs/"+m.run+"/employees/"+employee), m.token).status(m.t, 200)
}

// ledgerSides sums the run's verifikat (and their stornos) by side and
// account.
func (m *may2026) ledgerSides(t *testing.T) map[string]string {
	t.Helper()
	var rows []struct {
		Key string `db:"key"`
		Sum string `db:"sum"`
	}
	if err := m.db.Select(&rows, `SELECT CASE WHEN l.debit_amount > 0 THEN 'D' ELSE 'K' END || l.account_number AS key,
			sum(l.debit_amount + l.credit_amount)::text AS sum
		FROM journal_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
		WHERE e.company_id = $1 AND e.source_type = 'salary_payment' GROUP BY 1`, m.company); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.Key] = r.Sum
	}
	return out
}

func TestSalaryRunMay2026(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	run := "salary-runs/" + m.run
	// Without the year's tables a table employee is refused; nothing moves.
	m.write("POST", run+"/calculate", nil).errorCode(t, 409, "SALARY_PAYROLL_CONFIG_MISSING")
	loadTaxTables(t, m.env)
	r := m.write("POST", run+"/calculate", nil).status(t, 200)
	if r.str("data.status") != "review" || r.at("data.totals.gross") != 87078.46 || r.at("data.totals.tax") != float64(15462) ||
		r.at("data.totals.net") != 71616.46 || r.at("data.totals.avgifter") != 24758.9 {
		t.Fatalf("calculated: %s", r.Body)
	}
	// Anna: timlön 207.69, sjukavdrag −1 661.54, sjuklön 1 329.23,
	// karens −1 329.23, gross 34 338.46, tax 6 359, net 27 979.46,
	// avgifter 10 789.14.
	a := m.slip(m.anna)
	if a.at("data.gross_salary") != 34338.46 || a.at("data.tax_withheld") != float64(6359) || a.at("data.net_salary") != 27979.46 ||
		a.at("data.avgifter_amount") != 10789.14 || a.at("data.absence_days.sick") != float64(1) {
		t.Fatalf("Anna: %s", a.Body)
	}
	want := map[string]float64{"base": 36000, "absence": -1661.54, "sjuklon": 1329.23, "karens": -1329.23}
	for _, l := range a.list("data.lines") {
		line := l.(map[string]any)
		if w, ok := want[line["item_type"].(string)]; ok {
			if line["amount"] != w {
				t.Errorf("Anna %s: %v", line["item_type"], line["amount"])
			}
			delete(want, line["item_type"].(string))
		}
		if line["item_type"] == "absence" && line["unit_price"] != 207.69 {
			t.Errorf("timlön %v", line["unit_price"])
		}
	}
	if len(want) != 0 || a.at("data.calculation_breakdown.tax_table.table") != float64(30) {
		t.Errorf("Anna's lines lack %v: %s", want, a.Body)
	}
	// Bo: 140 h × 180 = 25 200 + semesterersättning 3 024 = 28 224, tax
	// 4 986, net 23 238, avgifter 8 867.98.
	if s := m.slip(m.bo); s.at("data.gross_salary") != float64(28224) || s.at("data.tax_withheld") != float64(4986) ||
		s.at("data.net_salary") != float64(23238) || s.at("data.avgifter_amount") != 8867.98 {
		t.Errorf("Bo: %s", s.Body)
	}
	// Cleo: tillägg 516, gross 24 516, tax 4 117, net 20 399, avgifter
	// 20.81 % = 5 101.78.
	if s := m.slip(m.cleo); s.at("data.gross_salary") != float64(24516) || s.at("data.tax_withheld") != float64(4117) ||
		s.at("data.net_salary") != float64(20399) || s.at("data.avgifter_amount") != 5101.78 ||
		s.at("data.vacation_days_taken") != float64(5) {
		t.Errorf("Cleo: %s", s.Body)
	}
	// The run holds the days it read.
	m.write("PUT", "employees/"+m.anna+"/absence", map[string]any{"from": "2026-05-13", "to": "2026-05-13",
		"absence_type": "sick"}).errorCode(t, 409, "SALARY_REGISTER_DATES_LOCKED_BY_RUN")
	m.write("PUT", "employees/"+m.anna+"/absence", map[string]any{"from": "2026-06-01", "to": "2026-06-01",
		"absence_type": "sick"}).status(t, 200)
	m.write("DELETE", "employees/"+m.anna+"/absence?from=2026-06-01&to=2026-06-30", nil).status(t, 200)

	m.write("POST", run+"/book", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/approve", map[string]any{"note": "Attesterad"}).status(t, 200)
	if n := m.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'salary_runs'
		AND description LIKE '%godkändes: Attesterad'`, m.company); n != 1 {
		t.Errorf("the approval's note in the audit trail: %d", n)
	}
	m.write("POST", run+"/employees/"+m.bo+"/lines", map[string]any{"item_type": "bonus", "amount": 500}).
		errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/calculate", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/unapprove", nil).status(t, 200)
	m.write("POST", run+"/approve", nil).status(t, 200)

	bk := m.write("POST", run+"/book", nil).status(t, 200)
	if bk.str("data.salary_run.status") != "booked" || len(bk.list("data.salary_run.journal_entry_ids")) != 3 ||
		bk.at("meta.audit.voucher_number") == nil || bk.at("data.avgifter_declared.standard") != float64(19656) ||
		bk.at("data.avgifter_declared.youth") != float64(5101) {
		t.Fatalf("booked: %s", bk.Body)
	}
	// D 7210 58 338.46, 7285 516, 7010 25 200, 7082 3 024; K 2710 15 462,
	// 1930 71 616.46; D 7510 24 758.90, K 2731 24 757, K 3740 1.90; the
	// liability: Anna 25/12 days at 1 810.80 = 3 772.50, Cleo 5 taken less
	// 25/12 earned at 1 207.20 = −3 521.00: D 7290 251.50 K 2920; avgifter
	// 1 185.32 − 732.72 = 452.60: D 7519 K 2940.
	sides := m.ledgerSides(t)
	for k, v := range map[string]string{"D7210": "58338.46", "D7285": "516.00", "D7010": "25200.00", "D7082": "3024.00",
		"K2710": "15462.00", "K1930": "71616.46", "D7510": "24758.90", "K2731": "24757.00", "K3740": "1.90",
		"D7290": "251.50", "K2920": "251.50", "D7519": "452.60", "K2940": "452.60"} {
		if sides[k] != v {
			t.Errorf("%s = %q, want %s", k, sides[k], v)
		}
	}
	if _, ok := sides["D7281"]; ok {
		t.Errorf("sjuklön less karens booked: %v", sides)
	}
	if n := m.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type IN ('salary_run.created',
		'salary_run.approved', 'salary_run.booked')`, m.company); n != 4 { // approved twice
		t.Errorf("%d payroll events", n)
	}
	v := m.get(m.path("employees/"+m.cleo+"/vacation-balance"), m.token).status(t, 200)
	if v.at("data.remaining_days") != float64(20) || v.at("data.taken_days") != float64(5) {
		t.Errorf("Cleo's vacation: %s", v.Body)
	}
	m.get(m.path("employees/"+m.bo+"/vacation-balance"), m.token).errorCode(t, 404, "VACATION_BALANCE_NOT_FOUND")
	if o := m.get(m.path("employees/"+m.cleo+"/opening-balances"), m.token).status(t, 200); o.at("data.locked") != true {
		t.Errorf("opening balances not locked: %s", o.Body)
	}
	m.write("PUT", "employees/"+m.cleo+"/opening-balances", map[string]any{"cutover_date": "2026-01-01", "ytd_gross": 0,
		"vacation_paid_days_remaining": 30}).errorCode(t, 409, "SALARY_REGISTER_DATES_LOCKED_BY_RUN")
	refusedByTheBooks(t, m.db, "a booked run", `UPDATE salary_runs SET gross_total = 1 WHERE id = $1`, m.run)
	refusedByTheBooks(t, m.db, "a booked payslip", `UPDATE salary_run_employees SET tax_withheld = 1 WHERE run_id = $1`, m.run)
	m.write("POST", run+"/book", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")

	// Correct: every verifikat stornoed, the books as before the run.
	c := m.write("POST", run+"/correct", nil).status(t, 200)
	next := c.str("data.correction_run.id")
	if c.str("data.salary_run.status") != "corrected" || len(c.list("data.storno_entry_ids")) != 3 ||
		c.str("data.correction_run.corrects_run_id") != m.run || c.at("data.correction_run.employee_count") != float64(3) ||
		c.at("meta.audit.audit_trail_url") == nil {
		t.Fatalf("corrected: %s", c.Body)
	}
	var net []struct {
		Account string `db:"account_number"`
	}
	if err := m.db.Select(&net, `SELECT l.account_number FROM journal_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
		WHERE e.company_id = $1 AND e.source_type IN ('salary_payment', 'storno') GROUP BY 1
		HAVING sum(l.debit_amount - l.credit_amount) <> 0`, m.company); err != nil || len(net) != 0 {
		t.Errorf("after the correction accounts still move: %v %v", net, err)
	}
	m.write("POST", run+"/correct", nil).errorCode(t, 409, "SALARY_RUN_ALREADY_CORRECTED")
	if v := m.get(m.path("employees/"+m.cleo+"/vacation-balance"), m.token).status(t, 200); v.at("data.remaining_days") != float64(25) {
		t.Errorf("Cleo's days not given back: %s", v.Body)
	}
	// The correction run carries the roster, specification numbers and Bo's line.
	if s := m.get(m.path("salary-runs/"+next+"/employees/"+m.bo), m.token).status(t, 200); len(s.list("data.lines")) != 1 ||
		s.at("data.calculation_breakdown") != nil {
		t.Errorf("correction payslip: %s", s.Body)
	}
	m.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 5}).errorCode(t, 409, "SALARY_RUN_DUPLICATE_PERIOD")
	m.write("POST", "salary-runs/"+next+"/calculate", nil).status(t, 200)
	m.write("POST", "salary-runs/"+next+"/approve", nil).status(t, 200)
	m.write("POST", "salary-runs/"+next+"/book", nil).status(t, 200)
	if sides := m.ledgerSides(t); sides["D7510"] != "49517.80" { // the first booking, the second, and its storno
		t.Errorf("rebooked: %v", sides)
	}
}

func TestSalaryRunRules(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	run := "salary-runs/" + m.run
	// Lines the calculation owns are refused; a line holds together.
	m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "sjuklon", "amount": 100}).
		errorCode(t, 400, "SALARY_LINE_CALCULATED")
	m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "bonus"}).errorCode(t, 400, "VALIDATION_ERROR")
	m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "one_off", "amount": 5000}).
		errorCode(t, 400, "VALIDATION_ERROR")
	m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "bonus", "quantity": 2}).
		errorCode(t, 400, "VALIDATION_ERROR")
	line := m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "bonus", "amount": 5000}).status(t, 201)
	id := line.str("data.id")
	if l := m.write("PATCH", run+"/lines/"+id, map[string]any{"quantity": 2, "unit_price": 1500}).status(t, 200); l.at("data.amount") != float64(3000) {
		t.Errorf("patched line: %s", l.Body)
	}
	if l := m.write("PATCH", run+"/lines/"+id, map[string]any{"amount": 2500}).status(t, 200); l.at("data.quantity") != nil ||
		l.at("data.amount") != float64(2500) {
		t.Errorf("amount alone: %s", l.Body)
	}
	m.write("PATCH", "salary-runs/"+newKey()+"/lines/"+id, map[string]any{"amount": 1}).errorCode(t, 404, "SALARY_RUN_NOT_FOUND")
	m.write("DELETE", run+"/lines/"+newKey(), nil).errorCode(t, 404, "SALARY_LINE_NOT_FOUND")
	m.write("DELETE", run+"/lines/"+id, nil).status(t, 204)
	// One run a period.
	dup := m.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 5}).errorCode(t, 409, "SALARY_RUN_DUPLICATE_PERIOD")
	if dup.str("error.details.existing_salary_run_id") != m.run {
		t.Errorf("duplicate: %s", dup.Body)
	}
	// Approval lists who lacks what; an edit returns a review run to draft.
	loadTaxTables(t, m.env)
	m.write("PATCH", "employees/"+m.anna, map[string]any{"clearing_number": nil, "bank_account_number": nil}).status(t, 200)
	m.write("POST", run+"/approve", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/calculate", nil).status(t, 200)
	ap := m.write("POST", run+"/approve", nil).errorCode(t, 400, "SALARY_RUN_APPROVE_VALIDATION_FAILED")
	if l := ap.list("error.details.employees"); len(l) != 1 || l[0].(map[string]any)["employee_id"] != m.anna {
		t.Errorf("approve: %s", ap.Body)
	}
	r := m.write("PATCH", run, map[string]any{"payment_date": "2026-05-22"}).status(t, 200)
	if r.str("data.status") != "draft" || r.at("data.totals.gross") != float64(0) {
		t.Errorf("edited review run: %s", r.Body)
	}
	if s := m.slip(m.anna); s.at("data.calculation_breakdown") != nil || s.at("data.gross_salary") != float64(0) {
		t.Errorf("stale payslip: %s", s.Body)
	}
	// A table employee without a table: left uncalculated, named on approve.
	m.write("PATCH", "employees/"+m.anna, map[string]any{"tax_table_number": nil, "tax_column": nil,
		"clearing_number": "8327", "bank_account_number": "9145678"}).status(t, 200)
	m.write("POST", run+"/calculate", nil).status(t, 200)
	if s := m.slip(m.anna); s.str("data.calculation_error.code") != "tax_table_missing" || s.at("data.calculated") != false {
		t.Errorf("tableless: %s", s.Body)
	}
	ap = m.write("POST", run+"/approve", nil).errorCode(t, 400, "SALARY_RUN_APPROVE_VALIDATION_FAILED")
	if miss := ap.list("error.details.employees.0.missing"); len(miss) != 2 {
		t.Errorf("missing: %s", ap.Body)
	}
	// Overrides replace tax and avgifter; the net follows the tax.
	m.write("PATCH", "employees/"+m.anna, map[string]any{"tax_table_number": 30, "tax_column": 1}).status(t, 200)
	m.write("PATCH", run+"/employees/"+m.anna, map[string]any{"tax_withheld_override": 7000}).status(t, 200)
	m.write("POST", run+"/calculate", nil).status(t, 200)
	if s := m.slip(m.anna); s.at("data.tax_withheld") != float64(6359) || s.at("data.net_salary") != 27338.46 {
		t.Errorf("override: %s", s.Body)
	}
	// Roster: off and on again; an inactive employee cannot be added.
	m.write("DELETE", run+"/employees/"+m.bo, nil).status(t, 204)
	m.write("POST", run+"/employees", map[string]any{"employee_id": m.bo}).status(t, 201)
	m.write("POST", run+"/employees", map[string]any{"employee_id": m.bo}).errorCode(t, 400, "VALIDATION_ERROR")
	m.write("POST", run+"/employees", map[string]any{"employee_id": newKey()}).errorCode(t, 404, "EMPLOYEE_NOT_FOUND")
	if l := m.get(m.path(run+"/employees?limit=2"), m.token).status(t, 200); len(l.list("data")) != 2 || l.at("meta.next_cursor") == nil {
		t.Errorf("roster page: %s", l.Body)
	}
	// An empty run calculates nothing; a draft is deleted, a booked never.
	empty := m.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 6}).status(t, 201).str("data.id")
	for _, e := range []string{m.anna, m.bo, m.cleo} {
		m.write("DELETE", "salary-runs/"+empty+"/employees/"+e, nil).status(t, 204)
	}
	m.write("POST", "salary-runs/"+empty+"/calculate", nil).errorCode(t, 400, "SALARY_RUN_NO_EMPLOYEES")
	m.write("DELETE", "salary-runs/"+empty, nil).status(t, 204)
	m.get(m.path("salary-runs/"+empty), m.token).errorCode(t, 404, "SALARY_RUN_NOT_FOUND")
	if l := m.get(m.path("salary-runs?period_year=2026&status=review"), m.token).status(t, 200).list("data"); len(l) != 0 {
		t.Errorf("review runs: %v", l)
	}
	// A payroll webhook needs payroll:read.
	hooks := m.key("lon@example.se", keySpec{scopes: []string{"webhooks:manage"}})
	m.do(req{Method: "POST", Path: m.path("webhooks"), Token: hooks, Body: map[string]any{"name": "Lön",
		"event_type": "salary_run.booked", "webhook_url": "https://hooks.example.se/lon"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
}
