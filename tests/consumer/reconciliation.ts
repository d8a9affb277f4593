// "Reconciliation (avstämning)" as an integrator writes it with the
// generated types: the bank's camt.053 statement sent as a Blob and its
// import operation awaited, the run linking what it is sure of, a
// proposal linked by hand, the bank fee booked and linked, the account
// bridged to the öre and signed off; then Skatteverket's statement in.
// Figures by hand: the statement opens at 0 and closes at 1 080 (3 125 in,
// 2 000 and 45 out); the books have 3 125 − 2 000 and, once booked, − 45.
import { api, check, fail, fileNamed, key, made, settled } from "./client.js";

// January of this year, or of last year while this January is young, so
// every day of the flow has passed.
const now = new Date();
const early = now.getUTCMonth() === 0 && now.getUTCDate() < 20;
const year = now.getUTCFullYear() - (early ? 1 : 0);
const day = (d: number) => `${year}-01-${String(d).padStart(2, "0")}`;

const company = made((await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Avstämningen AB", entity_type: "aktiebolag", org_number: "556677-8899", vat_registered: true,
    moms_period: "quarterly", f_skatt: true,
    ...(early ? { books_from_import: true, first_fiscal_year: { start: day(1), end: `${year}-12-31` } } : {}) },
})).data?.data, "create a company");
const companyId = company.id;
const period = (await api.GET("/api/v1/companies/{companyId}/fiscal-periods", { params: { path: { companyId } } })).data?.data
  .fiscal_periods.find((p) => p.period_start === day(1));
if (!period) {
  fail(`the year ${year} is a fiscal period`);
}
const periodId = period.id;

const iban = "SE4550000000058398257466";
const cash = made((await api.POST("/api/v1/companies/{companyId}/cash-accounts", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { name: "Företagskonto", currency: "SEK", iban },
})).data?.data, "a cash account");
check(cash.ledger_account === "1930", "a cash account on 1930", cash);
const accountKey = `bank:${cash.cash_account_id}`;

// A verifikat as the books hold it: a draft, then its commit.
type Line = { account_number: string; debit_amount?: number; credit_amount?: number };
async function posted(date: string, description: string, lines: Line[]): Promise<string> {
  const draft = made((await api.POST("/api/v1/companies/{companyId}/journal-entries", {
    params: { path: { companyId }, header: { "Idempotency-Key": key() } },
    body: { fiscal_period_id: periodId, entry_date: date, description, lines },
  })).data?.data, `draft ${description}`);
  const done = made((await api.POST("/api/v1/companies/{companyId}/journal-entries/{journalEntryId}/commit", {
    params: { path: { companyId, journalEntryId: draft.id }, header: { "Idempotency-Key": key() } },
  })).data?.data, `commit ${description}`);
  return done.id;
}
const sale = await posted(day(2), "Kontantförsäljning", [{ account_number: "1930", debit_amount: 3125 },
  { account_number: "3001", credit_amount: 2500 }, { account_number: "2611", credit_amount: 625 }]);
const supplies = await posted(day(7), "Kontorsmaterial", [{ account_number: "5410", debit_amount: 1600 },
  { account_number: "2641", debit_amount: 400 }, { account_number: "1930", credit_amount: 2000 }]);

