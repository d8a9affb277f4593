package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/store"
)

// Func carries out one operation in the transaction of ctx and returns
// its result. A catalogue error fails the operation with that error and
// leaves the books as they were; any other error is taken as passing (a
// lost connection) and the operation is tried again.
type Func func(ctx context.Context, run *Run) (any, error)

// Step carries out the next part of a long operation (an import) in the
// unit of work of ctx, which commits with what the step wrote: more asks
// for another step in a new unit; without more, result ends the
// operation in the same unit. A step finds where the last committed one
// left off in its own tables, so a run another worker takes over after a
// crash goes on from there.
type Step func(ctx context.Context, run *Run) (more bool, result any, err error)

// FailFunc is told, in the unit of work that records a failed run, how it
// failed; it may write its own state and answers the failure the client
// reads (its details, say).
type FailFunc func(ctx context.Context, run *Run, f Failure) (Failure, error)

// Run is one attempt at an operation.
type Run struct {
	Operation
	store    *Store
	progress *Progress
}

// Progress records, with the step that is running, how far a stepped
// operation has come; pollers see it once the step commits.
func (r *Run) Progress(p Progress) { r.progress = &p }

// Report records progress; pollers see it while the run goes on. A
// failure to record it does not stop the run.
func (r *Run) Report(p Progress) {
	_ = r.store.progress(context.Background(), r.ID, r.Attempts, p)
}

// Worker takes operations off the queue and runs them.
type Worker struct {
	store *Store
	db    *store.DB
	log   *zap.Logger
	funcs map[string]Func
	steps map[string]Step
	fails map[string]FailFunc
	types []string
	// Lease is how long a claim holds before another worker may take the
	// operation over; a running worker renews it every third of it.
	Lease time.Duration
	// Poll is how often an idle worker looks for work queued by another
	// process (what this one queues wakes it at once).
	Poll time.Duration
	// MaxAttempts ends an operation as failed after that many passing
	// failures or crashes.
	MaxAttempts int
}

// NewWorker returns a worker on s with the usual lease, poll and attempts.
func NewWorker(s *Store, log *zap.Logger) *Worker {
	if log == nil {
		log = zap.NewNop()
	}
	return &Worker{store: s, db: s.db, log: log, funcs: map[string]Func{}, steps: map[string]Step{}, fails: map[string]FailFunc{},
		Lease: time.Minute, Poll: 500 * time.Millisecond, MaxAttempts: 5}
}

// Handle makes f the runner of operations of typ.
func (w *Worker) Handle(typ string, f Func) {
	w.funcs[typ] = f
	w.types = append(w.types, typ)
}

// Types lists the operation types the worker runs, in the order handled.
func (w *Worker) Types() []string { return append([]string(nil), w.types...) }

// HandleSteps makes f the runner of operations of typ, one step per unit
// of work, and failed (may be nil) the recorder of their failures.
func (w *Worker) HandleSteps(typ string, f Step, failed FailFunc) {
	w.steps[typ] = f
	if failed != nil {
		w.fails[typ] = failed
	}
	w.types = append(w.types, typ)
}

// Run works with n goroutines until ctx ends.
func (w *Worker) Run(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				did, err := w.Once(ctx)
				if err != nil && ctx.Err() == nil {
					w.log.Warn("operations worker", zap.Error(err))
				}
				if did && err == nil {
					continue
				}
				select {
				case <-ctx.Done():
				case <-w.store.queued:
				case <-time.After(w.Poll):
				}
			}
		}()
	}
	wg.Wait()
}

// errLost says another worker took the operation over during the run.
var errLost = errors.New("jobs: the lease was lost to another worker")

