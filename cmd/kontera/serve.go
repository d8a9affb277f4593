package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/idempotency"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/vies"
	"github.com/kontera/kontera/internal/webhooks"
)

func newLogger(level zapcore.Level) *zap.Logger {
	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(level)
	cfg.Sampling = nil
	log, err := cfg.Build()
	if err != nil {
		return zap.NewNop()
	}
	return log
}

func serve(ctx context.Context, stderr io.Writer) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL is not set (use `kontera dev` for a local database)")
	}
	if cfg.Secret == nil {
		return errors.New("KONTERA_SECRET is not set: give it 32 or more random characters")
	}
	if cfg.PIIKey == nil {
		return errors.New("KONTERA_PII_KEY is not set: give it 64 hexadecimal digits (openssl rand -hex 32), and keep it: without it no stored personnummer can be read")
	}
	d, err := store.Open(ctx, store.WithStatementTimeout(cfg.DatabaseURL, cfg.StatementTimeout))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := schema(ctx, cfg, d, stderr); err != nil {
		return err
	}
	if reason, err := d.Privileged(ctx); err != nil {
		return err
	} else if reason != "" {
		return fmt.Errorf("DATABASE_URL connects as a role that %s: the database's guards of the books would be within its reach. Connect as the application role (kontera_app) and give the owner role to KONTERA_MIGRATE_DATABASE_URL; see README", reason)
	}
	return listen(ctx, cfg, d, newLogger(cfg.LogLevel))
}

// schema brings the database up to the binary's schema with the owner
// role of KONTERA_MIGRATE_DATABASE_URL; without it, the schema must be
// current already (the application role cannot migrate).
func schema(ctx context.Context, cfg config.Config, d *store.DB, stderr io.Writer) error {
	if cfg.MigrateDatabaseURL == "" {
		pending, err := db.Pending(ctx, d.DB.DB)
		if err != nil {
			return err
		}
		if pending {
			return errors.New("the database schema is behind this binary: set KONTERA_MIGRATE_DATABASE_URL to the owner role, or run `kontera migrate` with it")
		}
		return nil
	}
	owner, err := store.Open(ctx, cfg.MigrateDatabaseURL)
	if err != nil {
		return fmt.Errorf("KONTERA_MIGRATE_DATABASE_URL: %w", err)
	}
	defer owner.Close()
	applied, err := db.Migrate(ctx, owner.DB.DB)
	for _, a := range applied {
		fmt.Fprintln(stderr, "applied", a)
	}
	return err
}

// listen serves on cfg.Addr until ctx ends, then stops as serveOn does.
func listen(ctx context.Context, cfg config.Config, d *store.DB, log *zap.Logger) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	return serveOn(ctx, ln, cfg, d, log)
}

