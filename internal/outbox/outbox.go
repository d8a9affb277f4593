// Package outbox holds the events table: every event a change causes is a
// row written in the change's own transaction, so a rollback or a dry run
// can never have announced anything. Webhook delivery workers read the
// rows after commit.
package outbox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/kontera/kontera/openapi"

	"github.com/kontera/kontera/internal/store"
)

// Emit records an event of type typ (one of the catalogue's: Lookup) for
// company with payload (marshalled to JSON) in the transaction of ctx, at
// the unit of work's end with its other append-only rows (store.Append).
func Emit(ctx context.Context, db *store.DB, company uuid.UUID, typ string, payload any) (uuid.UUID, error) {
	if err := check(typ); err != nil {
		return uuid.Nil, err
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return uuid.Nil, fmt.Errorf("outbox: %s payload: %w", typ, err)
	}
	id := uuid.New()
	return id, db.Append(ctx, store.Append{
		Into:   "events (company_id, id, type, payload, api_version)",
		Values: "($1, $2, $3, $4::jsonb, $5)",
		Args:   []any{company, id, typ, string(body), openapi.APIVersion}})
}

// Event is a row of the outbox.
type Event struct {
	ID        uuid.UUID       `db:"id"`
	CompanyID uuid.UUID       `db:"company_id"`
	Type      string          `db:"type"`
	Payload   json.RawMessage `db:"payload"`
}

// Pending returns up to limit undispatched events of company, oldest first.
func Pending(ctx context.Context, q store.Querier, company uuid.UUID, limit int) ([]Event, error) {
	var out []Event
	err := q.SelectContext(ctx, &out, `
		SELECT id, company_id, type, payload FROM events
		WHERE company_id = $1 AND dispatched_at IS NULL ORDER BY created_at, id LIMIT $2`, company, limit)
	return out, err
}

// Backlog returns how many events wait to be dispatched, and how long the
// oldest has waited (0 when none does).
func Backlog(ctx context.Context, q store.Querier) (n int, oldest float64, err error) {
	err = q.QueryRowxContext(ctx, `SELECT count(*),
		coalesce(extract(epoch FROM clock_timestamp() - min(created_at))::float8, 0)
		FROM events WHERE dispatched_at IS NULL`).Scan(&n, &oldest)
	return n, oldest, err
}
