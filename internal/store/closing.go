package store

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sort"
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
	// leads are the writes of other packages that joined it (Join).
	leads []Lead
}

// Lead is a write that joins a unit's closing statement (Join) because
// it takes a lock of the same kind: the next number of a gapless series
// of its own (a supplier invoice's arrival number) held, like the voucher
// series, for that one statement and the COMMIT. Its rows are written by
// data-modifying common table expressions beside the closing; what they
// return stands in the unit as tokens, as the closing's values do. Nothing
// in the unit may read what a lead writes.
type Lead struct {
	// CTEs are "name AS (…)" data-modifying expressions, their
	// placeholders numbered from $1 over Args; the names are the lead's
	// to choose and must not clash with "closing" or "w<n>".
	CTEs []string
	Args []any
	// Returning are scalar subqueries over the CTEs, one text value each,
	// that the tokens stand for: "(SELECT arrival_number::text FROM si)".
	Returning []string
	Tokens    []string
	// Refused turns the statement's error into the lead's catalogue
	// error; it answers nil when the error is not of its writes.
	Refused func(error) error
}

// Join adds l to the closing of the unit in ctx and reports true; false
// when the unit has no closing (or there is no unit), and the caller must
// write at once.
func Join(ctx context.Context, l Lead) bool {
	u := UnitFrom(ctx)
	if u == nil || u.closing == nil {
		return false
	}
	u.closing.leads = append(u.closing.leads, l)
	return true
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

// flushClosing writes the closing, the leads that joined it and the
// waiting rows in one statement: the closing leads as a CTE, the leads'
// CTEs follow, and every argument of a waiting row that carries a token
// reads the value from where it is returned.
func (u *Unit) flushClosing(ctx context.Context) error {
	c := u.closing
	u.closing = nil
	args := append([]any{}, c.Args...)
	exprs := map[string]string{}
	for i, t := range c.Tokens {
		exprs[t] = "(SELECT v" + strconv.Itoa(i) + " FROM closing)"
	}
	cols := make([]string, len(c.Tokens))
	for i := range cols {
		cols[i] = "v" + strconv.Itoa(i)
	}
	var b strings.Builder
	b.WriteString("WITH closing (" + strings.Join(cols, ", ") + ") AS (" + c.SQL + ")")
	selected := []string{"closing.*"}
	tokens := append([]string{}, c.Tokens...)
	for _, l := range c.leads {
		base := len(args)
		for _, cte := range l.CTEs {
			b.WriteString(", " + placeholder.ReplaceAllStringFunc(cte, func(p string) string {
				n, _ := strconv.Atoi(p[1:])
				return "$" + strconv.Itoa(base+n)
			}))
		}
		args = append(args, l.Args...)
		for i, t := range l.Tokens {
			exprs[t] = l.Returning[i]
		}
		selected = append(selected, l.Returning...)
		tokens = append(tokens, l.Tokens...)
	}
	inserts, rowArgs := appendSQL(u.tail, len(args), func(p string, arg any) string {
		return fill(exprs, p, arg)
	})
	u.tail = nil
	for i, ins := range inserts {
		b.WriteString(", w" + strconv.Itoa(i) + " AS (" + ins + ")")
	}
	b.WriteString(" SELECT " + strings.Join(selected, ", ") + " FROM closing")
	values := make([]string, len(tokens))
	dest := make([]any, len(values))
	for i := range values {
		dest[i] = &values[i]
	}
	err := u.Tx.QueryRowxContext(ctx, b.String(), append(args, rowArgs...)...).Scan(dest...)
	if err != nil {
		for _, l := range c.leads {
			if l.Refused != nil {
				if refused := l.Refused(err); refused != nil {
					return refused
				}
			}
		}
		if c.Refused != nil {
			return c.Refused(err)
		}
		return err
	}
	for i, t := range tokens {
		u.filled = append(u.filled, [2]string{t, values[i]})
	}
	return nil
}

// fill is the SQL that reads the argument at placeholder p with the
// values of the tokens in exprs (each the SQL that returns its value) in
// their place: p itself when arg carries none. Text is replaced as text;
// bytes (a stored response) as UTF-8.
func fill(exprs map[string]string, p string, arg any) string {
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
	tokens := make([]string, 0, len(exprs))
	for t := range exprs {
		tokens = append(tokens, t)
	}
	sort.Strings(tokens) // one statement text for the same rows
	for _, t := range tokens {
		if strings.Contains(s, t) {
			expr = "replace(" + expr + ", " + pq.QuoteLiteral(t) + ", " + exprs[t] + ")"
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
