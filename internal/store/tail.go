package store

import (
	"context"
	"regexp"
	"strconv"
	"strings"
)

// Append is a row for an append-only table (the audit trail, the outbox,
// the idempotency records) that nothing in the request reads back. In a
// unit of work it waits for the unit's end, where every waiting row goes
// to the database in one statement just before COMMIT: a request pays one
// round trip for its audit rows, events and idempotency record together,
// and the rows a write locks are held that much shorter.
type Append struct {
	// Into is the table and its columns: "events (company_id, type)".
	Into string
	// Values is the row with placeholders $1…$n for Args, as in a
	// single-row INSERT: "($1, NULLIF($2, ''))".
	Values string
	// Suffix follows the VALUES list: an ON CONFLICT clause, or "".
	Suffix string
	Args   []any
}

// Append writes a now, or, in a unit of work, at the unit's end.
func (db *DB) Append(ctx context.Context, a Append) error {
	if u := UnitFrom(ctx); u != nil {
		u.tail = append(u.tail, a)
		return nil
	}
	q, args := chain(appendSQL([]Append{a}, 0, nil))
	_, err := db.ExecContext(ctx, q, args...)
	return err
}

// Keep is Append for a row that outlives a refusal: when the unit ends in
// a 4xx, which rolls back everything else, the rows kept are written on
// their own after the rollback (the audit row of a refused deletion). A
// dry run keeps nothing.
func (db *DB) Keep(ctx context.Context, a Append) error {
	if u := UnitFrom(ctx); u != nil {
		u.kept = append(u.kept, a)
	}
	return db.Append(ctx, a)
}

// Kept answers the rows Keep added to u.
func (u *Unit) Kept() []Append { return u.kept }

// AppendAll writes rows at once in one statement, outside any unit.
func (db *DB) AppendAll(ctx context.Context, rows []Append) error {
	if len(rows) == 0 {
		return nil
	}
	for _, part := range parts(rows) {
		q, args := chain(appendSQL(part, 0, nil))
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// maxParams is the most parameters PostgreSQL takes in one statement.
const maxParams = 65535

// parts splits rows into runs whose arguments fit one statement, in
// order: a bulk write's thousands of audit rows and events.
func parts(rows []Append) [][]Append {
	var out [][]Append
	start, n := 0, 0
	for i, r := range rows {
		if n+len(r.Args) > maxParams && i > start {
			out = append(out, rows[start:i])
			start, n = i, 0
		}
		n += len(r.Args)
	}
	return append(out, rows[start:])
}

// Flush writes the closing and the rows waiting in u in one statement;
// a table with thousands of them goes by COPY (splitCopies).
func (u *Unit) Flush(ctx context.Context) error {
	if u.closing != nil {
		return u.flushClosing(ctx)
	}
	if len(u.tail) == 0 {
		return nil
	}
	tail, copies := splitCopies(u.tail)
	u.tail = nil
	for _, c := range copies {
		if err := c.write(ctx, u.Tx.Tx); err != nil {
			return err
		}
	}
	if len(tail) == 0 {
		return nil
	}
	for _, part := range parts(tail) {
		q, args := chain(appendSQL(part, 0, nil))
		if _, err := u.Tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// Commit flushes the waiting rows and commits the unit's transaction.
func (u *Unit) Commit(ctx context.Context) error {
	if err := u.Flush(ctx); err != nil {
		return err
	}
	return u.Tx.Commit()
}

var placeholder = regexp.MustCompile(`\$(\d+)`)

// appendSQL builds one INSERT per table and suffix for rows, in the order
// each first appears (rows keep their order, so clock_timestamp()
// defaults still rise row by row), numbering placeholders from base+1.
// fill, when not nil, gives the SQL that reads each argument in place of
// its placeholder.
func appendSQL(rows []Append, base int, fill func(p string, arg any) string) ([]string, []any) {
	type group struct {
		head   string
		values []string
	}
	var order []string
	groups := map[string]*group{}
	var args []any
	for _, r := range rows {
		k := r.Into + "\x00" + r.Suffix
		g := groups[k]
		if g == nil {
			g = &group{head: r.Into}
			groups[k] = g
			order = append(order, k)
		}
		at := base + len(args)
		g.values = append(g.values, placeholder.ReplaceAllStringFunc(r.Values, func(p string) string {
			n, _ := strconv.Atoi(p[1:])
			q := "$" + strconv.Itoa(at+n)
			if fill != nil && n >= 1 && n <= len(r.Args) {
				q = fill(q, r.Args[n-1])
			}
			return q
		}))
		args = append(args, r.Args...)
	}
	stmts := make([]string, len(order))
	for i, k := range order {
		g := groups[k]
		stmts[i] = "INSERT INTO " + g.head + " VALUES " + strings.Join(g.values, ", ")
		if s := k[strings.IndexByte(k, 0)+1:]; s != "" {
			stmts[i] += " " + s
		}
	}
	return stmts, args
}

// chain makes one statement of inserts: the last one, after the others
// as data-modifying CTEs.
func chain(inserts []string, args []any) (string, []any) {
	last := len(inserts) - 1
	ctes := make([]string, last)
	for i, ins := range inserts[:last] {
		ctes[i] = "w" + strconv.Itoa(i) + " AS (" + ins + ")"
	}
	if last == 0 {
		return inserts[0], args
	}
	return "WITH " + strings.Join(ctes, ", ") + " " + inserts[last], args
}

// AfterCommit has fn run once the unit of work in ctx has committed, with
// no unit in its context: never after a rollback or a dry run. Work that
// must not hold the transaction open (removing a file) waits there.
// Without a unit, what ctx wrote is committed already, and fn runs now.
func AfterCommit(ctx context.Context, fn func(ctx context.Context)) {
	u := UnitFrom(ctx)
	if u == nil {
		fn(ctx)
		return
	}
	u.after = append(u.after, fn)
}

// Committed runs what waits for u's commit (AfterCommit), once.
func (u *Unit) Committed(ctx context.Context) {
	fns := u.after
	u.after = nil
	ctx = WithUnit(ctx, nil)
	for _, fn := range fns {
		fn(ctx)
	}
}
