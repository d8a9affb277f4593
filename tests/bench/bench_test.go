// Package bench measures the cost of Kontera's middleware: requests per
// second of GET /api/v1/api-key through the full stack (request id, access
// log, key lookup, scopes, contract validation, handler, envelope) against
// a bare Echo handler answering a body of the same size, in the same run
// on the same machine. Run it with `make bench`; it is not part of
// `make test`.
package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/ratelimit"
)

func TestMain(m *testing.M) {
	if os.Getenv("KONTERA_BENCH") == "" {
		os.Exit(m.Run()) // make test: everything skips, no database needed
	}
	pgtest.Main(m)
}

const workers = 8

var (
	duration = time.Duration(benchSeconds) * time.Second
	rounds   = benchRounds
)

type result struct {
	rps      float64
	p50, p99 time.Duration
}

// load sends GETs to url from workers goroutines for duration.
func load(t *testing.T, url, token string) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	deadline := time.Now().Add(duration)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				start := time.Now()
				res, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("status %d", res.StatusCode)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("no requests completed")
	}
	return result{rps: float64(len(lat)) / duration.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}
}

func median(rs []result) result {
	slices.SortFunc(rs, func(a, b result) int {
		switch {
		case a.rps < b.rps:
			return -1
		case a.rps > b.rps:
			return 1
		}
		return 0
	})
	return rs[len(rs)/2]
}

func TestBenchMiddlewareOverhead(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d := pgtest.New(t)
	keys := auth.NewStore(d, audit.NewStore(d))
	token, _, err := keys.CreateKey(context.Background(), auth.NewKey{Email: "bench@example.se", Mode: auth.Live,
		Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
	if err != nil {
		t.Fatal(err)
	}
	// A few companies, so the grant is not trivially empty.
	for i := range 3 {
		if _, err := d.Exec(`WITH c AS (INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
			SELECT $1, 'aktiebolag', '2026-01-01', '2026-12-31', id FROM users RETURNING id, created_by)
			INSERT INTO company_members (company_id, user_id, role) SELECT id, created_by, 'owner' FROM c`, fmt.Sprintf("Bolag %d AB", i)); err != nil {
			t.Fatal(err)
		}
	}
	servers := map[string]http.Handler{}
	for name, limit := range map[string]int{"full stack": 0, "full stack + rate limit": 1 << 30} {
		s, err := httpapi.New(httpapi.Config{DB: d, Log: zap.NewNop(), BaseURL: "http://bench", PIIKey: []byte("bench-pii-key-bench-pii-key-1234"), Secret: []byte("bench-secret-bench-secret-bench!!"),
			RateLimitPerMinute: limit})
		if err != nil {
			t.Fatal(err)
		}
		servers[name] = s
	}
	// The bare handler answers what the full stack answers, byte for byte.
	probe := httptest.NewRecorder()
	preq := httptest.NewRequest("GET", "/api/v1/api-key", nil)
	preq.Header.Set("Authorization", "Bearer "+token)
	servers["full stack"].ServeHTTP(probe, preq)
	body := probe.Body.Bytes()
	bare := echo.New()
	bare.GET("/api/v1/api-key", func(c echo.Context) error { return c.Blob(200, echo.MIMEApplicationJSON, body) })
	servers["bare echo"] = bare
	// The same work without the middleware: look the key up, read its
	// companies, answer the same bytes.
	work := echo.New()
	work.GET("/api/v1/api-key", func(c echo.Context) error {
		k, err := keys.Authenticate(c.Request().Context(), auth.ParseBearer(c.Request().Header.Get("Authorization")))
		if err != nil {
			return err
		}
		if _, err := keys.Reachable(c.Request().Context(), k); err != nil {
			return err
		}
		return c.Blob(200, echo.MIMEApplicationJSON, body)
	})
	servers["bare echo + same queries"] = work

	order := []string{"bare echo", "bare echo + same queries", "full stack", "full stack + rate limit"}
	runs := map[string][]result{}
	for range rounds {
		for _, name := range order {
			ts := httptest.NewServer(servers[name])
			runs[name] = append(runs[name], load(t, ts.URL+"/api/v1/api-key", token))
			ts.Close()
		}
	}
	baseline := median(runs["bare echo"])
	same := median(runs["bare echo + same queries"])
	fmt.Printf("\nGET /api/v1/api-key, %d workers, %v per run, median of %d rounds (same process, same machine)\n", workers, duration, rounds)
	fmt.Printf("%-26s %10s %10s %10s %10s %12s\n", "", "req/s", "p50", "p99", "vs bare", "vs same work")
	for _, name := range order {
		r := median(runs[name])
		fmt.Printf("%-26s %10.0f %10v %10v %10.3f %12.3f\n", name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
			r.rps/baseline.rps, r.rps/same.rps)
	}
	fmt.Printf("rate limiter on (a lease of %d tokens per take): %.2f of the same request with it off (goal 0.8)\n",
		ratelimit.New(1<<30).LeaseSize(), median(runs["full stack + rate limit"]).rps/median(runs["full stack"]).rps)
}

var benchSeconds, benchRounds = envInt("KONTERA_BENCH_SECONDS", 4), envInt("KONTERA_BENCH_ROUNDS", 3)

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil || n < 1 {
		return def
	}
	return n
}
