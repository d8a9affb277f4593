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
	"github.com/jmoiron/sqlx"
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
	server *httpapi.Server
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
	if method != "GET" {
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
// units of work per second finished, and the median and 99th-percentile
// time of one.
func rate(clients int, work func(client, i int) bool) (float64, time.Duration, time.Duration) {
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
	if len(lat) == 0 {
		return 0, 0, 0
	}
	return float64(n.Load()) / duration.Seconds(), lat[len(lat)/2], lat[len(lat)*99/100]
}

func benchServer(t *testing.T, d *store.DB, opts ...func(*httpapi.Config)) *api {
	cfg := httpapi.Config{DB: d, Log: zap.NewNop(), BaseURL: "http://bench", PIIKey: []byte("bench-pii-key-bench-pii-key-1234"),
		Secret: []byte("bench-secret-bench-secret-bench!!")}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := httpapi.New(cfg)
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
	return &api{t: t, url: ts.URL, token: token, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
		server: s}
}

// gapless does in SQL, in one transaction and five round trips, the
// database work of one sale created and committed through the API: the
// draft entry, its three lines in one INSERT, and the move to posted that
// takes the next voucher number in the series (the ledger's own trigger,
// so the general ledger and the balances are kept as the API keeps them).
// It is the pgbench-style baseline of anchors.md g1/g2 on our schema.
func gapless(d *store.DB, b books, day int) error {
	tx, err := d.Beginx()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id string
	if err := tx.Get(&id, `INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description)
		VALUES ($1, $2, $3, 'Kontantförsäljning') RETURNING id`, b.id, b.period,
		fmt.Sprintf("%s-%02d-%02d", b.year, 1+day%12, 1+day%28)); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount, credit_amount)
		VALUES ($1, $2, 0, '1930', 1250, 0), ($1, $2, 1, '3001', 0, 1000), ($1, $2, 2, '2611', 0, 250)`, b.id, id); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE journal_entries SET status = 'posted', posted_by_type = 'system', posted_by_label = 'bench'
		WHERE company_id = $1 AND id = $2`, b.id, id); err != nil {
		return err
	}
	return tx.Commit()
}

// bareSchema creates the bare gapless schema of anchors §2 (no triggers,
// no derived tables): the ceiling the issue holds the API's posting to.
// It lives in its own schema of the bench database, with series for
// companies companies.
func bareSchema(owner *store.DB, companies int) {
	owner.MustExec(`CREATE SCHEMA bare`)
	owner.MustExec(`CREATE TABLE bare.voucher_series (company_id int, series text, next_number int NOT NULL,
		PRIMARY KEY (company_id, series))`)
	owner.MustExec(`CREATE TABLE bare.journal_entry (id bigserial PRIMARY KEY, company_id int NOT NULL, series text NOT NULL,
		voucher_number int NOT NULL, entry_date date NOT NULL, description text, UNIQUE (company_id, series, voucher_number))`)
	owner.MustExec(`CREATE TABLE bare.journal_line (id bigserial PRIMARY KEY, entry_id bigint NOT NULL REFERENCES bare.journal_entry,
		company_id int NOT NULL, account text NOT NULL, debit numeric(18,2) NOT NULL, credit numeric(18,2) NOT NULL)`)
	owner.MustExec(`CREATE INDEX ON bare.journal_line (entry_id)`)
	owner.MustExec(`INSERT INTO bare.voucher_series SELECT g, 'A', 1 FROM generate_series(1, $1) g`, companies)
}

