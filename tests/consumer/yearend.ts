// The walk-through's year-end as an integrator writes it with the
// generated types: last year comes in from SIE, its period is locked, the
// year-end runs as an operation whose result is typed, the year is closed
// for good and the books locked through its last day, and this year opens
// with last year's closing balances. Figures by hand: last year sold
// 10 000 and paid 6 000 rent, a result of 4 000, closed by D 8999 K 2099.
import { api, check, fail, key, made, settled } from "./client.js";
import { importSie, sieYear, walkThroughYear } from "./sie.js";

const last = new Date().getUTCFullYear() - 1;

const company = made((await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Bokslutet AB", entity_type: "aktiebolag", org_number: "556677-8899", vat_registered: true,
    moms_period: "quarterly", f_skatt: true },
})).data?.data, "create a company");
const companyId = company.id;

const imported = await importSie(companyId, sieYear(last, "Bokslutet AB", walkThroughYear(last)), `${last}.se`);
check(imported.result.vouchers_posted === 2, `${last} comes in: 2 verifikat`, imported.result);

const periods = (await api.GET("/api/v1/companies/{companyId}/fiscal-periods", { params: { path: { companyId } } })).data?.data
  .fiscal_periods ?? [];
const previous = periods.find((p) => p.period_start === `${last}-01-01`);
const current = periods.find((p) => p.period_start === `${last + 1}-01-01`);
if (!previous || !current) {
  fail("last year and this one are fiscal periods", periods);
}
const path = { companyId, fiscalPeriodId: previous.id };

const locked = await api.POST("/api/v1/companies/{companyId}/fiscal-periods/{fiscalPeriodId}/lock", {
  params: { path, header: { "Idempotency-Key": key() } },
});
check(locked.response.status === 200 && locked.data?.data.state === "locked", `lock ${last}`, locked.data ?? locked.error);

const started = await api.POST("/api/v1/companies/{companyId}/fiscal-periods/{fiscalPeriodId}/year-end", {
  params: { path, header: { "Idempotency-Key": key() } },
});
const queued = started.data?.data;
if (started.response.status !== 202 || queued === undefined) {
  fail("run the year-end", started.error);
}
const op = await settled(queued.operation_id);
if (op.type !== "fiscal_periods.year_end" || op.status !== "succeeded" || op.result === null) {
  fail("the year-end succeeds", op);
}
check(op.result.net_result === 4000 && op.result.result_account === "2099" && op.result.next_period_id === current.id,
  "the year-end: a result of 4 000 to 2099, opening this year", op.result);

// The result before the closing entry, and after it.
const before = await api.GET("/api/v1/companies/{companyId}/reports/trial-balance", {
  params: { path: { companyId }, query: { period_id: previous.id } },
});
const closing = await api.GET("/api/v1/companies/{companyId}/reports/trial-balance", {
  params: { path: { companyId }, query: { period_id: previous.id, include_closing_entry: true } },
});
const row = (rows: { account: string; closing_balance: number }[] | undefined, account: string) =>
  rows?.find((r) => r.account === account)?.closing_balance ?? 0;
check(row(before.data?.data.rows, "2099") === 0 && row(closing.data?.data.rows, "2099") === -4000 &&
  row(closing.data?.data.rows, "8999") === 4000, "the closing entry: D 8999 4 000, K 2099 4 000",
  closing.data ?? closing.error);

const closed = await api.POST("/api/v1/companies/{companyId}/fiscal-periods/{fiscalPeriodId}/close", {
  params: { path, header: { "Idempotency-Key": key() } },
});
check(closed.response.status === 200 && closed.data?.data.state === "closed", `close ${last} for good`,
  closed.data ?? closed.error);
const lock = await api.PATCH("/api/v1/companies/{companyId}/settings/bookkeeping-lock", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { bookkeeping_locked_through: `${last}-12-31` },
});
check(lock.response.status === 200, `lock the books through ${last}-12-31`, lock.error);

// Nothing more goes into a closed year: the refusal names why.
const late = await api.POST("/api/v1/companies/{companyId}/journal-entries", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { fiscal_period_id: previous.id, entry_date: `${last}-12-31`, description: "Sen faktura",
    lines: [{ account_number: "1930", debit_amount: 100 }, { account_number: "3001", credit_amount: 100 }] },
});
check(late.response.status === 400 && late.error?.error.code === "PERIOD_LOCKED",
  `a verifikat in ${last} is refused: PERIOD_LOCKED`, late.error);

const continuity = await api.GET("/api/v1/companies/{companyId}/reports/continuity-check", {
  params: { path: { companyId }, query: { period_id: current.id } },
});
const opened = continuity.data?.data;
check(opened?.ok === true && opened.differing_accounts === 0 &&
  opened.accounts.some((a) => a.account_number === "2099" && a.opening_balance === -4000),
  "this year opens with last year's closing balances, 2099 at 4 000", opened ?? continuity.error);
console.log("ok the year-end flow");
