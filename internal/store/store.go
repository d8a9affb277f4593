// Package store holds the database handle and the unit of work: one
// transaction per write request, joined by every package that writes in it,
// and rolled back at the end of a dry run.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq" // the Postgres driver
)

// Querier is what the packages' SQL runs on: the pool, or the transaction
// of the unit of work in progress.
type Querier interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// DB is the database handle every package is given.
type DB struct {
	*sqlx.DB
	stmts *statements
	// reader is the pool on a read replica (SetReader), or nil: reads
	// of a context marked OnReader go there.
	reader *DB
}

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string) (*DB, error) {
	return OpenDriver(ctx, "postgres", url)
}

// OpenDriver is Open through the database/sql driver registered as
// driverName: lib/pq's "postgres", or a test's wrapper of it.
func OpenDriver(ctx context.Context, driverName, url string) (*DB, error) {
	db, err := pool(driverName, url)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("database: %w", err)
	}
	return db, nil
}

// OpenLazy is Open without the check that the database answers: the pool
// connects when first used. For a read replica, which may be down when
// the server starts and is passed over until it answers.
func OpenLazy(url string) (*DB, error) { return pool("postgres", url) }

// pool is the handle on url through driverName, not connected yet.
func pool(driverName, url string) (*DB, error) {
	db, err := sqlx.Open(driverName, withoutJIT(withBinaryParameters(url)))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &DB{DB: db, stmts: &statements{}}, nil
}

// WithConnectTimeout returns dsn with lib/pq's connect_timeout set to d,
// unless the dsn sets one: a server that does not answer fails the
// connection instead of holding the request.
func WithConnectTimeout(dsn string, d time.Duration) string {
	if strings.Contains(dsn, "connect_timeout") {
		return dsn
	}
	return withParam(dsn, "connect_timeout", strconv.Itoa(max(1, int(d.Seconds()))))
}

// WithStatementTimeout returns dsn with PostgreSQL's statement_timeout
// set to d for every connection (0 leaves it as the server has it): a
// statement that waits or works longer is cancelled, and the request
// answers DATABASE_TIMEOUT instead of hanging.
func WithStatementTimeout(dsn string, d time.Duration) string {
	if d <= 0 {
		return dsn
	}
	return withParam(dsn, "statement_timeout", strconv.FormatInt(d.Milliseconds(), 10))
}

// WithSetting returns dsn with the PostgreSQL setting name set to value
// for every connection.
func WithSetting(dsn, name, value string) string { return withParam(dsn, name, value) }

// withBinaryParameters turns on lib/pq's binary_parameters unless the URL
// says otherwise: a query with arguments then takes one round trip to the
// server instead of two (no separate Parse/Describe), which halves the
// latency of every small query. []byte arguments are sent as binary, so
// JSON goes in as string.
func withBinaryParameters(dsn string) string {
	if strings.Contains(dsn, "binary_parameters") {
		return dsn
	}
	return withParam(dsn, "binary_parameters", "yes")
}

// withoutJIT turns PostgreSQL's JIT compilation off for the connections
// unless the URL sets jit: every query Kontera sends is an index range or
// a small join, and a plan whose cost estimate passed jit_above_cost (a
// voucher-gap search over a year of a million lines) spent 170 ms
// compiling to save a few.
func withoutJIT(dsn string) string {
	if strings.Contains(dsn, "jit") {
		return dsn
	}
	return withParam(dsn, "jit", "off")
}

// withParam sets a connection parameter in dsn, a postgres:// URL or a
// key=value string.
func withParam(dsn, key, value string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " " + key + "=" + value
}

type unitKey struct{}

// Unit is the unit of work of one request: its transaction, and whether it
// ends in a rollback because the request is a dry run.
type Unit struct {
	Tx     *sqlx.Tx
	DryRun bool
	// On is the pool Tx was begun on when it is not the DB's own: a read
	// replica's (see Reader), whose prepared statements are its own.
	On   *DB
	tail []Append // rows written at the end (see Append)

	kept    []Append    // rows written even when the unit is refused (see Keep)
	closing *Closing    // the write that leads them (see Closing)
	filled  [][2]string // its tokens and the values they stand for
	after   []func(context.Context)
}

// WithUnit returns ctx carrying u; Q then answers u's transaction.
func WithUnit(ctx context.Context, u *Unit) context.Context {
	return context.WithValue(ctx, unitKey{}, u)
}

// UnitFrom returns the unit of work in ctx, or nil.
func UnitFrom(ctx context.Context) *Unit {
	u, _ := ctx.Value(unitKey{}).(*Unit)
	return u
}

