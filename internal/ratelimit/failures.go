package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/kontera/kontera/internal/store"
)

// DefaultFailuresPerMinute is how many failed authentications a client
// address may make a minute.
const DefaultFailuresPerMinute = 30

// maxRemembered is how many blocked addresses a replica keeps before it
// sweeps out those whose wait is over.
const maxRemembered = 10_000

// Failures limits failed authentications per client address: a token
// bucket in the database taken from by every 401. A client whose bucket
// is empty is refused before its key is even looked at. The refusal is
// remembered in each replica until a token is back, so a blocked client
// costs nothing, and a request with a valid key costs no statement; a
// replica that has not yet seen the client's failures lets one more
// attempt through before it learns of them (at most one per replica).
type Failures struct {
	db        *store.DB
	burst     int
	perMinute float64
	mu        sync.Mutex
	until     map[string]time.Time
	now       func() time.Time
}

// NewFailures limits failed authentications to perMinute per client, a
// bucket of that many refilled evenly; 0 turns it off.
func NewFailures(db *store.DB, perMinute int) *Failures {
	return NewFailuresRefilled(db, perMinute, float64(perMinute))
}

// NewFailuresRefilled is NewFailures with a bucket of burst tries refilled
// at perMinute: a test that must not see a token come back while it runs
// refills slowly.
func NewFailuresRefilled(db *store.DB, burst int, perMinute float64) *Failures {
	return &Failures{db: db, burst: burst, perMinute: perMinute, until: map[string]time.Time{}, now: time.Now}
}

// Limit is the size of the bucket: the tries a client has.
func (f *Failures) Limit() int { return f.burst }

// Blocked says how long client must wait, or 0 when it may try.
func (f *Failures) Blocked(client string) time.Duration {
	if f.burst <= 0 {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	until, ok := f.until[client]
	if !ok {
		return 0
	}
	if d := until.Sub(f.now()); d > 0 {
		return max(d.Round(time.Second), time.Second)
	}
	delete(f.until, client)
	return 0
}

// Failed counts a failed authentication of client and says how long it
// must now wait (0 while it has tries left).
func (f *Failures) Failed(ctx context.Context, client string) (time.Duration, error) {
	if f.burst <= 0 {
		return 0, nil
	}
	var tokens float64
	err := f.db.Q(ctx).GetContext(ctx, &tokens, `
		INSERT INTO auth_failure_buckets AS b (client, tokens, updated_at) VALUES ($1, $2 - 1, clock_timestamp())
		ON CONFLICT (client) DO UPDATE SET
			tokens = least($2::double precision,
				b.tokens + greatest(extract(epoch FROM clock_timestamp() - b.updated_at), 0) * $3 / 60.0) - 1,
			updated_at = clock_timestamp()
		RETURNING tokens`, client, f.burst, f.perMinute)
	if err != nil || tokens >= 0 {
		return 0, err
	}
	wait := time.Duration(-tokens * float64(time.Minute) / f.perMinute)
	f.mu.Lock()
	now := f.now()
	if len(f.until) >= maxRemembered {
		// Many addresses at once: forget those whose wait is over, so
		// the map stays the size of the addresses blocked now.
		for c, until := range f.until {
			if !until.After(now) {
				delete(f.until, c)
			}
		}
	}
	f.until[client] = now.Add(wait)
	f.mu.Unlock()
	return max(wait.Round(time.Second), time.Second), nil
}

// PurgeFailures deletes client buckets untouched for ten minutes.
func PurgeFailures(ctx context.Context, q store.Querier) error {
	_, err := q.ExecContext(ctx, `DELETE FROM auth_failure_buckets WHERE updated_at < now() - interval '10 minutes'`)
	return err
}
