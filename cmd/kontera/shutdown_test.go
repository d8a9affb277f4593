package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/pgtest"
)

// SIGTERM in the middle of load (main turns it into the end of the
// context serveOn runs under): the server stops accepting, finishes what
// it took, and answers no 5xx; every commit it answered 200 is posted and
// every other draft is still a draft, nothing half done.
func TestGracefulStopUnderLoad(t *testing.T) {
	url := pgtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	bg := context.Background()
	var out, errOut bytes.Buffer
	if err := run(bg, []string{"keys", "create", "--email", "stop@example.se"}, &out, &errOut); err != nil {
		t.Fatalf("%v %s", err, errOut.String())
	}
	var k struct{ Key string }
	if err := json.Unmarshal(out.Bytes(), &k); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Secret, cfg.PIIKey, cfg.BaseURL = []byte("a-test-secret-of-at-least-32-bytes!"), make([]byte, 32), "http://kontera.test"
	cfg.RateLimitPerMinute, cfg.ShutdownTimeout = 0, 10*time.Second
	d, cleanup, err := openDB(bg, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	api := "http://" + ln.Addr().String()
	ctx, stop := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, ln, cfg, d, zap.NewNop()) }()

	call := func(method, path string, body any) (int, map[string]any, error) {
		var r *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		} else {
			r = bytes.NewReader(nil)
		}
		req, _ := http.NewRequest(method, api+path, r)
		req.Header.Set("Authorization", "Bearer "+k.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m, nil
	}
	st, m, err := call("POST", "/api/v1/companies", map[string]any{"name": "Stopp AB", "entity_type": "aktiebolag", "f_skatt": true, "vat_registered": false})
	if err != nil || st != 201 {
		t.Fatalf("company: %d %v %v", st, m, err)
	}
	company := m["data"].(map[string]any)["id"].(string)
	base := "/api/v1/companies/" + company
	_, m, _ = call("GET", base+"/fiscal-periods", nil)
	period := m["data"].(map[string]any)["fiscal_periods"].([]any)[0].(map[string]any)
	year := period["period_start"].(string)[:4]

	var committed, fivexx atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				st, m, err := call("POST", base+"/journal-entries", map[string]any{"fiscal_period_id": period["id"],
					"entry_date": year + "-06-01", "description": "Under last",
					"lines": []map[string]any{{"account_number": "1930", "debit_amount": 100}, {"account_number": "3001", "credit_amount": 100}}})
				if err != nil {
					return // the server stopped accepting
				}
				if st >= 500 {
					fivexx.Add(1)
					return
				}
				id := m["data"].(map[string]any)["id"].(string)
				st, _, err = call("POST", base+"/journal-entries/"+id+"/commit", nil)
				if err != nil {
					return
				}
				if st >= 500 {
					fivexx.Add(1)
					return
				}
				if st == 200 {
					committed.Add(1)
				}
			}
		}()
	}
	// Stop under load: once commits are coming through, however long a
	// busy machine takes to get there.
	for deadline := time.Now().Add(time.Minute); committed.Load() < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no commits under load within a minute (%d 5xx)", fivexx.Load())
		}
	}
	stop() // SIGTERM
	wg.Wait()
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("serveOn: %v", err)
	}
	if fivexx.Load() > 0 {
		t.Fatalf("%d answers of 5xx while stopping", fivexx.Load())
	}
	var posted int64
	if err := d.Get(&posted, `SELECT count(*) FROM journal_entries WHERE status = 'posted'`); err != nil {
		t.Fatal(err)
	}
	if committed.Load() == 0 || posted != committed.Load() {
		t.Fatalf("%d commits answered 200, %d entries posted", committed.Load(), posted)
	}
	var gaps int
	_ = d.Get(&gaps, `SELECT count(*) FROM (SELECT voucher_number, row_number() OVER (ORDER BY voucher_number) AS n
		FROM journal_entries WHERE status = 'posted') x WHERE voucher_number <> n`)
	if gaps != 0 {
		t.Fatal("voucher numbers with gaps after the stop")
	}
}
