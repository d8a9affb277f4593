// Package ratelimit counts requests per API key in fixed one-minute windows
// kept in the database, so the limit holds across every replica.
package ratelimit

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// DefaultPerMinute is the spec's limit: 100 requests per minute per key.
const DefaultPerMinute = 100

// Limiter takes requests from per-key windows.
type Limiter struct {
	db        *store.DB
	perMinute int
}

// New returns a limiter allowing perMinute requests per key and minute;
// perMinute 0 turns limiting off.
func New(db *store.DB, perMinute int) *Limiter { return &Limiter{db: db, perMinute: perMinute} }

// Result is the state of a key's window after a request was counted.
type Result struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time     // when the window ends
	RetryAfter time.Duration // until Reset, at least one second
}

// Enabled reports whether the limiter limits anything.
func (l *Limiter) Enabled() bool { return l.perMinute > 0 }

// Take counts one request of key and says whether it is within the limit.
// Times come from the database clock, the one clock all replicas share.
func (l *Limiter) Take(ctx context.Context, key uuid.UUID) (Result, error) {
	var row struct {
		Count int       `db:"count"`
		Start time.Time `db:"window_start"`
		Now   time.Time `db:"now"`
	}
	err := l.db.Q(ctx).GetContext(ctx, &row, `
		INSERT INTO rate_limit_windows (api_key_id, window_start, count)
		VALUES ($1, date_trunc('minute', now()), 1)
		ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
		RETURNING count, window_start, clock_timestamp() AS now`, key)
	if err != nil {
		return Result{}, err
	}
	return decide(row.Count, l.perMinute, row.Start, row.Now), nil
}

func decide(count, limit int, start, now time.Time) Result {
	reset := start.Add(time.Minute)
	r := Result{Allowed: count <= limit, Limit: limit, Remaining: max(limit-count, 0), Reset: reset}
	r.RetryAfter = max(reset.Sub(now).Round(time.Second), time.Second)
	return r
}

// Purge deletes windows that have ended.
func Purge(ctx context.Context, q store.Querier) error {
	_, err := q.ExecContext(ctx, `DELETE FROM rate_limit_windows WHERE window_start < now() - interval '2 minutes'`)
	return err
}