// bareGapless is the anchors §2 gapless script (gapless_same.sql, or
// gapless_spread.sql over its companies) in one transaction: the
// counter, the entry, two lines.
func bareGapless(owner *store.DB, company, amount int) error {
	tx, err := owner.Beginx()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var vno int
	if err := tx.Get(&vno, `UPDATE bare.voucher_series SET next_number = next_number + 1 WHERE company_id = $1 AND series = 'A'
		RETURNING next_number - 1`, company); err != nil {
		return err
	}
	var id int64
	if err := tx.Get(&id, `INSERT INTO bare.journal_entry (company_id, series, voucher_number, entry_date, description)
		VALUES ($1, 'A', $2, current_date, 'bench') RETURNING id`, company, vno); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO bare.journal_line (entry_id, company_id, account, debit, credit)
		VALUES ($1, $2, '1930', $3, 0), ($1, $2, '3001', 0, $3)`, id, company, amount); err != nil {
		return err
	}
	return tx.Commit()
}

// gaplessTwo is gapless in two transactions, as the API does it: the
// draft with its lines, then the move to posted. Its p99 is the floor of
// the API's on the same setup: the numbering serialises the second
// transaction, whoever sends it.
func gaplessTwo(d *store.DB, b books, day int) error {
	var id string
	err := d.InTx(context.Background(), func(ctx context.Context) error {
		q := d.Q(ctx)
		if err := q.GetContext(ctx, &id, `INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description)
			VALUES ($1, $2, $3, 'Kontantförsäljning') RETURNING id`, b.id, b.period,
			fmt.Sprintf("%s-%02d-%02d", b.year, 1+day%12, 1+day%28)); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, `INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount, credit_amount)
			VALUES ($1, $2, 0, '1930', 1250, 0), ($1, $2, 1, '3001', 0, 1000), ($1, $2, 2, '2611', 0, 250)`, b.id, id)
		return err
	})
	if err != nil {
		return err
	}
	return d.InTx(context.Background(), func(ctx context.Context) error {
		_, err := d.Q(ctx).ExecContext(ctx, `UPDATE journal_entries SET status = 'posted', posted_by_type = 'system',
			posted_by_label = 'bench' WHERE company_id = $1 AND id = $2`, b.id, id)
		return err
	})
}

// TestBenchPosting measures verifikationer created and committed per
// second through the API (POST create + POST commit, each its own
// transaction) on one voucher series with 1, 8 and 32 clients and spread
// over 100 companies with 8, beside the same gapless work done in SQL
// (gapless, one transaction; gaplessTwo, two) with as many clients in the
// same run. The
// API needs two transactions where the SQL needs one, so its goal is a
// share of half the SQL rate.
func TestBenchPosting(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	companies := make([]books, envInt("KONTERA_BENCH_COMPANIES", 100))
	for i := range companies {
		companies[i] = newCompany(a, fmt.Sprintf("Bokför %d AB", i))
	}
	// The SQL baseline writes its own companies, so both start from the
	// same empty series and neither waits on the other's rows.
	sqlCos := make([]books, len(companies))
	for i := range sqlCos {
		sqlCos[i] = newCompany(a, fmt.Sprintf("Baslinje %d AB", i))
	}
	bareSchema(owner, len(companies))
	settle(t, owner)
	type setup struct {
		clients, spread int
	}
	setups := []setup{{1, 1}, {8, 1}, {32, 1}, {8, len(companies)}}
	type figures struct{ rate, p50, p99 []float64 }
	api, sql, sql2, bare := map[setup]*figures{}, map[setup]*figures{}, map[setup]*figures{}, map[setup]*figures{}
	record := func(m map[setup]*figures, s setup, r float64, p50, p99 time.Duration) {
		if m[s] == nil {
			m[s] = &figures{}
		}
		m[s].rate = append(m[s].rate, r)
		m[s].p50 = append(m[s].p50, float64(p50))
		m[s].p99 = append(m[s].p99, float64(p99))
	}
	for range rounds {
		for _, s := range setups {
			// Each client keeps to its own company when spread, as the
			// pgbench spread script picks one per transaction.
			pick := func(cos []books, client, i int) books {
				if s.spread == 1 {
					return cos[0]
				}
				return cos[(client*7919+i)%s.spread]
			}
			r, p50, p99 := rate(s.clients, func(client, i int) bool {
				co := 1
				if s.spread > 1 {
					co = 1 + (client*7919+i)%s.spread
				}
				if err := bareGapless(owner, co, 1+i%100000); err != nil {
					t.Error(err)
					return false
				}
				return true
			})
			record(bare, s, r, p50, p99)
			r, p50, p99 = rate(s.clients, func(client, i int) bool {
				if err := gapless(d, pick(sqlCos, client, i), i); err != nil {
					t.Error(err)
					return false
				}
				return true
			})
			record(sql, s, r, p50, p99)
			r, p50, p99 = rate(s.clients, func(client, i int) bool {
				if err := gaplessTwo(d, pick(sqlCos, client, i), i); err != nil {
					t.Error(err)
					return false
				}
				return true
			})
			record(sql2, s, r, p50, p99)
			var profile func()
			if s == (setup{8, 1}) && api[s] == nil {
				profile = statementProfile(t, "API, one series, 8 clients")
			}
			r, p50, p99 = rate(s.clients, func(client, i int) bool { return a.post(pick(companies, client, i), i) })
			if profile != nil {
				profile()
			}
			record(api, s, r, p50, p99)
		}
	}
	med := func(xs []float64) float64 { xs = slices.Clone(xs); slices.Sort(xs); return xs[len(xs)/2] }
	ms := func(ns float64) string { return time.Duration(ns).Round(100 * time.Microsecond).String() }
	fmt.Printf("\nVerifikationer created + committed over HTTP (2 requests, 2 transactions) beside the same gapless work in SQL\n"+
		"(1 transaction, 5 round trips) and the bare gapless script of anchors §2 (1 transaction, no triggers); fsync on;\n"+
		"%v per run, median of %d rounds\n", duration, rounds)
	fmt.Printf("%8s %10s %8s %9s %9s %8s %9s %13s %12s %8s %13s\n", "clients", "companies", "API/s", "API p50", "API p99", "SQL/s",
		"SQL p99", "SQL-in-2 p99", "API/(SQL÷2)", "bare/s", "API/(bare÷2)")
	for _, s := range setups {
		ar, sr, br := med(api[s].rate), med(sql[s].rate), med(bare[s].rate)
		fmt.Printf("%8d %10d %8.0f %9s %9s %8.0f %9s %13s %12.2f %8.0f %13.2f\n", s.clients, s.spread, ar, ms(med(api[s].p50)),
			ms(med(api[s].p99)), sr, ms(med(sql[s].p99)), ms(med(sql2[s].p99)), ar/(sr/2), br, ar/(br/2))
	}
	fmt.Println("SQL-in-2: the same work in the API's two transactions (gaplessTwo); its p99 is the floor of the API's.")
	var gaps int
	if err := d.Get(&gaps, `SELECT count(*) FROM (SELECT company_id, max(voucher_number) - count(*) AS gap
		FROM journal_entries WHERE status = 'posted' GROUP BY company_id) g WHERE gap <> 0`); err != nil || gaps != 0 {
		t.Fatalf("voucher numbers with gaps in %d companies (%v)", gaps, err)
	}
	if err := owner.Get(&gaps, `SELECT count(*) FROM (SELECT company_id, max(voucher_number) - count(*) AS gap
		FROM bare.journal_entry GROUP BY company_id) g WHERE gap <> 0`); err != nil || gaps != 0 {
		t.Fatalf("bare voucher numbers with gaps in %d companies (%v)", gaps, err)
	}
}

// generate writes n lines into b's period straight in SQL, ten lines an
// entry over 40 accounts and the whole year, posting each chunk as the
// ledger does (a draft, then the move to posted, so the triggers keep the
// general ledger and the balances).
func generate(t *testing.T, d *store.DB, b books, n int) { generateOver(t, d, b, n, "account_number") }

// generateOver is generate over the 40 accounts first in order (an SQL
// expression over account_number).
func generateOver(t *testing.T, d *store.DB, b books, n int, order string) {
	// A hundred entries a statement: posting a draft updates its accounts'
	// month rows line by line, and in one statement their dead versions
	// pile up under every later line's balance check (5,000 a statement
	// took 158 s for 100,000 lines, 100 take 22 s).
	const perEntry, chunk = 10, 100
	accounts := []string{}
	if err := d.Select(&accounts, `SELECT account_number FROM accounts WHERE company_id = $1 AND is_active
		AND account_number ~ '^[1-8]' AND account_number !~ '^(2510|899)' ORDER BY `+order+` LIMIT 40`, b.id); err != nil || len(accounts) < 40 {
		t.Fatalf("accounts: %d %v", len(accounts), err)
	}
	// Two writers, each in its own voucher series, so both cores work. They
	// post one at a time: a chunk's posting updates the month balances of
	// the same 40 accounts in its own order, and two at once can deadlock.
	var wg sync.WaitGroup
	var posting sync.Mutex
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
				posting.Lock()
				_, err := d.Exec(`UPDATE journal_entries SET status = 'posted'
					WHERE company_id = $1 AND status = 'draft' AND voucher_series = $2`, b.id, series)
				posting.Unlock()
				if err != nil {
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
	settle(t, owner)
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

// statementProfile, with KONTERA_BENCH_STATEMENTS set (the bench's cluster
// then loads pg_stat_statements), starts counting the database's time per
// statement, triggers' statements included; the func it returns prints
// the 25 costliest. Lock waits count as time: a statement that queues for
// the voucher series shows it. Without the variable it returns nil.
func statementProfile(t *testing.T, what string) func() {
	if os.Getenv("KONTERA_BENCH_STATEMENTS") == "" {
		return nil
	}
	adm, err := sqlx.Open("postgres", pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adm.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.Exec(`SELECT pg_stat_statements_reset()`); err != nil {
		t.Fatal(err)
	}
	return func() {
		defer adm.Close()
		var rows []struct {
			Query string  `db:"q"`
			Calls int64   `db:"calls"`
			Total float64 `db:"total"`
			Mean  float64 `db:"mean"`
		}
		if err := adm.Select(&rows, `SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 100) AS q, calls,
				total_exec_time AS total, mean_exec_time AS mean
			FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25`); err != nil {
			t.Fatal(err)
		}
		fmt.Println("\nDatabase time per statement, " + what + " (pg_stat_statements, lock waits included):")
		for _, r := range rows {
			fmt.Printf("%8.0f ms %7d calls %7.3f ms  %s\n", r.Total, r.Calls, r.Mean, r.Query)
		}
	}
}

// settle lets the cluster finish what the set-up left it (the statistics
// and dead rows of some hundred thousand chart rows, their WAL) before the
// clock starts: otherwise autovacuum and a checkpoint run into the first
// measurements, the SQL baseline's as much as the API's.
func settle(t *testing.T, owner *store.DB) {
	if _, err := owner.Exec(`VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	pgtest.Checkpoint(t)
}
