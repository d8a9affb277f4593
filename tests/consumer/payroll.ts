// "Payroll (lön)" as an integrator writes it with the generated types:
// an employee, May's salary run created, calculated, approved and booked,
// the payslip read, and the AGI declaration made. The server's clock is
// 20 May 2026 and the year's month tables are loaded (the test does both).
// Figures by hand: a monthly salary of 30 000 on table 30, column 1
// (28 401–34 200: 5 800) leaves 24 200 to pay; arbetsgivaravgifter at
// 31.42 % are 9 426.00.
import { api, check, key, made } from "./client.js";

const company = made((await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Lönebolaget AB", entity_type: "aktiebolag", org_number: "556677-8899", vat_registered: false,
    f_skatt: true },
})).data?.data, "create a company");
const companyId = company.id;

const hired = await api.POST("/api/v1/companies/{companyId}/employees", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { personnummer: "19850312-2387", first_name: "Anna", last_name: "Lindqvist", employment_type: "employee",
    employment_start: "2024-09-01", salary_type: "monthly", monthly_salary: 30000, tax_table_number: 30, tax_column: 1,
    clearing_number: "8327", bank_account_number: "9145678" },
});
const employee = made(hired.data?.data, "register an employee", hired.error);
check(hired.response.status === 201 && employee.personnummer !== "19850312-2387",
  "register an employee, the personnummer answered masked", employee);

const created = await api.POST("/api/v1/companies/{companyId}/salary-runs", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { period_year: 2026, period_month: 5, payment_date: "2026-05-25" },
});
const run = made(created.data?.data, "open May's salary run", created.error);
check(created.response.status === 201 && run.status === "draft" && run.employee_count === 1,
  "open May's salary run: a draft with the employee on it", run);
const path = { companyId, runId: run.id };

const calculated = await api.POST("/api/v1/companies/{companyId}/salary-runs/{runId}/calculate", {
  params: { path, header: { "Idempotency-Key": key() } },
});
const review = made(calculated.data?.data, "calculate the run", calculated.error);
check(review.status === "review" && review.totals.gross === 30000 && review.totals.tax === 5800 &&
  review.totals.net === 24200 && review.totals.avgifter === 9426,
  "calculate: gross 30 000, tax 5 800, net 24 200, avgifter 9 426", review);

const slip = await api.GET("/api/v1/companies/{companyId}/salary-runs/{runId}/employees/{employeeId}", {
  params: { path: { ...path, employeeId: employee.id } },
});
check(slip.data?.data.net_salary === 24200 && slip.data.data.calculation_breakdown?.tax_table?.table === 30,
  "the payslip: net 24 200 by table 30", slip.data ?? slip.error);

const approved = await api.POST("/api/v1/companies/{companyId}/salary-runs/{runId}/approve", {
  params: { path, header: { "Idempotency-Key": key() } },
  body: { note: "Attesterad" },
});
check(made(approved.data?.data, "approve the run", approved.error).status === "approved", "approve the run", approved.data);

const booked = await api.POST("/api/v1/companies/{companyId}/salary-runs/{runId}/book", {
  params: { path, header: { "Idempotency-Key": key() } },
});
const booking = made(booked.data?.data, "book the run", booked.error);
check(booking.salary_run.status === "booked" && booking.salary_run.journal_entry_ids.length > 0,
  "book the run: its verifikat", booking);
// Booked is booked: a second booking is refused with its code.
const again = await api.POST("/api/v1/companies/{companyId}/salary-runs/{runId}/book", {
  params: { path, header: { "Idempotency-Key": key() } },
});
check(again.response.status === 409 && again.error?.error.code === "SALARY_RUN_INVALID_STATE",
  "booking it twice is refused: SALARY_RUN_INVALID_STATE", again.error);

// The declaration needs a contact at the company: without one the
// refusal lists what is missing, and the settings take it.
const generate = () => api.POST("/api/v1/companies/{companyId}/salary-runs/{runId}/generate-agi", {
  params: { path, header: { "Idempotency-Key": key() } },
});
const incomplete = await generate();
const missing = incomplete.error?.error.details?.missing;
check(incomplete.error?.error.code === "AGI_INCOMPLETE_DATA" && Array.isArray(missing) && missing.includes("agi_contact_email"),
  "the AGI declaration without a contact is refused, naming what is missing", incomplete.error);
const contact = await api.PATCH("/api/v1/companies/{companyId}/salary/settings", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { agi_contact_name: "Karin Ek", agi_contact_phone: "070-123 45 67", agi_contact_email: "lon@lonebolaget.se" },
});
check(contact.response.status === 200, "the AGI contact in the salary settings", contact.error);
const agi = await generate();
const declaration = made(agi.data?.data, "make the AGI declaration", agi.error);
check(declaration.period === "202605" && declaration.totals.persons === 1 && declaration.totals.cash_gross === 30000 &&
  declaration.totals.tax === 5800 && declaration.totals.avgifter === 9426 && declaration.xml.includes(`<agd:SummaArbAvgSlf faltkod="487">9426</agd:SummaArbAvgSlf>`),
  "the AGI declaration for 202605: 1 person, 30 000, tax 5 800, avgifter 9 426, and its XML", declaration.totals);
console.log("ok the payroll flow");
