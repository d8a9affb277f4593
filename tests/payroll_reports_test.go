package tests

import (
	"context"
	"strings"
	"testing"
	"time"
)

// book calculates, approves and books the May run.
func (m *may2026) book(t *testing.T) {
	t.Helper()
	loadTaxTables(t, m.env)
	run := "salary-runs/" + m.run
	m.write("POST", run+"/calculate", nil).status(t, 200)
	m.write("POST", run+"/approve", nil).status(t, 200)
	m.write("POST", run+"/book", nil).status(t, 200)
}

func TestPayrollAGIAndPayslip(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	loadTaxTables(t, m.env)
	run := "salary-runs/" + m.run
	m.get(m.path(run+"/payslips/"+m.anna+"/pdf"), m.token).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/generate-agi", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/calculate", nil).status(t, 200)
	m.write("POST", run+"/approve", nil).status(t, 200)
	// No AGI contact yet: 400 naming what is missing; nothing stored.
	bad := m.write("POST", run+"/generate-agi", nil).errorCode(t, 400, "AGI_INCOMPLETE_DATA")
	if !strings.Contains(string(bad.Body), "agi_contact_name") {
		t.Errorf("missing: %s", bad.Body)
	}
	m.write("PATCH", "salary/settings", map[string]any{"agi_contact_name": "Karin Ek", "agi_contact_phone": "060-12 34 56",
		"agi_contact_email": "lon@sundsvallsbygg.se"}).status(t, 200)
	a := m.write("POST", run+"/generate-agi", nil).status(t, 200)
	xml := a.str("data.xml")
	for _, want := range []string{`omrade="Arbetsgivardeklaration"`, `<agd:KontantErsattningUlagAG faltkod="011">34338</agd:KontantErsattningUlagAG>`,
		`<agd:SummaSkatteavdr faltkod="497">15462</agd:SummaSkatteavdr>`, `<agd:SummaArbAvgSlf faltkod="487">24757</agd:SummaArbAvgSlf>`,
		`<agd:BetalningsmottagarId faltkod="215">` + annaPN + `</agd:BetalningsmottagarId>`, "<agd:AgRegistreradId>165566778899<"} {
		if !strings.Contains(xml, want) {
			t.Errorf("the AGI lacks %s", want)
		}
	}
	if a.str("data.xml_filename") != "AGI_5566778899_202605.xml" || a.str("data.due_date") != "2026-06-12" ||
		a.at("data.totals.avgifter") != float64(24757) || a.at("data.is_correction") != false {
		t.Errorf("AGI: %s", a.Body)
	}
	dl := m.get(m.path("deadlines?type=agi"), m.token).status(t, 200)
	if l := dl.list("data.deadlines"); len(l) != 1 || l[0].(map[string]any)["due_date"] != "2026-06-12" ||
		l[0].(map[string]any)["tax_period"] != "2026-05" || l[0].(map[string]any)["form"] != "AGI" {
		t.Errorf("AGI deadline: %s", dl.Body)
	}
	if n := m.count(`SELECT count(*) FROM agi_declarations WHERE position(convert_to($1, 'UTF8') in xml_sealed) > 0`, annaPN); n != 0 {
		t.Error("the stored AGI holds a personnummer in clear")
	}
	// Once an AGI exists the approval stands; the run is booked, then corrected.
	m.write("POST", run+"/unapprove", nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/book", nil).status(t, 200)
	m.write("POST", run+"/generate-agi", nil).status(t, 200)
	if n := m.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'agi.generated'
		AND payload::text NOT LIKE '%'||$2||'%'`, m.company, annaPN); n != 2 {
		t.Errorf("%d agi.generated events without the personnummer", n)
	}
	refusedByTheBooks(t, m.db, "an AGI", `UPDATE agi_declarations SET xml_filename = '' WHERE run_id = $1`, m.run)

	// The payslip as a PDF: pdftotext finds the net.
	pdf := m.get(m.path(run+"/payslips/"+m.anna+"/pdf"), m.token).status(t, 200)
	if !strings.HasPrefix(string(pdf.Body), "%PDF") || !strings.Contains(pdf.Header.Get("Content-Disposition"), "lonespecifikation-2026-05") {
		t.Fatalf("pdf: %v", pdf.Header)
	}
	text := pdfText(t, pdf.Body)
	for _, want := range []string{"Lönespecifikation", "27 979,46", "Sjuklön", "Karensavdrag", "19850312XXXX"} {
		if !strings.Contains(strings.ReplaceAll(text, "\u00a0", " "), want) {
			t.Errorf("the payslip lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "2387") {
		t.Error("the payslip shows the personnummer's last four")
	}

	// A correction's AGI replaces the first under the same numbers; Bo,
	// dropped from it, is taken away (205).
	next := m.write("POST", run+"/correct", nil).status(t, 200).str("data.correction_run.id")
	m.write("DELETE", "salary-runs/"+next+"/employees/"+m.bo, nil).status(t, 204)
	m.write("POST", "salary-runs/"+next+"/calculate", nil).status(t, 200)
	m.write("POST", "salary-runs/"+next+"/approve", nil).status(t, 200)
	c := m.write("POST", "salary-runs/"+next+"/generate-agi", nil).status(t, 200)
	cx := c.str("data.xml")
	if c.at("data.is_correction") != true || !strings.Contains(cx, `<agd:Borttag faltkod="205">1</agd:Borttag>`) ||
		!strings.Contains(cx, `<agd:BetalningsmottagarId faltkod="215">`+boPN) || strings.Count(cx, "<agd:IU>") != 3 {
		t.Errorf("correction AGI: %s", cx)
	}
}

func TestPayrollReports(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	m.book(t)
	j := m.get(m.path("reports/salary-journal?year=2026"), m.token).status(t, 200)
	if j.at("data.totals.gross") != 87078.46 || j.at("data.totals.tax") != float64(15462) || j.at("data.totals.runs") != float64(1) ||
		len(j.list("data.employees")) != 3 || j.str("data.employees.0.last_name") != "Berg" {
		t.Errorf("journal: %s", j.Body)
	}
	if e := m.get(m.path("reports/salary-journal?year=2026&month_from=6"), m.token).status(t, 200); len(e.list("data.runs")) != 0 {
		t.Errorf("June on: %s", e.Body)
	}
	m.get(m.path("reports/salary-journal?year=2026&month_from=7&month_to=5"), m.token).errorCode(t, 400, "VALIDATION_ERROR")
	m.get(m.path("reports/salary-journal"), m.token).errorCode(t, 400, "VALIDATION_ERROR")
	m.get(m.path("reports/avgifter-basis?year=2019"), m.token).errorCode(t, 400, "VALIDATION_ERROR")
	m.get(m.path("reports/avgifter-basis"), m.token).errorCode(t, 400, "VALIDATION_ERROR")
	// Standard: 34 338.46 + 28 224 = 62 562.46 and 10 789.14 + 8 867.98 =
	// 19 657.12; youth: 24 516 and 5 101.78; declared 24 757.
	b := m.get(m.path("reports/avgifter-basis?year=2026"), m.token).status(t, 200)
	if b.at("data.totals.declared") != float64(24757) || b.at("data.totals.avgift") != 24758.9 {
		t.Errorf("basis: %s", b.Body)
	}
	for _, c := range b.list("data.totals.categories") {
		c := c.(map[string]any)
		ok := c["category"] == "standard" && c["basis"] == 62562.46 && c["avgift"] == 19657.12 && c["rate"] == 31.42 ||
			c["category"] == "youth" && c["basis"] == float64(24516) && c["avgift"] == 5101.78 && c["rate"] == 20.81
		if !ok {
			t.Errorf("category %v", c)
		}
	}
	if r := m.get(m.path("reports/avgifter-basis?year=2026&dim_no=1&dim_code=A"), m.token); r.Status != 400 {
		t.Errorf("a dimension filter on a payroll report: %d", r.Status)
	}
	if r := m.get(m.path("reports/avgifter-basis?year=2026&foo=1"), m.token).status(t, 200); r.Header.Get("X-Ignored-Query-Params") != "foo" {
		t.Errorf("ignored: %v", r.Header)
	}
	// Anna: 25 days + 2.0833 earned at 1 810.80 = 49 042.44, avgifter
	// 31.42 % = 15 409.13; Cleo: 20 + 2.0833 at 1 207.20 = 26 658.96,
	// 20.81 % = 5 547.73; Bo is paid as he goes.
	l := m.get(m.path("reports/vacation-liability?year=2026"), m.token).status(t, 200)
	if l.at("data.total_liability") != 75701.4 || l.at("data.total_avgifter") != 20956.86 || len(l.list("data.employees")) != 2 ||
		l.str("data.as_of") != "2026-05-20" {
		t.Errorf("liability: %s", l.Body)
	}
	// Scope: payroll:read, not reports:read.
	reports := m.key("lon@example.se", keySpec{scopes: []string{"reports:read"}})
	m.get(m.path("reports/salary-journal?year=2026"), reports).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	reader := m.key("lon@example.se", keySpec{scopes: []string{"payroll:read"}})
	m.get(m.path("reports/vacation-liability?year=2026"), reader).status(t, 200)
}

func TestVacationYearClose(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	m.book(t)
	m.write("POST", "salary/vacation-year-close", map[string]any{"vacation_year_start": "2026-01-01"}).errorCode(t, 400, "VALIDATION_ERROR")
	// A subscription, not the 30-day trial: the clock runs on to January,
	// when the trial alone would block payroll.
	if _, err := m.db.Exec(`INSERT INTO company_capabilities (company_id, capability, source, active_from)
		VALUES ($1, 'payroll', 'subscription', '2026-01-01')`, m.company); err != nil {
		t.Fatal(err)
	}
	m.now = time.Date(2027, 1, 11, 9, 0, 0, 0, time.UTC)
	// A dry run is the report; nothing changes.
	dry := m.do(req{Method: "POST", Path: m.path("salary/vacation-year-close?dry_run=true"), Token: m.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.dry_run") != true || len(dry.list("data.preview.employees")) != 2 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := m.count(`SELECT count(*) FROM vacation_year_closes`); n != 0 {
		t.Fatal("a dry run closed the year")
	}
	// Cleo: 25 − 5 = 20 left, 5 above the 20 saved, 15 lapse, next year
	// opens with the 2.0833 earned rounded up: 3. Anna: 25 left, 5 saved.
	// The liability then: 8 days each, 14 486.40 + 9 657.60 = 24 144.00
	// against 251.50 on 2920; avgifter 4 551.63 + 2 009.75 = 6 561.38
	// against 452.60 on 2940: one verifikat books the differences.
	c := m.write("POST", "salary/vacation-year-close", nil).status(t, 200)
	if c.str("data.vacation_year_start") != "2026-01-01" || c.at("data.liability.computed") != float64(24144) ||
		c.at("data.liability.ledger_2920") != 251.5 || c.at("data.liability.difference") != 23892.5 ||
		c.at("data.liability.avgifter_difference") != 6108.78 || c.at("data.liability.adjustment_entry_id") == nil {
		t.Fatalf("closed: %s", c.Body)
	}
	for _, e := range c.list("data.employees") {
		e := e.(map[string]any)
		if e["saved_now"] != float64(5) || e["next_year_entitled"] != float64(3) {
			t.Errorf("employee %v", e)
		}
	}
	v := m.get(m.path("employees/"+m.cleo+"/vacation-balance"), m.token).status(t, 200)
	if v.str("data.vacation_year_start") != "2027-01-01" || v.at("data.remaining_days") != float64(3) ||
		v.at("data.saved_days.2026") != float64(5) || v.at("data.saved_days_total") != float64(5) {
		t.Errorf("Cleo after the close: %s", v.Body)
	}
	sides := m.ledgerSides(t)
	if sides["K2920"] != "24144.00" || sides["K2940"] != "6561.38" {
		t.Errorf("after the adjustment: %v", sides)
	}
	m.write("POST", "salary/vacation-year-close", map[string]any{"vacation_year_start": "2026-01-01"}).
		errorCode(t, 409, "VACATION_YEAR_ALREADY_CLOSED")
	// Past the trial without a subscription, payroll is blocked.
	if _, err := m.db.Exec(`DELETE FROM company_capabilities WHERE company_id = $1 AND source = 'subscription'`, m.company); err != nil {
		t.Fatal(err)
	}
	m.get(m.path("employees"), m.token).errorCode(t, 403, "CAPABILITY_BLOCKED")
}

func TestSalaryRunBookingGuards(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	loadTaxTables(t, m.env)
	run := "salary-runs/" + m.run
	m.write("POST", run+"/calculate", nil).status(t, 200)
	m.write("DELETE", run, nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("POST", run+"/approve", nil).status(t, 200)
	// A dry run shows the verifikat and posts nothing.
	dry := m.do(req{Method: "POST", Path: m.path(run + "/book?dry_run=true"), Token: m.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.dry_run") != true || len(dry.list("data.preview.verifikat")) != 3 ||
		dry.at("data.preview.verifikat.0.journal_entry_id") != nil {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := m.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, m.company); n != 0 {
		t.Fatalf("a dry run posted %d verifikat", n)
	}
	// Another booking holds the run: the second is told at once.
	ctx := context.Background()
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM salary_runs WHERE id = $1 FOR UPDATE`, m.run); err != nil {
		t.Fatal(err)
	}
	m.write("POST", run+"/book", nil).errorCode(t, 409, "SALARY_RUN_BOOKING_IN_PROGRESS")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// A locked month posts nothing; the run stays approved.
	m.now = time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	m.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-05-31"}).status(t, 200)
	m.write("POST", run+"/book", nil).errorCode(t, 400, "PERIOD_LOCKED")
	if r := m.get(m.path(run), m.token).status(t, 200); r.str("data.status") != "approved" ||
		m.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, m.company) != 0 ||
		m.count(`SELECT count(*) FROM employee_vacation_years WHERE company_id = $1`, m.company) != 0 {
		t.Fatalf("after a refused booking: %s", r.Body)
	}
	m.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": nil}).status(t, 200)
	m.write("POST", run+"/book", nil).status(t, 200)
	// A booked run's lines and roster stay.
	m.write("POST", run+"/employees/"+m.bo+"/lines", map[string]any{"item_type": "bonus", "amount": 1}).
		errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("DELETE", run+"/employees/"+m.bo, nil).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	m.write("PATCH", run, map[string]any{"payment_date": "2026-05-26"}).errorCode(t, 409, "SALARY_RUN_INVALID_STATE")
	refusedByTheBooks(t, m.db, "a booked run's lines", `DELETE FROM salary_lines WHERE run_id = $1`, m.run)
	refusedByTheBooks(t, m.db, "a booked run", `DELETE FROM salary_runs WHERE id = $1`, m.run)
}

