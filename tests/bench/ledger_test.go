package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

// api is a client of one server with one key.
type api struct {
	t      *testing.T
	url    string
	token  string
	client *http.Client
}

func (a *api) call(method, path string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	if method == "POST" {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	res, err := a.client.Do(req)
	if err != nil {
		a.t.Error(err)
		return 0, nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func (a *api) must(method, path string, body any, want int) map[string]any {
	status, out := a.call(method, path, body)
	if status != want {
		a.t.Fatalf("%s %s: %d %v", method, path, status, out)
	}
	return out
}

func str(m map[string]any, keys ...string) string {
	var v any = m
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v.(string)
}

// books is a company in the bench, with its open period.
type books struct {
	id, period, year string
}

func newCompany(a *api, name string) books {
	c := a.must("POST", "/api/v1/companies", map[string]any{"name": name, "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": true}, 201)
	id := str(c, "data", "id")
	p := a.must("GET", "/api/v1/companies/"+id+"/fiscal-periods", nil, 200)
	fp := p["data"].(map[string]any)["fiscal_periods"].([]any)[0].(map[string]any)
	return books{id: id, period: fp["id"].(string), year: fp["period_start"].(string)[:4]}
}

// post creates and commits one sale in b.
func (a *api) post(b books, day int) bool {
	body := map[string]any{"fiscal_period_id": b.period, "entry_date": fmt.Sprintf("%s-%02d-%02d", b.year, 1+day%12, 1+day%28),
		"description": "Kontantförsäljning", "lines": []map[string]any{
			{"account_number": "1930", "debit_amount": 1250}, {"account_number": "3001", "credit_amount": 1000},
			{"account_number": "2611", "credit_amount": 250}}}
	status, out := a.call("POST", "/api/v1/companies/"+b.id+"/journal-entries", body)
	if status != 201 {
		a.t.Errorf("create: %d %v", status, out)
		return false
	}
	status, out = a.call("POST", "/api/v1/companies/"+b.id+"/journal-entries/"+str(out, "data", "id")+"/commit", nil)
	if status != 200 {
		a.t.Errorf("commit: %d %v", status, out)
		return false
	}
	return true
}

// rate runs work from clients goroutines for duration and answers how many
// units of work per second finished, and the median time of one.
func rate(clients int, work func(client, i int) bool) (float64, time.Duration) {
	deadline := time.Now().Add(duration)
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				start := time.Now()
				if !work(c, i) {
					return
				}
				mine = append(mine, time.Since(start))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	p50 := time.Duration(0)
	if len(lat) > 0 {
		p50 = lat[len(lat)/2]
	}
	return float64(n.Load()) / duration.Seconds(), p50
}

func benchServer(t *testing.T, d *store.DB) *api {
	s, err := httpapi.New(httpapi.Config{DB: d, Log: zap.NewNop(), BaseURL: "http://bench", PIIKey: []byte("bench-pii-key-bench-pii-key-1234"),
		Secret: []byte("bench-secret-bench-secret-bench!!")})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	ctx, stop := context.WithCancel(context.Background())
	go s.Work(ctx, 1)
	t.Cleanup(stop)
	token, _, err := auth.NewStore(d, audit.NewStore(d)).CreateKey(context.Background(), auth.NewKey{
		Email: "bench@example.se", Mode: auth.Live, Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
	if err != nil {
		t.Fatal(err)
	}
	return &api{t: t, url: ts.URL, token: token, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// TestBenchPosting measures verifikationer created and committed per
// second through the API (POST create + POST commit, each its own
// transaction), on one company and spread over eight, with 1, 8 and 32
// clients, beside PostgreSQL's own single-row INSERT-and-commit rate with
// as many clients in the same run.
func TestBenchPosting(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	companies := make([]books, 8)
	for i := range companies {
		companies[i] = newCompany(a, fmt.Sprintf("Bokför %d AB", i))
	}
	if _, err := owner.Exec(`CREATE TABLE bench_raw (id bigserial PRIMARY KEY, company_id uuid NOT NULL, note text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	raw := func(client, i int) bool {
		_, err := d.Exec(`INSERT INTO bench_raw (company_id, note) VALUES ($1, 'x')`, companies[client%8].id)
		if err != nil {
			t.Error(err)
		}
		return err == nil
	}
	type key struct{ clients, spread int }
	posts, rawRates := map[key][]float64{}, map[int][]float64{}
	p50s := map[key][]time.Duration{}
	for range rounds {
		for _, clients := range []int{1, 8, 32} {
			r, _ := rate(clients, raw)
			rawRates[clients] = append(rawRates[clients], r)
			for _, spread := range []int{1, 8} {
				r, p50 := rate(clients, func(client, i int) bool { return a.post(companies[client%spread], i) })
				posts[key{clients, spread}] = append(posts[key{clients, spread}], r)
				p50s[key{clients, spread}] = append(p50s[key{clients, spread}], p50)
			}
		}
	}
	med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	medD := func(xs []time.Duration) time.Duration { slices.Sort(xs); return xs[len(xs)/2] }
	fmt.Printf("\nVerifikationer created + committed over HTTP (2 requests, 2 transactions each), %v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %10s %12s %12s %16s %10s\n", "clients", "companies", "entries/s", "p50 entry", "raw INSERT/s", "vs raw")
	for _, clients := range []int{1, 8, 32} {
		rr := med(rawRates[clients])
		for _, spread := range []int{1, 8} {
			k := key{clients, spread}
			r := med(posts[k])
			fmt.Printf("%8d %10d %12.0f %12v %16.0f %10.3f\n", clients, spread, r, medD(p50s[k]).Round(time.Microsecond), rr, r/rr)
		}
	}
	var gaps int
	if err := d.Get(&gaps, `SELECT count(*) FROM (SELECT company_id, max(voucher_number) - count(*) AS gap
		FROM journal_entries WHERE status = 'posted' GROUP BY company_id) g WHERE gap <> 0`); err != nil || gaps != 0 {
		t.Fatalf("voucher numbers with gaps in %d companies (%v)", gaps, err)
	}
}

// generate writes n lines into b's period straight in SQL, ten lines an
// entry over 40 accounts and the whole year, posting each chunk as the
// ledger does (a draft, then the move to posted, so the triggers keep the
// general ledger and the balances).
func generate(t *testing.T, d *store.DB, b books, n int) {
	const perEntry, chunk = 10, 5000
	accounts := []string{}
	if err := d.Select(&accounts, `SELECT account_number FROM accounts WHERE company_id = $1 AND is_active
		AND account_number ~ '^[1-8]' ORDER BY account_number LIMIT 40`, b.id); err != nil || len(accounts) < 40 {
		t.Fatalf("accounts: %d %v", len(accounts), err)
	}
	// Two writers, each in its own voucher series, so both cores work.
	var wg sync.WaitGroup
	for w, series := range []string{"G", "H"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := w * chunk; done < n/perEntry; done += 2 * chunk {
				size := min(chunk, n/perEntry-done)
				if _, err := d.Exec(`
					WITH e AS (
						INSERT INTO journal_entries (company_id, fiscal_period_id, voucher_series, entry_date, description)
						SELECT $1, $2, $7, make_date($3, 1, 1) + ((g * 7) % 365), 'Genererad ' || g
						FROM generate_series($4::int, $4::int + $5 - 1) g RETURNING id, description)
					INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount, credit_amount)
					SELECT $1, e.id, k, ($6::text[])[1 + (abs(hashtext(e.description)) + k * 7) % 40],
						CASE WHEN k < 5 THEN 100 + k ELSE 0 END, CASE WHEN k >= 5 THEN 100 + k - 5 ELSE 0 END
					FROM e, generate_series(0, 9) k`,
					b.id, b.period, atoi(b.year), done, size, pq.Array(accounts), series); err != nil {
					t.Error(err)
					return
				}
				if _, err := d.Exec(`UPDATE journal_entries SET status = 'posted'
					WHERE company_id = $1 AND status = 'draft' AND voucher_series = $2`, b.id, series); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// latency calls path n times and answers the median and the slowest.
func (a *api) latency(path string, n int) (time.Duration, time.Duration) {
	var lat []time.Duration
	for range n {
		start := time.Now()
		a.must("GET", path, nil, 200)
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return lat[len(lat)/2], lat[len(lat)-1]
}

// TestBenchReports measures the trial balance, the general ledger and the
// journal register on a company with 1,000,000 journal lines, beside the
// same reports on a company with 1,000 lines and GET /api/v1/api-key, in
// the same run.
func TestBenchReports(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	lines := envInt("KONTERA_BENCH_LINES", 1_000_000)
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	big, small := newCompany(a, "Stor AB"), newCompany(a, "Liten AB")
	start := time.Now()
	generate(t, d, big, lines)
	gen := time.Since(start)
	generate(t, d, small, 1000)
	if _, err := owner.Exec(`VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	var count int
	_ = d.Get(&count, `SELECT count(*) FROM ledger_postings WHERE company_id = $1`, big.id)
	fmt.Printf("\nReports on %d posted lines (generated and posted in %v, then VACUUM ANALYZE); 30 calls each\n", count, gen.Round(time.Second))

	const n = 30
	base, _ := a.latency("/api/v1/api-key", n)
	type row struct {
		name, path string
	}
	report := func(b books, what string) string {
		return "/api/v1/companies/" + b.id + "/reports/" + what + "?period_id=" + b.period
	}
	// A page deep into the general ledger: follow the cursor 20 pages.
	deep := report(big, "general-ledger")
	for range 20 {
		out := a.must("GET", deep, nil, 200)
		next, _ := out["meta"].(map[string]any)["next_cursor"].(string)
		deep = report(big, "general-ledger") + "&cursor=" + next
	}
	var busiest string
	_ = d.Get(&busiest, `SELECT account_number FROM account_balances WHERE company_id = $1
		GROUP BY account_number ORDER BY sum(debit + credit) DESC LIMIT 1`, big.id)
	rows := []row{
		{"trial balance, 1k lines", report(small, "trial-balance")},
		{"trial balance, 1M lines", report(big, "trial-balance")},
		{"general ledger p1, 1k", report(small, "general-ledger")},
		{"general ledger p1, 1M", report(big, "general-ledger")},
		{"general ledger p21, 1M", deep},
		{"general ledger " + busiest + " only, 1M", report(big, "general-ledger") + "&account_from=" + busiest + "&account_to=" + busiest},
		{"journal register p1, 1M", report(big, "journal-register")},
	}
	fmt.Printf("%-34s %10s %10s %12s\n", "", "p50", "max", "p50/api-key")
	fmt.Printf("%-34s %10v %10s %12s\n", "GET /api/v1/api-key (baseline)", base.Round(time.Microsecond), "", "1.0")
	for _, r := range rows {
		p50, worst := a.latency(r.path, n)
		fmt.Printf("%-34s %10v %10v %12.1f\n", r.name, p50.Round(time.Microsecond), worst.Round(time.Microsecond),
			float64(p50)/float64(base))
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}
