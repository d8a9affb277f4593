package store

import (
	"context"
	"errors"

	"github.com/lib/pq"
)

// Copy streams rows into table's columns with COPY FROM STDIN, in the
// unit of work of ctx (it needs one): the bulk door for thousands of
// rows, one round trip per buffer of them rather than per row. The
// table's triggers fire as for an INSERT, statement triggers once. rows
// calls put once per row; Copy answers how many were sent.
func (db *DB) Copy(ctx context.Context, table string, columns []string, rows func(put func(values ...any) error) error) (int, error) {
	u := UnitFrom(ctx)
	if u == nil {
		return 0, errors.New("store: COPY needs a unit of work")
	}
	stmt, err := u.Tx.PrepareContext(ctx, pq.CopyIn(table, columns...))
	if err != nil {
		return 0, err
	}
	n := 0
	err = rows(func(values ...any) error {
		n++
		_, err := stmt.ExecContext(ctx, values...)
		return err
	})
	if err == nil {
		_, err = stmt.ExecContext(ctx)
	}
	if cerr := stmt.Close(); err == nil {
		err = cerr
	}
	return n, err
}
