//go:build ops

package ops

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
)

// token is the answer's consistency token, or 0 when it has none.
func (a answer) token(t *testing.T) standby.LSN {
	t.Helper()
	h := a.header.Get("X-Kontera-Consistency-Token")
	if h == "" {
		return 0
	}
	l, err := standby.ParseLSN(h)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// metric is the value of the series of /metrics named name (with its
// labels as written there), 0 when absent.
func (s *server) metric(name string) float64 {
	s.t.Helper()
	rec := httptest.NewRecorder()
	s.admin.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

func reads(target, reason string) string {
	return fmt.Sprintf(`kontera_replica_reads_total{reason=%q,target=%q}`, reason, target)
}

// The read replica of docs/scaling.md §3 on PostgreSQL's own streaming
// replication: a primary, a hot standby made with pg_basebackup -R, and
// Kontera serving through both.
//   - A report right after a posting, with the posting's token, holds it:
//     from the replica once it has replayed the commit, from the primary
//     when the replica cannot get there in time.
//   - Without the token, a replica behind may answer without the posting,
//     and then says so: its token is older than the posting's. A voucher
//     it does not have yet is not answered 404: the primary answers.
//   - The replica stopped in the middle of a run of reads and writes
//     loses no request, and takes reads again once it is back.
func TestReadReplica(t *testing.T) {
	dir := root(t)
	a := startCluster(t, filepath.Join(dir, "a"))
	a.migrate(t)
	sc, err := a.Cluster.Replicate(filepath.Join(dir, "b"), localpg.Options{Settings: []string{"hot_standby_feedback=on"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sc.Stop() })
	replicaApp, err := localpg.WithUser(sc.URL("kontera"), localpg.AppRole)
	if err != nil {
		t.Fatal(err)
	}
	super := open(t, sc.URL("kontera")) // pauses and resumes the replay

	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	k := serve(t, a, t.TempDir(), "", func(c *httpapi.Config) {
		r, err := store.OpenLazy(store.WithConnectTimeout(replicaApp, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		c.DB.SetReader(r)
		c.Standby = standby.New(c.DB, r, standby.Config{MaxWait: 2 * time.Second, MaxLag: time.Hour,
			Poll: 50 * time.Millisecond})
		c.Standby.Check(ctx)
		go c.Standby.Run(ctx)
		c.Webhooks.ListenURL = a.app // the feed numbers an event as it commits
	})

	made := k.ask("POST", "/api/v1/companies", map[string]any{"name": "Läsrepliken AB", "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": true})
	company := made.data()["id"].(string)
	go k.srv.DeliverWebhooks(ctx) // numbers the events of the feed
	base := "/api/v1/companies/" + company
	// Read back with the write's token: without it (and with Sticky off
	// here), a replica a moment behind may not have the company's year.
	periods := k.ask("GET", base+"/fiscal-periods", nil, "X-Kontera-Consistency-Token",
		made.header.Get("X-Kontera-Consistency-Token")).data()["fiscal_periods"].([]any)
	period := periods[0].(map[string]any)["id"].(string)
	year := periods[0].(map[string]any)["period_start"].(string)[:4]
	trial := base + "/reports/trial-balance?period_id=" + period

	// book books a cash sale through s and commits it: the commit's
	// answer.
	book := func(s *server, day string, amount int) answer {
		t.Helper()
		e := s.ask("POST", base+"/journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": year + "-" + day,
			"description": "Försäljning", "lines": []any{
				map[string]any{"account_number": "1930", "debit_amount": amount},
				map[string]any{"account_number": "3001", "credit_amount": amount}}})
		if e.status != 201 {
			t.Fatalf("create: %d %v", e.status, e.body)
		}
		c := s.ask("POST", base+"/journal-entries/"+e.data()["id"].(string)+"/commit", nil)
		if c.status != 200 {
			t.Fatalf("commit: %d %v", c.status, c.body)
		}
		return c
	}
	// post books through the server with the replica: both answers carry
	// a token, the commit's the later.
	post := func(day string, amount int) answer {
		t.Helper()
		c := book(k, day, amount)
		if c.token(t) == 0 {
			t.Fatalf("commit without a token: %v", c.header)
		}
		return c
	}
	// cash is the debit on 1930 in a trial balance.
	cash := func(tb answer) float64 {
		t.Helper()
		if tb.status != 200 {
			t.Fatalf("trial balance: %d %v", tb.status, tb.body)
		}
		for _, row := range tb.data()["rows"].([]any) {
			if r := row.(map[string]any); r["account"] == "1930" {
				var f float64
				fmt.Sscan(fmt.Sprint(r["period_debit"]), &f)
				return f
			}
		}
		return 0
	}

	// A report right after a posting, with its token: the replica waits
	// for the commit and answers with it.
	c1 := post("01-10", 1000)
	tb := k.ask("GET", trial, nil, "X-Kontera-Consistency-Token", c1.header.Get("X-Kontera-Consistency-Token"))
	if got := cash(tb); got != 1000 {
		t.Fatalf("with the token: cash %v, want 1000", got)
	}
	if tb.token(t) < c1.token(t) {
		t.Fatalf("the replica answered at %v, before the commit at %v", tb.token(t), c1.token(t))
	}
	if k.metric(reads("replica", "caught_up"))+k.metric(reads("replica", "waited")) < 1 {
		t.Fatal("the read with a token was not answered by the replica")
	}

	// The replica stops replaying: it falls behind.
	if _, err := super.Exec(`SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	c2 := post("01-11", 500)

	// Without the token the replica answers without the posting, and its
	// token says it is older than the posting.
	tb = k.ask("GET", trial, nil)
	if got := cash(tb); got != 1000 {
		t.Fatalf("without the token, replica paused: cash %v, want 1000 (the replica's books)", got)
	}
	if at := tb.token(t); at == 0 || at >= c2.token(t) {
		t.Fatalf("the replica's answer says it was read at %v; the posting is at %v", at, c2.token(t))
	}
	// The voucher it does not have is not denied: the primary answers.
	id := c2.data()["id"].(string)
	if v := k.ask("GET", base+"/journal-entries/"+id, nil); v.status != 200 || v.token(t) != 0 {
		t.Fatalf("the new voucher from a replica behind: %d token %v %v", v.status, v.token(t), v.body)
	}
	if k.metric(reads("primary", "replica_refused")) < 1 {
		t.Fatal("the replica's 404 was not taken to the primary")
	}
	// Nor is the feed read after the posting's event told that event is
	// no longer kept, as if the replica's not having it yet meant that.
	var last string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if err := k.db.Get(&last, `SELECT coalesce((SELECT id::text FROM events WHERE company_id = $1 AND feed_seq IS NOT NULL
			AND type = 'journal_entry.committed' ORDER BY feed_seq DESC LIMIT 1), '')`, company); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := k.db.Get(&n, `SELECT count(*) FROM events WHERE company_id = $1 AND feed_seq IS NOT NULL
			AND type = 'journal_entry.committed'`, company); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the posting's event was not numbered in the feed")
		}
	}
	refused := k.metric(reads("primary", "replica_refused"))
	feed := k.ask("GET", base+"/events?after="+last, nil)
	if feed.status != 200 || feed.body["meta"].(map[string]any)["warnings"] != nil {
		t.Fatalf("the feed after an event the replica has not replayed: %d %v", feed.status, feed.body)
	}
	if k.metric(reads("primary", "replica_refused")) != refused+1 {
		t.Fatal("the feed after an event the replica lacks was not answered by the primary")
	}

	// With the token, the replica cannot get there: after the wait, the
	// primary answers, with the posting and without a replica's token.
	timeouts := k.metric(reads("primary", "wait_timeout"))
	tb = k.ask("GET", trial, nil, "X-Kontera-Consistency-Token", c2.header.Get("X-Kontera-Consistency-Token"))
	if got := cash(tb); got != 1500 || tb.token(t) != 0 {
		t.Fatalf("with the token, replica paused: cash %v (want 1500), token %v", got, tb.token(t))
	}
	if k.metric(reads("primary", "wait_timeout")) != timeouts+1 {
		t.Fatal("the wait's end is not counted")
	}

	// A token beyond anything the primary wrote is not waited for.
	ahead := k.metric(reads("primary", "token_ahead"))
	if got := cash(k.ask("GET", trial, nil, "X-Kontera-Consistency-Token", "FFFFFFFF/0")); got != 1500 ||
		k.metric(reads("primary", "token_ahead")) != ahead+1 {
		t.Fatalf("a token ahead of the primary: cash %v", got)
	}

	// Replaying again, the replica answers the same read with the posting.
	if _, err := super.Exec(`SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	tb = k.ask("GET", trial, nil, "X-Kontera-Consistency-Token", c2.header.Get("X-Kontera-Consistency-Token"))
	if got := cash(tb); got != 1500 || tb.token(t) < c2.token(t) {
		t.Fatalf("replaying again: cash %v, token %v", got, tb.token(t))
	}

	// A run of reads and writes; the replica is stopped in the middle of
	// it and started again. No request is lost.
	var failed atomic.Int64
	var answered atomic.Int64
	var wg sync.WaitGroup
	run, end := context.WithCancel(ctx)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{trial, base + "/journal-entries?limit=5", base + "/reports/general-ledger?period_id=" + period}
			for n := 0; run.Err() == nil; n++ {
				a := k.ask("GET", paths[(i+n)%len(paths)], nil)
				answered.Add(1)
				if a.status != 200 {
					failed.Add(1)
					t.Errorf("a read during the run: %d %v", a.status, a.body)
				}
			}
		}()
	}
	posted := 0
	for day := 12; day <= 27; day++ {
		if day == 16 {
			if err := sc.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		if day == 22 {
			if _, err := localpg.Start(sc.Dir, localpg.Options{Settings: []string{"hot_standby_feedback=on"}}); err != nil {
				t.Fatal(err)
			}
		}
		post(fmt.Sprintf("01-%02d", day), 100)
		posted++
	}
	// The replica back, reads go to it again.
	back := k.metric(reads("replica", "no_token"))
	for deadline := time.Now().Add(time.Minute); k.metric(reads("replica", "no_token")) <= back+5; {
		if time.Now().After(deadline) {
			t.Fatal("reads did not go back to the replica once it was started again")
		}
		time.Sleep(50 * time.Millisecond)
	}
	end()
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d reads failed while the replica stopped", failed.Load(), answered.Load())
	}
	if k.metric(reads("primary", "replica_down"))+k.metric(reads("primary", "replica_failed")) < 1 {
		t.Fatal("no read was taken to the primary while the replica was stopped")
	}
	tb = k.ask("GET", trial, nil, "X-Kontera-Consistency-Token", post("01-28", 100).header.Get("X-Kontera-Consistency-Token"))
	if got, want := cash(tb), 1500+float64(posted+1)*100; got != want {
		t.Fatalf("after the run: cash %v, want %v", got, want)
	}

	// The statement budgets hold on the standby: a read takes there the
	// statements it takes on the primary alone, and only its key's
	// look-up on the primary; a write takes one more, its commit's
	// position (a verifikat is two: its create and its commit). Each is
	// counted the second time, its statements prepared.
	alone, onPrimary, onReplica := &pgtest.Counter{}, &pgtest.Counter{}, &pgtest.Counter{}
	single := serve(t, a, t.TempDir(), k.token, func(c *httpapi.Config) { c.DB = pgtest.OpenCounted(t, a.app, alone) })
	paired := serve(t, a, t.TempDir(), k.token, func(c *httpapi.Config) {
		c.DB = pgtest.OpenCounted(t, a.app, onPrimary)
		r := pgtest.OpenCounted(t, replicaApp, onReplica)
		c.DB.SetReader(r)
		// Looked at once, so that its own statements are not counted.
		c.Standby = standby.New(c.DB, r, standby.Config{Poll: time.Hour})
		c.Standby.Check(ctx)
	})
	counted := func(do func(s *server)) (one, primary, replica int64) {
		t.Helper()
		for range 2 {
			n := alone.N()
			do(single)
			one = alone.N() - n
			p, r := onPrimary.N(), onReplica.N()
			do(paired)
			primary, replica = onPrimary.N()-p, onReplica.N()-r
		}
		return one, primary, replica
	}
	one, p, r := counted(func(s *server) { cash(s.ask("GET", trial, nil)) })
	if p != 1 || p+r != one {
		t.Fatalf("a trial balance: %d statements on the primary alone; beside the standby %d on the primary, %d on the standby", one, p, r)
	}
	t.Logf("a trial balance: %d statements on the primary alone; beside the standby %d on the primary, %d on the standby", one, p, r)
	one, p, r = counted(func(s *server) { book(s, "02-01", 10) })
	if r != 0 || p != one+2 {
		t.Fatalf("a verifikat: %d statements on the primary alone; beside the standby %d on the primary, %d on the standby", one, p, r)
	}
	t.Logf("a verifikat created and committed: %d statements on the primary alone, %d beside the standby", one, p)
	t.Logf("%d reads during the run, none lost; %v on the replica, %v on the primary while it was down",
		answered.Load(), k.metric(reads("replica", "no_token")), k.metric(reads("primary", "replica_down"))+k.metric(reads("primary", "replica_failed")))
}
