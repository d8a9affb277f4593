package tests

import (
	"testing"
	"time"
)

// serviceAccount adds the company's own 3041 for services at 25 %,
// reporting in box 05 by its VAT treatment (BAS has no 3041).
func (b *partiesBooks) serviceAccount() {
	b.t.Helper()
	b.write("POST", "accounts", map[string]any{"account_number": "3041", "account_name": "Försäljning tjänster 25 %", "account_type": "revenue", "normal_balance": "credit",
		"default_vat_rate": 0.25, "default_vat_treatment": "standard_25"}).status(b.t, 201)
}

// The article register: written with a dry run, an idempotent retry and
// its number once; its accounts checked against the VAT return's boxes;
// a reader's key may list but not write.
func TestArticlesRegister(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	b.serviceAccount()
	body := map[string]any{"article_number": "KONS-1", "name": "Konsulttimme", "unit": "tim", "unit_price": 1150,
		"revenue_accounts": map[string]any{"standard": "3041"}}
	dry := b.do(req{Method: "POST", Path: b.path("articles?dry_run=true"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.at("data.dry_run") != true || dry.str("data.preview.revenue_accounts.standard") != "3041" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM articles WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("a dry run stored %d", n)
	}
	key := newKey()
	first := b.do(req{Method: "POST", Path: b.path("articles"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	if first.at("data.vat_rate") != 0.25 || first.at("data.unit_price") != 1150.0 || first.at("data.in_use") != false ||
		first.at("data.active") != true || first.at("data.revenue_accounts.eu_services") != nil || first.at("data.description") != nil {
		t.Fatalf("created: %s", first.Body)
	}
	again := b.do(req{Method: "POST", Path: b.path("articles"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	if again.str("data.id") != first.str("data.id") || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry: %s", again.Body)
	}
	// The number is the company's once.
	r := b.write("POST", "articles", body).errorCode(t, 409, "ARTICLE_NUMBER_TAKEN")
	if r.str("error.details.existing_article_id") != first.str("data.id") {
		t.Fatalf("taken: %s", r.Body)
	}
	// An account reporting elsewhere than its treatment's sales is refused.
	for treatment, account := range map[string]string{"standard": "3308", "eu_services": "3001", "export_goods": "3308"} {
		r := b.write("POST", "articles", map[string]any{"article_number": "X-" + treatment, "name": "Fel konto",
			"unit_price": 1, "revenue_accounts": map[string]any{treatment: account}}).errorCode(t, 400, "VALIDATION_ERROR")
		if !names(r, "revenue_accounts."+treatment, "") {
			t.Fatalf("%s on %s: %s", treatment, account, r.Body)
		}
	}
	b.write("POST", "articles", map[string]any{"article_number": "HW 1", "name": "Mellanslag", "unit_price": 1}).
		errorCode(t, 400, "VALIDATION_ERROR")

	// Changed with a dry run first; the number may move to a free one.
	id := first.str("data.id")
	if d := b.write("PATCH", "articles/"+id+"?dry_run=true", map[string]any{"unit_price": 1200}).status(t, 200); d.at("data.dry_run") != true ||
		d.at("data.preview.unit_price") != 1200.0 {
		t.Fatalf("dry change: %s", d.Body)
	}
	if g := b.get(b.path("articles/"+id), b.token).status(t, 200); g.at("data.unit_price") != 1150.0 {
		t.Fatalf("a dry change stored: %s", g.Body)
	}
	other := b.write("POST", "articles", map[string]any{"article_number": "RES-1", "name": "Resa", "unit": "km",
		"unit_price": 25, "vat_rate": 0.06}).status(t, 201)
	b.write("PATCH", "articles/"+other.str("data.id"), map[string]any{"article_number": "KONS-1"}).
		errorCode(t, 409, "ARTICLE_NUMBER_TAKEN")
	b.write("PATCH", "articles/"+other.str("data.id"), map[string]any{}).errorCode(t, 400, "VALIDATION_ERROR")

	// Listed by number; searched by number or name.
	page := b.get(b.path("articles?limit=1"), b.token).status(t, 200)
	if len(page.list("data")) != 1 || page.str("data.0.article_number") != "KONS-1" || page.at("meta.next_cursor") == nil {
		t.Fatalf("first page: %s", page.Body)
	}
	next := b.get(b.path("articles?limit=1&cursor="+page.str("meta.next_cursor")), b.token).status(t, 200)
	if len(next.list("data")) != 1 || next.str("data.0.article_number") != "RES-1" || next.at("meta.next_cursor") != nil {
		t.Fatalf("second page: %s", next.Body)
	}
	if s := b.get(b.path("articles?search=resa"), b.token).status(t, 200); len(s.list("data")) != 1 {
		t.Fatalf("search: %s", s.Body)
	}

	// A reader lists but does not write.
	reader := b.key("kund@example.se", keySpec{scopes: []string{"invoices:read"}})
	b.get(b.path("articles"), reader).status(t, 200)
	b.do(req{Method: "POST", Path: b.path("articles"), Token: reader, Body: map[string]any{"article_number": "Y",
		"name": "Y", "unit_price": 1}, Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'articles'`, b.company); n != 2 {
		t.Errorf("%d audit rows of articles, want 2 (two created)", n)
	}
}

// An invoice line naming an article takes its text, unit, price, rate
// and account: ten hours of KONS-1 at 1 150 is 11 500 + 25 % = 14 375,
// booked D 1510 14 375 / C 3041 11 500 / C 2611 2 875. A line may give
// its own price. Sold to an EU business the same article carries no VAT
// and books on 3308. Changed later, the article leaves the invoice as
// it was; used, it is archived rather than deleted, and no new line may
// name it, though a draft that did may still change.
func TestInvoiceLinesFromArticles(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.serviceAccount()
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	art := b.write("POST", "articles", map[string]any{"article_number": "KONS-1", "name": "Konsulttimme",
		"description": "Konsulttimmar enligt avtal", "unit": "tim", "unit_price": 1150,
		"revenue_accounts": map[string]any{"standard": "3041"}}).status(t, 201).str("data.id")
	inv := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01", "items": []any{
		map[string]any{"article_id": art, "quantity": 10},
		map[string]any{"article_id": art, "quantity": 2, "unit_price": 1000, "description": "Rabatterade timmar"},
	}}).status(t, 201)
	if inv.at("data.total") != 16875.0 || inv.at("data.vat_amount") != 3375.0 {
		t.Fatalf("totals: %s", inv.Body)
	}
	id := inv.str("data.id")
	g := b.get(b.path("invoices/"+id+"?expand=items"), b.token).status(t, 200)
	if g.str("data.items.0.description") != "Konsulttimmar enligt avtal" || g.str("data.items.0.unit") != "tim" ||
		g.at("data.items.0.unit_price") != 1150.0 || g.at("data.items.0.vat_rate") != 0.25 ||
		g.str("data.items.0.revenue_account") != "3041" || g.str("data.items.0.article_id") != art ||
		g.str("data.items.1.description") != "Rabatterade timmar" || g.at("data.items.1.unit_price") != 1000.0 {
		t.Fatalf("lines: %s", g.Body)
	}
	if got := lines(b.markSent(id).status(t, 200), "data.verifikat_lines"); got != "D 1510 16875.00, C 3041 13500.00, C 2611 3375.00" {
		t.Fatalf("verifikat: %s", got)
	}
	if a := b.get(b.path("articles/"+art), b.token).status(t, 200); a.at("data.in_use") != true {
		t.Fatalf("not in use: %s", a.Body)
	}

	// To an EU business: no VAT, the treatment's account, not 3041.
	eu := b.euBuyer()
	e := b.createInvoice(map[string]any{"customer_id": eu, "invoice_date": "2026-03-01", "items": []any{
		map[string]any{"article_id": art, "quantity": 1}}}).status(t, 201)
	if e.str("data.vat_treatment") != "eu_services" || e.at("data.total") != 1150.0 {
		t.Fatalf("EU invoice: %s", e.Body)
	}
	if got := lines(b.markSent(e.str("data.id")).status(t, 200), "data.verifikat_lines"); got != "D 1510 1150.00, C 3308 1150.00" {
		t.Fatalf("EU verifikat: %s", got)
	}
	// In euro, the article's kronor price is not taken.
	fx := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01", "currency": "EUR",
		"exchange_rate": 11.5, "items": []any{map[string]any{"article_id": art, "quantity": 1}}}).errorCode(t, 400, "VALIDATION_ERROR")
	if !names(fx, "items.0.unit_price", "") {
		t.Fatalf("in euro: %s", fx.Body)
	}
	b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-01", "items": []any{
		map[string]any{"quantity": 1, "unit": "st", "unit_price": 1}}}).errorCode(t, 400, "VALIDATION_ERROR")

	// A draft naming the article, then the article changed and archived.
	draft := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-02", "items": []any{
		map[string]any{"article_id": art, "quantity": 1}}}).status(t, 201).str("data.id")
	b.write("PATCH", "articles/"+art, map[string]any{"unit_price": 1300}).status(t, 200)
	if g := b.get(b.path("invoices/"+id+"?expand=items"), b.token).status(t, 200); g.at("data.items.0.unit_price") != 1150.0 {
		t.Fatalf("the issued invoice changed with its article: %s", g.Body)
	}
	del := b.write("DELETE", "articles/"+art, nil).status(t, 200)
	if del.at("data.deleted") != false || del.at("data.archived") != true {
		t.Fatalf("delete of a used article: %s", del.Body)
	}
	if l := b.get(b.path("articles"), b.token).status(t, 200); len(l.list("data")) != 0 {
		t.Fatalf("an archived article listed: %s", l.Body)
	}
	if l := b.get(b.path("articles?include_archived=true"), b.token).status(t, 200); len(l.list("data")) != 1 || l.at("data.0.active") != false {
		t.Fatalf("archived, asked for: %s", l.Body)
	}
	r := b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-03", "items": []any{
		map[string]any{"article_id": art, "quantity": 1}}}).errorCode(t, 409, "ARTICLE_ARCHIVED")
	if r.str("error.details.field") != "items.0.article_id" {
		t.Fatalf("archived: %s", r.Body)
	}
	if p := b.patch(draft, map[string]any{"notes": "Tack för beställningen"}).status(t, 200); p.at("data.total") != 1437.5 {
		t.Fatalf("the draft with an archived article: %s", p.Body)
	}
	b.createInvoice(map[string]any{"customer_id": customer, "invoice_date": "2026-03-03", "items": []any{
		map[string]any{"article_id": "00000000-0000-4000-8000-000000000000", "quantity": 1}}}).errorCode(t, 404, "ARTICLE_NOT_FOUND")

	// Unused, an article is removed.
	spare := b.write("POST", "articles", map[string]any{"article_number": "RES-1", "name": "Resa", "unit_price": 25}).
		status(t, 201).str("data.id")
	if d := b.write("DELETE", "articles/"+spare, nil).status(t, 200); d.at("data.deleted") != true || d.at("data.archived") != false {
		t.Fatalf("delete: %s", d.Body)
	}
	b.get(b.path("articles/"+spare), b.token).errorCode(t, 404, "ARTICLE_NOT_FOUND")
}