// Once claims one operation and runs it to its end; false when there was
// nothing to do.
func (w *Worker) Once(ctx context.Context) (bool, error) {
	op, err := w.store.claim(ctx, w.types, w.Lease)
	if err != nil || op == nil {
		return false, err
	}
	run := &Run{Operation: *op, store: w.store}
	log := w.log.With(zap.Stringer("operation_id", op.ID), zap.String("type", op.Type), zap.Int("attempt", op.Attempts))

	hctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.heartbeat(hctx, run)

	var result any
	if step := w.steps[op.Type]; step != nil {
		err = w.stepped(ctx, run, step)
	} else {
		err = w.db.InTx(audit.WithActor(ctx, op.actor()), func(ctx context.Context) (err error) {
			defer recovered(op.Type, &err)
			if result, err = w.funcs[op.Type](ctx, run); err != nil {
				return err
			}
			ok, err := w.store.finish(ctx, *op, Succeeded, result, nil)
			if err == nil && !ok {
				err = errLost
			}
			return err
		})
	}
	stop()
	switch {
	case err == nil:
		log.Info("operation succeeded")
		return true, nil
	case errors.Is(err, errLost):
		log.Warn("operation taken over by another worker")
		return true, nil
	}
	if ctx.Err() != nil {
		// Stopping (SIGTERM): the transaction rolled back, so hand the
		// lease back and let another replica take the work over at once.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		log.Info("operation handed back: the worker is stopping")
		return true, w.store.retryLater(rctx, op.ID, op.Attempts, 0)
	}
	if _, domain := apierr.As(err); domain || op.Attempts >= w.MaxAttempts {
		f := failure(err, apierr.InternalError)
		log.Info("operation failed", zap.String("code", f.Code), zap.Error(err))
		return true, w.fail(ctx, run, f, log)
	}
	log.Warn("operation attempt failed; retrying", zap.Error(err))
	delay := time.Duration(op.Attempts*op.Attempts) * time.Second
	return true, w.store.retryLater(ctx, op.ID, op.Attempts, delay)
}

// fail records that run failed with f: the failure, the runner's own
// record of it and its announcement commit together. When that cannot
// be stored (the details hold what the database refuses, or the runner's
// record fails), the failure is stored plainly, its catalogue code and
// message without details, and as a last resort the operation alone: an
// operation past its attempts always ends, never claimed again forever.
func (w *Worker) fail(ctx context.Context, run *Run, f Failure, log *zap.Logger) error {
	actx := audit.WithActor(ctx, run.actor())
	record := func(f Failure, runner bool) error {
		return w.db.InTx(actx, func(ctx context.Context) error {
			if failed := w.fails[run.Type]; failed != nil && runner {
				var err error
				if f, err = failed(ctx, run, f); err != nil {
					return err
				}
			}
			_, err := w.store.finish(ctx, run.Operation, Failed, nil, &f)
			return err
		})
	}
	err := record(f, true)
	if err == nil || ctx.Err() != nil {
		return err
	}
	log.Error("the failure could not be recorded; recording it plainly", zap.Error(err))
	plain := Failure{Code: f.Code, Message: f.Message, MessageEn: f.MessageEn}
	if err = record(plain, true); err == nil {
		return nil
	}
	log.Error("the runner could not record the failure; ending the operation alone", zap.Error(err))
	return record(plain, false)
}

// stepped runs a stepped operation's steps, each in its own unit of work
// that also renews the lease and records progress, so a step of a run
// another worker took over commits nothing; the last step's unit ends
// the operation.
func (w *Worker) stepped(ctx context.Context, run *Run, step Step) error {
	for {
		more := false
		err := w.db.InTx(audit.WithActor(ctx, run.actor()), func(ctx context.Context) (err error) {
			defer recovered(run.Type, &err)
			var result any
			if more, result, err = step(ctx, run); err != nil {
				return err
			}
			var ok bool
			if more {
				ok, err = w.store.stepped(ctx, run.ID, run.Attempts, w.Lease, run.progress)
			} else {
				ok, err = w.store.finish(ctx, run.Operation, Succeeded, result, nil)
			}
			if err == nil && !ok {
				err = errLost
			}
			return err
		})
		if err != nil || !more {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// recovered turns a runner's panic into its error.
func recovered(typ string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("jobs: %s panicked: %v", typ, p)
	}
}

// heartbeat renews the run's lease until ctx ends.
func (w *Worker) heartbeat(ctx context.Context, run *Run) {
	t := time.NewTicker(w.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ok, err := w.store.extend(ctx, run.ID, run.Attempts, w.Lease); err != nil || !ok {
			return
		}
	}
}
