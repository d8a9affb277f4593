package webhooks

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// books are a company with a webhook for invoice.paid (to url) and one for
// customer.created, in a fresh database.
type books struct {
	db      *store.DB
	box     *seal.Box
	company uuid.UUID
	hook    uuid.UUID
}

func newBooks(t *testing.T, url string) books {
	t.Helper()
	d := pgtest.New(t)
	box, err := seal.New([]byte("webhook-test-key-webhook-test-k!"))
	if err != nil {
		t.Fatal(err)
	}
	b := books{db: d, box: box, hook: uuid.New()}
	var user uuid.UUID
	if err := d.Get(&user, `INSERT INTO users (email) VALUES ('agare@example.se') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&b.company, `INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end,
		created_by) VALUES ('Mottagaren AB', 'aktiebolag', '2026-01-01', '2026-12-31', $1) RETURNING id`, user); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		id  uuid.UUID
		typ string
	}{{b.hook, "invoice.paid"}, {uuid.New(), "customer.created"}} {
		sealed := box.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), SecretContext(b.company, h.id))
		if _, err := d.Exec(`INSERT INTO webhooks (company_id, id, name, event_type, webhook_url, secret_sealed,
			api_version_pinned) VALUES ($1, $2, 'Ekonomisystemet', $3, $4, $5, '2026-05-12')`,
			b.company, h.id, h.typ, url, sealed); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// claimOne leases the next due delivery (ClaimMany of one); nil when none
// is due.
func claimOne(ctx context.Context, s *Store, lease time.Duration, perWebhook int) (*Claimed, error) {
	out, err := s.ClaimMany(ctx, lease, perWebhook, 1)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// step makes one attempt as Run's senders do: the next due delivery
// leased, attempted, its outcome recorded; false when nothing was due.
func (w *Worker) step(ctx context.Context) (bool, error) {
	d, err := claimOne(ctx, w.Store, w.lease(), PerWebhook)
	if err != nil || d == nil {
		return false, err
	}
	r, judged := w.attempt(ctx, *d)
	if !judged {
		return true, w.release(ctx, *d)
	}
	return true, w.record(ctx, r)
}

func (b books) emit(t *testing.T, typ string) {
	t.Helper()
	if _, err := b.db.Exec(`INSERT INTO events (company_id, type, payload, api_version) VALUES ($1, $2, $3, '2026-05-12')`,
		b.company, typ, `{"invoice":{"id":"x"},"paymentAmount":12500}`); err != nil {
		t.Fatal(err)
	}
}

func (b books) dispatch(t *testing.T) (int, int) {
	t.Helper()
	var events, made int
	if err := b.db.InTx(context.Background(), func(ctx context.Context) error {
		var err error
		events, made, err = NewStore(b.db).Dispatch(ctx, 100)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return events, made
}

// An event reaches the webhook subscribed to its type once: a 500 is
// retried after the schedule's minute (moved in the database, never
// slept) with the same delivery id, then delivered; a 410 kills the
// delivery and disables the webhook, audited.
func TestWorkerDelivers(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	answers := []int{500, 200, 410}
	srv, client := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Get("X-Kontera-Delivery"))
		w.WriteHeader(answers[0])
		answers = answers[1:]
	}, ClientOptions{Guard: Guard{AllowLoopback: true}})
	b := newBooks(t, srv.URL+"/hook")
	b.emit(t, "invoice.paid")
	b.emit(t, "journal_entry.committed")
	if events, made := b.dispatch(t); events != 2 || made != 1 {
		t.Fatalf("dispatched %d events into %d deliveries", events, made)
	}
	if events, _ := b.dispatch(t); events != 0 {
		t.Fatal("an event was dispatched twice")
	}
	var seqs []int
	if err := b.db.Select(&seqs, `SELECT feed_seq FROM events WHERE company_id = $1 ORDER BY feed_seq`, b.company); err != nil ||
		len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Fatalf("feed numbers %v %v", seqs, err)
	}
	w := &Worker{Store: NewStore(b.db), DB: b.db, Box: b.box, Client: client, Audit: audit.NewStore(b.db), Now: time.Now}
	ctx := context.Background()
	step := func() bool {
		t.Helper()
		did, err := w.step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return did
	}
	if !step() || step() {
		t.Fatal("one attempt, then nothing due")
	}
	var d Delivery
	if err := b.db.Get(&d, `SELECT * FROM webhook_deliveries WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if d.Status != Failed || d.Attempts != 1 || *d.ResponseStatus != 500 || d.NextAttemptAt.Sub(time.Now()) < 50*time.Second {
		t.Fatalf("after a 500: %+v", d)
	}
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, d.ID); err != nil {
		t.Fatal(err)
	}
	if !step() {
		t.Fatal("the retry was not due")
	}
	if err := b.db.Get(&d, `SELECT * FROM webhook_deliveries WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if d.Status != Delivered || d.Attempts != 2 || d.DeliveredAt == nil || len(seen) != 2 || seen[0] != d.ID.String() ||
		seen[1] != seen[0] {
		t.Fatalf("delivered: %+v, seen %v", d, seen)
	}

	b.emit(t, "invoice.paid")
	b.dispatch(t)
	step()
	var active bool
	var reason *string
	if err := b.db.QueryRow(`SELECT active, disabled_reason FROM webhooks WHERE id = $1`, b.hook).Scan(&active, &reason); err != nil ||
		active || reason == nil || *reason != "gone" {
		t.Fatalf("after a 410: active %v reason %v (%v)", active, reason, err)
	}
	var dead, audited int
	_ = b.db.Get(&dead, `SELECT count(*) FROM webhook_deliveries WHERE status = 'dead'`)
	_ = b.db.Get(&audited, `SELECT count(*) FROM audit_entries WHERE table_name = 'webhooks'`)
	if dead != 1 || audited != 1 {
		t.Fatalf("%d dead, %d audit rows", dead, audited)
	}
	// A disabled webhook gets no new deliveries.
	b.emit(t, "invoice.paid")
	if _, made := b.dispatch(t); made != 0 {
		t.Fatal("a disabled webhook was given a delivery")
	}
	// Deleted, its history stays, the webhook named by nothing.
	if _, err := b.db.Exec(`DELETE FROM webhooks WHERE id = $1`, b.hook); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := b.db.Get(&kept, `SELECT count(*) FROM webhook_deliveries WHERE webhook_id IS NULL`); err != nil || kept != 2 {
		t.Fatalf("%d deliveries kept (%v)", kept, err)
	}
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET payload = '{}'`); err == nil {
		t.Fatal("a delivery's payload was changed")
	}
}

