package webhooks

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Run makes attempts on senders goroutines until ctx ends. One claimer
// leases as many due deliveries as senders are idle, in one statement,
// and one recorder writes every outcome waiting for it in one statement
// (one that disables a webhook goes on its own, with its audit row): the
// database sees two short statements per batch, not two per attempt
// from every worker racing for the same rows.
//
// When nothing is due the claimer waits for the channel wake answers
// (taken before the claim that found nothing, so a wake-up meanwhile is
// not missed), an outcome recorded (a webhook at its cap has room
// again), or the sweep.
func (w *Worker) Run(ctx context.Context, senders int, wake func() <-chan struct{}, sweep time.Duration) {
	jobs := make(chan Claimed)
	results := make(chan Result, senders)
	idle := make(chan struct{}, senders)
	recorded := make(chan struct{}, 1)
	for range senders {
		idle <- struct{}{}
	}
	var sending, recording sync.WaitGroup
	for range senders {
		sending.Add(1)
		go func() {
			defer sending.Done()
			for d := range jobs {
				if r, judged := w.attempt(ctx, d); judged {
					results <- r
				} else if err := w.release(ctx, d); err != nil {
					w.warn("webhooks: handing back an attempt", err)
				}
				idle <- struct{}{}
			}
		}()
	}
	recording.Add(1)
	go func() {
		defer recording.Done()
		w.recordAll(ctx, results, recorded)
	}()
	w.claimAll(ctx, senders, jobs, idle, recorded, wake, sweep)
	close(jobs)
	sending.Wait()
	close(results)
	recording.Wait()
}

// claimAll hands leased deliveries to idle senders until ctx ends.
func (w *Worker) claimAll(ctx context.Context, senders int, jobs chan<- Claimed, idle chan struct{},
	recorded <-chan struct{}, wake func() <-chan struct{}, sweep time.Duration) {
	for {
		ring := wake()
		select {
		case <-ctx.Done():
			return
		case <-idle:
		}
		n := 1
		for more := true; more && n < senders; {
			select {
			case <-idle:
				n++
			default:
				more = false
			}
		}
		ds, err := w.Store.ClaimMany(ctx, w.lease(), PerWebhook, n)
		if err != nil && ctx.Err() == nil && w.Log != nil {
			w.Log.Warn("webhooks: claiming deliveries", zap.Error(err))
		}
		for range n - len(ds) {
			idle <- struct{}{}
		}
		for _, d := range ds {
			jobs <- d
		}
		if len(ds) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-ring:
		case <-recorded:
		case <-time.After(sweep):
		}
	}
}

// recordAll writes the outcomes of results as they come, every one
// waiting in one statement, until results is closed. A batch is written
// even while the server stops: the attempts were made.
func (w *Worker) recordAll(ctx context.Context, results <-chan Result, recorded chan<- struct{}) {
	for r := range results {
		batch := []Result{r}
		for more := true; more; {
			select {
			case r, ok := <-results:
				if ok {
					batch = append(batch, r)
				} else {
					more = false
				}
			default:
				more = false
			}
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		var plain []Result
		for _, r := range batch {
			if r.Outcome.Disable == "" {
				plain = append(plain, r)
			} else if err := w.record(rctx, r); err != nil {
				w.warn("webhooks: recording an attempt", err)
			}
		}
		if len(plain) > 0 {
			if _, err := w.Store.RecordMany(rctx, plain); err != nil {
				w.warn("webhooks: recording attempts", err)
			}
		}
		cancel()
		select {
		case recorded <- struct{}{}:
		default:
		}
	}
}

// release hands back delivery d, whose attempt the server stopping cut
// short: the attempt does not count.
func (w *Worker) release(ctx context.Context, d Claimed) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return w.Store.Release(rctx, d)
}

func (w *Worker) warn(msg string, err error) {
	if w.Log != nil {
		w.Log.Warn(msg, zap.Error(err))
	}
}
