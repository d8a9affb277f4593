package tests

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/aggregator/fakebank"
	"github.com/kontera/kontera/internal/documents/samples"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/inbox"
)

// tenant is a company of its own user, with one of each resource a
// request may name by id.
type tenant struct {
	*env
	token   string
	company uuid.UUID
	id      map[string]string
}

func (n *tenant) path(p string) string { return fmt.Sprintf("/api/v1/companies/%s/%s", n.company, p) }

// write sends a JSON write with a fresh Idempotency-Key.
func (n *tenant) write(method, p string, body any) *response {
	n.t.Helper()
	return n.do(req{Method: method, Path: n.path(p), Token: n.token, Body: body,
		Header: map[string]string{"Idempotency-Key": newKey()}})
}

// send sends f as multipart/form-data to p.
func (n *tenant) send(p string, f form) *response {
	n.t.Helper()
	ct, raw := f.body()
	return n.do(req{Method: "POST", Path: n.path(p), Token: n.token, Body: raw,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": newKey()}})
}

// newTenant makes a VAT-registered aktiebolag for user email on e, with a
// cash account, a customer, a supplier, an employee and a salary run, a
// posted verifikat and a draft, documents, an inbox item, an invoice, a
// quote and a draft, a supplier invoice, a bank transaction, a
// skattekonto row and a webhook delivery.
func newTenant(t *testing.T, e *env, email, name, org string) *tenant {
	t.Helper()
	n := &tenant{env: e, token: e.key(email, keySpec{}), id: map[string]string{}}
	n.company = uuid.MustParse(e.post("/api/v1/companies", n.token, map[string]any{"name": name, "entity_type": "aktiebolag",
		"org_number": org, "vat_registered": true, "moms_period": "quarterly", "f_skatt": true}).status(t, 201).str("data.id"))
	id := n.id
	id["period"] = n.get(n.path("fiscal-periods"), n.token).status(t, 200).str("data.fiscal_periods.0.id")
	id["cash_account"] = n.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).
		status(t, 201).str("data.cash_account_id")
	id["customer"] = n.write("POST", "customers", map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).
		status(t, 201).str("data.id")
	id["supplier"] = n.write("POST", "suppliers", map[string]any{"name": "Kontorsgrossisten AB", "supplier_type": "swedish_business",
		"org_number": sellerOrg, "default_expense_account": "5410"}).status(t, 201).str("data.id")
	id["employee"] = n.write("POST", "employees", annaBody()).status(t, 201).str("data.id")
	id["expense_claim"] = n.write("POST", "expense-claims", map[string]any{"description": "Tågbiljett", "expense_date": "2026-05-04",
		"amount": 500, "expense_account": "5810", "employee_id": id["employee"]}).status(t, 201).str("data.expense_claim_id")
	id["salary_run"] = n.write("POST", "salary-runs", map[string]any{"period_year": 2026, "period_month": 5}).status(t, 201).str("data.id")
	sale := func(day string) map[string]any {
		return map[string]any{"fiscal_period_id": id["period"], "entry_date": day, "description": "Kontantförsäljning",
			"lines": []map[string]any{{"account_number": "1930", "debit_amount": 1250},
				{"account_number": "3001", "credit_amount": 1000}, {"account_number": "2611", "credit_amount": 250}}}
	}
	id["journal_entry"] = n.write("POST", "journal-entries", sale("2026-05-04")).status(t, 201).str("data.id")
	n.write("POST", "journal-entries/"+id["journal_entry"]+"/commit", nil).status(t, 200)
	id["journal_line"] = n.get(n.path("journal-entries/"+id["journal_entry"]), n.token).status(t, 200).str("data.lines.0.id")
	id["draft_entry"] = n.write("POST", "journal-entries", sale("2026-05-05")).status(t, 201).str("data.id")
	for i, key := range []string{"document", "spare_document", "third_document"} {
		s := samples.All()[i]
		id[key] = n.send("documents", form{name: s.Name, data: s.Data}).status(t, 201).str("data.id")
	}
	mail := rawMail(name+"@kontorsgrossisten.se", "Faktura", inbox.Attachment{Name: "faktura.pdf", Type: "application/pdf",
		Data: invoicePDF(t, "88123")})
	id["inbox_item"] = n.do(req{Method: "POST", Path: "/api/v1/inbound/email?company_id=" + n.company.String(), Body: mail,
		Header: map[string]string{"Content-Type": "message/rfc822",
			"X-Kontera-Signature": inbox.Sign([]byte(inboundSecret), n.company.String(), mail, payrollNow())}}).
		status(t, 200).str("data.inbox_item_ids.0")
	invoice := func(extra map[string]any) map[string]any {
		b := map[string]any{"customer_id": id["customer"], "invoice_date": "2026-05-06", "due_date": "2026-06-05",
			"items": []map[string]any{{"description": "Konsulttimmar", "quantity": 2, "unit": "tim", "unit_price": 500, "vat_rate": 0.25}}}
		maps.Copy(b, extra)
		return b
	}
	id["article"] = n.write("POST", "articles", map[string]any{"article_number": "KONS-1", "name": "Konsulttimme",
		"unit": "tim", "unit_price": 500}).status(t, 201).str("data.id")
	id["invoice"] = n.write("POST", "invoices", invoice(nil)).status(t, 201).str("data.id")
	n.write("POST", "invoices/"+id["invoice"]+"/mark-sent", nil).status(t, 200)
	id["invoice_item"] = n.get(n.path("invoices/"+id["invoice"]+"?expand=items"), n.token).status(t, 200).str("data.items.0.id")
	// An invoice paid 50 kr over: the customer's credit.
	over := n.write("POST", "invoices", invoice(nil)).status(t, 201).str("data.id")
	n.write("POST", "invoices/"+over+"/mark-sent", nil).status(t, 200)
	id["customer_credit"] = n.write("POST", "invoices/"+over+"/mark-paid", map[string]any{"amount": 1300,
		"payment_date": "2026-05-10"}).status(t, 200).str("data.customer_credit.id")
	id["draft_invoice"] = n.write("POST", "invoices", invoice(nil)).status(t, 201).str("data.id")
	id["quote"] = n.write("POST", "invoices", invoice(map[string]any{"document_type": "quote", "valid_until": "2026-06-30"})).
		status(t, 201).str("data.id")
	id["supplier_invoice"] = n.write("POST", "supplier-invoices", map[string]any{"supplier_id": id["supplier"],
		"supplier_invoice_number": "F-1", "invoice_date": "2026-05-05", "due_date": "2026-06-04",
		"items": []map[string]any{{"description": "Kontorsmaterial", "amount": 1000, "account_number": "5410", "vat_rate": 0.25}}}).
		status(t, 201).str("data.id")
	id["supplier_invoice_item"] = n.get(n.path("supplier-invoices/"+id["supplier_invoice"]+"?expand=items"), n.token).
		status(t, 200).str("data.items.0.id")
	txs := n.write("POST", "transactions/ingest", map[string]any{"transactions": []map[string]any{
		{"date": "2026-05-07", "description": "KONTORSGROSSISTEN", "amount": -1250, "currency": "SEK", "external_id": "E1"},
		{"date": "2026-05-08", "description": "BG INBETALNING", "amount": 1250, "currency": "SEK", "external_id": "E2"}}}).
		status(t, 200).list("data.transaction_ids")
	id["transaction"], id["spare_transaction"] = txs[0].(string), txs[1].(string)
	id["skattekonto_row"] = n.write("POST", "skattekonto/transactions", map[string]any{"date": "2026-05-12",
		"description": "Kostnadsränta", "amount": -3}).status(t, 201).str("data.id")
	id["webhook"] = n.write("POST", "webhooks", map[string]any{"event_type": "invoice.paid", "webhook_url": "https://8.8.8.8/x",
		"name": "Betalningar"}).status(t, 201).str("data.id")
	id["delivery"] = n.write("POST", "webhooks/"+id["webhook"]+"/test", nil).status(t, 202).str("data.webhook_delivery_id")
	id["event"] = n.get(n.path("events?types=customer.created"), n.token).status(t, 200).str("data.events.0.id")
	return n
}

// foreignCase is a request of ours that names a resource by id in field:
// send makes it with id there.
type foreignCase struct {
	field string // as the document lists it: "POST /api/v1/…/path body.field" or "GET … ?param"
	kind  string // what the field names: a key of tenant.id
	send  func(id string) *response
}

// Every request field that names another resource by id, fed the id of
// another tenant's resource of that kind, is answered exactly as an id
// that names nothing: the same status and code, 404 or a 4xx naming the
// field or the id, never a 5xx; a list filtered by it is as empty as for
// an unknown id; and nothing of either company changes. Every such field
// of the document has a case here, or a reason why it names nothing of a
// company's.
func TestForeignIDsAreNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, clock(payrollNow), func(c *httpapi.Config) { c.InboundSecret = []byte(inboundSecret) })
	us := newTenant(t, e, "oss@example.se", "Vårt AB", "556677-8899")
	them := newTenant(t, e, "dem@example.se", "Deras AB", "556334-3689")
	ours := us.id
	entry := func(over map[string]any) map[string]any {
		b := map[string]any{"fiscal_period_id": ours["period"], "entry_date": "2026-05-14", "description": "Inbetalning",
			"lines": []map[string]any{{"account_number": "1930", "debit_amount": 100}, {"account_number": "1510", "credit_amount": 100}}}
		maps.Copy(b, over)
		return b
	}
	invoice := func(over map[string]any) map[string]any {
		b := map[string]any{"customer_id": ours["customer"], "invoice_date": "2026-05-14",
			"items": []map[string]any{{"description": "Timmar", "quantity": 1, "unit": "tim", "unit_price": 100, "vat_rate": 0.25}}}
		maps.Copy(b, over)
		return b
	}
	outlay := func(over map[string]any) map[string]any {
		b := map[string]any{"description": "Parkering", "expense_date": "2026-05-14", "amount": 80, "expense_account": "5611",
			"claimant_name": "Lisa Berg"}
		maps.Copy(b, over)
		return b
	}
	supplierInvoice := func(over map[string]any) map[string]any {
		b := map[string]any{"supplier_id": ours["supplier"], "supplier_invoice_number": "F-" + newKey()[:8],
			"invoice_date": "2026-05-14", "due_date": "2026-06-13",
			"items": []map[string]any{{"description": "Papper", "amount": 100, "account_number": "5410", "vat_rate": 0.25}}}
		maps.Copy(b, over)
		return b
	}
	private := func(over map[string]any) map[string]any {
		b := map[string]any{"paid_with_private_funds": true, "employee_id": ours["employee"]}
		maps.Copy(b, over)
		return supplierInvoice(b)
	}
	one := func(id string) []string { return []string{id} }
	const si, tx, inb, doc = "/api/v1/companies/{companyId}/supplier-invoices", "/api/v1/companies/{companyId}/transactions/{transactionId}",
		"/api/v1/companies/{companyId}/inbox-items/{inboxItemId}", "/api/v1/companies/{companyId}/documents"
	const je = "/api/v1/companies/{companyId}/journal-entries"
	cases := []foreignCase{
		// Customers.
		// Payment files.
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches body.supplier_invoice_ids", "supplier_invoice", func(id string) *response {
			return us.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": []any{id},
				"payment_date": "2026-05-20", "cash_account_id": ours["cash_account"]})
		}},
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches/preview body.supplier_invoice_ids", "supplier_invoice", func(id string) *response {
			return us.write("POST", "supplier-payment-batches/preview", map[string]any{"supplier_invoice_ids": []any{id},
				"payment_date": "2026-05-20", "cash_account_id": ours["cash_account"]})
		}},
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches body.expense_claim_ids", "expense_claim", func(id string) *response {
			return us.write("POST", "supplier-payment-batches", map[string]any{"expense_claim_ids": []any{id},
				"payment_date": "2026-05-20", "cash_account_id": ours["cash_account"]})
		}},
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches/preview body.expense_claim_ids", "expense_claim", func(id string) *response {
			return us.write("POST", "supplier-payment-batches/preview", map[string]any{"expense_claim_ids": []any{id},
				"payment_date": "2026-05-20", "cash_account_id": ours["cash_account"]})
		}},
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches body.cash_account_id", "cash_account", func(id string) *response {
			return us.write("POST", "supplier-payment-batches", map[string]any{"supplier_invoice_ids": []any{ours["supplier_invoice"]},
				"payment_date": "2026-05-20", "cash_account_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/supplier-payment-batches/preview body.cash_account_id", "cash_account", func(id string) *response {
			return us.write("POST", "supplier-payment-batches/preview", map[string]any{"supplier_invoice_ids": []any{ours["supplier_invoice"]},
				"payment_date": "2026-05-20", "cash_account_id": id})
		}},
		// Fixed assets.
		{"POST /api/v1/companies/{companyId}/assets body.journal_entry_id", "journal_entry", func(id string) *response {
			return us.write("POST", "assets", map[string]any{"name": "Dator", "asset_class": "datorer", "acquisition_date": "2026-05-04",
				"acquisition_value": 24000, "useful_life_months": 36, "journal_entry_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/assets body.supplier_invoice_id", "supplier_invoice", func(id string) *response {
			return us.write("POST", "assets", map[string]any{"name": "Dator", "asset_class": "datorer", "acquisition_date": "2026-05-04",
				"acquisition_value": 24000, "useful_life_months": 36, "supplier_invoice_id": id})
		}},
		// Expense claims.
		{"POST /api/v1/companies/{companyId}/expense-claims body.employee_id", "employee", func(id string) *response {
			return us.write("POST", "expense-claims", outlay(map[string]any{"employee_id": id}))
		}},
		{"POST /api/v1/companies/{companyId}/expense-claims body.document_id", "document", func(id string) *response {
			return us.write("POST", "expense-claims", outlay(map[string]any{"document_id": id}))
		}},
		{"POST /api/v1/companies/{companyId}/expense-claims body.inbox_item_id", "inbox_item", func(id string) *response {
			return us.write("POST", "expense-claims", outlay(map[string]any{"inbox_item_id": id}))
		}},
		{"POST /api/v1/companies/{companyId}/expense-claims/payouts body.claim_ids", "expense_claim", func(id string) *response {
			return us.write("POST", "expense-claims/payouts", map[string]any{"claim_ids": []any{id}, "payout_date": "2026-05-14",
				"cash_account": "1930"})
		}},
		// Articles.
		{"POST /api/v1/companies/{companyId}/invoices body.items[].article_id", "article", func(id string) *response {
			return us.write("POST", "invoices", invoice(map[string]any{"items": []any{map[string]any{"article_id": id, "quantity": 1}}}))
		}},
		{"PATCH /api/v1/companies/{companyId}/invoices/{invoiceId} body.items[].article_id", "article", func(id string) *response {
			return us.write("PATCH", "invoices/"+ours["draft_invoice"], map[string]any{"items": []any{map[string]any{"article_id": id, "quantity": 1}}})
		}},
		{"POST /api/v1/companies/{companyId}/invoices/bulk-create body.invoices[].items[].article_id", "article", func(id string) *response {
			return us.write("POST", "invoices/bulk-create", map[string]any{"invoices": []any{invoice(map[string]any{
				"items": []any{map[string]any{"article_id": id, "quantity": 1}}})}})
		}},
		{"POST /api/v1/companies/{companyId}/invoices body.customer_id", "customer", func(id string) *response {
			return us.write("POST", "invoices", invoice(map[string]any{"customer_id": id}))
		}},
		{"PATCH /api/v1/companies/{companyId}/invoices/{invoiceId} body.customer_id", "customer", func(id string) *response {
			return us.write("PATCH", "invoices/"+ours["draft_invoice"], map[string]any{"customer_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/invoices/bulk-create body.invoices[].customer_id", "customer", func(id string) *response {
			return us.write("POST", "invoices/bulk-create", map[string]any{"invoices": []any{invoice(map[string]any{"customer_id": id})}})
		}},
		{"POST " + je + " body.counterparty.customer_id", "customer", func(id string) *response {
			return us.write("POST", "journal-entries", entry(map[string]any{"counterparty": map[string]any{"customer_id": id}}))
		}},
		{"PATCH " + je + "/{journalEntryId} body.counterparty.customer_id", "customer", func(id string) *response {
			return us.write("PATCH", "journal-entries/"+ours["draft_entry"], entry(map[string]any{"counterparty": map[string]any{"customer_id": id}}))
		}},
		{"POST " + je + "/batch-create body.journal_entries[].counterparty.customer_id", "customer", func(id string) *response {
			return us.write("POST", "journal-entries/batch-create", map[string]any{"journal_entries": []any{
				entry(map[string]any{"counterparty": map[string]any{"customer_id": id}})}})
		}},
		{"POST /api/v1/companies/{companyId}/invoices/{invoiceId}/credit body.lines[].item_id", "invoice_item",
			func(id string) *response {
				return us.write("POST", "invoices/"+ours["invoice"]+"/credit", map[string]any{"lines": []any{
					map[string]any{"item_id": id}}})
			}},
		// Suppliers.
		{"POST " + si + "/{supplierInvoiceId}/credit body.lines[].item_id", "supplier_invoice_item", func(id string) *response {
			return us.write("POST", "supplier-invoices/"+ours["supplier_invoice"]+"/credit", map[string]any{"lines": []any{
				map[string]any{"item_id": id}}})
		}},
		{"POST " + si + " body.supplier_id", "supplier", func(id string) *response {
			return us.write("POST", "supplier-invoices", supplierInvoice(map[string]any{"supplier_id": id}))
		}},
		{"POST " + je + " body.counterparty.supplier_id", "supplier", func(id string) *response {
			return us.write("POST", "journal-entries", entry(map[string]any{"counterparty": map[string]any{"supplier_id": id}}))
		}},
		{"PATCH " + je + "/{journalEntryId} body.counterparty.supplier_id", "supplier", func(id string) *response {
			return us.write("PATCH", "journal-entries/"+ours["draft_entry"], entry(map[string]any{"counterparty": map[string]any{"supplier_id": id}}))
		}},
		{"POST " + je + "/batch-create body.journal_entries[].counterparty.supplier_id", "supplier", func(id string) *response {
			return us.write("POST", "journal-entries/batch-create", map[string]any{"journal_entries": []any{
				entry(map[string]any{"counterparty": map[string]any{"supplier_id": id}})}})
		}},
		{"POST " + inb + "/convert body.supplier_id", "supplier", func(id string) *response {
			return us.write("POST", "inbox-items/"+ours["inbox_item"]+"/convert", map[string]any{"supplier_id": id,
				"supplier_invoice_number": "88123", "invoice_date": "2026-05-02", "due_date": "2026-06-01",
				"items": []map[string]any{{"description": "Papper", "amount": 10000, "account_number": "5410", "vat_rate": 0.25}}})
		}},
		{"POST " + inb + "/match-supplier body.supplier_id", "supplier", func(id string) *response {
			return us.write("POST", "inbox-items/"+ours["inbox_item"]+"/match-supplier", map[string]any{"supplier_id": id})
		}},
		// Employees.
		{"POST " + si + " body.employee_id", "employee", func(id string) *response {
			return us.write("POST", "supplier-invoices", private(map[string]any{"employee_id": id}))
		}},
		{"POST /api/v1/companies/{companyId}/salary-runs/{runId}/employees body.employee_id", "employee", func(id string) *response {
			return us.write("POST", "salary-runs/"+ours["salary_run"]+"/employees", map[string]any{"employee_id": id})
		}},
		// Documents and inbox items.
		{"POST " + si + " body.document_id", "document", func(id string) *response {
			return us.write("POST", "supplier-invoices", supplierInvoice(map[string]any{"document_id": id}))
		}},
		{"POST " + si + " body.inbox_item_id", "inbox_item", func(id string) *response {
			return us.write("POST", "supplier-invoices", private(map[string]any{"inbox_item_id": id}))
		}},
		{"POST " + si + "/{supplierInvoiceId}/credit body.document_id", "document", func(id string) *response {
			return us.write("POST", "supplier-invoices/"+ours["supplier_invoice"]+"/credit", map[string]any{
				"supplier_credit_note_number": "K-1", "credit_date": "2026-05-15", "document_id": id})
		}},
		{"POST " + si + "/{supplierInvoiceId}/credit body.inbox_item_id", "inbox_item", func(id string) *response {
			return us.write("POST", "supplier-invoices/"+ours["supplier_invoice"]+"/credit", map[string]any{
				"supplier_credit_note_number": "K-2", "credit_date": "2026-05-15", "inbox_item_id": id})
		}},
		{"POST " + tx + "/attach-document body.document_id", "document", func(id string) *response {
			return us.write("POST", "transactions/"+ours["transaction"]+"/attach-document", map[string]any{"document_id": id})
		}},
		{"POST " + doc + " body.supersedes_id", "document", func(id string) *response {
			return us.send("documents", form{name: "ny.pdf", data: samples.All()[3].Data, fields: map[string]string{"supersedes_id": id}})
		}},
		{"POST " + doc + "/{documentId}/link body.inbox_item_id", "inbox_item", func(id string) *response {
			return us.write("POST", "documents/"+ours["spare_document"]+"/link", map[string]any{
				"journal_entry_id": ours["journal_entry"], "inbox_item_id": id})
		}},
		// Verifikat and their lines.
		{"POST " + doc + " body.journal_entry_id", "journal_entry", func(id string) *response {
			return us.send("documents", form{name: "ny.pdf", data: samples.All()[3].Data, fields: map[string]string{"journal_entry_id": id}})
		}},
		{"POST " + doc + " body.journal_entry_line_id", "journal_line", func(id string) *response {
			return us.send("documents", form{name: "ny.pdf", data: samples.All()[3].Data, fields: map[string]string{
				"journal_entry_id": ours["journal_entry"], "journal_entry_line_id": id}})
		}},
		{"POST " + doc + "/{documentId}/link body.journal_entry_id", "journal_entry", func(id string) *response {
			return us.write("POST", "documents/"+ours["spare_document"]+"/link", map[string]any{"journal_entry_id": id})
		}},
		{"POST " + doc + "/{documentId}/link body.journal_entry_line_id", "journal_line", func(id string) *response {
			return us.write("POST", "documents/"+ours["spare_document"]+"/link", map[string]any{
				"journal_entry_id": ours["journal_entry"], "journal_entry_line_id": id})
		}},
		{"POST " + inb + "/stamp body.journal_entry_id", "journal_entry", func(id string) *response {
			return us.write("POST", "inbox-items/"+ours["inbox_item"]+"/stamp", map[string]any{"journal_entry_id": id})
		}},
		{"POST " + je + "/no-document-required body.journal_entry_ids", "journal_entry", func(id string) *response {
			return us.write("POST", "journal-entries/no-document-required", map[string]any{"journal_entry_ids": one(id),
				"reason": "Bankavgift enligt kontoutdrag."})
		}},
		{"POST " + je + "/{journalEntryId}/strike-lines body.strike_line_ids", "journal_line", func(id string) *response {
			return us.write("POST", "journal-entries/"+ours["journal_entry"]+"/strike-lines", map[string]any{
				"strike_line_ids": one(id), "lines": []map[string]any{{"account_number": "1910", "debit_amount": 1250}}})
		}},
		{"POST /api/v1/companies/{companyId}/transactions/bulk-book body.existing_journal_entry_id", "journal_entry",
			func(id string) *response {
				return us.write("POST", "transactions/bulk-book", map[string]any{"tx_ids": one(ours["transaction"]),
					"existing_journal_entry_id": id, "entry_description": "Kontorsmaterial", "mode": "sum_per_account"})
			}},
		{"POST " + tx + "/link-journal-entry body.journal_entry_id", "journal_entry", func(id string) *response {
			return us.write("POST", "transactions/"+ours["transaction"]+"/link-journal-entry", map[string]any{"journal_entry_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links body.pairs[].journal_entry_ids",
			"journal_entry", func(id string) *response {
				return us.write("POST", "reconciliation/accounts/skattekonto/links", map[string]any{"pairs": []any{
					map[string]any{"external_ids": one(ours["skattekonto_row"]), "journal_entry_ids": one(id)}}})
			}},
		{"POST /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links body.pairs[].allocations[].journal_entry_id",
			"journal_entry", func(id string) *response {
				return us.write("POST", "reconciliation/accounts/skattekonto/links", map[string]any{"pairs": []any{
					map[string]any{"external_ids": one(ours["skattekonto_row"]), "journal_entry_ids": one(ours["journal_entry"]),
						"allocations": []any{map[string]any{"external_id": ours["skattekonto_row"], "journal_entry_id": id, "amount": -3}}}}})
			}},
		// Outside rows: skattekonto rows and bank transactions.
		{"POST /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links body.pairs[].external_ids",
			"skattekonto_row", func(id string) *response {
				return us.write("POST", "reconciliation/accounts/skattekonto/links", map[string]any{"pairs": []any{
					map[string]any{"external_ids": one(id), "journal_entry_ids": one(ours["journal_entry"])}}})
			}},
		{"POST /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/links body.pairs[].allocations[].external_id",
			"skattekonto_row", func(id string) *response {
				return us.write("POST", "reconciliation/accounts/skattekonto/links", map[string]any{"pairs": []any{
					map[string]any{"external_ids": one(ours["skattekonto_row"]), "journal_entry_ids": one(ours["journal_entry"]),
						"allocations": []any{map[string]any{"external_id": id, "journal_entry_id": ours["journal_entry"], "amount": -3}}}}})
			}},
		{"POST " + inb + "/match-transaction body.transaction_id", "transaction", func(id string) *response {
			return us.write("POST", "inbox-items/"+ours["inbox_item"]+"/match-transaction", map[string]any{"transaction_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/transactions/batch-categorize body.items[].transaction_id", "transaction",
			func(id string) *response {
				return us.write("POST", "transactions/batch-categorize", map[string]any{"items": []any{map[string]any{
					"transaction_id": id, "categorization": map[string]any{"is_business": true, "category": "expense_office"}}}})
			}},
		{"POST /api/v1/companies/{companyId}/transactions/bulk-book body.tx_ids", "transaction", func(id string) *response {
			return us.write("POST", "transactions/bulk-book", map[string]any{"tx_ids": one(id), "template_id": "expense_office",
				"entry_description": "Kontorsmaterial", "mode": "sum_per_account"})
		}},
		// Invoices, quotes and supplier invoices.
		{"POST /api/v1/companies/{companyId}/invoices body.source_quote_id", "quote", func(id string) *response {
			return us.write("POST", "invoices", invoice(map[string]any{"source_quote_id": id}))
		}},
		{"POST /api/v1/companies/{companyId}/invoices/bulk-create body.invoices[].source_quote_id", "quote", func(id string) *response {
			return us.write("POST", "invoices/bulk-create", map[string]any{"invoices": []any{invoice(map[string]any{"source_quote_id": id})}})
		}},
		{"POST /api/v1/companies/{companyId}/invoices/bulk-book body.invoice_ids", "draft_invoice", func(id string) *response {
			return us.write("POST", "invoices/bulk-book", map[string]any{"invoice_ids": one(id)})
		}},
		{"POST " + tx + "/match-invoice body.invoice_id", "invoice", func(id string) *response {
			return us.write("POST", "transactions/"+ours["spare_transaction"]+"/match-invoice", map[string]any{"invoice_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/customers/{customerId}/credits/{creditId}/apply body.invoice_id", "invoice",
			func(id string) *response {
				return us.write("POST", "customers/"+ours["customer"]+"/credits/"+ours["customer_credit"]+"/apply",
					map[string]any{"invoice_id": id})
			}},
		{"POST " + tx + "/match-batch body.allocations[].invoice_id", "invoice", func(id string) *response {
			return us.write("POST", "transactions/"+ours["spare_transaction"]+"/match-batch", map[string]any{"allocations": []any{
				map[string]any{"kind": "customer_invoice", "invoice_id": id, "amount": 1250}}})
		}},
		{"POST " + tx + "/match-supplier-invoice body.supplier_invoice_id", "supplier_invoice", func(id string) *response {
			return us.write("POST", "transactions/"+ours["transaction"]+"/match-supplier-invoice", map[string]any{"supplier_invoice_id": id})
		}},
		{"POST " + tx + "/match-batch body.allocations[].supplier_invoice_id", "supplier_invoice", func(id string) *response {
			return us.write("POST", "transactions/"+ours["transaction"]+"/match-batch", map[string]any{"allocations": []any{
				map[string]any{"kind": "supplier_invoice", "supplier_invoice_id": id, "amount": 1250}}})
		}},
		// Cash accounts.
		{"PUT /api/v1/companies/{companyId}/cash-accounts/payee-defaults body.cash_account_id", "cash_account", func(id string) *response {
			return us.write("PUT", "cash-accounts/payee-defaults", map[string]any{"currency": "SEK", "cash_account_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/imports/bank ?cash_account_id", "cash_account", func(id string) *response {
			return us.send("imports/bank?cash_account_id="+id, form{name: "utdrag.csv", data: []byte("Datum;Text;Belopp\n2026-05-09;Avgift;-45,00\n")})
		}},
		// Fiscal periods.
		{"POST " + je + " body.fiscal_period_id", "period", func(id string) *response {
			return us.write("POST", "journal-entries", entry(map[string]any{"fiscal_period_id": id}))
		}},
		{"PATCH " + je + "/{journalEntryId} body.fiscal_period_id", "period", func(id string) *response {
			return us.write("PATCH", "journal-entries/"+ours["draft_entry"], entry(map[string]any{"fiscal_period_id": id}))
		}},
		{"POST " + je + "/batch-create body.journal_entries[].fiscal_period_id", "period", func(id string) *response {
			return us.write("POST", "journal-entries/batch-create", map[string]any{"journal_entries": []any{
				entry(map[string]any{"fiscal_period_id": id})}})
		}},
		{"POST /api/v1/companies/{companyId}/voucher-gap-explanations body.fiscal_period_id", "period", func(id string) *response {
			return us.write("POST", "voucher-gap-explanations", map[string]any{"fiscal_period_id": id, "voucher_series": "A",
				"gap_start": 1, "gap_end": 1, "explanation": "Makulerad"})
		}},
		{"POST /api/v1/companies/{companyId}/reports/vat-declaration/filings body.fiscal_period_id", "period", func(id string) *response {
			return us.write("POST", "reports/vat-declaration/filings", map[string]any{"period_type": "quarterly", "year": 2026,
				"period": 1, "filed_on": "2026-05-08", "fiscal_period_id": id})
		}},
		{"POST /api/v1/companies/{companyId}/vat/settlement body.fiscal_period_id", "period", func(id string) *response {
			return us.write("POST", "vat/settlement", map[string]any{"period_type": "quarterly", "year": 2026, "period": 1,
				"fiscal_period_id": id, "expected_fingerprint": strings.Repeat("0", 64)})
		}},
		// Reconciliation accounts name a cash account in the path.
		{"GET /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey} (bank:<cash account>)", "cash_account",
			func(id string) *response { return us.get(us.path("reconciliation/accounts/bank:"+id), us.token) }},
	}
	// The NE-bilaga is an enskild firma's: asked of one of ours.
	sole := us.post("/api/v1/companies", us.token, map[string]any{"name": "Eget", "entity_type": "enskild_firma",
		"vat_registered": false, "f_skatt": true}).status(t, 201).str("data.id")
	cases = append(cases, listFilters(us, sole)...)

	// Every field the document names a resource by has its case, or a
	// reason it names nothing of a company's.
	exempt := map[string]string{
		"PATCH /api/v1/companies/{companyId}/customers/{customerId} body.peppol_id":                                          "a Peppol participant id",
		"POST /api/v1/companies/{companyId}/customers body.peppol_id":                                                        "a Peppol participant id",
		"POST /api/v1/companies/{companyId}/customers/bulk-create body.customers[].peppol_id":                                "a Peppol participant id",
		"POST /api/v1/companies body.team_id":                                                                                "no teams exist: every id is refused (400 exists)",
		"POST " + je + " body.source_id":                                                                                     "the writer's own reference, free text",
		"POST " + je + "/batch-create body.journal_entries[].source_id":                                                      "the writer's own reference, free text",
		"POST /api/v1/companies/{companyId}/transactions/ingest body.transactions[].external_id":                             "the bank's own id of the row",
		"POST /api/v1/companies/{companyId}/transactions/batch-categorize body.items[].categorization.template_id":           "a template of the shared catalogue",
		"POST /api/v1/companies/{companyId}/transactions/bulk-book body.template_id":                                         "a template of the shared catalogue",
		"POST " + tx + "/categorize body.template_id":                                                                        "a template of the shared catalogue",
		"GET /api/v1/document-files/{documentId} ?company_id":                                                                "inside the signed URL: any change is 404 (TestDocumentFileBySignedURL)",
		"POST /api/v1/inbound/email ?company_id":                                                                             "covered by the provider's signature",
		"GET /api/v1/api-keys ?company_id":                                                                                   "a filter of the caller's own keys: another company lists none (TestAPIKeyListAndRevokeAcrossReplicas)",
		"POST /api/v1/companies/{companyId}/bank-connections/{connectionId}/select-accounts body.accounts[].cash_account_id": "TestForeignCashAccountOfABankConnection",
	}
	have := map[string]bool{}
	for _, c := range cases {
		have[c.field] = true
	}
	var missing []string
	for _, f := range idFields(us.doc) {
		if !have[f] && exempt[f] == "" {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		t.Errorf("fields naming a resource by id with no case and no reason:\n%s", strings.Join(missing, "\n"))
	}

	before := rowCounts(t, us.env, us.company, them.company)
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			foreign, nowhere := them.id[c.kind], uuid.NewString()
			f, r := c.send(foreign), c.send(nowhere)
			if f.Status >= 500 || r.Status >= 500 {
				t.Fatalf("a 5xx: %d %s / %d %s", f.Status, clip(f.Body), r.Status, clip(r.Body))
			}
			if f.Status != r.Status || f.str("error.code") != r.str("error.code") {
				t.Fatalf("another company's %s is answered %d %s, an unknown id %d %s:\n%s\n%s", c.kind, f.Status,
					f.str("error.code"), r.Status, r.str("error.code"), clip(f.Body), clip(r.Body))
			}
			switch {
			case f.Status < 300:
				// The same answer but for the id it names: a list as empty,
				// a batch's item refused alike.
				if fd, rd := data(f, foreign), data(r, nowhere); fd != rd {
					t.Fatalf("answered for another company's %s:\n%s\nfor an unknown id:\n%s", c.kind, clip(f.Body), clip(r.Body))
				}
			case !names(f, c.field, foreign):
				t.Fatalf("a refusal that names neither the field nor the id: %s", clip(f.Body))
			}
		})
	}
	if after := rowCounts(t, us.env, us.company, them.company); !reflect.DeepEqual(before, after) {
		t.Fatalf("the refusals changed the books: %v, then %v", before, after)
	}
}

// listFilters are the cases of the document's GET query parameters that
// name a resource: each report or list of ours asked for with it.
func listFilters(us *tenant, sole string) []foreignCase {
	kinds := map[string]string{"period_id": "period", "fiscal_period_id": "period", "customer_id": "customer",
		"employee_id": "employee",
		"supplier_id": "supplier", "cash_account_id": "cash_account", "journal_entry_id": "journal_entry",
		"record_id": "customer", "delivery_id": "delivery"}
	// What some reports need besides the id to answer at all.
	extra := map[string]string{
		"/compliance/check":                            "&type=year_end_readiness",
		"/reports/vat-declaration":                     "&period_type=quarterly&year=2026&period=2",
		"/reports/vat-declaration/eskd":                "&period_type=quarterly&year=2026&period=2",
		"/reports/vat-declaration/settlement-proposal": "&period_type=quarterly&year=2026&period=2",
	}
	var out []foreignCase
	for _, p := range slices.Sorted(maps.Keys(us.doc.Paths.Map())) {
		item := us.doc.Paths.Value(p)
		if item.Get == nil || !strings.HasPrefix(p, "/api/v1/companies/{companyId}/") {
			continue
		}
		for _, ref := range item.Get.Parameters {
			prm := ref.Value
			kind := kinds[prm.Name]
			if prm.In != "query" || kind == "" {
				continue
			}
			path := strings.TrimPrefix(p, "/api/v1/companies/{companyId}/")
			path = strings.ReplaceAll(path, "{webhookId}", us.id["webhook"])
			name, more := prm.Name, extra[strings.TrimPrefix(p, "/api/v1/companies/{companyId}")]
			at := us.path(path)
			if strings.Contains(p, "/ne-bilaga") {
				at = "/api/v1/companies/" + sole + "/" + path
			}
			out = append(out, foreignCase{field: "GET " + p + " ?" + name, kind: kind, send: func(id string) *response {
				return us.get(at+"?"+name+"="+url.QueryEscape(id)+more, us.token)
			}})
		}
	}
	return out
}

// idFields lists, as foreignCase.field does, every request field and
// query parameter of the document whose name says it holds an id.
func idFields(doc interface{ MarshalJSON() ([]byte, error) }) []string {
	raw, _ := doc.MarshalJSON()
	var d map[string]any
	_ = json.Unmarshal(raw, &d)
	resolve := func(s any) map[string]any {
		m, _ := s.(map[string]any)
		for m != nil && m["$ref"] != nil {
			var at any = d
			for _, part := range strings.Split(strings.TrimPrefix(m["$ref"].(string), "#/"), "/") {
				at = at.(map[string]any)[part]
			}
			m, _ = at.(map[string]any)
		}
		return m
	}
	isID := func(name string) bool { return strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_ids") }
	seen := map[string]bool{}
	var walk func(s any, path string, depth int)
	walk = func(s any, path string, depth int) {
		m := resolve(s)
		if m == nil || depth > 12 {
			return
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := m[k].([]any)
			for _, x := range list {
				walk(x, path, depth+1)
			}
		}
		props, _ := m["properties"].(map[string]any)
		for name, v := range props {
			if isID(name) {
				seen[path+"."+name] = true
			}
			walk(v, path+"."+name, depth+1)
		}
		if m["items"] != nil {
			walk(m["items"], path+"[]", depth+1)
		}
	}
	paths, _ := d["paths"].(map[string]any)
	for p, v := range paths {
		item, _ := v.(map[string]any)
		for method, o := range item {
			op, _ := o.(map[string]any)
			if op == nil || !slices.Contains([]string{"get", "post", "put", "patch", "delete"}, method) {
				continue
			}
			at := strings.ToUpper(method) + " " + p
			params, _ := op["parameters"].([]any)
			for _, prm := range params {
				pm := resolve(prm)
				if name, _ := pm["name"].(string); pm["in"] == "query" && isID(name) {
					seen[at+" ?"+name] = true
				}
			}
			body := resolve(op["requestBody"])
			content, _ := body["content"].(map[string]any)
			for _, c := range content {
				cm, _ := c.(map[string]any)
				walk(cm["schema"], at+" body", 0)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// data is a success's data as text with the id it was asked for
// written as ID.
func data(r *response, id string) string {
	b, _ := json.Marshal(r.JSON["data"])
	return strings.ReplaceAll(string(b), id, "ID")
}

// names says whether a refusal names field (its last part) or the id.
func names(r *response, field, id string) bool {
	details, _ := json.Marshal(r.at("error.details"))
	name := field[strings.LastIndexAny(field, ".?")+1:]
	return strings.Contains(string(details), name) || strings.Contains(string(details), id)
}

// rowCounts counts what each company has in the tables a write touches.
func rowCounts(t *testing.T, e *env, companies ...uuid.UUID) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, c := range companies {
		for _, table := range []string{"audit_entries", "journal_entries", "journal_lines", "documents", "invoices",
			"supplier_invoices", "bank_transactions", "inbox_items", "salary_run_employees", "reconciliation_links",
			"cash_account_payees", "events", "vat_filings", "expense_claims", "expense_payouts", "articles", "assets"} {
			out[c.String()+" "+table] = e.count(`SELECT count(*) FROM `+table+` WHERE company_id = $1`, c)
		}
	}
	return out
}

// A bank connection's account chosen to feed another tenant's cash
// account is answered as one naming no cash account, and the choice made
// right then goes through: the refusal was the id's.
func TestForeignCashAccountOfABankConnection(t *testing.T) {
	t.Parallel()
	bank := fakebank.New(fakebank.Account{UID: "a-sek", IBAN: "SE4550000000058398257466", Currency: "SEK",
		Name: "Företagskonto", Booked: "100.00", Available: "100.00"})
	defer bank.Close()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC) }), through(t, bank))
	them := b.key("dem@example.se", keySpec{})
	other := b.env.company(them, "Deras AB")
	foreign := b.do(req{Method: "POST", Path: "/api/v1/companies/" + other.String() + "/cash-accounts", Token: them,
		Body: map[string]any{"name": "Deras konto", "currency": "SEK"}, Header: map[string]string{"Idempotency-Key": newKey()}}).
		status(t, 201).str("data.cash_account_id")
	id, state := b.consent(bank, map[string]any{"bank": "SEB"})
	b.callback(url.Values{"state": {state}, "code": {"ok"}}).status(t, 200)
	pick := func(cash string) *response {
		return b.write("POST", "bank-connections/"+id+"/select-accounts", map[string]any{"accounts": []any{
			map[string]any{"account_uid": "a-sek", "cash_account_id": cash}}})
	}
	f, r := pick(foreign), pick(uuid.NewString())
	if f.Status != 404 || f.Status != r.Status || f.str("error.code") != r.str("error.code") || !names(f, "cash_account_id", foreign) {
		t.Fatalf("another company's cash account: %d %s; an unknown one: %d %s", f.Status, f.Body, r.Status, r.Body)
	}
	own := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201).
		str("data.cash_account_id")
	if p := pick(own).status(t, 200); p.str("data.accounts.0.cash_account_id") != own {
		t.Fatalf("select: %s", p.Body)
	}
	if n := b.count(`SELECT count(*) FROM bank_connection_accounts WHERE company_id = $1`, other); n != 0 {
		t.Fatalf("the other company's books hold %d connection accounts", n)
	}
}