// IsDryRun reports whether the work in ctx will be rolled back.
func IsDryRun(ctx context.Context) bool {
	u := UnitFrom(ctx)
	return u != nil && u.DryRun
}

// Q returns the querier for ctx: the unit of work's transaction when there
// is one, else the pool (the read replica's, for a context marked
// OnReader); statements with arguments run prepared.
func (db *DB) Q(ctx context.Context) Querier {
	if u := UnitFrom(ctx); u != nil {
		if u.On != nil {
			return prepared{DB: u.On.DB, tx: u.Tx, db: u.On}
		}
		return prepared{DB: db.DB, tx: u.Tx, db: db}
	}
	r := db.Reader(ctx)
	return prepared{DB: r.DB, db: r}
}

type readerKey struct{}

// OnReader marks ctx as a request a read replica may answer: its reads
// outside a unit of work go to the pool SetReader gave, when there is one.
// A write's unit of work always reads on the primary.
func OnReader(ctx context.Context) context.Context {
	return context.WithValue(ctx, readerKey{}, true)
}

// SetReader gives db the pool on a read replica that the reads of a
// context marked OnReader use; nil takes it away.
func (db *DB) SetReader(r *DB) { db.reader = r }

// ErrBehind is a read's answer on a read replica when the request names
// something the replica has not replayed yet and the answer would say
// it does not exist (an event a feed is read after): the primary answers
// the request instead.
var ErrBehind = errors.New("store: the read replica has not replayed what the request names")

// OnReplica reports whether the reads of ctx go to a read replica.
func (db *DB) OnReplica(ctx context.Context) bool { return db.Reader(ctx) != db }

// ReadPool is the read replica's pool SetReader gave, or nil.
func (db *DB) ReadPool() *DB { return db.reader }

// Reader is where the reads of ctx outside a unit of work go: the read
// replica's pool when ctx is marked OnReader and there is one, else db.
func (db *DB) Reader(ctx context.Context) *DB {
	if db.reader != nil && UnitFrom(ctx) == nil {
		if on, _ := ctx.Value(readerKey{}).(bool); on {
			return db.reader
		}
	}
	return db
}

// InTx runs fn in a transaction: the unit of work's when ctx has one (fn
// then commits with it), else a new one committed when fn returns nil.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if UnitFrom(ctx) != nil {
		return fn(ctx)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	u := &Unit{Tx: tx}
	if err := fn(WithUnit(ctx, u)); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := u.Commit(ctx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return nil
}

// Privileged says why the role db connects as could reach past the
// database's guards ("is a superuser", "owns the tables"), or "" when it
// cannot: the server must connect as the application role.
func (db *DB) Privileged(ctx context.Context) (string, error) {
	var super, owns bool
	err := db.QueryRowxContext(ctx, `SELECT rolsuper, EXISTS (SELECT 1 FROM pg_tables
			WHERE schemaname = 'public' AND tableowner = current_user)
		FROM pg_roles WHERE rolname = current_user`).Scan(&super, &owns)
	switch {
	case err != nil:
		return "", err
	case super:
		return "is a superuser", nil
	case owns:
		return "owns the tables", nil
	}
	return "", nil
}

// UniqueViolation reports whether err is a unique index refusing a row:
// the index named constraint, or any when constraint is "".
func UniqueViolation(err error, constraint string) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "23505" && (constraint == "" || pe.Constraint == constraint)
}

// NotFound reports whether err says a query found no row.
func NotFound(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Attempt runs fn under a savepoint of the unit of work in ctx: when fn
// fails, what it wrote is undone and the rest of the unit goes on (the
// items of a partial-success batch).
func (db *DB) Attempt(ctx context.Context, fn func(ctx context.Context) error) error {
	q := db.Q(ctx)
	if _, err := q.ExecContext(ctx, "SAVEPOINT attempt"); err != nil {
		return err
	}
	u := UnitFrom(ctx)
	waiting, kept, closing := 0, 0, (*Closing)(nil)
	if u != nil {
		waiting, kept, closing = len(u.tail), len(u.kept), u.closing
	}
	if err := fn(ctx); err != nil {
		if _, rerr := q.ExecContext(ctx, "ROLLBACK TO SAVEPOINT attempt"); rerr != nil {
			return rerr
		}
		if u != nil {
			// The failed item's audit rows, events and closing go with it;
			// what it kept stays (see Keep).
			u.tail, u.closing = append(u.tail[:waiting], u.kept[kept:]...), closing
		}
		return err
	}
	_, err := q.ExecContext(ctx, "RELEASE SAVEPOINT attempt")
	return err
}

// EscapeLike makes s match itself in a LIKE pattern.
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Fold is a text as searches compare it: trimmed and lower-cased in Go,
// so Å matches å whatever the database's locale.
func Fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
