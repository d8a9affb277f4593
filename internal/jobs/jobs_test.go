package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func setup(t *testing.T) (*store.DB, *jobs.Store, uuid.UUID) {
	t.Helper()
	d := pgtest.New(t)
	var company uuid.UUID
	if err := d.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`); err != nil {
		t.Fatal(err)
	}
	return d, jobs.NewStore(d), company
}

func enqueue(t *testing.T, d *store.DB, s *jobs.Store, company uuid.UUID, typ string) jobs.Operation {
	t.Helper()
	var o jobs.Operation
	id := uuid.New()
	ctx := audit.WithActor(context.Background(), audit.Actor{Type: "api_key", ID: &id, Label: "key"})
	if err := d.InTx(ctx, func(ctx context.Context) error {
		var err error
		o, err = s.Enqueue(ctx, company, typ, map[string]any{"n": 1})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if o.Status != jobs.Queued || o.StartedAt != nil {
		t.Fatalf("queued: %+v", o)
	}
	return o
}

// A run's work and its success commit together; the actor who asked is
// the actor of the run.
func TestSuccess(t *testing.T) {
	d, s, company := setup(t)
	o := enqueue(t, d, s, company, "test.ok")
	w := jobs.NewWorker(s, nil)
	w.Handle("test.ok", func(ctx context.Context, run *jobs.Run) (any, error) {
		if a := audit.ActorFrom(ctx); a.Label != "key" {
			t.Errorf("actor %+v", a)
		}
		run.Report(jobs.Progress{Phase: "one", Current: 1, Total: 1})
		_, err := d.Q(ctx).ExecContext(ctx, `UPDATE companies SET name = 'Ran AB' WHERE id = $1`, run.CompanyID)
		return map[string]any{"done": true}, err
	})
	if did, err := w.Once(context.Background()); !did || err != nil {
		t.Fatal(did, err)
	}
	got, err := s.Get(context.Background(), o.ID)
	if err != nil || got.Status != jobs.Succeeded || got.CompletedAt == nil || got.Attempts != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	w2 := jobs.Wire(got)
	if r, err := w2.Result.Get(); err != nil || r["done"] != true {
		t.Fatalf("result %+v", w2.Result)
	}
	if p, err := w2.Progress.Get(); err != nil || p.Phase != "one" {
		t.Fatalf("progress %+v", w2.Progress)
	}
	var name string
	_ = d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company)
	if name != "Ran AB" {
		t.Fatal("the run's work did not commit")
	}
	if did, err := w.Once(context.Background()); did || err != nil {
		t.Fatal("a finished operation ran again", err)
	}
}

// A catalogue error fails the operation at once and undoes its work; any
// other error is retried, and fails after the last attempt.
func TestFailures(t *testing.T) {
	d, s, company := setup(t)
	bad := enqueue(t, d, s, company, "test.refused")
	w := jobs.NewWorker(s, nil)
	w.Handle("test.refused", func(ctx context.Context, run *jobs.Run) (any, error) {
		if _, err := d.Q(ctx).ExecContext(ctx, `UPDATE companies SET name = 'Half AB' WHERE id = $1`, run.CompanyID); err != nil {
			return nil, err
		}
		return nil, apierr.New(apierr.YearEndNoActivity, map[string]any{"fiscal_period_id": "x"})
	})
	if _, err := w.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(context.Background(), bad.ID)
	var f map[string]any
	_ = json.Unmarshal(got.Error, &f)
	if got.Status != jobs.Failed || f["code"] != "YEAR_END_NO_ACTIVITY" || got.Result != nil {
		t.Fatalf("%+v %s", got, got.Error)
	}
	var name string
	_ = d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company)
	if name != "X AB" {
		t.Fatal("a failed run left its work behind")
	}

	flaky := enqueue(t, d, s, company, "test.flaky")
	tries := 0
	w.Handle("test.flaky", func(ctx context.Context, run *jobs.Run) (any, error) {
		tries++
		return nil, errors.New("connection reset")
	})
	w.MaxAttempts = 2
	for range 2 {
		if _, err := w.Once(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Skip the back-off wait.
		d.MustExec(`UPDATE operations SET lease_until = now() - interval '1 second' WHERE id = $1 AND status = 'running'`, flaky.ID)
	}
	got, _ = s.Get(context.Background(), flaky.ID)
	_ = json.Unmarshal(got.Error, &f)
	if tries != 2 || got.Status != jobs.Failed || got.Attempts != 2 || f["code"] != "INTERNAL_ERROR" {
		t.Fatalf("tries %d: %+v %s", tries, got, got.Error)
	}
}

// A worker that died leaves its operation running under a lease; once the
// lease runs out, another worker takes it over, and the dead worker's
// late finish changes nothing.
func TestTakeOverAfterCrash(t *testing.T) {
	d, s, company := setup(t)
	o := enqueue(t, d, s, company, "test.slow")
	// The first worker claims the operation and "dies" (its lease ran out).
	d.MustExec(`UPDATE operations SET status = 'running', attempts = 1, started_at = now(),
		lease_until = now() - interval '1 second' WHERE id = $1`, o.ID)
	w := jobs.NewWorker(s, nil)
	w.Lease = time.Second
	w.Handle("test.slow", func(ctx context.Context, run *jobs.Run) (any, error) {
		if run.Attempts != 2 {
			t.Errorf("attempt %d", run.Attempts)
		}
		return map[string]any{"ok": true}, nil
	})
	if did, err := w.Once(context.Background()); !did || err != nil {
		t.Fatal(did, err)
	}
	got, _ := s.Get(context.Background(), o.ID)
	if got.Status != jobs.Succeeded || got.Attempts != 2 {
		t.Fatalf("%+v", got)
	}
}

// A worker that stops (SIGTERM) in the middle of a run hands the lease
// back: the work rolled back with its transaction, and another worker
// takes the operation over at once rather than after the lease.
func TestStoppingWorkerHandsBackItsLease(t *testing.T) {
	d, s, company := setup(t)
	o := enqueue(t, d, s, company, "test.long")
	started := make(chan struct{})
	w := jobs.NewWorker(s, nil)
	w.Lease = time.Hour
	w.Handle("test.long", func(ctx context.Context, run *jobs.Run) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx, 1); close(done) }()
	<-started
	stop()
	<-done
	got, _ := s.Get(context.Background(), o.ID)
	if got.Status != jobs.Running || got.LeaseUntil == nil || got.LeaseUntil.After(time.Now()) {
		t.Fatalf("after the stop: %+v", got)
	}
	other := jobs.NewWorker(s, nil)
	other.Handle("test.long", func(ctx context.Context, run *jobs.Run) (any, error) { return "done", nil })
	if did, err := other.Once(context.Background()); !did || err != nil {
		t.Fatal(did, err)
	}
	if got, _ := s.Get(context.Background(), o.ID); got.Status != jobs.Succeeded {
		t.Fatalf("taken over: %+v", got)
	}
}

// A stepped run commits each step with its progress; a step that fails
// for a passing reason is tried again from the last committed step, and a
// refused one fails the run through the type's own failure record.
func TestSteps(t *testing.T) {
	d, s, company := setup(t)
	o := enqueue(t, d, s, company, "test.steps")
	w := jobs.NewWorker(s, nil)
	calls, flaked := 0, false
	step := func(ctx context.Context, run *jobs.Run) (bool, any, error) {
		calls++
		var n int
		if err := d.Q(ctx).QueryRowxContext(ctx, `UPDATE companies SET name = 'Step ' || (coalesce(nullif(split_part(name, ' ', 2), 'AB'), '0')::int + 1)
			WHERE id = $1 RETURNING split_part(name, ' ', 2)::int`, run.CompanyID).Scan(&n); err != nil {
			return false, nil, err
		}
		if n == 2 && !flaked {
			flaked = true
			return false, nil, errors.New("connection reset")
		}
		run.Progress(jobs.Progress{Phase: "steps", Current: n, Total: 3})
		return n < 3, map[string]any{"steps": n}, nil
	}
	w.HandleSteps("test.steps", step, nil)
	if _, err := w.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	var name string
	_ = d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company)
	got, _ := s.Get(context.Background(), o.ID)
	if name != "Step 1" || got.Status != jobs.Running || !json.Valid(got.Progress) {
		t.Fatalf("after the passing failure: %q %+v", name, got)
	}
	d.MustExec(`UPDATE operations SET lease_until = now() - interval '1 second' WHERE id = $1`, o.ID)
	if _, err := w.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Get(context.Background(), o.ID)
	_ = d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company)
	if got.Status != jobs.Succeeded || name != "Step 3" || calls != 4 || string(got.Result) != `{"steps": 3}` {
		t.Fatalf("%q after %d calls: %+v %s", name, calls, got, got.Result)
	}

	refused := enqueue(t, d, s, company, "test.refused.steps")
	w.HandleSteps("test.refused.steps", func(ctx context.Context, run *jobs.Run) (bool, any, error) {
		return false, nil, apierr.New(apierr.YearEndNoActivity, nil)
	}, func(ctx context.Context, run *jobs.Run, f jobs.Failure) (jobs.Failure, error) {
		_, err := d.Q(ctx).ExecContext(ctx, `UPDATE companies SET name = 'Failed AB' WHERE id = $1`, run.CompanyID)
		f.Details = map[string]any{"seen": true}
		return f, err
	})
	if _, err := w.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Get(context.Background(), refused.ID)
	_ = d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company)
	var f map[string]any
	_ = json.Unmarshal(got.Error, &f)
	if got.Status != jobs.Failed || name != "Failed AB" || f["details"].(map[string]any)["seen"] != true {
		t.Fatalf("%q %+v %s", name, got, got.Error)
	}
}

// A failure whose details the database cannot store (a NUL in text), or
// whose runner cannot record it, still ends the operation: stored plainly,
// code and message without details, never claimed again.
func TestUnstorableFailureStillEnds(t *testing.T) {
	d, s, company := setup(t)
	w := jobs.NewWorker(s, nil)
	w.MaxAttempts = 1
	refused := func(ctx context.Context, run *jobs.Run) (bool, any, error) {
		return false, nil, apierr.New(apierr.ValidationError, map[string]any{"text": "a\x00b"})
	}
	recorded := 0
	w.HandleSteps("test.nul", refused, func(ctx context.Context, run *jobs.Run, f jobs.Failure) (jobs.Failure, error) {
		if _, ok := f.Details["text"]; ok {
			// What the runner stores of the detail fails as the database
			// refuses it.
			_, err := d.Q(ctx).ExecContext(ctx, `UPDATE companies SET name = $2 WHERE id = $1`, run.CompanyID, "a\x00b")
			return f, err
		}
		recorded++
		_, err := d.Q(ctx).ExecContext(ctx, `UPDATE companies SET name = 'Failed AB' WHERE id = $1`, run.CompanyID)
		return f, err
	})
	w.HandleSteps("test.broken", refused, func(ctx context.Context, run *jobs.Run, f jobs.Failure) (jobs.Failure, error) {
		return f, errors.New("the runner's record is broken")
	})
	for _, typ := range []string{"test.nul", "test.broken"} {
		o := enqueue(t, d, s, company, typ)
		if did, err := w.Once(context.Background()); !did || err != nil {
			t.Fatalf("%s: %v %v", typ, did, err)
		}
		got, err := s.Get(context.Background(), o.ID)
		if err != nil || got.Status != jobs.Failed || got.Attempts != 1 {
			t.Fatalf("%s: %+v %v", typ, got, err)
		}
		var f jobs.Failure
		if err := json.Unmarshal(got.Error, &f); err != nil || f.Code != "VALIDATION_ERROR" || f.Details != nil {
			t.Fatalf("%s: failure %s", typ, got.Error)
		}
		if did, err := w.Once(context.Background()); did || err != nil {
			t.Fatalf("%s: claimed again: %v %v", typ, did, err)
		}
	}
	var name string
	if err := d.Get(&name, `SELECT name FROM companies WHERE id = $1`, company); err != nil || name != "Failed AB" || recorded != 1 {
		t.Fatalf("the runner's plain record: %q %d %v", name, recorded, err)
	}
}

// A lease is held by one holder at a time: renewed by it, refused to
// another until handed back or run out.
func TestLease(t *testing.T) {
	d, s, _ := setup(t)
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	lease := func(holder uuid.UUID) bool {
		t.Helper()
		ok, err := s.Lease(ctx, "accrual_release", holder, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !lease(a) || lease(b) || !lease(a) {
		t.Fatal("a takes and renews the lease, b does not get it")
	}
	if err := s.Unlease(ctx, "accrual_release", b); err != nil || lease(b) {
		t.Fatal("only the holder hands it back", err)
	}
	if err := s.Unlease(ctx, "accrual_release", a); err != nil || !lease(b) {
		t.Fatal("handed back, it goes to b", err)
	}
	if _, err := d.Exec(`UPDATE worker_leases SET until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if !lease(a) {
		t.Fatal("a lease run out goes to whoever asks")
	}
}

