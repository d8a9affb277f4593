package tests

import (
	"fmt"
	"testing"
	"time"
)

// Two servers on one database, each with its dispatcher and workers,
// deliver 1,000 events to 10 webhooks: every delivery reaches its
// receiver exactly once, and ends delivered.
func TestWebhooksTwoReplicas(t *testing.T) {
	t.Parallel()
	a := newHookBooks(t, 0)
	b := envOn(t, a.db, withHooks(a.url, testCA(t), 0))
	b.deliver()
	rc := newReceiver(t, nil)
	types := emitted[:10]
	for _, typ := range types {
		a.register(typ, rc)
	}
	const n = 1000
	for batch := 0; batch < n/100; batch++ {
		tx := a.db.MustBegin()
		for i := 0; i < 100; i++ {
			k := batch*100 + i
			tx.MustExec(`INSERT INTO events (company_id, type, payload, api_version) VALUES ($1, $2, $3, '2026-05-12')`,
				a.company, types[k%len(types)], fmt.Sprintf(`{"n": %d}`, k))
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	rc.wait(t, n, 60*time.Second)
	time.Sleep(time.Second) // a sweep and more: nothing comes twice
	hits := rc.all()
	seen := map[string]bool{}
	for _, h := range hits {
		id := h.Header.Get("X-Kontera-Delivery")
		if seen[id] {
			t.Fatalf("delivery %s came twice", id)
		}
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("%d deliveries reached the receiver, want %d", len(seen), n)
	}
	if c := a.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered' AND attempts = 1`); c != n {
		t.Fatalf("%d deliveries delivered at the first attempt, want %d", c, n)
	}
	if c := a.count(`SELECT count(DISTINCT feed_seq) FROM events WHERE company_id = $1 AND feed_seq BETWEEN 1 AND $2`, a.company, n); c != n {
		t.Fatalf("the feed numbered %d of %d events", c, n)
	}
}
