package tests

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/standby"
)

// The tests' servers read through a read replica that is the same
// database, read only (readOnlyStandby): every read the document marks
// x-replica-read goes there, so one that writes fails its test. Here:
// the consistency token on writes, its refusal when malformed, and the
// reads counted by where they went. The replica that is a real standby,
// behind and stopped, is the operator's drill (tests/ops, TestReadReplica).
func TestReadsThroughTheReplica(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	scrape := func() string {
		t.Helper()
		admin := httptest.NewServer(b.server.Admin())
		defer admin.Close()
		res, err := admin.Client().Get(admin.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return string(body)
	}
	count := func(text, series string) int {
		m := regexp.MustCompile(regexp.QuoteMeta(series) + ` (\d+)`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("/metrics lacks %s", series)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	replica := `kontera_replica_reads_total{reason="no_token",target="replica"}`
	token := `kontera_replica_reads_total{reason="caught_up",target="replica"}`
	before := scrape()

	// A write's answer carries the position of its commit.
	key := ik()
	r := b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key).status(t, 201)
	tok := r.Header.Get("X-Kontera-Consistency-Token")
	written, err := standby.ParseLSN(tok)
	if err != nil {
		t.Fatalf("the write's token %q: %v", tok, err)
	}
	// Its replay carries one too, at or past the original's commit.
	again := b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key).status(t, 201)
	if replayed, err := standby.ParseLSN(again.Header.Get("X-Kontera-Consistency-Token")); again.Header.Get("Idempotent-Replayed") != "true" ||
		err != nil || replayed < written {
		t.Fatalf("the replay's token %q after %v: %v", again.Header.Get("X-Kontera-Consistency-Token"), written, err)
	}
	// A dry run wrote nothing to wait for, a refusal neither.
	if h := b.post(b.base+"/journal-entries?dry_run=true", b.token, b.sale("03-15"), "Idempotency-Key", ik()).status(t, 200).
		Header.Get("X-Kontera-Consistency-Token"); h != "" {
		t.Fatalf("a dry run carries a token: %q", h)
	}
	if h := b.post(b.base+"/journal-entries", b.token, map[string]any{"fiscal_period_id": b.period}, "Idempotency-Key", ik()).
		errorCode(t, 400, "VALIDATION_ERROR").Header.Get("X-Kontera-Consistency-Token"); h != "" {
		t.Fatalf("a refusal carries a token: %q", h)
	}

	// Reads marked x-replica-read go to the replica, with a token or not
	// (a key that wrote a moment ago waits for its write as if it had
	// brought the token); the replica here is the primary itself, so its
	// answers carry no position of their own.
	other := b.key("owner@example.se", keySpec{})
	tb := b.get(b.base+"/reports/trial-balance?period_id="+b.period, other).status(t, 200)
	if h := tb.Header.Get("X-Kontera-Consistency-Token"); h != "" {
		t.Fatalf("an answer of the primary itself carries a replica's position %q", h)
	}
	b.do(req{Method: "GET", Path: b.base + "/journal-entries", Token: other,
		Header: map[string]string{"X-Kontera-Consistency-Token": tok}}).status(t, 200)
	b.get(b.base+"/journal-entries", b.token).status(t, 200)
	// One that is not stays on the primary.
	b.get("/api/v1/api-key", b.token).status(t, 200)
	after := scrape()
	if count(after, replica)-count(before, replica) != 1 || count(after, token)-count(before, token) != 2 {
		t.Fatalf("reads did not go to the replica:\n%s", after)
	}
	for _, want := range []string{"kontera_replica_up 1", "kontera_replica_lag_seconds 0", `go_sql_open_connections{db_name="kontera_replica"}`} {
		if !strings.Contains(after, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// A token not as an answer gave it is refused, naming the header.
	for _, bad := range []string{"latest", "16", "16/B374D848/1", "G/1", "123456789/0"} {
		r := b.do(req{Method: "GET", Path: b.base + "/journal-entries", Token: b.token,
			Header: map[string]string{"X-Kontera-Consistency-Token": bad}}).errorCode(t, 400, "VALIDATION_ERROR")
		if f := r.issueFields(); len(f) != 1 || f[0] != "header:X-Kontera-Consistency-Token:format" {
			t.Fatalf("%q: issues %v", bad, f)
		}
	}
}