// DNS rebinding: a host that resolves to a public address when it is
// registered and to 127.0.0.1 when it is delivered to. The address
// actually dialled is refused (the loopback flag off), the receiver is
// never reached, the delivery ends dead and the webhook is disabled.
func TestRebindingIsRefusedAtDial(t *testing.T) {
	reached := false
	srv, _ := receiver(t, func(http.ResponseWriter, *http.Request) { reached = true }, ClientOptions{Guard: Guard{AllowLoopback: true}})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	url := "https://hooks.example.se:" + port + "/kontera"
	if err := (Guard{Resolver: resolver{"93.184.216.34"}}).CheckURL(context.Background(), url); err != nil {
		t.Fatalf("registration: %v", err)
	}
	client, err := NewClient(ClientOptions{Guard: Guard{}, Resolve: func(context.Context, string) ([]string, error) {
		return []string{"127.0.0.1"}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	b := newBooks(t, url)
	b.emit(t, "invoice.paid")
	b.dispatch(t)
	w := &Worker{Store: NewStore(b.db), DB: b.db, Box: b.box, Client: client, Audit: audit.NewStore(b.db), Now: time.Now}
	if did, err := w.step(context.Background()); !did || err != nil {
		t.Fatalf("step: %v %v", did, err)
	}
	var d Delivery
	if err := b.db.Get(&d, `SELECT * FROM webhook_deliveries WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	var reason *string
	if err := b.db.Get(&reason, `SELECT disabled_reason FROM webhooks WHERE id = $1`, b.hook); err != nil {
		t.Fatal(err)
	}
	// The tenant reads "connection failed", never the address dialled.
	if reached || d.Status != Dead || d.Error == nil || *d.Error != ConnectionFailed || reason == nil ||
		*reason != "blocked_address" {
		t.Fatalf("reached %v, delivery %s %v, webhook disabled for %v", reached, d.Status, d.Error, reason)
	}
}

// A secret sealed under another key (the key was changed) fails the
// attempt without a request: the schedule runs on, nothing loops.
func TestUnreadableSecretFailsTheAttempt(t *testing.T) {
	reached := false
	srv, client := receiver(t, func(http.ResponseWriter, *http.Request) { reached = true }, ClientOptions{Guard: Guard{AllowLoopback: true}})
	b := newBooks(t, srv.URL+"/hook")
	other, err := seal.New([]byte("another-key-another-key-another!"))
	if err != nil {
		t.Fatal(err)
	}
	b.emit(t, "invoice.paid")
	b.dispatch(t)
	w := &Worker{Store: NewStore(b.db), DB: b.db, Box: other, Client: client, Audit: audit.NewStore(b.db), Now: time.Now}
	if did, err := w.step(context.Background()); !did || err != nil {
		t.Fatalf("step: %v %v", did, err)
	}
	var d Delivery
	if err := b.db.Get(&d, `SELECT * FROM webhook_deliveries WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if reached || d.Status != Failed || d.Attempts != 1 || d.Error == nil || !strings.Contains(*d.Error, "secret") {
		t.Fatalf("reached %v; delivery %s, %d attempts, %v", reached, d.Status, d.Attempts, d.Error)
	}
}

// The cap on one webhook's attempts in flight holds while another
// worker's claim is still uncommitted: that worker holds the webhook,
// so a second claim made meanwhile takes another webhook's delivery, not
// the held one's next, which a count on its own snapshot would allow.
func TestClaimsRespectTheCapTogether(t *testing.T) {
	b := newBooks(t, "https://mottagaren.example.se/hook")
	b.emit(t, "invoice.paid")
	b.emit(t, "invoice.paid")
	b.emit(t, "customer.created")
	if _, made := b.dispatch(t); made != 3 {
		t.Fatalf("%d deliveries", made)
	}
	// The held webhook's deliveries are the first due.
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 minute'
		WHERE webhook_id = $1`, b.hook); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := NewStore(b.db)
	hookOf := func(c *Claimed) string {
		if c == nil {
			return "nothing"
		}
		if *c.WebhookID == b.hook {
			return "invoice.paid"
		}
		return "customer.created"
	}
	claim := func(per int) string {
		t.Helper()
		c, err := claimOne(ctx, s, time.Minute, per)
		if err != nil {
			t.Fatal(err)
		}
		return hookOf(c)
	}

	tx, err := b.db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var held uuid.UUID
	if err := tx.Get(&held, `SELECT webhook_id FROM webhook_claim_many($1, '1 minute', 1, 8, 1)`, uuid.New()); err != nil ||
		held != b.hook {
		t.Fatalf("the first claim took %v (%v)", held, err)
	}
	if got := claim(1); got != "customer.created" {
		t.Fatalf("beside an uncommitted claim, a second took %s", got)
	}
	if got := claim(1); got != "nothing" {
		t.Fatalf("a third took %s", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := claim(1); got != "nothing" {
		t.Fatalf("at the cap of one, a claim took %s", got)
	}
	if got := claim(2); got != "invoice.paid" {
		t.Fatalf("under a cap of two, a claim took %s", got)
	}
}

// A claim of many takes each webhook's room under the cap and no more,
// leases run out first, in one statement: three due deliveries of one
// webhook and one of another, with a cap of two, lease three; the next
// claim finds the first webhook full and the other drained.
func TestClaimManyFillsEachWebhooksRoom(t *testing.T) {
	b := newBooks(t, "https://mottagaren.example.se/hook")
	for range 3 {
		b.emit(t, "invoice.paid")
	}
	b.emit(t, "customer.created")
	if _, made := b.dispatch(t); made != 4 {
		t.Fatalf("%d deliveries", made)
	}
	// One of the first webhook's deliveries was in flight on a replica
	// that died: its lease ran out, so it goes first.
	var expired uuid.UUID
	if err := b.db.Get(&expired, `UPDATE webhook_deliveries SET status = 'in_flight', attempts = 1, lease_token = gen_random_uuid(),
		lease_until = now() - interval '1 second' WHERE id = (SELECT id FROM webhook_deliveries WHERE webhook_id = $1
		ORDER BY created_at DESC LIMIT 1) RETURNING id`, b.hook); err != nil {
		t.Fatal(err)
	}
	s := NewStore(b.db)
	got, err := s.ClaimMany(context.Background(), time.Minute, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	per := map[bool]int{}
	var tokens = map[uuid.UUID]bool{}
	var took bool
	for _, c := range got {
		per[*c.WebhookID == b.hook]++
		tokens[*c.LeaseToken] = true
		if c.ID == expired {
			took = c.Attempts == 2
		}
	}
	if len(got) != 3 || per[true] != 2 || per[false] != 1 || !took || len(tokens) != 1 {
		t.Fatalf("claimed %d (%v), the expired one again as attempt 2: %v, tokens %d", len(got), per, took, len(tokens))
	}
	if again, err := s.ClaimMany(context.Background(), time.Minute, 2, 10); err != nil || len(again) != 0 {
		t.Fatalf("a second claim took %d (%v)", len(again), err)
	}
	ours, err := s.RecordMany(context.Background(), []Result{
		{Delivery: got[0], Outcome: Outcome{State: Delivered}, Attempt: Attempt{Status: 200}, Next: time.Now()},
		{Delivery: Claimed{Delivery: Delivery{CompanyID: b.company, ID: got[1].ID, LeaseToken: &expired}},
			Outcome: Outcome{State: Delivered}, Next: time.Now()},
	})
	if err != nil || !ours[0] || ours[1] {
		t.Fatalf("recorded %v (%v): the second's lease is not its own", ours, err)
	}
	var states []string
	if err := b.db.Select(&states, `SELECT status FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id = $2 DESC`,
		pq.Array([]uuid.UUID{got[0].ID, got[1].ID}), got[0].ID); err != nil || len(states) != 2 ||
		states[0] != "delivered" || states[1] != "in_flight" {
		t.Fatalf("states %v %v", states, err)
	}
}

// Run delivers every event once, on a few senders, through batches of
// claims and records, and stops when its context ends.
func TestRunDeliversEverything(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv, client := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("X-Kontera-Delivery")]++
		mu.Unlock()
		w.WriteHeader(204)
	}, ClientOptions{Guard: Guard{AllowLoopback: true}})
	b := newBooks(t, srv.URL+"/hook")
	const n = 40
	for range n {
		b.emit(t, "invoice.paid")
	}
	if _, made := b.dispatch(t); made != n {
		t.Fatalf("%d deliveries", made)
	}
	w := &Worker{Store: NewStore(b.db), DB: b.db, Box: b.box, Client: client, Audit: audit.NewStore(b.db), Now: time.Now}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	never := make(chan struct{})
	go func() { w.Run(ctx, 4, func() <-chan struct{} { return never }, time.Hour); close(done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		var left int
		if err := b.db.Get(&left, `SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'`); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries left", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Fatalf("%d deliveries reached the receiver", len(seen))
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("delivery %s arrived %d times", id, k)
		}
	}
}
