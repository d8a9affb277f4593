package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

const webhookColumns = `company_id, id, name, description, event_type, webhook_url, secret_sealed, secret_rotated_at,
	active, api_version_pinned, disabled_at, disabled_reason, created_at, updated_at`

// Insert stores the new webhook w.
func (s *Store) Insert(ctx context.Context, w Webhook) (Webhook, error) {
	err := s.db.Q(ctx).GetContext(ctx, &w, `INSERT INTO webhooks (company_id, id, name, description, event_type,
			webhook_url, secret_sealed, api_version_pinned) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		RETURNING `+webhookColumns,
		w.CompanyID, w.ID, w.Name, w.Description, w.EventType, w.URL, w.SecretSealed, w.APIVersion)
	return w, err
}

// Get reads webhook id of company, locked against other changes when
// lock is set.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, lock bool) (Webhook, error) {
	q := `SELECT ` + webhookColumns + ` FROM webhooks WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var w Webhook
	err := s.db.Q(ctx).GetContext(ctx, &w, q, company, id)
	if store.NotFound(err) {
		return w, apierr.New(apierr.WebhookNotFound, map[string]any{"webhook_id": id})
	}
	return w, err
}

// List reads the company's webhooks, oldest first.
func (s *Store) List(ctx context.Context, company uuid.UUID) ([]Webhook, error) {
	out := []Webhook{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+webhookColumns+` FROM webhooks WHERE company_id = $1
		ORDER BY created_at, id`, company)
	return out, err
}

// Update stores w's name, description, URL and state.
func (s *Store) Update(ctx context.Context, w Webhook) (Webhook, error) {
	err := s.db.Q(ctx).GetContext(ctx, &w, `UPDATE webhooks SET name = $3, description = $4, webhook_url = $5,
			active = $6, disabled_at = $7, disabled_reason = $8, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+webhookColumns,
		w.CompanyID, w.ID, w.Name, w.Description, w.URL, w.Active, w.DisabledAt, w.DisabledReason)
	return w, err
}

// SetSecret stores webhook id's new sealed secret and answers when.
func (s *Store) SetSecret(ctx context.Context, company, id uuid.UUID, sealed []byte) (time.Time, error) {
	var at time.Time
	err := s.db.Q(ctx).GetContext(ctx, &at, `UPDATE webhooks SET secret_sealed = $3, secret_rotated_at = now(),
			updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING secret_rotated_at`, company, id, sealed)
	return at, err
}

// Delete removes webhook id; its deliveries stay, without it.
func (s *Store) Delete(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM webhooks WHERE company_id = $1 AND id = $2`, company, id)
	return err
}

// End makes every delivery of webhook id not yet ended dead with error
// why, an attempt in flight included (its outcome is then no longer
// recorded), and answers how many.
func (s *Store) End(ctx context.Context, company, id uuid.UUID, why string) (int64, error) {
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'dead', error = $3,
			lease_token = NULL, lease_until = NULL
		WHERE company_id = $1 AND webhook_id = $2 AND status IN ('pending', 'failed', 'in_flight')`, company, id, why)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

const deliveryColumns = `company_id, id, webhook_id, event_id, event_type, payload, event_created_at, api_version,
	status, attempts, next_attempt_at, lease_token, lease_until, response_status, response_body, error, retry_of,
	created_at, delivered_at`

// Enqueue stores the new pending delivery d, due now.
func (s *Store) Enqueue(ctx context.Context, d Delivery) (Delivery, error) {
	err := s.db.Q(ctx).GetContext(ctx, &d, `INSERT INTO webhook_deliveries (company_id, id, webhook_id, event_id,
			event_type, payload, event_created_at, api_version, retry_of) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
		RETURNING `+deliveryColumns, d.CompanyID, d.ID, d.WebhookID, d.EventID, d.EventType, string(d.Payload),
		d.EventCreatedAt, d.APIVersion, d.RetryOf)
	return d, err
}

// Delivery reads delivery id, whichever company it is of.
func (s *Store) Delivery(ctx context.Context, id uuid.UUID) (Delivery, error) {
	var d Delivery
	err := s.db.Q(ctx).GetContext(ctx, &d, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = $1`, id)
	if store.NotFound(err) {
		return d, apierr.New(apierr.WebhookDeliveryNotFound, map[string]any{"webhook_delivery_id": id})
	}
	return d, err
}

// Deliveries reads up to limit deliveries of webhook id, newest first,
// after the position of a cursor; only delivery only, when set.
func (s *Store) Deliveries(ctx context.Context, company, id uuid.UUID, only *uuid.UUID, after *cursor.Position,
	limit int) ([]Delivery, error) {
	var at *time.Time
	var last *uuid.UUID
	if after != nil {
		at, last = &after.At, &after.ID
	}
	out := []Delivery{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE company_id = $1 AND webhook_id = $2 AND ($3::uuid IS NULL OR id = $3)
		  AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::uuid))
		ORDER BY created_at DESC, id DESC LIMIT $6`, company, id, only, at, last, limit+1)
	return out, err
}

// Prune removes the deliveries that ended (delivered or dead) and were
// made before cutoff, and answers how many went.
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE created_at < $1
		AND status IN ('delivered', 'dead')`, cutoff)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