// An employee's dimensions tag the lines their pay, avgifter and
// liability are booked on; unknown ones are refused.
func TestPayrollDimensions(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	m.write("PATCH", "settings", map[string]any{"dimensions_enabled": true}).status(t, 200)
	var one string
	for _, d := range m.get(m.path("dimensions"), m.token).status(t, 200).list("data.dimensions") {
		if d.(map[string]any)["sie_dim_no"] == float64(1) {
			one = d.(map[string]any)["id"].(string)
		}
	}
	m.write("POST", "dimensions/"+one+"/values", map[string]any{"code": "ADM", "name": "Administration"}).status(t, 201)
	if r := m.write("PATCH", "employees/"+m.anna, map[string]any{"dimensions": map[string]any{"1": "NOPE"}}); r.Status < 400 || r.Status >= 500 {
		t.Fatalf("an unknown cost centre: %s", r.Body)
	}
	e := m.write("PATCH", "employees/"+m.anna, map[string]any{"dimensions": map[string]any{"1": "ADM"}}).status(t, 200)
	if e.str("data.dimensions.1") != "ADM" {
		t.Fatalf("dimensions: %s", e.Body)
	}
	m.book(t)
	var tagged []struct {
		Account string `db:"account_number"`
		Sum     string `db:"sum"`
	}
	if err := m.db.Select(&tagged, `SELECT l.account_number, sum(l.debit_amount - l.credit_amount)::text AS sum
		FROM journal_lines l JOIN journal_entries j ON j.id = l.journal_entry_id
		WHERE j.company_id = $1 AND l.dimensions->>'1' = 'ADM' GROUP BY 1 ORDER BY 1`, m.company); err != nil {
		t.Fatal(err)
	}
	// Anna's: 7210 34 338.46 (36 000 less her sick day), 7510 10 789.14,
	// 7290 3 772.50 and 7519 1 185.32; 7281 nets to nothing.
	want := map[string]string{"7210": "34338.46", "7510": "10789.14", "7290": "3772.50", "7519": "1185.32"}
	if len(tagged) != len(want) {
		t.Fatalf("tagged lines: %v", tagged)
	}
	for _, l := range tagged {
		if want[l.Account] != l.Sum {
			t.Errorf("%s tagged %s, want %s", l.Account, l.Sum, want[l.Account])
		}
	}
}