// serveOn serves on ln until ctx ends (SIGTERM or SIGINT), then stops
// gracefully: it accepts nothing more, the operations workers stop and
// hand back the leases of what they were running (another replica takes
// it over at once; the work and its outcome are one transaction, so
// nothing is left half done), and the requests in flight finish within
// cfg.ShutdownTimeout.
func serveOn(ctx context.Context, ln net.Listener, cfg config.Config, d *store.DB, log *zap.Logger) error {
	defer log.Sync()
	d.SetMaxOpenConns(cfg.DBMaxConns)
	d.SetMaxIdleConns(cfg.DBMaxConns)
	d.SetPrepared(cfg.DBPrepared)
	var checker vies.Checker = vies.Offline{}
	if cfg.VIESURL != "" {
		checker = vies.NewClient(cfg.VIESURL, cfg.VIESTimeout)
	}
	blobs, err := cfg.Blobs()
	if err != nil {
		return err
	}
	sb, reader, err := openStandby(ctx, cfg, d, log)
	if err != nil {
		return err
	}
	if reader != nil {
		defer reader.Close() // after the requests in flight
	}
	srv, err := httpapi.New(httpapi.Config{DB: d, Log: log, BaseURL: cfg.BaseURL, Secret: cfg.Secret, Standby: sb,
		RateLimitPerMinute: cfg.RateLimitPerMinute, Capabilities: cfg.Capabilities, PIIKey: cfg.PIIKey, VIES: checker, TrustedProxies: cfg.TrustedProxies,
		Blobs: blobs, Mail: cfg.Mail(), MailFrom: cfg.MailFrom, Peppol: cfg.AccessPoint(), Rates: cfg.Rates(),
		InboundSecret: cfg.InboundSecret, Webhooks: httpapi.WebhookConfig{
			Client: webhooks.ClientOptions{Guard: webhooks.Guard{AllowLoopback: cfg.WebhookAllowLoopback},
				CAFile: cfg.WebhookCAFile},
			Workers: cfg.WebhookWorkers, ListenURL: cfg.DatabaseURL, Kept: cfg.EventsKept,
			Sweep: cfg.WebhookSweep}, Aggregator: aggregatorOf(cfg),
		ImportBatch: cfg.ImportBatch})
	if err != nil {
		return err
	}
	if n, err := srv.SealLegacy(ctx); err != nil {
		return fmt.Errorf("sealing numbers stored in clear: %w", err)
	} else if n > 0 {
		log.Info("sealed numbers stored in clear before they were sealed", zap.Int("records", n))
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: cfg.WriteTimeout(), IdleTimeout: 120 * time.Second}
	go janitor(ctx, d, log)
	go sweeper(ctx, srv, log)
	go deadliner(ctx, srv, log)
	go releaser(ctx, srv, log, cfg.AccrualsEvery)
	go archiver(ctx, srv, log)
	go reminder(ctx, srv, log)
	go courier(ctx, srv, log)
	go pruner(ctx, srv, log)
	go banker(ctx, srv, log)
	if cfg.WebhookAllowLoopback {
		log.Warn("KONTERA_WEBHOOK_ALLOW_LOOPBACK is on: webhooks may be delivered to 127.0.0.0/8 and ::1; never in production")
	}
	workers := make(chan struct{})
	go func() { srv.Work(ctx, 2); close(workers) }()
	hooks := make(chan struct{})
	go func() { srv.DeliverWebhooks(ctx); close(hooks) }()
	if cfg.AdminAddr != "" && cfg.AdminAddr != "off" {
		admin := &http.Server{Addr: cfg.AdminAddr, Handler: srv.Admin(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			log.Info("admin listener: /metrics and /debug/pprof/", zap.String("addr", cfg.AdminAddr))
			if err := admin.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("admin listener", zap.Error(err))
			}
		}()
		defer admin.Close()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("serving", zap.String("addr", ln.Addr().String()), zap.String("base_url", cfg.BaseURL))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping: draining requests in flight", zap.Duration("deadline", cfg.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = hs.Shutdown(sctx)
	<-workers
	<-hooks
	return err
}

// openStandby opens the read replica of KONTERA_READ_DATABASE_URL beside
// d, and watches it until ctx ends; nil without one. A replica that does
// not answer yet is no reason not to start: reads pass it over until it
// does. The caller closes the replica's pool.
func openStandby(ctx context.Context, cfg config.Config, d *store.DB, log *zap.Logger) (*standby.Standby, *store.DB, error) {
	if cfg.ReadDatabaseURL == "" {
		return nil, nil, nil
	}
	r, err := store.OpenLazy(store.WithConnectTimeout(store.WithStatementTimeout(cfg.ReadDatabaseURL, cfg.StatementTimeout), 2*time.Second))
	if err != nil {
		return nil, nil, fmt.Errorf("KONTERA_READ_DATABASE_URL: %w", err)
	}
	r.SetMaxOpenConns(cfg.DBMaxConns)
	r.SetMaxIdleConns(cfg.DBMaxConns)
	r.SetPrepared(cfg.DBPrepared)
	// The application role there too: a URL that reaches the primary
	// itself as its owner would put the reads past the guards.
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	reason, err := r.Privileged(pctx)
	cancel()
	switch {
	case err != nil:
		log.Warn("read replica unreachable at start: reads go to the primary until it answers", zap.Error(err))
	case reason != "":
		r.Close()
		return nil, nil, fmt.Errorf("KONTERA_READ_DATABASE_URL connects as a role that %s: connect as the application role (kontera_app)", reason)
	}
	d.SetReader(r)
	sb := standby.New(d, r, standby.Config{MaxWait: cfg.ReadMaxWait, MaxLag: cfg.ReadMaxLag, Sticky: cfg.ReadSticky, Log: log})
	go sb.Run(ctx)
	log.Info("read replica: reads marked x-replica-read go to it while it keeps up",
		zap.Duration("max_lag", cfg.ReadMaxLag), zap.Duration("max_wait", cfg.ReadMaxWait))
	return sb, r, nil
}

// janitor removes expired idempotency records and ended rate-limit
// windows every minute; several replicas doing it at once is harmless.
func janitor(ctx context.Context, d *store.DB, log *zap.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := idempotency.Purge(ctx, d.DB); err != nil && ctx.Err() == nil {
			log.Warn("purging idempotency records", zap.Error(err))
		}
		if err := ratelimit.Purge(ctx, d.DB); err != nil && ctx.Err() == nil {
			log.Warn("purging rate-limit buckets", zap.Error(err))
		}
		if err := ratelimit.PurgeFailures(ctx, d.DB); err != nil && ctx.Err() == nil {
			log.Warn("purging failed-authentication buckets", zap.Error(err))
		}
	}
}

