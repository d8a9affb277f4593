// The rest of the walk-through's money as an integrator writes it with
// the generated types and their defaults: a receipt uploaded as a Blob,
// a supplier invoice registered on it, approved and paid; a customer
// invoice paid by a bank row matched to it; and the quarter's VAT return
// read and fetched as a file (recorded as filed once the quarter has ended). Figures by hand: a sale
// of 10 000 + 2 500 VAT (ruta 05 and 10) and a purchase of 400 + 100 VAT
// (ruta 48) leave 2 400 to pay (ruta 49).
import { api, check, fileNamed, key } from "./client.js";

const today = new Date().toISOString().slice(0, 10);
const year = Number(today.slice(0, 4));
const quarter = Math.floor((Number(today.slice(5, 7)) - 1) / 3) + 1;

const created = await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Bokföringsflödet AB", entity_type: "aktiebolag", vat_registered: true, moms_period: "quarterly", f_skatt: true,
    org_number: "556677-8899", address_line1: "Storgatan 1", postal_code: "111 22", city: "Stockholm" },
});
const company = created.data?.data;
if (!company || company.dry_run) {
  throw new Error(`create a company: ${JSON.stringify(created.error)}`);
}
const companyId = company.id;

// The receipt, a file part typed as binary: a Blob goes in as it is.
const receipt = new Blob(["%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"], { type: "application/pdf" });
const uploaded = await api.POST("/api/v1/companies/{companyId}/documents", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { file: receipt },
  bodySerializer: fileNamed("kvitto.pdf"),
});
const document = uploaded.data?.data;
check(uploaded.response.status === 201 && document !== undefined && document.mime_type === "application/pdf",
  "upload the receipt", uploaded.error);
if (!document) process.exit(1);

const supplier = await api.POST("/api/v1/companies/{companyId}/suppliers", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { name: "Kontorsvaruhuset Sverige AB", supplier_type: "swedish_business", bankgiro: "5050-1055",
    default_expense_account: "5460" },
});
const seller = supplier.data?.data;
if (!seller || seller.dry_run) {
  check(false, "create a supplier", supplier.error);
  process.exit(1);
}
const registered = await api.POST("/api/v1/companies/{companyId}/supplier-invoices", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { supplier_id: seller.id, supplier_invoice_number: "F-1001", invoice_date: today, due_date: today,
    document_id: document.id, items: [{ description: "Kontorsmaterial", amount: 400, vat_rate: 0.25 }] },
});
const bill = registered.data?.data;
if (!bill || bill.dry_run) {
  check(false, "register the supplier invoice", registered.error);
  process.exit(1);
}
check(bill.total === 500, "register the supplier invoice: 400 + 25 % = 500", bill);
const billPath = { companyId, supplierInvoiceId: bill.id };
const approved = await api.POST("/api/v1/companies/{companyId}/supplier-invoices/{supplierInvoiceId}/approve", {
  params: { path: billPath, header: { "Idempotency-Key": key() } },
});
check(approved.response.status === 200, "approve it", approved.error);
const paidOut = await api.POST("/api/v1/companies/{companyId}/supplier-invoices/{supplierInvoiceId}/mark-paid", {
  params: { path: billPath, header: { "Idempotency-Key": key() } },
  body: { amount: 500, payment_date: today },
});
const outgoing = paidOut.data?.data;
check(paidOut.response.status === 200 && outgoing !== undefined && !outgoing.dry_run && outgoing.remaining_amount === 0,
  "pay it", paidOut.error);

// A sale, paid by a bank row matched to it.
const customer = await api.POST("/api/v1/companies/{companyId}/customers", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { name: "Byggbolaget i Norrland AB", customer_type: "swedish_business", org_number: "556334-3689",
    address_line1: "Norra vägen 3", postal_code: "901 10", city: "Umeå" },
});
const buyer = customer.data?.data;
if (!buyer || buyer.dry_run) process.exit(1);
const draft = await api.POST("/api/v1/companies/{companyId}/invoices", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { customer_id: buyer.id, invoice_date: today, items: [{ description: "Konsulttimmar", quantity: 10, unit: "tim",
    unit_price: 1000, vat_rate: 0.25 }] },
});
const invoice = draft.data?.data;
if (!invoice || invoice.dry_run) process.exit(1);
const issued = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/mark-sent", {
  params: { path: { companyId, invoiceId: invoice.id }, header: { "Idempotency-Key": key() } },
});
check(issued.response.status === 200, "issue the sale", issued.error);

const account = await api.POST("/api/v1/companies/{companyId}/cash-accounts", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { name: "Företagskonto", currency: "SEK" },
});
const cash = account.data?.data;
check(account.response.status === 201 && cash !== undefined && !cash.dry_run, "a cash account", account.error);
const rows = await api.POST("/api/v1/companies/{companyId}/transactions/ingest", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { transactions: [{ external_id: "R1", date: today, amount: 12500, currency: "SEK", description: "BG INBETALNING" }] },
});
const ingested = rows.data?.data;
if (!ingested || ingested.dry_run) {
  check(false, "a bank row", rows.error);
  process.exit(1);
}
const matched = await api.POST("/api/v1/companies/{companyId}/transactions/{transactionId}/match-invoice", {
  params: { path: { companyId, transactionId: ingested.transaction_ids[0] }, header: { "Idempotency-Key": key() } },
  body: { invoice_id: invoice.id },
});
const match = matched.data?.data;
check(matched.response.status === 200 && match !== undefined && !match.dry_run && match.invoice_status === "paid",
  "the bank row pays the invoice", matched.error);

// The quarter's VAT return.
const query = { period_type: "quarterly" as const, year, period: quarter };
const declaration = await api.GET("/api/v1/companies/{companyId}/reports/vat-declaration", {
  params: { path: { companyId }, query },
});
const rutor = declaration.data?.data.rutor;
check(declaration.response.status === 200 && rutor !== undefined && rutor.ruta05 === 10000 && rutor.ruta10 === 2500 &&
  rutor.ruta48 === 100 && rutor.ruta49 === 2400, "the VAT return: 05 10 000, 10 2 500, 48 100, 49 2 400", rutor);
const eskd = await api.GET("/api/v1/companies/{companyId}/reports/vat-declaration/eskd", {
  params: { path: { companyId }, query }, parseAs: "text",
});
check(eskd.response.status === 200 && (eskd.data ?? "").includes("2400"), "its eSKD file", eskd.error);
// Filed only once the quarter has ended: before, the refusal names why.
const filed = await api.POST("/api/v1/companies/{companyId}/reports/vat-declaration/filings", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { ...query, filed_on: today },
});
check(filed.response.status === 400 && filed.error?.error.code === "VAT_FILING_PERIOD_NOT_ENDED",
  "recording it as filed before the quarter ends is refused, with its code", filed.error);
console.log("ok the books flow");
