package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
)

// Resealing names one sealed column of a table keyed by (company_id, id),
// for Reseal: the context each row's value was sealed for, and what else
// follows from the value in clear (a token beside it), if anything.
type Resealing struct {
	Table, Column string
	Context       func(company, id uuid.UUID) string
	// Also answers a column to set from the value in clear, and its value;
	// nil sets nothing else.
	Also func(plain []byte) (column string, value any)
}

// Reseal seals the column's value anew under to in every row, in the
// transaction of ctx (kontera pii rekey): rows sealed under to already
// stay as they are. It answers how many rows it moved; a value that opens
// under neither key fails it, naming the row. The owning package names
// its table and column; this is the one loop they share.
func Reseal(ctx context.Context, db *DB, r Resealing, from, to *seal.Box) (int, error) {
	var rows []struct {
		Company uuid.UUID `db:"company_id"`
		ID      uuid.UUID `db:"id"`
		Sealed  []byte    `db:"sealed"`
	}
	if err := db.Q(ctx).SelectContext(ctx, &rows, `SELECT company_id, id, `+r.Column+` AS sealed FROM `+r.Table+`
		WHERE `+r.Column+` IS NOT NULL FOR UPDATE`); err != nil {
		return 0, err
	}
	moved := 0
	for _, row := range rows {
		out, plain, did, err := seal.Reseal(from, to, row.Sealed, r.Context(row.Company, row.ID))
		if err != nil {
			return moved, fmt.Errorf("%s %s of company %s: %s: %w", r.Table, row.ID, row.Company, r.Column, err)
		}
		if !did {
			continue
		}
		set, args := r.Column+" = $3", []any{row.Company, row.ID, out}
		if r.Also != nil {
			col, v := r.Also(plain)
			set, args = set+", "+col+" = $4", append(args, v)
		}
		if _, err := db.Q(ctx).ExecContext(ctx, `UPDATE `+r.Table+` SET `+set+` WHERE company_id = $1 AND id = $2`, args...); err != nil {
			return moved, err
		}
		moved++
	}
	return moved, nil
}
