// Package metrics holds Kontera's figures in the Prometheus text format:
// requests and their latency by operation, the database pool, the
// operations queue and the event outbox, and the counts of refusals,
// replays and dry runs. They are served, with net/http/pprof, on the admin
// listener only (KONTERA_ADMIN_ADDR), never on the API's.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are one server's figures.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// RateLimited counts requests refused with 429, Replayed answers
	// replayed for an Idempotency-Key, DryRuns writes previewed.
	RateLimited, Replayed, DryRuns prometheus.Counter
	// WebhookAttempts counts judged webhook attempts by the state they
	// left their delivery in.
	WebhookAttempts *prometheus.CounterVec
	// Reads counts the reads a read replica could answer, by the server
	// that answered (replica, primary) and why (see internal/standby).
	Reads *prometheus.CounterVec
	// ReplicaWaits times the reads that waited for the replica to replay
	// a position, whether it got there or the primary answered.
	ReplicaWaits prometheus.Histogram
}

// Backlogs reads the queues a scrape reports: the unfinished operations
// per type and the events not yet dispatched.
type Backlogs struct {
	Operations func(ctx context.Context) ([]Queue, error)
	Outbox     func(ctx context.Context) (Queue, error)
}

// Queue is work waiting: how much, and how long the oldest has waited.
type Queue struct {
	Type          string
	Count         int
	OldestSeconds float64
}

// New returns the figures of a server on db (nil: no pool figures),
// whose queues b reads.
func New(db *sql.DB, b Backlogs) *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kontera_http_requests_total",
			Help: "API requests answered, by operationId and status class."}, []string{"operation", "status_class"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kontera_http_request_duration_seconds",
			Help:    "Time to answer an API request, by operationId and status class.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}},
			[]string{"operation", "status_class"}),
		RateLimited: prometheus.NewCounter(prometheus.CounterOpts{Name: "kontera_rate_limited_total",
			Help: "Requests refused with 429 RATE_LIMITED."}),
		Replayed: prometheus.NewCounter(prometheus.CounterOpts{Name: "kontera_idempotent_replays_total",
			Help: "Answers replayed for a repeated Idempotency-Key."}),
		DryRuns: prometheus.NewCounter(prometheus.CounterOpts{Name: "kontera_dry_runs_total",
			Help: "Writes answered as a dry run (rolled back)."}),
		WebhookAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kontera_webhook_attempts_total",
			Help: "Webhook delivery attempts judged, by the state they left the delivery in (delivered, failed: to be " +
				"retried, dead: no more tries)."}, []string{"state"}),
	}
	m.Reads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kontera_replica_reads_total",
		Help: "Reads a read replica could answer, by the server that answered (replica, primary) and why " +
			"(docs/scaling.md §3)."},
		[]string{"target", "reason"})
	m.ReplicaWaits = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kontera_replica_wait_seconds",
		Help:    "How long a read with a consistency token waited for the replica to replay past it.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5}})
	for _, state := range []string{"delivered", "failed", "dead"} {
		m.WebhookAttempts.WithLabelValues(state) // every series from the start, so a rate is never missing
	}
	m.registry.MustRegister(m.requests, m.latency, m.RateLimited, m.Replayed, m.DryRuns, m.WebhookAttempts, m.Reads, m.ReplicaWaits,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), queues{b})
	if db != nil {
		m.registry.MustRegister(collectors.NewDBStatsCollector(db, "kontera"))
	}
	return m
}

// WatchReplica reports the read replica at each scrape: whether it
// answers, how far behind the primary it is, and its pool (db_name
// kontera_replica; nil: none). reasons are the reads metric's reasons by
// target, each series made at once.
func (m *Metrics) WatchReplica(state func() (up bool, lag time.Duration), pool *sql.DB, reasons map[string][]string) {
	if pool != nil {
		m.registry.MustRegister(collectors.NewDBStatsCollector(pool, "kontera_replica"))
	}
	up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kontera_replica_up",
		Help: "1 while the read replica answers, 0 while reads pass it over."}, func() float64 {
		if ok, _ := state(); ok {
			return 1
		}
		return 0
	})
	lag := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kontera_replica_lag_seconds",
		Help: "How far the read replica is behind the primary: the time since the primary last had nothing it has " +
			"not replayed."}, func() float64 {
		_, l := state()
		return l.Seconds()
	})
	m.registry.MustRegister(up, lag)
	for target, rs := range reasons {
		for _, r := range rs {
			m.Reads.WithLabelValues(target, r) // every series from the start, so a rate is never missing
		}
	}
}

// Observe records an answered request.
func (m *Metrics) Observe(operation string, status int, took time.Duration) {
	class := strconv.Itoa(status/100) + "xx"
	m.requests.WithLabelValues(operation, class).Inc()
	m.latency.WithLabelValues(operation, class).Observe(took.Seconds())
}

// Admin is the admin listener's handler: /metrics, and the profiles
// under /debug/pprof/.
func (m *Metrics) Admin() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// queues reads the operations queue and the outbox at each scrape.
type queues struct{ b Backlogs }

var (
	opsDepth = prometheus.NewDesc("kontera_operations_unfinished", "Operations queued or running, by type.",
		[]string{"type"}, nil)
	opsAge = prometheus.NewDesc("kontera_operations_oldest_age_seconds",
		"How long the oldest unfinished operation of a type has waited.", []string{"type"}, nil)
	outboxDepth = prometheus.NewDesc("kontera_outbox_undispatched", "Events not yet dispatched.", nil, nil)
	outboxAge   = prometheus.NewDesc("kontera_outbox_oldest_age_seconds",
		"How long the oldest undispatched event has waited.", nil, nil)
	scrapeErrors = prometheus.NewDesc("kontera_backlog_scrape_errors", "1 when the queues could not be read.", nil, nil)
)

func (q queues) Describe(ch chan<- *prometheus.Desc) {
	ch <- opsDepth
	ch <- opsAge
	ch <- outboxDepth
	ch <- outboxAge
	ch <- scrapeErrors
}

func (q queues) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	failed := 0.0
	if q.b.Operations != nil {
		ops, err := q.b.Operations(ctx)
		if err != nil {
			failed = 1
		}
		for _, o := range ops {
			ch <- prometheus.MustNewConstMetric(opsDepth, prometheus.GaugeValue, float64(o.Count), o.Type)
			ch <- prometheus.MustNewConstMetric(opsAge, prometheus.GaugeValue, o.OldestSeconds, o.Type)
		}
	}
	if q.b.Outbox != nil {
		o, err := q.b.Outbox(ctx)
		if err != nil {
			failed = 1
		}
		ch <- prometheus.MustNewConstMetric(outboxDepth, prometheus.GaugeValue, float64(o.Count))
		ch <- prometheus.MustNewConstMetric(outboxAge, prometheus.GaugeValue, o.OldestSeconds)
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrors, prometheus.GaugeValue, failed)
}
