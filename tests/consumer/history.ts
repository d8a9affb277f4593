// "Move your books to Kontera" as an integrator writes it with the
// generated types: a company whose books start two years back, each
// year's SIE file sent as a Blob and its operation polled, what came in
// read back (years, balances, statements with last year beside), and an
// import undone and sent again. Figures by hand: the first year sells
// 10 000 (+ 2 500 VAT) and pays 6 000 rent (+ 1 500 VAT), a result of
// 4 000 (its vouchers numbered A 1 and A 3, as the old program left
// them); the second sells 20 000 (+ 5 000 VAT) and settles the first
// year's VAT, 1 000, a result of 20 000.
import { api, check, fail, key, made, settled } from "./client.js";
import { importSie, sieYear, walkThroughYear } from "./sie.js";

const thisYear = new Date().getUTCFullYear();
const first = thisYear - 2;
const second = thisYear - 1;

// The first year numbered A 1 and A 3, as the old program left it.
const firstFile = sieYear(first, "Historik AB", walkThroughYear(first, 1, 3));
// The second year opens where the first closed, its result carried to 2098.
const secondFile = sieYear(second, "Historik AB", [
  "#IB 0 1930 30000.00", "#IB 0 2081 -25000.00", "#IB 0 2098 -4000.00", "#IB 0 2611 -2500.00", "#IB 0 2641 1500.00",
  `#VER A 1 ${second}0210 "Momsredovisning"`, "{", "#TRANS 2611 {} 2500.00", "#TRANS 2641 {} -1500.00",
  "#TRANS 2650 {} -1000.00", "}",
  `#VER A 2 ${second}0512 "Momsbetalning"`, "{", "#TRANS 2650 {} 1000.00", "#TRANS 1930 {} -1000.00", "}",
  `#VER A 3 ${second}0920 "Försäljning"`, "{", "#TRANS 1930 {} 25000.00", "#TRANS 3001 {} -20000.00",
  "#TRANS 2611 {} -5000.00", "}",
  "#UB 0 1930 54000.00", "#UB 0 2081 -25000.00", "#UB 0 2098 -4000.00", "#UB 0 2611 -5000.00",
  "#RES 0 3001 -20000.00",
]);

// 1. The company, its first year two years back.
const company = made((await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Historik AB", entity_type: "aktiebolag", org_number: "556677-8899", vat_registered: true,
    moms_period: "quarterly", f_skatt: true, books_from_import: true,
    first_fiscal_year: { start: `${first}-01-01`, end: `${first}-12-31` } },
})).data?.data, "create a company whose books start two years back");
const companyId = company.id;

// 2. Each year's file: 202 at once, then the operation, typed by its type.
const importYear = (file: Blob, name: string) => importSie(companyId, file, name);

const one = await importYear(firstFile, `${first}.se`);
check(one.result.encoding === "cp437" && one.result.vouchers_posted === 2 && one.result.balance_check?.balanced === true,
  `${first}: read as CP437, 2 verifikat, and the books agree with the file's #UB and #RES`, one.result);
const two = await importYear(secondFile, `${second}.se`);
check(two.result.vouchers_posted === 3 && two.result.balance_check?.balanced === true,
  `${second}: 3 verifikat, and the books agree with the file`, two.result);
// The old program lost A 2: the gap is kept and said, in both languages.
const gap = (one.result.warnings ?? []).find((w) => w.code === "SIE_VOUCHER_GAP");
check(gap !== undefined && gap.message !== "" && gap.message_en !== "", `${first}'s gap in series A is a warning`,
  one.result.warnings);

// 3. What came in.
const periods = (await api.GET("/api/v1/companies/{companyId}/fiscal-periods", { params: { path: { companyId } } })).data?.data
  .fiscal_periods ?? [];
const year = (y: number) => periods.find((p) => p.period_start === `${y}-01-01`);
const firstPeriod = year(first);
const secondPeriod = year(second);
if (!firstPeriod || !secondPeriod) {
  fail("the two years are fiscal periods", periods);
}
check(true, `the fiscal periods hold ${first} and ${second}`);

const trial = await api.GET("/api/v1/companies/{companyId}/reports/trial-balance", {
  params: { path: { companyId }, query: { period_id: secondPeriod.id } },
});
const bank = trial.data?.data.rows.find((r) => r.account === "1930");
check(trial.data?.data.isBalanced === true && bank?.closing_balance === 54000,
  `${second}'s trial balance: 1930 closes at 54 000`, trial.data ?? trial.error);

const income = await api.GET("/api/v1/companies/{companyId}/reports/income-statement", {
  params: { path: { companyId }, query: { period_id: secondPeriod.id } },
});
const statement = income.data?.data;
check(statement?.totals.arets_resultat === 20000 && statement.previous_totals.arets_resultat === 4000,
  `the income statement: ${second} 20 000 beside ${first}'s 4 000`, statement ?? income.error);

// 4. Undo the second year's import (202): its verifikat are reversed,
// the three vouchers and the opening balance (series IB).
const undo = await api.POST("/api/v1/companies/{companyId}/imports/sie/{importId}/undo", {
  params: { path: { companyId, importId: two.importId }, header: { "Idempotency-Key": key() } },
});
const undoing = made(undo.data?.data, "undo the second import", undo.error);
if (undo.response.status !== 202 || undoing.operation_id === null) {
  fail("undo the second import: an operation", undoing);
}
const undone = await settled(undoing.operation_id);
check(undone.type === "import.sie.undo" && undone.status === "succeeded" && undone.result?.reversed === 4,
  "its 4 verifikat are reversed", undone);
const after = await api.GET("/api/v1/companies/{companyId}/reports/income-statement", {
  params: { path: { companyId }, query: { period_id: secondPeriod.id } },
});
check(after.data?.data.totals.arets_resultat === 0, `${second} reads as before: no result`, after.data ?? after.error);

const again = await importYear(secondFile, `${second}.se`);
check(again.result.vouchers_posted === 3, "the same file goes in again", again.result);
const imports = await api.GET("/api/v1/companies/{companyId}/imports/sie", { params: { path: { companyId } } });
check((imports.data?.data ?? []).length === 3, "three imports listed: two years and the second again", imports.data);
console.log("ok the history flow");
