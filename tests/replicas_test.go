package tests

import (
	"sync"
	"testing"
)

// Two Kontera servers on one database, the work spread over both: the
// voucher numbers stay gapless, an Idempotency-Key has one effect, and a
// year-end runs once (the rate limit is TestRateLimitHeldAcrossReplicas).
func TestTwoReplicasOneDatabase(t *testing.T) {
	t.Parallel()
	a := newLedger(t)
	b := &ledgerBooks{env: envOn(t, a.db, a.clock.option()), token: a.token, base: a.base, period: a.period, year: a.year, company: a.company}
	replicas := []*ledgerBooks{a, b}

	// 100 drafts, committed at once, half through each replica.
	const n = 100
	ids := make([]string, n)
	for i := range ids {
		ids[i] = replicas[i%2].create(a.sale("08-01")).status(t, 201).str("data.id")
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := replicas[i%2].action(id, "commit", nil)
			if r.Status != 200 {
				t.Errorf("commit %d: %d %s", i, r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	a.gapless(t, n)

	// One Idempotency-Key sent to both at once: one draft.
	key := ik()
	statuses := make([]int, 2)
	for i, r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = r.post(a.base+"/journal-entries", a.token, a.sale("08-02"), "Idempotency-Key", key).Status
		}()
	}
	wg.Wait()
	for _, s := range statuses {
		if s != 201 && s != 409 {
			t.Fatalf("the same key on two replicas: %v", statuses)
		}
	}
	if c := a.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND entry_date = $2`, a.company, a.day("08-02")); c != 1 {
		t.Fatalf("one key, %d drafts", c)
	}
	var draft string
	if err := a.db.Get(&draft, `SELECT id FROM journal_entries WHERE company_id = $1 AND status = 'draft'`, a.company); err != nil {
		t.Fatal(err)
	}
	a.do(req{Method: "DELETE", Path: a.base + "/journal-entries/" + draft, Token: a.token}).status(t, 200)

	// A year-end, with both replicas' workers looking for work: run once.
	a.periodAction(a.period, "lock", nil).status(t, 200)
	a.yearOver(t)
	op := b.operation(t, a.periodAction(a.period, "year-end", nil).status(t, 202).str("data.operation_id"))
	if op.str("data.status") != "succeeded" {
		t.Fatalf("year-end: %s", op.Body)
	}
	if c := a.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND source_type IN ('year_end', 'opening_balance')`, a.company); c != 2 {
		t.Fatalf("%d year-end entries, want the closing entry and the opening balance", c)
	}
}
