package store

import (
	"context"

	"github.com/kontera/kontera/internal/apierr"
)

// EachGroup groups rows by key, in the order each key first appears, and
// runs fn on each group under a savepoint of its own (Attempt): a group
// the rules refuse (a catalogue error, such as a locked period) is rolled
// back, told to refused (when set, after the rollback: what it writes
// stays) and reported, and left for a later run, while the others go on;
// any other error stops it. It answers how many groups fn took. The
// release jobs of accrued lines run their months through it, one
// verifikat per invoice and day.
func EachGroup[T any, K comparable](ctx context.Context, db *DB, rows []T, key func(T) K,
	fn func(ctx context.Context, group []T) error,
	refused func(ctx context.Context, group []T, err error) error) (int, []error, error) {
	var order []K
	groups := map[K][]T{}
	for _, r := range rows {
		k := key(r)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	done := 0
	var refusals []error
	for _, k := range order {
		err := db.Attempt(ctx, func(ctx context.Context) error { return fn(ctx, groups[k]) })
		if _, ok := apierr.As(err); ok {
			refusals = append(refusals, err)
			if refused != nil {
				if err := refused(ctx, groups[k], err); err != nil {
					return done, refusals, err
				}
			}
			continue
		}
		if err != nil {
			return done, refusals, err
		}
		done++
	}
	return done, refusals, nil
}
