package tests

import (
	"os/exec"
	"strings"
	"testing"
)

// Anna's train ticket of 1 120 kr (no VAT: the company is not VAT
// registered; D 5810 / C 2820) rides on the May run: her payslip pays it
// back with the net, 27 979.46 + 1 120 = 29 099.46, untaxed; the run's
// salaries verifikat debits 2820 1 120 and credits 1930 71 616.46 +
// 1 120 = 72 736.46, leaving on 2820 only a taxi still to ride. While on
// the payslip the claim
// is neither deleted nor paid out; once booked it is paid by the run,
// and the database refuses to change it; the run's correction makes it
// owed again and the correction run takes it. Taking the employee off a
// run, or deleting a draft run, lets a claim go.
func TestExpenseClaimPaidWithSalary(t *testing.T) {
	t.Parallel()
	m := newMay2026(t)
	loadTaxTables(t, m.env)
	run := "salary-runs/" + m.run

	m.write("POST", "expense-claims", map[string]any{"description": "Tåg", "expense_date": "2026-05-10", "amount": 100,
		"expense_account": "5810", "claimant_name": "Ägaren", "pay_with_salary": true}).errorCode(t, 400, "VALIDATION_ERROR")
	// Outside the VAT register a receipt's VAT is cost, not input VAT.
	r := m.write("POST", "expense-claims", map[string]any{"description": "Tåg", "expense_date": "2026-05-10", "amount": 1120,
		"vat_amount": 120, "expense_account": "5810", "employee_id": m.anna}).errorCode(t, 400, "VALIDATION_ERROR")
	if !names(r, "vat_amount", "") {
		t.Fatalf("VAT outside the register: %s", r.Body)
	}
	c := m.write("POST", "expense-claims", map[string]any{"description": "Tågbiljett Sundsvall–Stockholm",
		"expense_date": "2026-05-10", "amount": 1120, "expense_account": "5810", "employee_id": m.anna,
		"pay_with_salary": true}).status(t, 201)
	id := c.str("data.expense_claim_id")
	if c.at("data.pay_with_salary") != true || c.at("data.salary_run_id") != nil {
		t.Fatalf("registered: %s", c.Body)
	}
	// Dated after the payment day, a claim waits for the next run.
	later := m.write("POST", "expense-claims", map[string]any{"description": "Taxi", "expense_date": "2026-05-27",
		"amount": 300, "expense_account": "5810", "employee_id": m.anna, "pay_with_salary": true}).status(t, 201)

	m.write("POST", run+"/calculate", nil).status(t, 200)
	s := m.slip(m.anna)
	if s.at("data.net_salary") != 29099.46 || s.at("data.tax_withheld") != float64(6359) || s.at("data.gross_salary") != 34338.46 {
		t.Fatalf("Anna's payslip: %s", s.Body)
	}
	var claim map[string]any
	for _, l := range s.list("data.lines") {
		if l := l.(map[string]any); l["item_type"] == "expense_claim" {
			claim = l
		}
	}
	if claim == nil || claim["expense_claim_id"] != id || claim["amount"] != float64(1120) || claim["account"] != "2820" {
		t.Fatalf("the claim's line: %s", s.Body)
	}
	if g := m.get(m.path("expense-claims/"+id), m.token).status(t, 200); g.str("data.salary_run_id") != m.run ||
		g.str("data.status") != "registered" {
		t.Fatalf("on the payslip: %s", g.Body)
	}
	if g := m.get(m.path("expense-claims/"+later.str("data.expense_claim_id")), m.token).status(t, 200); g.at("data.salary_run_id") != nil {
		t.Fatalf("a claim after the payment day taken: %s", g.Body)
	}
	r = m.write("DELETE", "expense-claims/"+id, nil).errorCode(t, 409, "EXPENSE_CLAIM_ON_PAYSLIP")
	if r.str("error.details.salary_run_id") != m.run {
		t.Errorf("on payslip: %s", r.Body)
	}
	m.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{id}, "payout_date": "2026-05-20",
		"cash_account": "1930"}).errorCode(t, 409, "EXPENSE_CLAIM_ON_PAYSLIP")
	m.write("POST", run+"/employees/"+m.anna+"/lines", map[string]any{"item_type": "expense_claim", "amount": 1}).
		errorCode(t, 400, "SALARY_LINE_CALCULATED")

	m.write("POST", run+"/approve", nil).status(t, 200)
	m.write("POST", run+"/book", nil).status(t, 200)
	sides := m.ledgerSides(t)
	if sides["D2820"] != "1120.00" || sides["K1930"] != "72736.46" || sides["K2710"] != "15462.00" {
		t.Fatalf("the run's verifikat: %v", sides)
	}
	if n := m.count(`SELECT count(*) FROM (SELECT 1 FROM journal_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
		WHERE e.company_id = $1 AND l.account_number = '2820' HAVING sum(l.debit_amount - l.credit_amount) = -300) x`,
		m.company); n != 1 {
		t.Errorf("2820 owes more than the taxi's 300 kr")
	}
	// The payslip shows the claim after the tax, with what goes with the
	// net without being pay (read where poppler is, as make test has it).
	if _, err := exec.LookPath("pdftotext"); err == nil {
		text := strings.ReplaceAll(pdfText(t, m.get(m.path(run+"/payslips/"+m.anna+"/pdf"), m.token).status(t, 200).Body),
			"\u00a0", " ")
		tax, utlagg, net := strings.Index(text, "Skatteavdrag"), strings.Index(text, "Utlägg: Tågbiljett"),
			strings.Index(text, "Nettolön att utbetala")
		if !(tax >= 0 && tax < utlagg && utlagg < net && strings.Contains(text, "29 099,46")) {
			t.Errorf("the payslip's order: tax %d, claim %d, net %d:\n%s", tax, utlagg, net, text)
		}
	}
	g := m.get(m.path("expense-claims/"+id), m.token).status(t, 200)
	if g.str("data.status") != "paid" || g.str("data.salary_run_id") != m.run || g.at("data.payout_batch_id") != nil ||
		g.at("data.paid_at") == nil {
		t.Fatalf("paid by the run: %s", g.Body)
	}
	m.write("DELETE", "expense-claims/"+id, nil).errorCode(t, 409, "EXPENSE_CLAIM_ALREADY_PAID")
	refusedByTheBooks(t, m.db, "a claim paid by a run made owed", `UPDATE expense_claims SET status = 'registered',
		paid_at = NULL, salary_run_id = NULL WHERE id = $1`, id)
	refusedByTheBooks(t, m.db, "a paid claim moved to another run", `UPDATE expense_claims SET salary_run_id = NULL
		WHERE id = $1`, id)

	// The correction: owed again, and on the correction run's payslip.
	next := m.write("POST", run+"/correct", nil).status(t, 200).str("data.correction_run.id")
	if g := m.get(m.path("expense-claims/"+id), m.token).status(t, 200); g.str("data.status") != "registered" ||
		g.at("data.salary_run_id") != nil {
		t.Fatalf("after the correction: %s", g.Body)
	}
	m.write("POST", "salary-runs/"+next+"/calculate", nil).status(t, 200)
	if g := m.get(m.path("expense-claims/"+id), m.token).status(t, 200); g.str("data.salary_run_id") != next {
		t.Fatalf("the correction run: %s", g.Body)
	}
	// Taking Anna off the run lets the claim go: it can be paid out.
	m.write("DELETE", "salary-runs/"+next+"/employees/"+m.anna, nil).status(t, 204)
	if g := m.get(m.path("expense-claims/"+id), m.token).status(t, 200); g.at("data.salary_run_id") != nil {
		t.Fatalf("off the run: %s", g.Body)
	}
	m.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{id}, "payout_date": "2026-05-26",
		"cash_account": "1930"}).status(t, 201)

	// The taxi rides on June's run; deleting the draft run lets it go.
	june := m.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 6,
		"payment_date": "2026-06-25"}).status(t, 201).str("data.id")
	m.write("POST", "salary-runs/"+june+"/calculate", nil).status(t, 200)
	taxi := "expense-claims/" + later.str("data.expense_claim_id")
	if g := m.get(m.path(taxi), m.token).status(t, 200); g.str("data.salary_run_id") != june {
		t.Fatalf("June's run: %s", g.Body)
	}
	m.write("PATCH", "salary-runs/"+june, map[string]any{"payment_date": "2026-06-24"}).status(t, 200) // back to draft
	m.write("DELETE", "salary-runs/"+june, nil).status(t, 204)
	if g := m.get(m.path(taxi), m.token).status(t, 200); g.at("data.salary_run_id") != nil || g.str("data.status") != "registered" {
		t.Fatalf("after the run's deletion: %s", g.Body)
	}
}
