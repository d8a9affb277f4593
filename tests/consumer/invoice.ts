// The whole invoice flow as an integrator writes it against the types
// openapi-typescript generates with its defaults: create (leaving out
// every field the server defaults), change, dry run, issue, e-mail, PDF,
// payment and credit. Nothing is cast: if the document makes a default
// required, a dry run indistinguishable or a field untyped, tsc says so.
import { api, check, key } from "./client.js";

const created = await api.POST("/api/v1/companies", {
  params: { header: { "Idempotency-Key": key() } },
  body: { name: "Fakturaflödet AB", entity_type: "aktiebolag", vat_registered: true, moms_period: "quarterly", f_skatt: true,
    org_number: "556677-8899", address_line1: "Storgatan 1", postal_code: "111 22", city: "Stockholm" },
});
const company = created.data?.data;
if (!company || company.dry_run) {
  throw new Error(`create a company: ${JSON.stringify(created.error)}`);
}
const companyId = company.id;
const day = new Date().toISOString().slice(0, 10);

const customer = await api.POST("/api/v1/companies/{companyId}/customers", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { name: "Byggbolaget i Norrland AB", customer_type: "swedish_business", org_number: "556334-3689",
    email: "ekonomi@byggbolaget.se", address_line1: "Norra vägen 3", postal_code: "901 10", city: "Umeå" },
});
const buyer = customer.data?.data;
check(customer.response.status === 201 && buyer !== undefined && !buyer.dry_run && buyer.customer_type === "swedish_business",
  "create a customer", customer.error);
if (!buyer || buyer.dry_run) process.exit(1);

// No line_type, document_type or currency: the server's defaults.
const draft = await api.POST("/api/v1/companies/{companyId}/invoices", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { customer_id: buyer.id, invoice_date: day,
    items: [{ description: "Snickeri, 10 timmar", quantity: 10, unit: "tim", unit_price: 650, vat_rate: 0.25 }] },
});
const invoice = draft.data?.data;
if (!invoice || invoice.dry_run) {
  check(false, "create an invoice", draft.error);
  process.exit(1);
}
check(draft.response.status === 201 && invoice.status === "draft" && invoice.document_type === "invoice" &&
  invoice.currency === "SEK" && invoice.total === 8125, "create an invoice: 6 500 + 25 % = 8 125", invoice);
const invoiceId = invoice.id;
const path = { companyId, invoiceId };

const changed = await api.PATCH("/api/v1/companies/{companyId}/invoices/{invoiceId}", {
  params: { path, header: { "Idempotency-Key": key() } },
  body: { your_reference: "Karin Ek", notes: "Tack för uppdraget!" },
});
const patched = changed.data?.data;
check(changed.response.status === 200 && patched !== undefined && !patched.dry_run && patched.your_reference === "Karin Ek",
  "change the draft", changed.error);

// A dry run of the issue: one check tells the preview from the answer.
const preview = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/mark-sent", {
  params: { path, query: { dry_run: "true" }, header: { "Idempotency-Key": key() } },
});
const would = preview.data?.data;
check(preview.response.status === 200 && would?.dry_run === true && would.preview.status === "sent" &&
  would.preview.journal_entry_id === null, "a dry run of the issue posts nothing", preview.data ?? preview.error);

// Sending issues the draft (its number and verifikat) and e-mails it.
const mailed = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/send", {
  params: { path, header: { "Idempotency-Key": key() } },
});
const email = mailed.data?.data;
if (!email || email.dry_run) {
  check(false, "e-mail it", mailed.error);
  process.exit(1);
}
check(email.status === "sent" && email.invoice_number !== null && email.journal_entry_id !== null &&
  email.email.status !== undefined, "e-mail it: issued, a number and a verifikat", email);

const pdf = await api.GET("/api/v1/companies/{companyId}/invoices/{invoiceId}/pdf", { params: { path }, parseAs: "arrayBuffer" });
const head = pdf.data ? new TextDecoder().decode(pdf.data.slice(0, 5)) : "";
check(pdf.response.status === 200 && head === "%PDF-", "its PDF", pdf.error);

const paid = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/mark-paid", {
  params: { path, header: { "Idempotency-Key": key() } },
  body: { amount: 8125, payment_date: day },
});
const payment = paid.data?.data;
check(paid.response.status === 200 && payment !== undefined && !payment.dry_run && payment.status === "paid" &&
  payment.remaining_amount === 0, "paid in full", paid.error);

// A second invoice, issued and credited whole.
const second = await api.POST("/api/v1/companies/{companyId}/invoices", {
  params: { path: { companyId }, header: { "Idempotency-Key": key() } },
  body: { customer_id: buyer.id, invoice_date: day, items: [{ description: "Material", quantity: 1, unit: "st", unit_price: 1000 }] },
});
const other = second.data?.data;
if (!other || other.dry_run) {
  check(false, "a second invoice", second.error);
  process.exit(1);
}
const marked = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/mark-sent", {
  params: { path: { companyId, invoiceId: other.id }, header: { "Idempotency-Key": key() } },
});
const issued = marked.data?.data;
check(marked.response.status === 200 && issued !== undefined && !issued.dry_run && issued.status === "sent",
  "issue the second without e-mail", marked.error);
const credit = await api.POST("/api/v1/companies/{companyId}/invoices/{invoiceId}/credit", {
  params: { path: { companyId, invoiceId: other.id }, header: { "Idempotency-Key": key() } },
  body: {},
});
const note = credit.data?.data;
check(credit.response.status === 200 && note !== undefined && !note.dry_run && note.credited_invoice_id === other.id,
  "credit the second whole", credit.error);

const list = await api.GET("/api/v1/companies/{companyId}/invoices", { params: { path: { companyId } } });
check(list.response.status === 200 && (list.data?.data.length ?? 0) === 3, "three invoices: two and a credit note", list.data);
console.log("ok the invoice flow");
