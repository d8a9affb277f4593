package tests

import (
	"fmt"
	"strings"
	"testing"
)

// Bulk create: each item on its own, one key for the batch, a retry
// replays the first answer.
func TestCustomerBulkPartialSuccessAndReplay(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	body := map[string]any{"customers": []any{
		map[string]any{"name": "Ett AB", "customer_type": "swedish_business", "org_number": orgNumber(1)},
		map[string]any{"name": "Två AB", "customer_type": "swedish_business", "org_number": orgNumber(1)},
		map[string]any{"name": "Tre AB", "customer_type": "swedish_business", "personal_number": "811218-9876"},
		map[string]any{"name": "Fyra", "customer_type": "individual", "personal_number": "811218-9876"},
	}}
	key := newKey()
	send := func() *response {
		return b.do(req{Method: "POST", Path: b.path("customers/bulk-create"), Token: b.token, Body: body,
			Header: map[string]string{"Idempotency-Key": key}}).status(t, 200)
	}
	r := send()
	if r.at("data.summary.total") != 4.0 || r.at("data.summary.succeeded") != 2.0 || r.at("data.summary.failed") != 2.0 {
		t.Fatalf("summary: %s", r.Body)
	}
	for i, want := range []string{"", "CUSTOMER_DUPLICATE_ORG_NUMBER", "CUSTOMER_PERSONAL_NUMBER_NOT_ALLOWED", ""} {
		p := fmt.Sprintf("data.results.%d.", i)
		if r.at(p+"request_index") != float64(i) || r.at(p+"ok") != (want == "") || r.str(p+"error.code") != want {
			t.Fatalf("item %d: %s", i, r.Body)
		}
	}
	if r.str("data.results.1.error.details.existing_customer_id") != r.str("data.results.0.data.id") {
		t.Fatalf("duplicate names the first: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE company_id = $1`, b.company); n != 2 {
		t.Fatalf("%d customers stored", n)
	}
	again := send()
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(r.Body) {
		t.Fatalf("replay differs:\n%s\n%s", again.Body, r.Body)
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE company_id = $1`, b.company); n != 2 {
		t.Fatalf("%d customers after the replay", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'customer.created'`, b.company); n != 2 {
		t.Fatalf("%d events", n)
	}

	// A dry run checks every item and stores nothing.
	d := b.do(req{Method: "POST", Path: b.path("customers/bulk-create?dry_run=true"), Token: b.token,
		Body: map[string]any{"customers": []any{map[string]any{"name": "Fem AB", "customer_type": "swedish_business", "org_number": orgNumber(5)},
			map[string]any{"name": "Sex AB", "customer_type": "swedish_business", "org_number": orgNumber(1)}}},
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if d.at("data.dry_run") != true || d.at("data.preview.results.0.data.id") != nil || d.at("data.preview.results.0.ok") != true ||
		d.str("data.preview.results.1.error.code") != "CUSTOMER_DUPLICATE_ORG_NUMBER" {
		t.Fatalf("dry run: %s", d.Body)
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE company_id = $1`, b.company); n != 2 {
		t.Fatalf("%d customers after the dry run", n)
	}

	b.write("POST", "customers/bulk-create", map[string]any{"customers": []any{map[string]any{"name": "X", "customer_type": "individual"}},
		"all_or_nothing": true}).errorCode(t, 501, "NOT_IMPLEMENTED")
	many := make([]any, 51)
	for i := range many {
		many[i] = map[string]any{"name": fmt.Sprint("K", i), "customer_type": "individual"}
	}
	b.write("POST", "customers/bulk-create", map[string]any{"customers": many}).errorCode(t, 400, "VALIDATION_ERROR")
	b.post(b.path("customers/bulk-create"), b.token, map[string]any{"customers": many[:1]}).errorCode(t, 400, "VALIDATION_ERROR")
}

// 250 customers: every page in created order, search by name and by the
// start of the organisation number, type and archive filters.
func TestCustomerSearchAndPagination(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	for batch := 0; batch < 5; batch++ {
		items := make([]any, 50)
		for i := range items {
			n := batch*50 + i
			items[i] = map[string]any{"name": fmt.Sprintf("Kund %03d %s AB", n, []string{"Alfa", "Beta"}[n%2]),
				"customer_type": "swedish_business", "org_number": orgNumber(n)}
		}
		r := b.write("POST", "customers/bulk-create", map[string]any{"customers": items}).status(t, 200)
		if r.at("data.summary.succeeded") != 50.0 {
			t.Fatalf("batch %d: %s", batch, r.Body)
		}
	}
	var names []string
	next, pages := "", 0
	for {
		p := "customers?limit=100"
		if next != "" {
			p += "&cursor=" + next
		}
		r := b.get(b.path(p), b.token).status(t, 200)
		for _, it := range r.list("data") {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		pages++
		next = r.str("meta.next_cursor")
		if next == "" {
			break
		}
	}
	if len(names) != 250 || pages != 3 {
		t.Fatalf("%d customers over %d pages", len(names), pages)
	}
	for i, n := range names {
		if !strings.HasPrefix(n, fmt.Sprintf("Kund %03d ", i)) {
			t.Fatalf("position %d holds %q: not created-first", i, n)
		}
	}
	count := func(q string) int {
		r := b.get(b.path("customers?limit=100&"+q), b.token).status(t, 200)
		n := len(r.list("data"))
		for r.str("meta.next_cursor") != "" {
			r = b.get(b.path("customers?limit=100&"+q+"&cursor="+r.str("meta.next_cursor")), b.token).status(t, 200)
			n += len(r.list("data"))
		}
		return n
	}
	if n := count("search=bETA"); n != 125 {
		t.Fatalf("search=bETA: %d", n)
	}
	if n := count("search=kund%2001"); n != 10 {
		t.Fatalf("search=kund 01: %d", n)
	}
	org := orgNumber(123)
	// 556900-1 starts the numbers of customers 100 to 199.
	if n := count("search=" + org[:8]); n != 100 {
		t.Fatalf("org prefix %s: %d", org[:8], n)
	}
	if n := count("search=" + strings.ReplaceAll(org, "-", "")); n != 1 {
		t.Fatalf("whole org number without hyphen: %d", n)
	}
	if n := count("search=%25"); n != 0 {
		t.Fatalf("a %% is a character, not a wildcard: %d", n)
	}
	if n := count("customer_type=individual"); n != 0 {
		t.Fatalf("individuals: %d", n)
	}
	// Swedish letters fold too, whatever the database's locale.
	b.createCustomer(map[string]any{"name": "ÅKESSONS Måleri", "customer_type": "individual"}).status(t, 201)
	if n := count("search=%C3%A5kessons%20m%C3%85leri"); n != 1 {
		t.Fatalf("åkessons måleri: %d", n)
	}
	if n := count("customer_type=individual"); n != 1 {
		t.Fatalf("individuals: %d", n)
	}
	b.get(b.path("customers?search="), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.path("customers?search="+strings.Repeat("a", 201)), b.token).errorCode(t, 400, "VALIDATION_ERROR")
}

// DELETE archives: 204, idempotent, readable by id, out of lists unless
// asked for, back with archived_at: null.
func TestCustomerArchive(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	id := b.createCustomer(map[string]any{"name": "Arkiv AB", "customer_type": "swedish_business", "org_number": orgNumber(9)}).status(t, 201).str("data.id")
	b.do(req{Method: "DELETE", Path: b.path("customers/" + id), Token: b.token}).errorCode(t, 400, "VALIDATION_ERROR")
	d := b.do(req{Method: "DELETE", Path: b.path("customers/" + id + "?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if d.str("data.preview.archived_at") == "" {
		t.Fatalf("dry run: %s", d.Body)
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE id = $1 AND archived_at IS NULL`, id); n != 1 {
		t.Fatal("the dry run archived")
	}
	key := newKey()
	del := func(k string) *response {
		return b.do(req{Method: "DELETE", Path: b.path("customers/" + id), Token: b.token, Header: map[string]string{"Idempotency-Key": k}})
	}
	if r := del(key).status(t, 204); len(r.Body) != 0 {
		t.Fatalf("204 with a body: %s", r.Body)
	}
	if r := del(key).status(t, 204); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("no replay")
	}
	del(newKey()).status(t, 204)
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'customers' AND record_id = $1 AND action = 'UPDATE'`, id); n != 1 {
		t.Fatalf("%d archive audit rows; archiving twice must change nothing", n)
	}
	if g := b.get(b.path("customers/"+id), b.token).status(t, 200); g.str("data.archived_at") == "" {
		t.Fatalf("archived detail: %s", g.Body)
	}
	if n := len(b.get(b.path("customers"), b.token).status(t, 200).list("data")); n != 0 {
		t.Fatalf("%d in the default list", n)
	}
	if n := len(b.get(b.path("customers?include_archived=true"), b.token).status(t, 200).list("data")); n != 1 {
		t.Fatalf("%d with include_archived", n)
	}
	p := b.write("PATCH", "customers/"+id, map[string]any{"archived_at": nil}).status(t, 200)
	if p.at("data.archived_at") != nil {
		t.Fatalf("un-archive: %s", p.Body)
	}
	b.write("PATCH", "customers/"+id, map[string]any{"archived_at": "2026-01-01T00:00:00Z"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "customers/"+id, map[string]any{}).errorCode(t, 400, "VALIDATION_ERROR")
	b.do(req{Method: "PATCH", Path: b.path("customers/" + id), Token: b.token, Body: map[string]any{"notes": "x"}}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("DELETE", "customers/00000000-0000-4000-8000-000000000000", nil).errorCode(t, 404, "CUSTOMER_NOT_FOUND")
}
