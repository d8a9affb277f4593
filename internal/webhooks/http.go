package webhooks

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the webhook endpoints and the event feed.
type Handler struct {
	registry *Registry
	store    *Store
	db       *store.DB
	cursors  *cursor.Codec
	// reaches says whether the calling key may write in company: a
	// delivery is found by its id alone, so its company is checked here.
	reaches func(ctx context.Context, company uuid.UUID) (bool, error)
}

// NewHandler returns the webhooks handler.
func NewHandler(r *Registry, s *Store, db *store.DB, c *cursor.Codec,
	reaches func(ctx context.Context, company uuid.UUID) (bool, error)) *Handler {
	return &Handler{registry: r, store: s, db: db, cursors: c, reaches: reaches}
}

const deliveriesList = "webhook_deliveries"

// View is a webhook as the API shows it: never its secret.
func View(w Webhook) gen.Webhook {
	return gen.Webhook{Id: w.ID, Name: w.Name, Description: envelope.Nullable(w.Description),
		EventType: gen.WebhookEventType(w.EventType), WebhookUrl: w.URL, Active: w.Active, ApiVersionPinned: w.APIVersion,
		DisabledAt: envelope.NullableTime(w.DisabledAt), DisabledReason: envelope.Nullable(w.DisabledReason),
		SecretRotatedAt: envelope.NullableTime(w.SecretRotatedAt), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// DeliveryView is a delivery as the API shows it.
func DeliveryView(d Delivery) gen.WebhookDelivery {
	next := envelope.NullableTime(&d.NextAttemptAt)
	if d.Status == Delivered || d.Status == Dead {
		next = envelope.NullableTime(nil)
	}
	return gen.WebhookDelivery{Id: d.ID, WebhookId: envelope.Nullable(d.WebhookID), EventType: d.EventType,
		Status: gen.WebhookDeliveryStatus(d.Status), Attempts: d.Attempts, NextAttemptAt: next,
		ResponseStatus: envelope.Nullable(d.ResponseStatus), ResponseBody: envelope.Nullable(d.ResponseBody),
		Error: envelope.Nullable(d.Error), RequestId: "whdel_" + d.ID.String(), RetryOf: envelope.Nullable(d.RetryOf),
		CreatedAt: d.CreatedAt, DeliveredAt: envelope.NullableTime(d.DeliveredAt)}
}

func scopes(ctx context.Context) []string {
	if k := auth.KeyFrom(ctx); k != nil {
		return k.Scopes
	}
	return nil
}

// ListWebhooks lists the company's webhooks.
func (h *Handler) ListWebhooks(ctx context.Context, req gen.ListWebhooksRequestObject) (gen.ListWebhooksResponseObject, error) {
	rows, err := h.store.List(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	out := gen.WebhookList{Webhooks: make([]gen.Webhook, len(rows))}
	for i, w := range rows {
		out.Webhooks[i] = View(w)
	}
	return gen.ListWebhooks200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// GetWebhook reads one webhook.
func (h *Handler) GetWebhook(ctx context.Context, req gen.GetWebhookRequestObject) (gen.GetWebhookResponseObject, error) {
	w, err := h.store.Get(ctx, req.CompanyId, req.WebhookId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetWebhook200JSONResponse{Data: View(w), Meta: envelope.Meta(ctx)}, nil
}

// CreateWebhook registers a webhook; its secret is answered this once.
func (h *Handler) CreateWebhook(ctx context.Context, req gen.CreateWebhookRequestObject) (gen.CreateWebhookResponseObject, error) {
	b := req.Body
	w, secret, err := h.registry.Create(ctx, req.CompanyId, Registration{EventType: string(b.EventType), URL: b.WebhookUrl,
		Name: b.Name, Description: envelope.Optional(b.Description)}, scopes(ctx))
	if err != nil {
		return nil, err
	}
	v := View(w)
	if store.IsDryRun(ctx) {
		var p gen.WebhookPreview
		if err := convert(v, &p); err != nil {
			return nil, err
		}
		p.Id, p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[uuid.UUID](), envelope.NullableTime(nil), envelope.NullableTime(nil)
		return gen.CreateWebhook200JSONResponse{Data: gen.WebhookCreateDryRun{DryRun: true,
			Preview: gen.WebhookPreviewResult{Webhook: p}}, Meta: envelope.Meta(ctx)}, nil
	}
	var c gen.WebhookCreated
	if err := convert(v, &c); err != nil {
		return nil, err
	}
	c.Secret = secret
	return gen.CreateWebhook201JSONResponse{Data: c, Meta: envelope.Meta(ctx)}, nil
}

// convert moves a view into a shape with the same fields (and more).
func convert(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// UpdateWebhook renames, re-points, pauses or re-enables a webhook.
func (h *Handler) UpdateWebhook(ctx context.Context, req gen.UpdateWebhookRequestObject) (gen.UpdateWebhookResponseObject, error) {
	b := req.Body
	c := Change{Name: b.Name, URL: b.WebhookUrl, Active: b.Active, DescriptionSet: b.Description.IsSpecified(),
		Description: envelope.Optional(b.Description)}
	w, err := h.registry.Update(ctx, req.CompanyId, req.WebhookId, c)
	if err != nil {
		return nil, err
	}
	return gen.UpdateWebhook200JSONResponse{Data: View(w), Meta: envelope.Meta(ctx)}, nil
}

// DeleteWebhook removes a webhook, keeping its deliveries' history.
func (h *Handler) DeleteWebhook(ctx context.Context, req gen.DeleteWebhookRequestObject) (gen.DeleteWebhookResponseObject, error) {
	if err := h.registry.Delete(ctx, req.CompanyId, req.WebhookId); err != nil {
		return nil, err
	}
	return gen.DeleteWebhook204Response{}, nil
}

// RotateWebhookSecret gives a webhook a new secret, answered once.
func (h *Handler) RotateWebhookSecret(ctx context.Context, req gen.RotateWebhookSecretRequestObject) (gen.RotateWebhookSecretResponseObject, error) {
	secret, at, err := h.registry.Rotate(ctx, req.CompanyId, req.WebhookId)
	if err != nil {
		return nil, err
	}
	return gen.RotateWebhookSecret200JSONResponse{Data: gen.WebhookSecret{Id: req.WebhookId, Secret: secret,
		RotatedAt: at}, Meta: envelope.Meta(ctx)}, nil
}

// TestWebhook queues a webhook.test delivery.
func (h *Handler) TestWebhook(ctx context.Context, req gen.TestWebhookRequestObject) (gen.TestWebhookResponseObject, error) {
	d, err := h.registry.Test(ctx, req.CompanyId, req.WebhookId)
	if err != nil {
		return nil, err
	}
	return gen.TestWebhook202JSONResponse{Data: gen.WebhookDeliveryQueued{WebhookDeliveryId: d.ID,
		Status: gen.WebhookDeliveryQueuedStatusPending}, Meta: envelope.Meta(ctx)}, nil
}

// RetryWebhookDelivery queues a delivered or dead delivery again.
func (h *Handler) RetryWebhookDelivery(ctx context.Context, req gen.RetryWebhookDeliveryRequestObject) (gen.RetryWebhookDeliveryResponseObject, error) {
	d, err := h.store.Delivery(ctx, req.DeliveryId)
	if err != nil {
		return nil, err
	}
	if ok, err := h.reaches(ctx, d.CompanyID); err != nil || !ok {
		if err == nil {
			err = apierr.New(apierr.WebhookDeliveryNotFound, map[string]any{"webhook_delivery_id": req.DeliveryId})
		}
		return nil, err
	}
	again, err := h.registry.Retry(ctx, d)
	if err != nil {
		return nil, err
	}
	return gen.RetryWebhookDelivery202JSONResponse{Data: gen.WebhookDeliveryQueued{WebhookDeliveryId: again.ID,
		Status: gen.WebhookDeliveryQueuedStatusPending}, Meta: envelope.Meta(ctx)}, nil
}

// ListWebhookDeliveries reads a page of a webhook's deliveries.
func (h *Handler) ListWebhookDeliveries(ctx context.Context, req gen.ListWebhookDeliveriesRequestObject) (gen.ListWebhookDeliveriesResponseObject, error) {
	if _, err := h.store.Get(ctx, req.CompanyId, req.WebhookId, false); err != nil {
		return nil, err
	}
	p := req.Params
	var after *cursor.Position
	if pos := (cursor.Position{}); h.cursors.DecodeParam(deliveriesList, p.Cursor, &pos) {
		after = &pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.store.Deliveries(ctx, req.CompanyId, req.WebhookId, p.DeliveryId, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, deliveriesList, rows, limit, func(d Delivery) any {
		return cursor.Position{At: d.CreatedAt, ID: d.ID}
	})
	out := make(gen.WebhookDeliveryList, len(rows))
	for i, d := range rows {
		out[i] = DeliveryView(d)
	}
	return gen.ListWebhookDeliveries200JSONResponse{Data: out, Meta: envelope.Page(ctx, next)}, nil
}

// ListEvents reads the company's pull feed after an event.
func (h *Handler) ListEvents(ctx context.Context, req gen.ListEventsRequestObject) (gen.ListEventsResponseObject, error) {
	p := req.Params
	var asked []string
	if p.Types != nil {
		for _, t := range strings.Split(*p.Types, ",") {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(asked, t) {
				asked = append(asked, t)
			}
		}
	}
	types, err := Readable(scopes(ctx), asked)
	if err != nil {
		return nil, err
	}
	meta := envelope.Meta(ctx)
	var seq int64
	if p.After != nil {
		at, kept, err := outbox.Position(ctx, h.db.Q(ctx), req.CompanyId, *p.After)
		if err != nil {
			return nil, err
		}
		seq = at
		if !kept && h.db.OnReplica(ctx) {
			// Not "no longer kept" before the primary says so: the
			// replica may not have it yet.
			return nil, store.ErrBehind
		}
		if !kept {
			meta = envelope.WithWarning(meta, "EVENTS_AFTER_NOT_KEPT",
				"Händelsen i after finns inte längre i flödet (de sparas i 30 dagar): läsningen börjar om från den äldsta.",
				"The event in after is no longer in the feed (events are kept 30 days): reading starts again at the oldest.")
		}
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := outbox.Feed(ctx, h.db.Q(ctx), req.CompanyId, seq, types, limit+1)
	if err != nil {
		return nil, err
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
		last := rows[len(rows)-1].ID.String()
		meta.NextCursor = nullable.NewNullableWithValue(last)
	} else {
		meta.NextCursor = nullable.NewNullNullable[string]()
	}
	out := gen.EventFeed{Events: make([]gen.FeedEvent, len(rows)), HasMore: more}
	for i, e := range rows {
		var object gen.FeedEventData_Object
		if err := object.UnmarshalJSON(e.Payload); err != nil {
			return nil, err
		}
		out.Events[i] = gen.FeedEvent{Id: e.ID, Type: gen.WebhookEventType(e.Type), ApiVersion: e.APIVersion,
			Created: int(e.CreatedAt.Unix()), Data: gen.FeedEventData{Object: object}}
	}
	return gen.ListEvents200JSONResponse{Data: out, Meta: meta}, nil
}

// Readable are the feed's event types a key with scopes reads, of those
// asked (all, when none is asked): a type of a group the key may not read
// is INSUFFICIENT_SCOPE naming its scope, an unknown type a
// VALIDATION_ERROR on types, and a key that reads no group at all is
// refused too.
func Readable(scopes []string, asked []string) ([]string, error) {
	groups := outbox.Groups()
	reads := false
	for _, s := range groups {
		reads = reads || s != "" && slices.Contains(scopes, s)
	}
	if !reads {
		var need []string
		for _, s := range groups {
			if s != "" && !slices.Contains(need, s) {
				need = append(need, s)
			}
		}
		slices.Sort(need)
		return nil, apierr.New(apierr.InsufficientScope, map[string]any{"required_scope": need[0], "one_of": need,
			"granted_scopes": scopes})
	}
	if len(asked) == 0 {
		asked = outbox.Feedable()
		var out []string
		for _, t := range asked {
			k, _ := outbox.Lookup(t)
			if k.Scope == "" || slices.Contains(scopes, k.Scope) {
				out = append(out, t)
			}
		}
		return out, nil
	}
	for _, t := range asked {
		k, ok := outbox.Lookup(t)
		if !ok || !outbox.InFeed(t) {
			return nil, apierr.Validation(apierr.Issue{Field: "types", In: "query", Rule: "enum",
				Issue: "unknown event type " + t})
		}
		if k.Scope != "" && !slices.Contains(scopes, k.Scope) {
			return nil, apierr.New(apierr.InsufficientScope, map[string]any{"required_scope": k.Scope,
				"granted_scopes": scopes, "event_type": t})
		}
	}
	return asked, nil
}
