// Package ratelimit limits requests per API key with a token bucket kept in
// the database, so the limit holds across every replica: a key holds up to
// its limit of tokens, refilled evenly over a minute, and each request takes
// one. A burst is at most the limit; there is no double burst at the edge of
// a window, as fixed windows allow.
package ratelimit

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// DefaultPerMinute is the spec's limit: 100 requests per minute per key.
const DefaultPerMinute = 100

// Limiter takes requests from per-key buckets.
type Limiter struct {
	db        *store.DB
	perMinute int
}

// New returns a limiter allowing perMinute requests per key and minute;
// perMinute 0 turns limiting off.
func New(db *store.DB, perMinute int) *Limiter { return &Limiter{db: db, perMinute: perMinute} }

// Result is the state of a key's bucket after a request took from it.
type Result struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time     // when the bucket is full again
	RetryAfter time.Duration // until a token is back, at least one second
}

// Enabled reports whether the limiter limits anything.
func (l *Limiter) Enabled() bool { return l.perMinute > 0 }

// Take takes a token of key's bucket and says whether there was one. One
// statement; times come from the database clock, the one clock all
// replicas share.
func (l *Limiter) Take(ctx context.Context, key uuid.UUID) (Result, error) {
	var row struct {
		Tokens  float64   `db:"tokens"`
		Allowed bool      `db:"last_allowed"`
		Now     time.Time `db:"updated_at"`
	}
	err := l.db.Q(ctx).GetContext(ctx, &row, `SELECT tokens, last_allowed, updated_at FROM ratelimit_take($1, $2)`,
		key, l.perMinute)
	if err != nil {
		return Result{}, err
	}
	return decide(row.Tokens, row.Allowed, l.perMinute, row.Now), nil
}

// decide says what a bucket holding tokens after the request (allowed or
// not) at now means for the caller: the whole tokens left, when the bucket
// is full again, and, when refused, how long until a token is back.
func decide(tokens float64, allowed bool, limit int, now time.Time) Result {
	perToken := time.Minute / time.Duration(limit)
	r := Result{Allowed: allowed, Limit: limit, Remaining: max(int(tokens), 0),
		Reset: now.Add(time.Duration((float64(limit) - tokens) * float64(perToken))).Truncate(time.Second).Add(time.Second)}
	r.RetryAfter = time.Second
	if !allowed {
		r.RetryAfter = max(time.Duration((1-tokens)*float64(perToken)).Round(time.Second), time.Second)
	}
	return r
}

// Purge deletes buckets untouched for two minutes: full again, they are
// as good as none.
func Purge(ctx context.Context, q store.Querier) error {
	_, err := q.ExecContext(ctx, `DELETE FROM rate_limit_buckets WHERE updated_at < now() - interval '2 minutes'`)
	return err
}
