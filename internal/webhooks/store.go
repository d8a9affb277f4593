package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/store"
)

// Webhook is a registered URL for one event type of a company. Its JSON
// (the audit trail's snapshot) never holds the secret.
type Webhook struct {
	CompanyID       uuid.UUID  `db:"company_id" json:"company_id"`
	ID              uuid.UUID  `db:"id" json:"id"`
	Name            string     `db:"name" json:"name"`
	Description     *string    `db:"description" json:"description"`
	EventType       string     `db:"event_type" json:"event_type"`
	URL             string     `db:"webhook_url" json:"webhook_url"`
	SecretSealed    []byte     `db:"secret_sealed" json:"-"`
	SecretRotatedAt *time.Time `db:"secret_rotated_at" json:"secret_rotated_at"`
	Active          bool       `db:"active" json:"active"`
	APIVersion      string     `db:"api_version_pinned" json:"api_version_pinned"`
	DisabledAt      *time.Time `db:"disabled_at" json:"disabled_at"`
	DisabledReason  *string    `db:"disabled_reason" json:"disabled_reason"`
	CreatedAt       time.Time  `db:"created_at" json:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at" json:"updated_at"`
}

// Delivery is one event's delivery to one webhook, with its attempts.
type Delivery struct {
	CompanyID      uuid.UUID       `db:"company_id"`
	ID             uuid.UUID       `db:"id"`
	WebhookID      *uuid.UUID      `db:"webhook_id"`
	EventID        *uuid.UUID      `db:"event_id"`
	EventType      string          `db:"event_type"`
	Payload        json.RawMessage `db:"payload"`
	EventCreatedAt time.Time       `db:"event_created_at"`
	APIVersion     string          `db:"api_version"`
	Status         string          `db:"status"`
	Attempts       int             `db:"attempts"`
	NextAttemptAt  time.Time       `db:"next_attempt_at"`
	LeaseToken     *uuid.UUID      `db:"lease_token"`
	LeaseUntil     *time.Time      `db:"lease_until"`
	ResponseStatus *int            `db:"response_status"`
	ResponseBody   *string         `db:"response_body"`
	Error          *string         `db:"error"`
	RetryOf        *uuid.UUID      `db:"retry_of"`
	CreatedAt      time.Time       `db:"created_at"`
	DeliveredAt    *time.Time      `db:"delivered_at"`
}

// Store holds the SQL of webhooks, their deliveries and the event feed.
type Store struct{ db *store.DB }

// NewStore returns the webhooks store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Dispatch fans out up to limit undispatched events, oldest first, in the
// transaction of ctx: one pending delivery per active webhook of the
// event's company subscribed to its type, each event stamped dispatched
// with its company's next feed number (the counter row held to the
// commit, so feed order is the order the dispatches commit in). Events
// another dispatcher holds are skipped. It answers how many events and
// deliveries it wrote.
func (s *Store) Dispatch(ctx context.Context, limit int) (int, int, error) {
	q := s.db.Q(ctx)
	var events []struct {
		CompanyID uuid.UUID `db:"company_id"`
		ID        uuid.UUID `db:"id"`
	}
	if err := q.SelectContext(ctx, &events, `SELECT company_id, id FROM events WHERE dispatched_at IS NULL
		ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`, limit); err != nil || len(events) == 0 {
		return 0, 0, err
	}
	companies, ids := make([]uuid.UUID, len(events)), make([]uuid.UUID, len(events))
	for i, e := range events {
		companies[i], ids[i] = e.CompanyID, e.ID
	}
	var made int
	err := q.GetContext(ctx, &made, `
		WITH picked AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS x(company_id, id, n)),
		counts AS (SELECT company_id, count(*) AS n FROM picked GROUP BY company_id),
		feeds AS (
			INSERT INTO event_feeds AS f (company_id, last_seq) SELECT company_id, n FROM counts
			ON CONFLICT (company_id) DO UPDATE SET last_seq = f.last_seq + EXCLUDED.last_seq
			RETURNING company_id, last_seq),
		numbered AS (
			SELECT p.company_id, p.id, f.last_seq - c.n + row_number() OVER (PARTITION BY p.company_id ORDER BY p.n) AS seq
			FROM picked p JOIN counts c USING (company_id) JOIN feeds f USING (company_id)),
		stamped AS (
			UPDATE events e SET dispatched_at = clock_timestamp(), feed_seq = n.seq FROM numbered n
			WHERE e.company_id = n.company_id AND e.id = n.id RETURNING e.*),
		made AS (
			INSERT INTO webhook_deliveries (company_id, id, webhook_id, event_id, event_type, payload, event_created_at,
				api_version)
			SELECT e.company_id, gen_random_uuid(), w.id, e.id, e.type, e.payload, e.created_at, w.api_version_pinned
			FROM stamped e JOIN webhooks w ON w.company_id = e.company_id AND w.event_type = e.type AND w.active
			RETURNING 1)
		SELECT count(*) FROM made`, pq.Array(companies), pq.Array(ids))
	return len(events), made, err
}

