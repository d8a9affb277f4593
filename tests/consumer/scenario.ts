// A client's day with Kontera, written against the types openapi-typescript
// generates from GET /api/v1/openapi.json: if the document and the server
// part ways, tsc or an assertion here says so.
import { api, check, key, made } from "./client.js";

const company = await api.POST("/api/v1/companies", {
  body: { name: "Konsument AB", entity_type: "aktiebolag", vat_registered: false, f_skatt: true },
});
check(company.response.status === 201 && company.data !== undefined, "create a company", company.error);
const companyId = made(company.data?.data, "create a company", company.error).id;

const accounts = await api.GET("/api/v1/companies/{companyId}/accounts", {
  params: { path: { companyId }, query: { class: "3" } },
});
check(accounts.response.status === 200 && accounts.data!.data.accounts.some((a) => a.account_number === "3001"),
  "list the revenue accounts", accounts.error);

const periods = await api.GET("/api/v1/companies/{companyId}/fiscal-periods", { params: { path: { companyId } } });
check(periods.response.status === 200, "list fiscal periods", periods.error);
const period = periods.data!.data.fiscal_periods[0];

const draft = await api.POST("/api/v1/companies/{companyId}/journal-entries", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: {
    fiscal_period_id: period.id,
    entry_date: period.period_start,
    description: "Kontantförsäljning",
    lines: [
      { account_number: "1930", debit_amount: 1250 },
      { account_number: "3001", credit_amount: 1000 },
      { account_number: "2611", credit_amount: 250 },
    ],
  },
});
const created = made(draft.data?.data, "create a draft verifikat");
check(draft.response.status === 201 && created.status === "draft", "create a draft verifikat", draft.error);

const posted = await api.POST("/api/v1/companies/{companyId}/journal-entries/{journalEntryId}/commit", {
  params: { path: { companyId, journalEntryId: created.id }, header: { "Idempotency-Key": key() } },
});
check(posted.response.status === 200, "commit it", posted.error);
const entry = made(posted.data?.data, "commit it");
check(entry.voucher_number === 1 && entry.status === "posted", "it has voucher number 1", entry);

const trial = await api.GET("/api/v1/companies/{companyId}/reports/trial-balance", {
  params: { path: { companyId }, query: { period_id: period.id } },
});
check(trial.response.status === 200 && trial.data!.data.isBalanced && trial.data!.data.totalDebit === 1250,
  "the trial balance balances at 1250", trial.data ?? trial.error);

const dry = await api.POST("/api/v1/companies/{companyId}/customers", {
  params: { path: { companyId }, query: { dry_run: "true" }, header: { "Idempotency-Key": key() } },
  body: { name: "Anna Svensson", customer_type: "individual", personal_number: "811218-9876" },
});
const preview = dry.data?.data;
check(dry.response.status === 200 && preview?.dry_run === true && preview.preview.id === null &&
  preview.preview.personal_number === "********-9876", "a dry run previews a customer", dry.data ?? dry.error);

const none = await api.GET("/api/v1/companies/{companyId}/customers", { params: { path: { companyId } } });
check(none.response.status === 200 && none.data!.data.length === 0, "and stored nothing", none.data);

const refused = await api.POST("/api/v1/companies/{companyId}/journal-entries", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { fiscal_period_id: period.id, entry_date: period.period_start, description: "Obalanserad",
    lines: [{ account_number: "1930", debit_amount: 100 }, { account_number: "3001", credit_amount: 90 }] },
});
check(refused.response.status === 400 && refused.error?.error.code === "JOURNAL_ENTRY_NOT_BALANCED",
  "an unbalanced entry is refused with its code", refused.error);
