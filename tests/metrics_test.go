package tests

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// The admin listener's /metrics, scraped after a few requests, holds the
// series an operator watches: requests and latency by operation, the
// database pool, the queues, refusals, replays and dry runs.
func TestMetricsScrape(t *testing.T) {
	t.Parallel()
	b := newLedger(t, rateLimit(1000), idleWorkers())
	b.get("/api/v1/health", "").status(t, 200)
	b.get("/api/v1/nowhere", b.token).errorCode(t, 404, "NOT_FOUND")
	b.post(b.base+"/journal-entries?dry_run=true", b.token, b.sale("03-15"), "Idempotency-Key", ik()).status(t, 200)
	key := ik()
	draft := b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key).status(t, 201).str("data.id")
	if r := b.post(b.base+"/journal-entries", b.token, b.sale("03-15"), "Idempotency-Key", key); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("no replay: %v", r.Header)
	}
	b.posted(t, "03-16")
	b.periodAction(b.period, "lock", nil).errorCode(t, 400, "PERIOD_LOCK_HAS_DRAFTS")

	admin := httptest.NewServer(b.server.Admin())
	t.Cleanup(admin.Close)
	res, err := admin.Client().Get(admin.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	text := string(body)
	for _, want := range []string{
		`kontera_http_requests_total{operation="getHealth",status_class="2xx"} 1`,
		`kontera_http_requests_total{operation="unmatched",status_class="4xx"} 1`,
		`kontera_http_requests_total{operation="createJournalEntry",status_class="2xx"} 4`,
		`kontera_http_requests_total{operation="lockFiscalPeriod",status_class="4xx"} 1`,
		`kontera_http_request_duration_seconds_bucket{operation="commitJournalEntry",status_class="2xx",le="+Inf"} 1`,
		`kontera_idempotent_replays_total 1`,
		`kontera_dry_runs_total 1`,
		`kontera_rate_limited_total 0`,
		`go_sql_in_use_connections{db_name="kontera"}`,
		`go_sql_wait_count_total{db_name="kontera"}`,
		`kontera_outbox_undispatched 1`,
		`kontera_outbox_oldest_age_seconds`,
		`kontera_backlog_scrape_errors 0`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// A year-end queued (the workers idle) shows in the operations queue.
	b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + draft, Token: b.token}).status(t, 200)
	b.periodAction(b.period, "lock", nil).status(t, 200)
	b.yearOver(t)
	b.periodAction(b.period, "year-end", nil).status(t, 202)
	res, _ = admin.Client().Get(admin.URL + "/metrics")
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `kontera_operations_unfinished{type="fiscal_periods.year_end"} 1`) {
		t.Error("/metrics lacks the queued year-end")
	}
	if res, err := admin.Client().Get(admin.URL + "/debug/pprof/"); err != nil || res.StatusCode != 200 {
		t.Errorf("pprof: %v %v", res, err)
	}
	// The API listener serves neither.
	b.get("/metrics", "").errorCode(t, 404, "NOT_FOUND")
}
