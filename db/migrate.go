// Package db holds the schema: goose migrations embedded in the binary.
package db

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

func provider(conn *sql.DB) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, conn, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// Pending reports whether the database lacks migrations the binary has:
// the server, connected as the application role, checks it and leaves
// the migrating to the owner role.
func Pending(ctx context.Context, conn *sql.DB) (bool, error) {
	p, err := provider(conn)
	if err != nil {
		return false, err
	}
	return p.HasPending(ctx)
}

// Migrate brings the database up to the newest schema; conn must be the
// owner role. Replicas starting together are safe: a Postgres advisory
// lock lets one migrate at a time.
func Migrate(ctx context.Context, conn *sql.DB) ([]string, error) {
	p, err := provider(conn)
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	applied := make([]string, 0, len(results))
	for _, r := range results {
		applied = append(applied, r.Source.Path)
	}
	return applied, nil
}

// Schema is the newest migration the binary brings: the schema version
// a database has once migrated.
func Schema() int64 {
	entries, _ := fs.ReadDir(migrations, "migrations")
	var newest int64
	for _, e := range entries {
		if v, err := goose.NumericComponent(e.Name()); err == nil && v > newest {
			newest = v
		}
	}
	return newest
}

// Current is the schema version of the database conn reaches: the newest
// migration applied to it. It reads without the migration lock, so a
// migration running elsewhere neither delays it nor is delayed by it
// (goose's GetDBVersion waits for the lock, retrying every 5 s).
func Current(ctx context.Context, conn *sql.DB) (int64, error) {
	p, err := provider(conn)
	if err != nil {
		return 0, err
	}
	current, _, err := p.GetVersions(ctx)
	return current, err
}

// Version is a fingerprint of the embedded migrations: test databases built
// from a template are rebuilt when it changes.
func Version() string {
	entries, _ := fs.ReadDir(migrations, "migrations")
	h := uint64(14695981039346656037)
	for _, e := range entries {
		b, _ := migrations.ReadFile("migrations/" + e.Name())
		for _, c := range append([]byte(e.Name()), b...) {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return fmt.Sprintf("%016x", h)
}
