// Package ratelimit limits requests per API key with a token bucket kept in
// the database, so the limit holds across every replica: a key holds up to
// its limit of tokens, refilled evenly over a minute, and each request takes
// one. A burst is at most the limit; there is no double burst at the edge of
// a window, as fixed windows allow.
package ratelimit

import (
	"context"
	"time"

	"github.com/kontera/kontera/internal/store"
)

// DefaultPerMinute is the spec's limit: 100 requests per minute per key.
const DefaultPerMinute = 100

// Limiter decides on requests from per-key buckets. The bucket itself is
// taken by ratelimit_take (migration 00012), which the key lookup calls in
// its own query (auth.Store.Lookup): limiting a request costs no round
// trip of its own.
type Limiter struct {
	perMinute int
}

// New returns a limiter allowing perMinute requests per key and minute;
// perMinute 0 turns limiting off.
func New(perMinute int) *Limiter { return &Limiter{perMinute: perMinute} }

// Result is the state of a key's bucket after a request took from it.
type Result struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time     // when the bucket is full again
	RetryAfter time.Duration // until a token is back, at least one second
}

// PerMinute is the limit of every key's bucket; 0 when limiting is off.
func (l *Limiter) PerMinute() int { return l.perMinute }

// Result says what a bucket holding tokens after a request took from it
// (allowed says whether there was a token) at the database's time now
// means for the request.
func (l *Limiter) Result(tokens float64, allowed bool, now time.Time) Result {
	return decide(tokens, allowed, l.perMinute, now)
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
