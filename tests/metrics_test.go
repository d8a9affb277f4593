package tests

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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

// Each judged webhook attempt counts by the state it left its delivery
// in: a receiver answering 500 then 200 makes one failed and one
// delivered attempt, the operator's series for the alert on failing
// deliveries (docs/operations.md).
func TestMetricsCountWebhookAttempts(t *testing.T) {
	t.Parallel()
	b := newHookBooks(t, 0)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.WriteHeader(500)
		}
	})
	hook, _ := b.register("customer.created", rc)
	b.write("POST", "customers", map[string]any{"name": "Mätaren AB", "customer_type": "swedish_business"}).status(t, 201)
	rc.wait(t, 1, time.Minute)
	var id string
	for deadline := time.Now().Add(time.Minute); id == ""; time.Sleep(20 * time.Millisecond) {
		if rows := b.get(b.path("webhooks/"+hook+"/deliveries"), b.token).status(t, 200).list("data"); len(rows) == 1 {
			if row := rows[0].(map[string]any); row["status"] == "failed" {
				id = row["id"].(string)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the first attempt was never judged failed")
		}
	}
	// The retry is due later; bring it forward, as the schedule would.
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	b.settle(hook, id, "delivered", time.Minute)
	admin := httptest.NewServer(b.server.Admin())
	t.Cleanup(admin.Close)
	res, err := admin.Client().Get(admin.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`kontera_webhook_attempts_total{state="failed"} 1`,
		`kontera_webhook_attempts_total{state="delivered"} 1`, `kontera_webhook_attempts_total{state="dead"} 0`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
