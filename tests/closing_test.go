package tests

import (
	"bytes"
	"regexp"
	"testing"
)

// token is what a voucher number stands in for until the commit's closing
// statement returns it (store.Token): none may ever be seen.
var token = regexp.MustCompile(`-[1-9][0-9]{15}`)

// A commit takes its voucher number in the unit's last statement, after
// the response, the audit row, the event and the idempotency record were
// built with a token for it: each of them carries the real number, the
// replay is the answer byte for byte, and posted_at is what the database
// stored.
func TestCommitFillsInItsNumberEverywhere(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	b.posted(t, "01-10")
	b.posted(t, "01-11")
	id := b.create(b.sale("01-12")).status(t, 201).str("data.id")
	key := ik()
	path := b.base + "/journal-entries/" + id + "/commit"
	c := b.post(path, b.token, nil, "Idempotency-Key", key).status(t, 200)
	if c.at("data.voucher_number") != float64(3) || c.at("meta.audit.voucher_number") != float64(3) {
		t.Fatalf("third commit: %s", c.Body)
	}
	if token.Match(c.Body) {
		t.Fatalf("a token in the answer: %s", c.Body)
	}
	got := b.get(b.base+"/journal-entries/"+id, b.token).status(t, 200)
	if got.str("data.posted_at") != c.str("data.posted_at") || got.str("data.updated_at") != c.str("data.updated_at") {
		t.Fatalf("posted_at answered %s / %s, stored %s / %s", c.str("data.posted_at"), c.str("data.updated_at"),
			got.str("data.posted_at"), got.str("data.updated_at"))
	}
	replay := b.post(path, b.token, nil, "Idempotency-Key", key).status(t, 200)
	if replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.Body, c.Body) {
		t.Fatalf("replay differs:\n%s\n%s", replay.Body, c.Body)
	}
	series := c.str("data.voucher_series")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND record_id = $2
			AND new_state->>'voucher_number' = '3' AND description = 'Verifikation ' || $3 || '3 bokförd'`,
		b.company, id, series); n != 1 {
		t.Fatalf("%d audit rows of the commit with its number", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'journal_entry.committed'
			AND payload->>'id' = $2 AND payload->>'voucher_number' = '3'`, b.company, id); n != 1 {
		t.Fatalf("%d committed events with the number", n)
	}
	for _, q := range []string{
		`SELECT count(*) FROM audit_entries WHERE concat(description, old_state::text, new_state::text) ~ '-[1-9][0-9]{15}'`,
		`SELECT count(*) FROM events WHERE payload::text ~ '-[1-9][0-9]{15}'`,
		`SELECT count(*) FROM idempotency_keys WHERE convert_from(body, 'UTF8') ~ '-[1-9][0-9]{15}'`,
	} {
		if n := b.count(q); n != 0 {
			t.Fatalf("%d rows keep a token: %s", n, q)
		}
	}
}