// Claimed is a delivery leased for an attempt, with where it goes.
type Claimed struct {
	Delivery
	URL          string `db:"webhook_url"`
	SecretSealed []byte `db:"secret_sealed"`
}

// ClaimMany leases up to n due deliveries (pending, or failed and due, or
// in flight with its lease run out) of active webhooks, none past
// perWebhook attempts in flight: in_flight, attempts + 1, one fresh lease
// token good for lease. An attempt whose lease ran out (its process died
// mid-attempt) is made again and counted once: the last attempt taken
// over stays the last. It commits on its own: one statement, however
// many it leases.
func (s *Store) ClaimMany(ctx context.Context, lease time.Duration, perWebhook, n int) ([]Claimed, error) {
	var out []Claimed
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT c.*, w.webhook_url, w.secret_sealed FROM webhook_claim_many($1, $2::interval, $3, $4, $5) c
		JOIN webhooks w ON w.company_id = c.company_id AND w.id = c.webhook_id`,
		uuid.New(), fmt.Sprintf("%d milliseconds", lease.Milliseconds()), perWebhook, len(Retries)+1, n)
	return out, err
}

// Result is an attempt's outcome to record on the delivery it was made
// for.
type Result struct {
	Delivery Claimed
	Outcome  Outcome
	Attempt  Attempt
	Next     time.Time
}

// RecordMany writes the outcomes of rs on their deliveries in one
// statement, each only while its lease is still its own (a lease run out
// was taken over: the later attempt records), and answers which were (by
// index into rs). Disabling a webhook is Record's.
func (s *Store) RecordMany(ctx context.Context, rs []Result) ([]bool, error) {
	n := len(rs)
	var (
		companies, ids, tokens = make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
		states, bodies, errs   = make([]string, n), make([]*string, n), make([]*string, n)
		statuses               = make([]*int64, n)
		nexts                  = make([]time.Time, n)
	)
	for i, r := range rs {
		if r.Delivery.LeaseToken == nil {
			return nil, fmt.Errorf("webhooks: delivery %s is not leased", r.Delivery.ID)
		}
		companies[i], ids[i], tokens[i] = r.Delivery.CompanyID, r.Delivery.ID, *r.Delivery.LeaseToken
		states[i], bodies[i], nexts[i] = r.Outcome.State, r.Attempt.Body, r.Next
		if r.Attempt.Error != "" {
			errs[i] = &r.Attempt.Error
		}
		if r.Attempt.Status != 0 {
			st := int64(r.Attempt.Status)
			statuses[i] = &st
		}
	}
	var done []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &done, `UPDATE webhook_deliveries d SET status = r.state,
			next_attempt_at = r.next, response_status = r.code, response_body = r.body, error = r.error,
			lease_token = NULL, lease_until = NULL, delivered_at = CASE WHEN r.state = 'delivered' THEN now() END
		FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::int[], $7::text[], $8::text[])
			AS r (company_id, id, token, state, next, code, body, error)
		WHERE d.company_id = r.company_id AND d.id = r.id AND d.lease_token = r.token
		RETURNING d.id`, pq.Array(companies), pq.Array(ids), pq.Array(tokens), pq.Array(states), pq.Array(nexts),
		pq.Array(statuses), pq.Array(bodies), pq.Array(errs))
	if err != nil {
		return nil, err
	}
	recorded := make(map[uuid.UUID]bool, len(done))
	for _, id := range done {
		recorded[id] = true
	}
	ours := make([]bool, n)
	for i, id := range ids {
		ours[i] = recorded[id]
	}
	return ours, nil
}

// Record writes outcome r (RecordMany of one) and disables its webhook
// when the outcome says so. It answers whether the attempt was still its
// delivery's.
func (s *Store) Record(ctx context.Context, r Result) (bool, error) {
	ours, err := s.RecordMany(ctx, []Result{r})
	if err != nil || !ours[0] {
		return false, err
	}
	d, o := r.Delivery, r.Outcome
	if o.Disable == "" || d.WebhookID == nil {
		return true, nil
	}
	// Disabled, it takes no attempts: what waits, and what another worker
	// is attempting, ends as a pause ends it.
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE webhooks SET active = false, disabled_at = now(),
		disabled_reason = $3, updated_at = now() WHERE company_id = $1 AND id = $2 AND active`,
		d.CompanyID, *d.WebhookID, o.Disable)
	if err != nil {
		return true, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return true, err
	}
	_, err = s.End(ctx, d.CompanyID, *d.WebhookID, EndInactive)
	return true, err
}

// Release hands back the lease of delivery d when its attempt was cut
// short by the server stopping: the attempt does not count, and another
// worker (another replica) takes it over at once.
func (s *Store) Release(ctx context.Context, d Claimed) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE webhook_deliveries SET attempts = attempts - 1, lease_until = now()
		WHERE company_id = $1 AND id = $2 AND lease_token = $3`, d.CompanyID, d.ID, d.LeaseToken)
	return err
}
