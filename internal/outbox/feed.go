package outbox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/store"
)

// Fed is an event as the pull feed hands it out: numbered in the order
// its transaction's dispatch committed.
type Fed struct {
	ID         uuid.UUID       `db:"id"`
	Type       string          `db:"type"`
	Payload    json.RawMessage `db:"payload"`
	APIVersion string          `db:"api_version"`
	CreatedAt  time.Time       `db:"created_at"`
	Seq        int64           `db:"feed_seq"`
}

// Position is where in company's feed the event after is: its number,
// and false when the feed no longer holds it (pruned, or never in it),
// so a reader starts again at the oldest kept.
func Position(ctx context.Context, q store.Querier, company, after uuid.UUID) (int64, bool, error) {
	var seq []int64
	err := q.SelectContext(ctx, &seq, `SELECT feed_seq FROM events WHERE company_id = $1 AND id = $2
		AND feed_seq IS NOT NULL`, company, after)
	if err != nil || len(seq) == 0 {
		return 0, false, err
	}
	return seq[0], true, nil
}

// Feed reads up to limit of company's events numbered after seq, of the
// given types only, in feed order.
func Feed(ctx context.Context, q store.Querier, company uuid.UUID, seq int64, types []string, limit int) ([]Fed, error) {
	out := []Fed{}
	err := q.SelectContext(ctx, &out, `SELECT id, type, payload, api_version, created_at, feed_seq FROM events
		WHERE company_id = $1 AND feed_seq > $2 AND type = ANY($3) ORDER BY feed_seq LIMIT $4`,
		company, seq, pq.Array(types), limit)
	return out, err
}

// Prune removes the events made before cutoff that have been dispatched
// and that no delivery names any more (webhooks prunes its ended
// deliveries first), and answers how many went.
func Prune(ctx context.Context, q store.Querier, cutoff time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM events e WHERE created_at < $1 AND dispatched_at IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.company_id = e.company_id AND d.event_id = e.id)`,
		cutoff)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
