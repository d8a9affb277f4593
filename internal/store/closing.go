package store

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/lib/pq"
)

// Closing is the write that ends a unit of work when it takes a lock that
// every other writer of the same rows queues for: the voucher series that
// numbers verifikationer without gaps. Run where the handler asks for it,
// the lock would be held while Go builds the audit row, the event and the
// response, and over two more round trips; as the lead of the statement
// of waiting rows (see Append) it is held for that one statement and the
// COMMIT, as a plain SQL client would hold it.
//
// What the closing returns is not known until then, so the unit's rows and
// its response carry a token for each value (see Token) and the unit puts
// the values in their place: in the waiting rows in that same statement,
// and in the response once it succeeded (Fill). Nothing in the unit may
// read the rows the closing writes.
type Closing struct {
	// SQL is a data-modifying statement whose RETURNING gives one row of
	// text values, one per token: "UPDATE … RETURNING voucher_number::text".
	SQL  string
	Args []any
	// Tokens stand for the returned values, in order.
	Tokens []string
	// Refused turns the statement's error into what its package answers
	// had it run on its own (a catalogue error where there is one).
	Refused func(error) error
}

// Token returns a fresh token for a closing's integer value: a negative
// 16-digit number, so that it is valid wherever the value is written
// (JSON, text), and cannot be told in advance by a client.
func Token() int {
	return -(1_000_000_000_000_000 + rand.IntN(9_000_000_000_000_000))
}

// Close makes c the closing write of the unit of work in ctx and reports
// true; false when there is no unit or it already has one, and the caller
// must run its write at once.
func Close(ctx context.Context, c Closing) bool {
	u := UnitFrom(ctx)
	if u == nil || u.closing != nil {
		return false
	}
	u.closing = &c
	return true
}

// Fill puts the values the unit's closing returned in place of its tokens
// in b, a response written before they were known.
func (u *Unit) Fill(b []byte) []byte {
	for _, r := range u.filled {
		b = bytes.ReplaceAll(b, []byte(r[0]), []byte(r[1]))
	}
	return b
}

// flushClosing writes the closing and the waiting rows in one statement:
// the closing leads as a CTE, and every argument of a waiting row that
// carries a token reads the value from it.
func (u *Unit) flushClosing(ctx context.Context) error {
	c := u.closing
	u.closing = nil
	inserts, args := appendSQL(u.tail, len(c.Args), func(p string, arg any) string {
		return c.fill(p, arg)
	})
	u.tail = nil
	cols := make([]string, len(c.Tokens))
	for i := range cols {
		cols[i] = "v" + strconv.Itoa(i)
	}
	var b strings.Builder
	b.WriteString("WITH closing (" + strings.Join(cols, ", ") + ") AS (" + c.SQL + ")")
	for i, ins := range inserts {
		b.WriteString(", w" + strconv.Itoa(i) + " AS (" + ins + ")")
	}
	b.WriteString(" SELECT * FROM closing")
	values := make([]string, len(c.Tokens))
	dest := make([]any, len(values))
	for i := range values {
		dest[i] = &values[i]
	}
	err := u.Tx.QueryRowxContext(ctx, b.String(), append(append([]any{}, c.Args...), args...)...).Scan(dest...)
	if err != nil {
		if c.Refused != nil {
			return c.Refused(err)
		}
		return err
	}
	for i, t := range c.Tokens {
		u.filled = append(u.filled, [2]string{t, values[i]})
	}
	return nil
}

// fill is the SQL that reads the argument at placeholder p with the
// closing's values in place of their tokens: p itself when arg carries
// none. Text is replaced as text; bytes (a stored response) as UTF-8.
func (c *Closing) fill(p string, arg any) string {
	var s string
	_, binary := arg.([]byte)
	switch v := arg.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return p
	}
	expr := p + "::text"
	if binary {
		expr = "convert_from(" + p + "::bytea, 'UTF8')"
	}
	found := false
	for i, t := range c.Tokens {
		if strings.Contains(s, t) {
			expr = "replace(" + expr + ", " + pq.QuoteLiteral(t) + ", (SELECT v" + strconv.Itoa(i) + " FROM closing))"
			found = true
		}
	}
	switch {
	case !found:
		return p
	case binary:
		return "convert_to(" + expr + ", 'UTF8')"
	}
	return expr
}
