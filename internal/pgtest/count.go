package pgtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/store"
)

// Counter counts the statements a database handle sends: every query,
// exec, BEGIN, COMMIT and ROLLBACK is one round trip to the server. It is
// deterministic, so a test can hold an operation to a statement budget.
type Counter struct {
	n    atomic.Int64
	mu   sync.Mutex
	sent []string
}

// N is the number of statements counted so far.
func (c *Counter) N() int64 { return c.n.Load() }

// Sent answers the statements counted from the n-th on, so a budget that
// fails can say what was sent.
func (c *Counter) Sent(n int64) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= int64(len(c.sent)) {
		return nil
	}
	return append([]string(nil), c.sent[n:]...)
}

func (c *Counter) add(q string) {
	c.mu.Lock()
	c.sent = append(c.sent, q)
	c.n.Add(1)
	c.mu.Unlock()
}

// NewCounted returns a fresh migrated database for t as the application
// role, whose statements the returned Counter counts.
func NewCounted(t testing.TB) (*store.DB, *Counter) {
	t.Helper()
	c := &Counter{}
	return OpenCounted(t, NewURL(t), c), c
}

// OpenCounted opens the database at url with c counting its statements
// (several handles may share one Counter); it is closed when t ends.
func OpenCounted(t testing.TB, url string, c *Counter) *store.DB {
	t.Helper()
	name := fmt.Sprintf("postgres-counted-%d", drivers.Add(1))
	sql.Register(name, countingDriver{c: c})
	sqlx.BindDriver(name, sqlx.DOLLAR)
	d, err := store.OpenDriver(context.Background(), name, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// drivers numbers the counting drivers: database/sql names each once.
var drivers atomic.Int64

type countingDriver struct{ c *Counter }

func (d countingDriver) Open(name string) (driver.Conn, error) {
	conn, err := pq.Driver{}.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, c: d.c}, nil
}

// countingConn passes everything to lib/pq's connection, counting the
// round trips. lib/pq answers ExecContext and QueryContext itself, so
// database/sql never prepares behind our back.
type countingConn struct {
	driver.Conn
	c *Counter
}

func (cc *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	cc.c.add(q)
	return cc.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (cc *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	cc.c.add(q)
	return cc.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

// Prepare is not counted: a statement is prepared once per connection
// (store's statement cache), and the budgets speak of the round trips an
// operation makes on connections that have run it before. Its
// executions are counted.
func (cc *countingConn) Prepare(q string) (driver.Stmt, error) {
	st, err := cc.Conn.Prepare(q)
	if err != nil {
		return nil, err
	}
	return &countingStmt{Stmt: st, q: q, c: cc.c}, nil
}

// countingStmt counts the executions of a prepared statement.
type countingStmt struct {
	driver.Stmt
	q string
	c *Counter
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.add(s.q)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.add(s.q)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (cc *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	cc.c.add("BEGIN")
	tx, err := cc.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countingTx{Tx: tx, c: cc.c}, nil
}

// CheckNamedValue lets lib/pq convert arguments as it does unwrapped.
func (cc *countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := cc.Conn.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func (cc *countingConn) Ping(ctx context.Context) error {
	return cc.Conn.(driver.Pinger).Ping(ctx)
}

func (cc *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := cc.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (cc *countingConn) IsValid() bool {
	if v, ok := cc.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

type countingTx struct {
	driver.Tx
	c *Counter
}

func (t countingTx) Commit() error {
	t.c.add("COMMIT")
	return t.Tx.Commit()
}

func (t countingTx) Rollback() error {
	t.c.add("ROLLBACK")
	return t.Tx.Rollback()
}

// ReadOnly is a second pool on d's database in which every transaction is
// read only, as on a hot standby: a server given it as its read replica
// fails any read marked x-replica-read that writes. c, when not nil,
// counts its statements too.
func ReadOnly(t testing.TB, d *store.DB, c *Counter) *store.DB {
	t.Helper()
	var name string
	if err := d.QueryRowx(`SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	url, err := localpg.WithDatabase(adminURL, name)
	if err == nil {
		url, err = localpg.WithUser(url, localpg.AppRole)
	}
	if err != nil {
		t.Fatal(err)
	}
	url = store.WithSetting(url, "default_transaction_read_only", "on")
	if c != nil {
		return OpenCounted(t, url, c)
	}
	return open(t, url)
}
