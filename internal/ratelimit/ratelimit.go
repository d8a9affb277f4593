// Package ratelimit limits requests per API key with a token bucket kept in
// the database, so the limit holds across every replica: a key holds up to
// its limit of tokens, refilled evenly over a minute, and each request takes
// one. A burst is at most the limit; there is no double burst at the edge of
// a window, as fixed windows allow.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/kontera/kontera/internal/store"
)

// DefaultPerMinute is the spec's limit: 100 requests per minute per key.
const DefaultPerMinute = 100

// Limiter decides on requests from per-key buckets. The bucket itself is
// in the database, taken by ratelimit_lease (migration 00014), which the
// key lookup calls in its own query (auth.Store.Lookup): limiting costs no
// round trip of its own. A take leases up to LeaseSize tokens at once, and
// the replica spends them in memory for up to LeaseTTL: tokens only ever
// leave the bucket, so the limit holds across replicas (never more
// requests than it allows); a lease not spent in time is forfeited, so a
// key may get up to LeaseSize-1 fewer requests per replica, second and
// request in flight at once.
// At the spec's 100 a minute a lease is one token: every request takes
// from the bucket, exactly.
type Limiter struct {
	perMinute int
	mu        sync.Mutex
	leases    map[string]*lease
}

// lease is what a replica holds of a key's bucket.
type lease struct {
	left   int       // tokens not yet spent
	until  time.Time // when the rest is forfeited
	tokens float64   // the bucket after the take
	at     time.Time // the database's time of the take
}

// LeaseTTL is how long a replica may spend a lease.
const LeaseTTL = time.Second

// New returns a limiter allowing perMinute requests per key and minute;
// perMinute 0 turns limiting off.
func New(perMinute int) *Limiter {
	return &Limiter{perMinute: perMinute, leases: map[string]*lease{}}
}

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

// LeaseSize is how many tokens one take from the bucket asks for: 1 % of
// the limit, at least 1 and at most 100.
func (l *Limiter) LeaseSize() int { return min(max(l.perMinute/100, 1), 100) }

// Spend takes a token of key's lease in memory at now; false means there
// is none and the request takes from the bucket.
func (l *Limiter) Spend(key string, now time.Time) (Result, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	le := l.leases[key]
	if le == nil || le.left == 0 || now.After(le.until) {
		return Result{}, false
	}
	le.left--
	return decide(le.tokens+float64(le.left), true, l.perMinute, le.at), true
}

// Taken adds what a take from key's bucket leased beyond the request's
// own token (granted 0: refused) to the replica's lease and answers the
// request's Result; tokens is the bucket after the take, at the
// database's time.
func (l *Limiter) Taken(key string, granted int, tokens float64, at, now time.Time) Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.leases) > 10_000 {
		for k, le := range l.leases {
			if now.After(le.until) {
				delete(l.leases, k)
			}
		}
	}
	le := l.leases[key]
	if granted > 1 {
		// Requests that found the lease empty at once each took one: what
		// they took adds up, none replaces another's.
		if le == nil || now.After(le.until) {
			le = &lease{}
			l.leases[key] = le
		}
		le.left += granted - 1
		le.until, le.tokens, le.at = now.Add(LeaseTTL), tokens, at
	}
	left := 0
	if le != nil && !now.After(le.until) {
		left = le.left
	}
	return decide(tokens+float64(left), granted > 0, l.perMinute, at)
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
