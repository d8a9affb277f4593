package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// ScanJSON reads a json or jsonb column, as the driver hands it over
// (bytes or text), into into.
func ScanJSON(src, into any) error {
	switch v := src.(type) {
	case []byte:
		return json.Unmarshal(v, into)
	case string:
		return json.Unmarshal([]byte(v), into)
	}
	return fmt.Errorf("store: cannot scan %T as JSON", src)
}

// Counts runs query, which answers rows of (company_id, count), and
// answers the counts by company; a company without a row is missing.
func Counts(ctx context.Context, db *DB, query string, args ...any) (map[uuid.UUID]int, error) {
	var rows []struct {
		Company uuid.UUID `db:"company_id"`
		N       int       `db:"n"`
	}
	if err := db.Q(ctx).SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int, len(rows))
	for _, r := range rows {
		out[r.Company] = r.N
	}
	return out, nil
}

// Index answers rows by key, the last row of a key kept.
func Index[T any](rows []T, key func(T) uuid.UUID) map[uuid.UUID]T {
	out := make(map[uuid.UUID]T, len(rows))
	for _, r := range rows {
		out[key(r)] = r
	}
	return out
}