// pruner removes the events and ended webhook deliveries older than
// KONTERA_EVENTS_KEPT, ten minutes after the start and then hourly.
func pruner(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, 10*time.Minute, time.Hour, func(ctx context.Context) {
		deliveries, events, err := srv.PruneEvents(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("pruning events and webhook deliveries", zap.Error(err))
		case deliveries+events > 0:
			log.Info("pruned events and webhook deliveries", zap.Int64("events", events), zap.Int64("deliveries", deliveries))
		}
	})
}

// every calls fn after first and then every then until ctx ends; fn
// logs its own failures, so one bad round never stops the loop.
func every(ctx context.Context, first, then time.Duration, fn func(context.Context)) {
	wait := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = then
		fn(ctx)
	}
}

// deadliner generates the deadlines a release added (the annual report)
// for the companies made before it, a minute after the start and then
// daily (httpapi.Server.CatchUpDeadlines); once caught up it finds none.
func deadliner(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, time.Minute, 24*time.Hour, func(ctx context.Context) {
		n, err := srv.CatchUpDeadlines(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("generating the deadlines a release added", zap.Error(err))
		case n > 0:
			log.Info("generated the deadlines a release added", zap.Int("companies", n))
		}
	})
}

// sweeper removes the blobs of documents no row names, an hour after the
// start and then daily (httpapi.Server.SweepDocuments).
func sweeper(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, time.Hour, 24*time.Hour, func(ctx context.Context) {
		n, err := srv.SweepDocuments(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("sweeping documents' blobs", zap.Error(err))
		case n > 0:
			log.Info("swept blobs no document names", zap.Int("blobs", n))
		}
	})
}

// releaser books the months of accrued invoice lines that have come due,
// a minute after the start and then every period (KONTERA_ACCRUALS_EVERY,
// hourly; httpapi.Server.ReleaseAccruals, one replica at a time); a
// release the ledger refuses is logged, stays due in GET /accruals and
// the year-end readiness check, and is tried again the next time.
func releaser(ctx context.Context, srv *httpapi.Server, log *zap.Logger, period time.Duration) {
	every(ctx, min(time.Minute, period), period, func(ctx context.Context) {
		n, refused, err := srv.ReleaseAccruals(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn("releasing accrued revenue", zap.Error(err))
		}
		for _, r := range refused {
			log.Warn("an accrued month waits: the ledger refused its release", zap.Error(r))
		}
		if n > 0 {
			log.Info("released accrued revenue", zap.Int("verifikat", n))
		}
	})
}

// reminder announces the invoices fallen overdue (invoice.overdue) and
// queues the payment reminders that have come due, two minutes after the
// start and then hourly (httpapi.Server.AnnounceOverdue, SendReminders):
// each is done once per invoice, so looking every hour does each on its
// day, soon after midnight.
func reminder(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, 2*time.Minute, time.Hour, func(ctx context.Context) {
		if n, err := srv.AnnounceOverdue(ctx); err != nil && ctx.Err() == nil {
			log.Warn("announcing overdue invoices", zap.Error(err))
		} else if n > 0 {
			log.Info("overdue invoices announced", zap.Int("invoices", n))
		}
		if n, err := srv.SendReminders(ctx); err != nil && ctx.Err() == nil {
			log.Warn("sending payment reminders", zap.Error(err))
		} else if n > 0 {
			log.Info("payment reminders queued", zap.Int("reminders", n))
		}
	})
}

// archiver archives issued invoices' PDFs shortly after they are issued
// (httpapi.Server.ArchiveInvoices), then sends the outbox's due e-mails
// (httpapi.Server.DeliverMail). The queue's index holds only what
// waits, so a look every two seconds costs next to nothing; replicas
// share the work by SKIP LOCKED.
func archiver(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, 2*time.Second, 2*time.Second, func(ctx context.Context) {
		n, failed, err := srv.ArchiveInvoices(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn("archiving invoices", zap.Error(err))
		}
		for _, f := range failed {
			log.Warn("an invoice's PDF waits: archiving it failed, and is tried again later", zap.Error(f))
		}
		if n > 0 {
			log.Debug("archived invoice PDFs", zap.Int("invoices", n))
		}
		// The outbox after the archive: an e-mail attaches the archived PDF.
		if sent, err := srv.DeliverMail(ctx); err != nil && ctx.Err() == nil {
			log.Warn("sending e-mail", zap.Error(err))
		} else if sent > 0 {
			log.Info("e-mails handed on", zap.Int("emails", sent))
		}
	})
}