// What this process queues wakes its idle worker once committed: the
// operation runs though the worker would look again only in an hour.
func TestQueuedWakesTheWorker(t *testing.T) {
	d, s, company := setup(t)
	w := jobs.NewWorker(s, nil)
	w.Poll = time.Hour
	ran := make(chan string, 2)
	for _, typ := range []string{"test.first", "test.second"} {
		w.Handle(typ, func(ctx context.Context, run *jobs.Run) (any, error) { ran <- run.Type; return nil, nil })
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx, 1); close(done) }()
	defer func() { stop(); <-done }()
	queue := func(typ string) jobs.Operation {
		u := &store.Unit{}
		uctx := store.WithUnit(context.Background(), u)
		var o jobs.Operation
		if err := d.InTx(uctx, func(ctx context.Context) (err error) {
			o, err = s.Enqueue(ctx, company, typ, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		u.Committed(uctx)
		return o
	}
	// The first is found by the look at start or woken. Once it has
	// ended, the worker's next look (right after it) finds nothing and it
	// waits, until the second wakes it.
	for _, typ := range []string{"test.first", "test.second"} {
		o := queue(typ)
		select {
		case got := <-ran:
			if got != typ {
				t.Fatalf("ran %s, want %s", got, typ)
			}
		case <-time.After(time.Minute): // a bound on a hang: the poll is an hour
			t.Fatalf("%s did not run: the worker was not woken", typ)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if got, err := s.Get(context.Background(), o.ID); err != nil || got.Status == jobs.Succeeded {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not end", typ)
			}
		}
	}
}
