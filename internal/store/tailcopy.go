package store

import (
	"context"
	"database/sql"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/lib/pq"
)

// copyMin is how many waiting rows of one table a flush writes with COPY
// rather than within its one INSERT statement: a bulk write's tens of
// thousands of audit rows and events go to the database as a stream, not
// as statements of 65 535 parameters the server parses and plans one by
// one. Below it, one statement for everything is fewer round trips.
const copyMin = 500

// copyable is a table's waiting rows, and how each row's values come from
// its arguments, when every one can go by COPY.
type copyable struct {
	table   string
	columns []string
	values  []copyValue
	rows    []Append
}

// copyValue is one column of a row: its argument, whether ” stands for
// NULL (NULLIF($n, ”)), and whether a cast says bytes hold text (JSON).
type copyValue struct {
	arg      int
	emptyNil bool
	text     bool
}

var (
	intoRe  = regexp.MustCompile(`^\s*([a-z_][a-z0-9_.]*)\s*\(([^()]*)\)\s*$`)
	plainRe = regexp.MustCompile(`^\$(\d+)(::[a-z_]+(\[\])?)?$`)
	nullRe  = regexp.MustCompile(`^NULLIF\(\$(\d+), ''\)$`)
)

// splitCopies takes out of rows the tables of copyMin rows or more that
// COPY can write as their INSERT would (no suffix; one template of
// values, each an argument, a cast of one, or NULLIF of one and ”; no
// bytes but under a cast that says what they hold), keeping the others
// in their order.
func splitCopies(rows []Append) (rest []Append, copies []copyable) {
	groups := map[string][]Append{}
	var order []string
	for _, r := range rows {
		k := r.Into + "\x00" + r.Suffix
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	copied := map[string]bool{}
	for _, k := range order {
		g := groups[k]
		if len(g) < copyMin || g[0].Suffix != "" {
			continue
		}
		if c := planCopy(g[0]); c != nil && c.fits(g) {
			c.rows = g
			copies = append(copies, *c)
			copied[k] = true
		}
	}
	for _, r := range rows {
		if !copied[r.Into+"\x00"+r.Suffix] {
			rest = append(rest, r)
		}
	}
	return rest, copies
}

// fits says every row of g goes by c's plan.
func (c *copyable) fits(g []Append) bool {
	for _, r := range g {
		if r.Values != g[0].Values || len(r.Args) != len(g[0].Args) {
			return false
		}
		for _, cv := range c.values {
			if _, ok := r.Args[cv.arg-1].([]byte); ok && !cv.text {
				return false
			}
		}
	}
	return true
}

// planCopy reads how r's values map to its columns, or nil when COPY
// cannot write them.
func planCopy(r Append) *copyable {
	m := intoRe.FindStringSubmatch(r.Into)
	v := strings.TrimSpace(r.Values)
	if m == nil || !strings.HasPrefix(v, "(") || !strings.HasSuffix(v, ")") {
		return nil
	}
	c := &copyable{table: m[1]}
	for _, col := range strings.Split(m[2], ",") {
		c.columns = append(c.columns, strings.TrimSpace(col))
	}
	for _, item := range splitTop(v[1 : len(v)-1]) {
		var cv copyValue
		if p := plainRe.FindStringSubmatch(item); p != nil {
			cv.arg, _ = strconv.Atoi(p[1])
			cv.text = p[2] == "::jsonb" || p[2] == "::json" || p[2] == "::text"
		} else if p := nullRe.FindStringSubmatch(item); p != nil {
			cv.arg, _ = strconv.Atoi(p[1])
			cv.emptyNil = true
		} else {
			return nil
		}
		if cv.arg < 1 || cv.arg > len(r.Args) {
			return nil
		}
		c.values = append(c.values, cv)
	}
	if len(c.values) != len(c.columns) {
		return nil
	}
	return c
}

// splitTop splits a list at its commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, ch := range s {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// write streams c's rows with COPY in tx.
func (c copyable) write(ctx context.Context, tx *sql.Tx) error {
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn(c.table, c.columns...))
	if err != nil {
		return err
	}
	vals := make([]any, len(c.values))
	for _, r := range c.rows {
		for i, cv := range c.values {
			vals[i] = copyArg(r.Args[cv.arg-1], cv.emptyNil)
		}
		if _, err = stmt.ExecContext(ctx, vals...); err != nil {
			break
		}
	}
	if err == nil {
		_, err = stmt.ExecContext(ctx)
	}
	if cerr := stmt.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyArg is an argument as COPY's text wants it: bytes as the text they
// hold (fits let through only bytes under a text cast), ” as NULL where
// the INSERT said NULLIF.
func copyArg(a any, emptyNil bool) any {
	if b, ok := a.([]byte); ok {
		return string(b)
	}
	if emptyNil {
		v := reflect.ValueOf(a)
		for v.IsValid() && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		if v.IsValid() && v.Kind() == reflect.String && v.String() == "" {
			return nil
		}
	}
	return a
}
