package httpapi

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/webhooks"
)

// WebhookConfig is how webhooks are delivered.
type WebhookConfig struct {
	// Client shapes the delivery client: the address guard (loopback for
	// tests only), a test CA, a test resolver. Registration checks URLs
	// with its Guard too.
	Client webhooks.ClientOptions
	// Workers is how many attempts a replica makes at once
	// (KONTERA_WEBHOOK_WORKERS); 0 means 4.
	Workers int
	// Sweep is how often the dispatcher and the idle workers look for
	// work they were not woken for (retries come due, leases run out);
	// 0 means a minute (spec 002 delivery rule 2).
	Sweep time.Duration
	// ListenURL is the database URL the wake-ups are heard on (LISTEN
	// needs a connection of its own); empty: the sweep alone finds work.
	ListenURL string
	// Kept is how long events and ended deliveries are kept
	// (KONTERA_EVENTS_KEPT); 0 means 30 days.
	Kept time.Duration
	// Lease is how long an attempt holds its delivery before another
	// process may take it over; 0 means webhooks.Lease (tests shorten it).
	Lease time.Duration
}

// checkWebhookURL is the outside work of a webhook write: the URL in its
// body is resolved and held to the rules before the transaction opens.
func checkWebhookURL(g webhooks.Guard) outsideWork {
	return func(ctx context.Context, _ string, raw []byte, _ func(string) string) context.Context {
		var body struct {
			URL *string `json:"webhook_url"`
		}
		if json.Unmarshal(raw, &body) != nil || body.URL == nil {
			return ctx
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return webhooks.WithChecked(ctx, *body.URL, g.CheckURL(rctx, *body.URL))
	}
}

// bell wakes every goroutine waiting on it at once.
type bell struct {
	mu sync.Mutex
	ch chan struct{}
}

func newBell() *bell { return &bell{ch: make(chan struct{})} }

// wait is closed at the next ring.
func (b *bell) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

func (b *bell) ring() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.ch)
	b.ch = make(chan struct{})
}

// DeliverWebhooks runs until ctx ends: a dispatcher that fans the outbox's
// events out into deliveries, and the configured number of workers that
// make the deliveries' attempts. Both are woken by the database the
// moment an event or a delivery commits (LISTEN), and look on their own
// every sweep for what no wake-up announces (retries come due, leases of
// a replica that died). Replicas share the work by SKIP LOCKED.
func (s *Server) DeliverWebhooks(ctx context.Context) {
	cfg := s.hookCfg
	events, deliveries := newBell(), newBell()
	if cfg.ListenURL != "" {
		l := pq.NewListener(cfg.ListenURL, 100*time.Millisecond, 10*time.Second, func(_ pq.ListenerEventType, err error) {
			if err != nil {
				s.log.Warn("webhooks: listening for wake-ups", zap.Error(err))
			}
		})
		defer l.Close()
		for _, ch := range []string{"kontera_events", "kontera_deliveries"} {
			if err := l.Listen(ch); err != nil {
				s.log.Warn("webhooks: LISTEN "+ch, zap.Error(err))
			}
		}
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case n := <-l.Notify:
					switch {
					case n == nil: // reconnected: what was missed meanwhile
						events.ring()
						deliveries.ring()
					case n.Channel == "kontera_events":
						events.ring()
					default:
						deliveries.ring()
					}
				}
			}
		}()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.dispatchLoop(ctx, events, deliveries)
	}()
	go func() {
		defer wg.Done()
		s.hookWorker.Run(ctx, cfg.Workers, deliveries.wait, cfg.Sweep)
	}()
	wg.Wait()
}

// dispatchLoop fans out every undispatched event, then waits.
func (s *Server) dispatchLoop(ctx context.Context, events, deliveries *bell) {
	for {
		wake := events.wait()
		for ctx.Err() == nil {
			var n, made int
			err := s.db.InTx(ctx, func(ctx context.Context) error {
				var err error
				n, made, err = s.hooks.Dispatch(ctx, 100)
				return err
			})
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("webhooks: dispatching events", zap.Error(err))
				}
				break
			}
			if made > 0 && s.hookCfg.ListenURL == "" {
				deliveries.ring() // no database wake-up to do it
			}
			if n == 0 {
				break
			}
		}
		if !s.rest(ctx, wake) {
			return
		}
	}
}

// rest waits for a ring of wake or the next sweep; false once ctx ends.
func (s *Server) rest(ctx context.Context, wake <-chan struct{}) bool {
	select {
	case <-ctx.Done():
		return false
	case <-wake:
	case <-time.After(s.hookCfg.Sweep):
	}
	return true
}

// PruneEvents removes the events and ended deliveries older than the
// configured keep (30 days), and answers how many of each.
func (s *Server) PruneEvents(ctx context.Context) (deliveries, events int64, err error) {
	cutoff := s.now().Add(-s.hookCfg.Kept)
	ctx = audit.WithActor(ctx, audit.System)
	if deliveries, err = s.hooks.Prune(ctx, cutoff); err != nil {
		return deliveries, 0, err
	}
	events, err = outbox.Prune(ctx, s.db.Q(ctx), cutoff)
	return deliveries, events, err
}

// webhooks sets up registration and delivery on cfg, and answers the
// handler.
func (s *Server) webhooks(cfg Config, box *seal.Box, audits *audit.Store, keys *auth.Store,
	cursors *cursor.Codec) (*webhooks.Handler, error) {
	hc := cfg.Webhooks
	if hc.Workers <= 0 {
		hc.Workers = 4
	}
	if hc.Sweep <= 0 {
		hc.Sweep = time.Minute
	}
	if hc.Kept <= 0 {
		hc.Kept = 30 * 24 * time.Hour
	}
	client, err := webhooks.NewClient(hc.Client)
	if err != nil {
		return nil, err
	}
	s.hookCfg, s.hooks = hc, webhooks.NewStore(cfg.DB)
	s.hookWorker = &webhooks.Worker{Store: s.hooks, DB: cfg.DB, Box: box, Client: client, Audit: audits, Now: cfg.Now,
		Lease: hc.Lease, Log: s.log,
		Attempted: func(state string) { s.metrics.WebhookAttempts.WithLabelValues(state).Inc() }}
	for _, op := range []string{"createWebhook", "updateWebhook"} {
		s.outside[op], s.outsideDry[op] = checkWebhookURL(hc.Client.Guard), true
	}
	registry := webhooks.NewRegistry(s.hooks, box, audits, cfg.Now)
	return webhooks.NewHandler(registry, s.hooks, cfg.DB, cursors, func(ctx context.Context, company uuid.UUID) (bool, error) {
		a, err := keys.Access(ctx, auth.KeyFrom(ctx), company)
		if err != nil || a == nil {
			return false, err
		}
		return true, a.RequireWrite(nil)
	}), nil
}
