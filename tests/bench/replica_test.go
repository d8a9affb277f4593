package bench

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
)

// replicaPair is a primary and its hot standby (pg_basebackup -R), both
// durable (fsync on), with Kontera's schema: the application role's pools
// on each and the owner's on the primary.
type replicaPair struct {
	primary, replica, owner *store.DB
}

func startReplicaPair(t *testing.T) replicaPair {
	t.Helper()
	dir, err := os.MkdirTemp("", "kbr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user runs the clusters
		t.Fatal(err)
	}
	o := localpg.Options{Throwaway: true, Durable: true, Install: true}
	p, err := localpg.Start(filepath.Join(dir, "p"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Destroy() })
	ctx := context.Background()
	if err := localpg.EnsureRoles(ctx, p.URL("postgres")); err != nil {
		t.Fatal(err)
	}
	admin, err := store.Open(ctx, p.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE kontera OWNER ` + localpg.OwnerRole); err != nil {
		t.Fatal(err)
	}
	url := func(c *localpg.Cluster, role string) string {
		u, err := localpg.WithUser(c.URL("kontera"), role)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	var pair replicaPair
	if pair.owner, err = store.Open(ctx, url(p, localpg.OwnerRole)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pair.owner.Close() })
	if _, err := db.Migrate(ctx, pair.owner.DB.DB); err != nil {
		t.Fatal(err)
	}
	o.Settings = []string{"hot_standby_feedback=on"}
	s, err := p.Replicate(filepath.Join(dir, "s"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Destroy() })
	if pair.primary, err = store.Open(ctx, url(p, localpg.AppRole)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pair.primary.Close() })
	if pair.replica, err = store.Open(ctx, url(s, localpg.AppRole)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pair.replica.Close() })
	return pair
}

// TestBenchReadReplica measures the trial balance on 1,000,000 lines
// under a posting load of 8 clients on one series: its requests per
// second served by the primary alone, and by the read replica beside it,
// in one run; and the posting rate alone and beside each report load.
// Primary, replica, server and clients share the machine's cores: the
// replica here takes the report's reads off the primary, not off the
// machine.
func TestBenchReadReplica(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	pair := startReplicaPair(t)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	pair.primary.SetReader(pair.replica)
	sb := standby.New(pair.primary, pair.replica, standby.Config{Sticky: standby.DefaultSticky}) // as the server runs it
	sb.Check(ctx)
	go sb.Run(ctx)

	alone := benchServer(t, pair.primary)
	beside := benchServer(t, pair.primary, func(c *httpapi.Config) { c.Standby = sb })
	// The reports come from a key of their own: a key's reads wait for
	// its own writes on the replica, and the readers wrote nothing.
	readers := func(a *api) *api {
		token, _, err := auth.NewStore(pair.primary, audit.NewStore(pair.primary)).CreateKey(ctx, auth.NewKey{
			Email: "bench@example.se", Name: "reports", Mode: auth.Live, Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
		if err != nil {
			t.Fatal(err)
		}
		r := *a
		r.token = token
		return &r
	}
	aloneReads, besideReads := readers(alone), readers(beside)

	lines := envInt("KONTERA_BENCH_LINES", 1_000_000)
	big, posting := newCompany(alone, "Stor AB"), newCompany(alone, "Bokför AB")
	generate(t, pair.primary, big, lines)
	settle(t, pair.owner)
	caughtUp(t, pair)
	trial := "/api/v1/companies/" + big.id + "/reports/trial-balance?period_id=" + big.period

	const posters, reporters = 8, 4
	post := func(a *api) func(int, int) bool {
		return func(client, i int) bool { return a.post(posting, i) }
	}
	report := func(a *api) func(int, int) bool {
		return func(int, int) bool { return a.must("GET", trial, nil, 200) != nil }
	}
	// together runs the posting and the reports side by side.
	together := func(p, r func(int, int) bool) (posted, reported float64) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); reported, _, _ = rate(reporters, r) }()
		posted, _, _ = rate(posters, p)
		wg.Wait()
		return posted, reported
	}
	onReplica := func() float64 {
		return metric(t, beside, `kontera_replica_reads_total{reason="no_token",target="replica"}`)
	}
	var p0, p1, p2, r0, r1, r2, served []float64
	var lag time.Duration
	for range rounds {
		r, _, _ := rate(reporters, report(aloneReads))
		r0 = append(r0, r)
		r, _, _ = rate(posters, post(alone))
		p0 = append(p0, r)
		p, r := together(post(alone), report(aloneReads))
		p1, r1 = append(p1, p), append(r1, r)
		before := onReplica()
		p, r = together(post(beside), report(besideReads))
		p2, r2 = append(p2, p), append(r2, r)
		served = append(served, (onReplica()-before)/(r*duration.Seconds()))
		if _, l := sb.State(); l > lag {
			lag = l
		}
		caughtUp(t, pair)
	}
	fmt.Printf("\nRead replica: the trial balance on %d lines (4 clients) beside postings (8 clients, one series); fsync on;\n"+
		"primary, streaming replica, server and clients on one machine; %v per run, median of %d rounds\n", lines, duration, rounds)
	fmt.Printf("%-56s %10s %8s\n", "", "per second", "ratio")
	fmt.Printf("%-56s %10.1f %8s\n", "trial balance alone, from the primary", med(r0), "")
	fmt.Printf("%-56s %10.1f %8s\n", "trial balance under the posting load, from the primary", med(r1), "1.00")
	fmt.Printf("%-56s %10.1f %8.2f\n", "trial balance under the posting load, from the replica", med(r2), med(r2)/med(r1))
	fmt.Printf("%-56s %10.1f %8s\n", "postings alone", med(p0), "1.00")
	fmt.Printf("%-56s %10.1f %8.2f\n", "postings beside the reports on the primary", med(p1), med(p1)/med(p0))
	fmt.Printf("%-56s %10.1f %8.2f\n", "postings beside the reports on the replica", med(p2), med(p2)/med(p0))
	fmt.Printf("reports the replica answered: %.0f %%; its lag at the end of a run, at most %v\n", 100*med(served), lag.Round(time.Millisecond))
	if med(served) < 0.99 {
		t.Errorf("the replica answered %.0f %% of the reports", 100*med(served))
	}
}

// caughtUp waits until the replica has replayed all the primary has
// written.
func caughtUp(t *testing.T, pair replicaPair) {
	t.Helper()
	var target string
	if err := pair.primary.Get(&target, `SELECT pg_current_wal_insert_lsn()::text`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var done bool
		if err := pair.replica.Get(&done, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, target); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not catch up in 5 minutes")
		}
	}
}

// metric is the value of one series of the server's /metrics.
func metric(t *testing.T, a *api, series string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	a.server.Admin().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	m := regexp.MustCompile(regexp.QuoteMeta(series) + ` (\S+)`).FindStringSubmatch(rec.Body.String())
	if m == nil {
		t.Fatalf("/metrics lacks %s", series)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}
