package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/store"
)

// DemoEmail is the user `kontera dev` creates.
const DemoEmail = "demo@kontera.local"

// dev runs what `make run` does: a local cluster under the data
// directory (unless DATABASE_URL is set), the schema, a demo user with a
// live key printed once, and the server.
func dev(ctx context.Context, stdout, stderr io.Writer) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.AdminAddr == "" {
		cfg.AdminAddr = "127.0.0.1:9090"
	}
	if cfg.Secret == nil {
		if cfg.Secret, err = config.DevSecret(cfg.DataDir); err != nil {
			return err
		}
	}
	if cfg.PIIKey == nil {
		if cfg.PIIKey, err = config.DevPIIKey(cfg.DataDir); err != nil {
			return err
		}
	}
	// Webhooks reach `kontera webhooks listen` on this machine, TLS checked
	// against its certificate; a server that is not dev takes public https
	// URLs only.
	if os.Getenv("KONTERA_WEBHOOK_ALLOW_LOOPBACK") == "" {
		cfg.WebhookAllowLoopback = true
	}
	if cfg.WebhookCAFile == "" {
		if cfg.WebhookCAFile, _, err = receiverCert(cfg.DataDir); err != nil {
			return err
		}
	}
	appURL, ownerURL := cfg.DatabaseURL, cmp.Or(cfg.MigrateDatabaseURL, cfg.DatabaseURL)
	if cfg.DatabaseURL == "" {
		c, cerr := devCluster(cfg, stderr)
		if cerr != nil {
			return cerr
		}
		if c.Started {
			defer func() {
				fmt.Fprintln(stderr, "stopping the local PostgreSQL cluster")
				_ = c.Stop()
			}()
		}
		if appURL, ownerURL, err = devURLs(ctx, c); err != nil {
			return err
		}
		// The server's own URL: webhooks and the event feed LISTEN on it
		// for the commit of an event, as under kontera serve.
		cfg.DatabaseURL = appURL
	}
	owner, err := store.Open(ctx, ownerURL)
	if err != nil {
		return err
	}
	_, err = db.Migrate(ctx, owner.DB.DB)
	owner.Close()
	if err != nil {
		return err
	}
	d, err := store.Open(ctx, appURL)
	if err != nil {
		return err
	}
	defer d.Close()
	if reason, err := d.Privileged(ctx); err == nil && reason != "" {
		fmt.Fprintf(stderr, "warning: DATABASE_URL connects as a role that %s; `kontera serve` refuses that\n", reason)
	}
	if err := demoKey(ctx, d, cfg, stdout); err != nil {
		return err
	}
	return listen(ctx, cfg, d, newLogger(cfg.LogLevel))
}

// demoKey creates the demo user's live key with every scope the first
// time, and prints it: it is stored only as a hash, so this is the one
// chance to see it.
func demoKey(ctx context.Context, d *store.DB, cfg config.Config, stdout io.Writer) error {
	var n int
	if err := d.GetContext(ctx, &n, `SELECT count(*) FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = $1`, DemoEmail); err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintf(stdout, "\nKontera is starting on %s (demo user %s already has a key).\n"+
			"Another key: go run ./cmd/kontera keys create --email %s\n\n", cfg.BaseURL, DemoEmail, DemoEmail)
		return nil
	}
	token, _, err := auth.NewStore(d, audit.NewStore(d)).CreateKey(ctx, auth.NewKey{Email: DemoEmail, Name: "demo",
		Mode: auth.Live, Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nKontera is starting on %[1]s\n\nDemo user %[2]s, live key with every scope (shown once, keep it):\n\n  %[3]s\n\n"+
		"Try:\n  curl -H \"Authorization: Bearer %[3]s\" %[1]s/api/v1/api-key\n\n", cfg.BaseURL, DemoEmail, token)
	return nil
}

// stringList is a repeatable flag that also takes comma lists.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func membersAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("members add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	company := fs.String("company", "", "the company id")
	email := fs.String("email", "", "the user (created when missing)")
	role := fs.String("role", "", "owner, admin, member or viewer")
	readOnly := fs.Bool("read-only", false, "read-only connection to the company")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cid, err := uuid.Parse(*company)
	if err != nil {
		return fmt.Errorf("members add: --company must be a company id: %w", err)
	}
	r, err := auth.ParseRole(*role)
	if err != nil {
		return err
	}
	if *email == "" {
		return errors.New("members add: --email is required")
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	s := auth.NewStore(d, audit.NewStore(d))
	var uid uuid.UUID
	err = d.InTx(ctx, func(ctx context.Context) error {
		if uid, err = s.EnsureUser(ctx, *email); err != nil {
			return err
		}
		_, err := s.AddMember(ctx, cid, uid, r, *readOnly)
		return err
	})
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"company_id": cid, "user_id": uid, "role": r, "read_only": *readOnly})
}

func parseIDs(ss []string) ([]uuid.UUID, error) {
	out := make([]uuid.UUID, 0, len(ss))
	for _, s := range ss {
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("--company %q is not a company id", s)
		}
		out = append(out, id)
	}
	return out, nil
}

// fxImport loads an operator's file of exchange rates (currency, date,
// SEK per unit) into fx_rates: how a server without the Riksbank's API
// knows the rates of foreign invoices.
func fxImport(ctx context.Context, path string, stdout, stderr io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	n, err := fx.New(d, nil).Import(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d exchange rates read from %s\n", n, path)
	return nil
}

// payrollTaxTables loads a year's month tables from Skatteverket's open
// data file (allmanna-tabeller-manad.txt): how a server knows the tax of
// table employees. args: YEAR FILE [--source URL].
func payrollTaxTables(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("payroll tax-tables", flag.ContinueOnError)
	fs.SetOutput(stderr)
	source := fs.String("source", payroll.SourceURL, "where the file was published")
	if len(args) < 2 {
		return fmt.Errorf("usage: kontera payroll tax-tables YEAR FILE [--source URL]")
	}
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	year, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("year %q is not a year", args[0])
	}
	raw, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	t, err := payroll.LoadTaxTables(ctx, d, year, raw, *source)
	if err != nil {
		return fmt.Errorf("%s: %w", args[1], err)
	}
	fmt.Fprintf(stdout, "%d rows of tables %d–%d for %d loaded from %s (sha256 %s)\n", t.Rows(), payroll.MinTable,
		payroll.MaxTable, year, args[1], t.SHA256)
	return nil
}
