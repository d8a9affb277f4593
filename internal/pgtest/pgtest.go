// Package pgtest gives each test a fresh, migrated PostgreSQL database of
// its own, cloned from a template in tens of milliseconds. The server is
// TEST_DATABASE_URL (or DATABASE_URL, a role that may create roles and
// databases) when set, else a throwaway cluster that Main starts and
// removes. As in production, the databases are owned and migrated by the
// owner role, and tests connect as the application role.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/store"
)

var (
	adminURL string // the server's maintenance database
	once     sync.Once
	tmplErr  error
	tmplName = "kontera_tmpl_" + db.Version()
)

// Main runs the package's tests against a database server: the one named
// by TEST_DATABASE_URL or DATABASE_URL, or a throwaway cluster of its own.
// Call it from TestMain.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	adminURL = os.Getenv("TEST_DATABASE_URL")
	if adminURL == "" {
		adminURL = os.Getenv("DATABASE_URL")
	}
	if adminURL == "" {
		// A benchmark measures the disk as production has it; tests want
		// the scratch directory, in memory where there is room.
		o := localpg.Options{Throwaway: true, Install: true, Durable: os.Getenv("KONTERA_BENCH") != ""}
		scratch := localpg.ScratchDir
		if o.Durable {
			scratch = func(prefix string) (string, error) { return os.MkdirTemp("", prefix) }
		}
		dir, err := scratch("kontera-pg-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if os.Getenv("KONTERA_BENCH_STATEMENTS") != "" {
			// The bench then prints where the database's time went.
			o.Settings = []string{"shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"}
		}
		c, err := localpg.Start(dir, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			os.RemoveAll(dir)
			return 1
		}
		defer c.Destroy()
		adminURL = c.URL("postgres")
	}
	if err := localpg.EnsureRoles(context.Background(), adminURL); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		return 1
	}
	return m.Run()
}

// URL returns the maintenance database URL of the test server; it is empty
// before Main runs.
func URL() string { return adminURL }

// New returns a fresh migrated database for t, connected as the
// application role (as the server connects), dropped when t ends.
func New(t testing.TB) *store.DB {
	t.Helper()
	return open(t, NewURL(t))
}

// NewOwner is New connected as the owner role, which runs migrations.
func NewOwner(t testing.TB) *store.DB {
	t.Helper()
	_, owner := NewPair(t)
	return owner
}

// NewPair returns one fresh database twice: as the application role and
// as the owner (for what only the owner may do: create a table, VACUUM).
func NewPair(t testing.TB) (app, owner *store.DB) {
	t.Helper()
	url := NewURL(t)
	ownerURL, err := localpg.WithUser(url, localpg.OwnerRole)
	if err != nil {
		t.Fatal(err)
	}
	return open(t, url), open(t, ownerURL)
}

func open(t testing.TB, url string) *store.DB {
	t.Helper()
	d, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// NewURL creates a fresh migrated database for t and returns its URL, as
// the application role. It is dropped when t ends (after the cleanups
// registered later have run).
func NewURL(t testing.TB) string {
	t.Helper()
	if adminURL == "" {
		t.Fatal("pgtest: call pgtest.Main from TestMain")
	}
	once.Do(func() { tmplErr = makeTemplate() })
	if tmplErr != nil {
		t.Fatal(tmplErr)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "kontera_t_" + hex.EncodeToString(b)
	admin, err := maintenance()
	if err != nil {
		t.Fatal(err)
	}
	// FILE_COPY copies the template's files; the default, WAL_LOG, writes
	// each of its pages into the WAL, four times the CPU, hundreds of
	// times a run.
	if _, err := admin.Exec(fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s OWNER %s STRATEGY FILE_COPY", name, tmplName,
		localpg.OwnerRole)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	url, err := localpg.WithDatabase(adminURL, name)
	if err == nil {
		url, err = localpg.WithUser(url, localpg.AppRole)
	}
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// maintenance is the process's pool on the maintenance database, which
// creates and drops the tests' databases: a connection costs the server
// tens of milliseconds of CPU, twice a test.
var maintenance = sync.OnceValues(func() (*sqlx.DB, error) {
	d, err := sqlx.Open("postgres", adminURL)
	if err == nil {
		d.SetMaxIdleConns(4)
	}
	return d, err
})

// makeTemplate creates the migrated template database once per server and
// schema version; an advisory lock keeps parallel test packages from
// building it twice.
func makeTemplate() error {
	ctx := context.Background()
	admin, err := sqlx.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	conn, err := admin.Connx(ctx)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(727274)"); err != nil {
		return err
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock(727274)")
	var exists bool
	if err := conn.GetContext(ctx, &exists, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", tmplName); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := tmplName + "_building"
	_, _ = conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building+" OWNER "+localpg.OwnerRole); err != nil {
		return fmt.Errorf("pgtest: create template: %w", err)
	}
	url, err := localpg.WithDatabase(adminURL, building)
	if err == nil {
		url, err = localpg.WithUser(url, localpg.OwnerRole)
	}
	if err != nil {
		return err
	}
	d, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	_, err = db.Migrate(ctx, d.DB.DB)
	d.Close()
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, tmplName))
	return err
}

// Checkpoint runs a CHECKPOINT as the cluster's administrator (neither
// the owner nor the application role may): a bench starts its clock on a
// cluster with no checkpoint due.
func Checkpoint(t testing.TB) {
	t.Helper()
	admin, err := sqlx.Open("postgres", adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CHECKPOINT`); err != nil {
		t.Fatalf("pgtest: checkpoint: %v", err)
	}
}