// courier hands queued e-invoices to the Peppol access point and follows
// those submitted (httpapi.Server.DeliverPeppol), every five seconds;
// replicas share the work by SKIP LOCKED.
func courier(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, 5*time.Second, 5*time.Second, func(ctx context.Context) {
		if n, err := srv.DeliverPeppol(ctx, 50); err != nil && ctx.Err() == nil {
			log.Warn("delivering e-invoices", zap.Error(err))
		} else if n > 0 {
			log.Info("e-invoice deliveries moved on", zap.Int("deliveries", n))
		}
	})
}

// aggregatorOf is the bank aggregator cfg names, nil (no interface
// holding a nil pointer) when none.
func aggregatorOf(cfg config.Config) banking.Aggregator {
	if a := cfg.Aggregator(); a != nil {
		return a
	}
	return nil
}

// banker runs the daily sync of bank connections: every ten minutes it
// syncs those not tried for a day (httpapi.Server.SyncBankConnections);
// replicas share the work.
func banker(ctx context.Context, srv *httpapi.Server, log *zap.Logger) {
	every(ctx, time.Minute, 10*time.Minute, func(ctx context.Context) {
		n, refused, err := srv.SyncBankConnections(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn("syncing bank connections", zap.Error(err))
		}
		for _, r := range refused {
			log.Info("a bank refused a connection's daily sync", zap.Error(r))
		}
		if n > 0 {
			log.Info("bank connections synced", zap.Int("connections", n))
		}
	})
}

func migrate(ctx context.Context, stderr io.Writer) error {
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	applied, err := db.Migrate(ctx, d.DB.DB)
	if err != nil {
		return err
	}
	for _, a := range applied {
		fmt.Fprintln(stderr, "applied", a)
	}
	fmt.Fprintf(stderr, "schema up to date (%d applied)\n", len(applied))
	return nil
}

// openDB opens the database as the owner role, for migrating:
// KONTERA_MIGRATE_DATABASE_URL, else DATABASE_URL, else the development
// cluster under the data directory (started for the command, and stopped
// again if the command started it).
func openDB(ctx context.Context, stderr io.Writer) (*store.DB, func(), error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	if url := cmp.Or(cfg.MigrateDatabaseURL, cfg.DatabaseURL); url != "" {
		d, err := store.Open(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		return d, func() { d.Close() }, nil
	}
	c, err := devCluster(cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	_, ownerURL, err := devURLs(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	d, err := store.Open(ctx, ownerURL)
	if err != nil {
		return nil, nil, err
	}
	return d, func() {
		d.Close()
		if c.Started {
			_ = c.Stop()
		}
	}, nil
}

func devCluster(cfg config.Config, stderr io.Writer) (*localpg.Cluster, error) {
	return localpg.Start(filepath.Join(cfg.DataDir, "pg"), localpg.Options{Install: true,
		Logf: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }})
}

// devURLs returns the URLs of the development cluster's kontera database
// as the application role and as its owner, creating the roles and the
// database (owned by the owner role) the first time. A database made
// before the roles existed stays owned by the cluster's superuser, who
// then migrates it.
func devURLs(ctx context.Context, c *localpg.Cluster) (app, owner string, err error) {
	if err := localpg.EnsureRoles(ctx, c.URL("postgres")); err != nil {
		return "", "", err
	}
	admin, err := store.Open(ctx, c.URL("postgres"))
	if err != nil {
		return "", "", err
	}
	defer admin.Close()
	var dba string
	err = admin.GetContext(ctx, &dba, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'kontera'`)
	if store.NotFound(err) {
		dba, err = localpg.OwnerRole, nil
		_, err = admin.ExecContext(ctx, `CREATE DATABASE kontera OWNER `+localpg.OwnerRole)
	}
	if err != nil {
		return "", "", err
	}
	owner = c.URL("kontera")
	if dba == localpg.OwnerRole {
		if owner, err = localpg.WithUser(owner, localpg.OwnerRole); err != nil {
			return "", "", err
		}
	}
	app, err = localpg.WithUser(c.URL("kontera"), localpg.AppRole)
	return app, owner, err
}
