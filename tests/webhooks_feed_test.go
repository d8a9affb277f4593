package tests

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// feed reads the company's events after after (none: from the oldest).
func (b *hookBooks) feed(token, after, types string, limit int) *response {
	b.t.Helper()
	q := fmt.Sprintf("events?limit=%d", limit)
	if after != "" {
		q += "&after=" + after
	}
	if types != "" {
		q += "&types=" + types
	}
	return b.get(b.path(q), token)
}

// fedOf waits, a bounded while, until the feed holds n events of type
// typ, and answers them.
func (b *hookBooks) fedOf(typ string, n int) []map[string]any {
	b.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		events := b.feed(b.token, "", typ, 100).status(b.t, 200).list("data.events")
		if len(events) >= n {
			out := make([]map[string]any, len(events))
			for i, e := range events {
				out[i] = e.(map[string]any)
			}
			return out
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the feed holds %d %s events, want %d", len(events), typ, n)
		}
	}
}

// fed waits until the feed holds n events and answers their ids.
func (b *hookBooks) fed(n int) []string {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		events := b.feed(b.token, "", "", 100).status(b.t, 200).list("data.events")
		if len(events) >= n {
			ids := make([]string, len(events))
			for i, e := range events {
				ids[i] = e.(map[string]any)["id"].(string)
			}
			return ids
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the feed holds %d events, want %d", len(events), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The pull feed: in commit order (an event whose transaction committed
// late comes after the ones that committed before it), after an event
// exactly the missed ones, per-group scopes, pages, and pruning.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	var ahead atomic.Int64 // how far the server's clock runs ahead
	b := newHookBooks(t, 0, clock(func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }))
	customer := func(name string) {
		b.write("POST", "customers", map[string]any{"name": name, "customer_type": "swedish_business"}).status(t, 201)
	}
	customer("Första AB")
	first := b.fed(1)
	if len(first) != 1 {
		t.Fatalf("the feed: %v", first)
	}

	// An event written in a transaction held open while two later ones
	// commit and are read: it comes after them, and after the last one
	// read it is exactly what was missed.
	tx, err := b.db.BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Its payload is the first customer's, so it reads as any customer.created.
	late := uuid.NewString()
	if _, err := tx.Exec(`INSERT INTO events (company_id, id, type, payload, api_version)
		SELECT company_id, $2, type, payload, api_version FROM events WHERE company_id = $1 AND id = $3`,
		b.company, late, first[0]); err != nil {
		t.Fatal(err)
	}
	customer("Andra AB")
	customer("Tredje AB")
	seen := b.fed(3)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	all := b.fed(4)
	if all[3] != late || all[0] != first[0] || all[1] != seen[1] || all[2] != seen[2] {
		t.Fatalf("feed order %v, want %v then %s", all, seen, late)
	}
	missed := b.feed(b.token, seen[2], "", 50).status(t, 200)
	if ev := missed.list("data.events"); len(ev) != 1 || ev[0].(map[string]any)["id"] != late ||
		missed.at("data.has_more") != false || missed.at("meta.next_cursor") != nil {
		t.Fatalf("after the last read: %s", missed.Body)
	}

	// Pages: has_more and next_cursor, the id of the last event.
	page := b.feed(b.token, "", "", 2).status(t, 200)
	if page.at("data.has_more") != true || page.at("meta.next_cursor") != all[1] {
		t.Fatalf("first page: %s", page.Body)
	}
	page = b.feed(b.token, page.str("meta.next_cursor"), "", 2).status(t, 200)
	if ev := page.list("data.events"); len(ev) != 2 || ev[0].(map[string]any)["id"] != all[2] {
		t.Fatalf("second page: %s", page.Body)
	}
	first0 := b.feed(b.token, "", "", 1).status(t, 200).list("data.events")[0].(map[string]any)
	if first0["type"] != "customer.created" || first0["api_version"] != "2026-05-12" ||
		first0["data"].(map[string]any)["object"].(map[string]any)["customer"] == nil {
		t.Fatalf("an event: %v", first0)
	}

	// Scopes: groups the key lacks are left out; naming one is 403; a key
	// of no group is 403. webhook.test is never in the feed.
	hook, _ := b.register("customer.created", newReceiver(t, nil))
	testID := b.test(hook)
	invoicesOnly := b.key("webhooks@example.se", keySpec{name: "fakturor", scopes: []string{"invoices:read"}})
	if ev := b.feed(invoicesOnly, "", "", 50).status(t, 200).list("data.events"); len(ev) != 0 {
		t.Fatalf("an invoices:read key reads customers' events: %v", ev)
	}
	r := b.feed(invoicesOnly, "", "customer.created", 50)
	r.errorCode(t, 403, "INSUFFICIENT_SCOPE")
	if r.at("error.details.required_scope") != "customers:read" {
		t.Fatalf("naming a group the key lacks: %s", r.Body)
	}
	none := b.key("webhooks@example.se", keySpec{name: "inget", scopes: []string{"webhooks:manage"}})
	b.feed(none, "", "", 50).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	b.feed(b.token, "", "webhook.test", 50).errorCode(t, 400, "VALIDATION_ERROR")
	if ev := b.feed(b.token, "", "customer.created,invoice.paid", 50).status(t, 200).list("data.events"); len(ev) != 4 {
		t.Fatalf("types: %d events", len(ev))
	}

	// Kept 30 days: older events and ended deliveries are pruned, and an
	// after no longer kept starts again at the oldest, with a warning.
	// (An event's time is forged past its guard: the application role
	// cannot change it.)
	forge(t, &ledgerBooks{env: b.env}, `UPDATE events SET created_at = now() - interval '31 days'
		WHERE id IN ('`+all[0]+`', '`+all[1]+`')`)
	deliveries, events, err := b.server.PruneEvents(context.Background())
	if err != nil || events != 2 || deliveries != 0 {
		t.Fatalf("pruned %d events and %d deliveries (%v), want 2 and 0", events, deliveries, err)
	}
	r = b.feed(b.token, all[0], "", 50).status(t, 200)
	if ev := r.list("data.events"); len(ev) != 2 || ev[0].(map[string]any)["id"] != all[2] {
		t.Fatalf("after a pruned event: %s", r.Body)
	}
	if r.at("meta.warnings.0.code") != "EVENTS_AFTER_NOT_KEPT" {
		t.Fatalf("no warning for a pruned after: %s", r.Body)
	}
	// 31 days on, the rest goes with the ended test delivery.
	b.settle(hook, testID, "delivered", 5*time.Second)
	ahead.Store(int64(31 * 24 * time.Hour))
	deliveries, events, err = b.server.PruneEvents(context.Background())
	if err != nil || events != 2 || deliveries != 1 {
		t.Fatalf("pruned %d events and %d deliveries (%v), want 2 and 1", events, deliveries, err)
	}
}