// The bank's statement of January, as its camt.053 file.
const entry = (ref: string, amount: string, side: string, date: string, text: string) =>
  `<Ntry><NtryRef>${ref}</NtryRef><Amt Ccy="SEK">${amount}</Amt><CdtDbtInd>${side}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
  `<BookgDt><Dt>${date}</Dt></BookgDt><AddtlNtryInf>${text}</AddtlNtryInf></Ntry>`;
const balance = (code: string, amount: string, date: string) =>
  `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="SEK">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>` +
  `<Dt><Dt>${date}</Dt></Dt></Bal>`;
const statement = new Blob([`<?xml version="1.0" encoding="UTF-8"?>` +
  `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Id>JAN</Id>` +
  `<Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>SEK</Ccy></Acct>` +
  balance("OPBD", "0.00", day(1)) + balance("CLBD", "1080.00", day(14)) +
  entry("E1", "3125.00", "CRDT", day(2), "KONTANT") + entry("E2", "2000.00", "DBIT", day(10), "KONTORSGROSSISTEN") +
  entry("E3", "45.00", "DBIT", day(12), "AVGIFT") +
  `</Stmt></BkToCstmrStmt></Document>`], { type: "application/xml" });
const sent = await api.POST("/api/v1/companies/{companyId}/imports/bank", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { file: statement },
  bodySerializer: fileNamed("kontoutdrag-januari.xml"),
});
const queued = made(sent.data?.data, "send the statement", sent.error);
if (sent.response.status !== 202 || !("operation_id" in queued)) {
  fail("send the statement: an operation", queued);
}
const imported = await settled(queued.operation_id);
if (imported.type !== "import.bank" || imported.status !== "succeeded" || imported.result === null) {
  fail("import the statement", imported);
}
check(imported.result.ingested === 3, "the statement's 3 rows are in", imported.result);

// The run links what it is sure of (the sale, same day and amount); the
// purchase, three days apart, waits as a proposal below the default 0.9.
const run = await api.POST("/api/v1/companies/{companyId}/reconciliation/bank/run", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { date_from: day(1), date_to: day(31) },
});
const ran = made(run.data?.data, "run the bank reconciliation", run.error);
check(ran.applied === 1 && ran.matches.length === 1 && ran.matches[0].journal_entry_id === sale &&
  ran.skipped_below_threshold === 1, "the run links the sale and leaves the purchase proposed", ran);

const proposed = await api.GET("/api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/items", {
  params: { path: { companyId, accountKey }, query: { bucket: "proposed" } },
});
const row = proposed.data?.data.items.find((i) => i.side === "external");
if (!row || row.proposal === null || row.proposal.journal_entry_ids[0] !== supplies) {
  fail("the purchase's row proposes its verifikat", proposed.data ?? proposed.error);
}
const linked = await api.POST("/api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links", {
  params: { path: { companyId, accountKey }, header: { "Idempotency-Key": key() } },
  body: { pairs: [{ external_ids: [row.item_id], journal_entry_ids: [supplies] }] },
});
check(made(linked.data?.data, "link the proposal", linked.error).applied.length === 1, "link the proposal by hand", linked.data);

// Before the fee is booked the bridge explains it: the statement's 1 080
// plus a row without a verifikat (45) is the books' 1 125.
const account = async () => {
  const read = await api.GET("/api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}", {
    params: { path: { companyId, accountKey } },
  });
  const data = read.data?.data;
  if (!data) {
    fail("read the account", read.error);
  }
  return data;
};
const open = await account();
check(open.external_balance === 1080 && open.ledger_balance === 1125 && open.unexplained_difference === 0 &&
  open.bridge.some((b) => b.key === "unmatched_external" && b.amount === 45 && b.count === 1),
  "bridged: 1 080 + 45 unbooked = 1 125, nothing unexplained", open);

await posted(day(12), "Bankavgift", [{ account_number: "6570", debit_amount: 45 }, { account_number: "1930", credit_amount: 45 }]);
const fee = await api.POST("/api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links", {
  params: { path: { companyId, accountKey }, header: { "Idempotency-Key": key() } },
  body: { use_proposals: true },
});
check(made(fee.data?.data, "link the fee", fee.error).applied.length === 1, "book the fee and link it", fee.data);
const whole = await account();
check(whole.external_balance === 1080 && whole.ledger_balance === 1080 && whole.unexplained_difference === 0 &&
  whole.is_reconciled, "reconciled: the bank and the books both at 1 080", whole);

const signed = await api.POST("/api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/signoff", {
  params: { path: { companyId, accountKey }, header: { "Idempotency-Key": key() } },
  body: { through_date: day(14), note: "Januari avstämd mot kontoutdraget" },
});
// The peer's shape: {dry_run, signoff, would_sign}, signoff set when it was made.
const signoff = signed.data?.data.signoff;
check(signed.response.status === 200 && signoff?.is_active === true && signoff.external_balance === 1080 &&
  signoff.difference === 0, "sign off January", signed.data ?? signed.error);

// Skatteverket's statement, as its e-tjänst exports it.
const skv = new Blob([["Datum;Text;Belopp;Saldo", `${day(1)};Ingående saldo;;0`,
  `${day(12)};Inbetalning bokförd;1000;1000`, `${day(12)};Debiterad preliminärskatt;-1000;0`].join("\n") + "\n"],
  { type: "text/csv" });
const tax = await api.POST("/api/v1/companies/{companyId}/skattekonto/imports", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { file: skv },
  bodySerializer: fileNamed("skattekonto.csv"),
});
const read = tax.data?.data;
check(tax.response.status === 200 && read?.added === 2 && read.saldo === 0 && read.opening?.saldo === 0,
  "the skattekonto statement's two rows are in, the saldo back at 0", tax.data ?? tax.error);
console.log("ok the reconciliation flow");
