package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
)

// maxPrepared bounds the statements kept prepared: the queries of the
// code are a fixed set, but a list with optional filters writes a text
// per combination, and those past the bound simply run unprepared.
const maxPrepared = 1000

// statements are the queries prepared once per connection: a statement
// with arguments is parsed and planned by PostgreSQL the first time a
// connection runs it and only bound and executed after that, which is
// most of what a short statement costs the server.
type statements struct {
	m   sync.Map // query text -> *sqlx.Stmt, or notKept
	n   atomic.Int64
	off atomic.Bool
}

// SetPrepared turns the statement cache on (the default) or off: off
// for a connection pooler that cannot keep prepared statements.
func (db *DB) SetPrepared(on bool) { db.stmts.off.Store(!on) }

// prepared is the Querier of Q: the pool or a unit of work's transaction,
// running statements with arguments through the statement cache.
type prepared struct {
	*sqlx.DB
	tx *sqlx.Tx // nil: the pool
	db *DB
}

// notKept marks a query being prepared, or one that cannot be.
type notKept struct{}

// stmt answers the prepared form of query on p's pool or transaction,
// or nil when it is not kept (no arguments, not prepared yet, or the
// cache is full). A query is prepared in the background the first time
// it is seen: preparing on the pool waits for a free connection, which a
// request holding one in its transaction must never wait for.
func (p prepared) stmt(query string, args []any) *sqlx.Stmt {
	if len(args) == 0 || p.db.stmts.off.Load() {
		return nil
	}
	v, ok := p.db.stmts.m.Load(query)
	if !ok {
		if p.db.stmts.n.Add(1) > maxPrepared {
			return nil
		}
		if _, loaded := p.db.stmts.m.LoadOrStore(query, notKept{}); !loaded {
			go p.db.prepare(query)
		}
		return nil
	}
	s, ok := v.(*sqlx.Stmt)
	if !ok {
		return nil
	}
	if p.tx != nil {
		// database/sql prepares it on the transaction's connection the
		// first time that connection runs it, and keeps it there.
		return p.tx.Stmtx(s)
	}
	return s
}

// prepare prepares query on the pool for the statement cache.
func (db *DB) prepare(query string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := db.DB.PreparexContext(ctx, query)
	if err != nil {
		return // stays notKept: the query runs unprepared and reports its own errors
	}
	db.stmts.m.Store(query, s)
}

// queryer is what the pool and a transaction both answer.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error)
	QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row
}

// plain is where a statement runs unprepared: the transaction or the pool.
func (p prepared) plain() queryer {
	if p.tx != nil {
		return p.tx
	}
	return p.DB
}

func (p prepared) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := p.stmt(query, args); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return p.plain().ExecContext(ctx, query, args...)
}

func (p prepared) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := p.stmt(query, args); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return p.plain().QueryContext(ctx, query, args...)
}

func (p prepared) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	if s := p.stmt(query, args); s != nil {
		return s.QueryxContext(ctx, args...)
	}
	return p.plain().QueryxContext(ctx, query, args...)
}

func (p prepared) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	if s := p.stmt(query, args); s != nil {
		return s.QueryRowxContext(ctx, args...)
	}
	return p.plain().QueryRowxContext(ctx, query, args...)
}

func (p prepared) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, p, dest, query, args...)
}

func (p prepared) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, p, dest, query, args...)
}
