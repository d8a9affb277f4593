package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/openapi"
)

// The bounds of a webhook's texts, as the table holds them.
const (
	MaxName        = 200
	MaxDescription = 2000
)

// Paused is the disabled_reason of a webhook its owner paused.
const Paused = "paused"

// The errors a delivery ends with when it will never be sent.
const (
	EndInactive = "webhook_inactive"
	EndDeleted  = "webhook_deleted"
)

// Registration is what a new webhook is asked to be.
type Registration struct {
	EventType, URL, Name string
	Description          *string
}

// Check holds a registration to the rules that need no network: a
// subscribable event type, which for a guarded one (payroll's, api_key's)
// also needs the scope that reads it among scopes; a name of 1 to MaxName characters; a description of at
// most MaxDescription bytes. The URL is the Guard's (CheckURL).
func (r Registration) Check(scopes []string) error {
	k, ok := outbox.Lookup(r.EventType)
	if !ok || !k.Subscribable {
		return apierr.Field("event_type", "enum", "one of the subscribable event types")
	}
	if k.Guarded && !slices.Contains(scopes, k.Scope) {
		return apierr.New(apierr.InsufficientScope, map[string]any{"required_scope": k.Scope, "granted_scopes": scopes,
			"field": "event_type", "event_type": r.EventType})
	}
	if err := checkName(r.Name); err != nil {
		return err
	}
	return checkDescription(r.Description)
}

func checkName(name string) error {
	if n := len([]rune(strings.TrimSpace(name))); n < 1 || n > MaxName {
		return apierr.Field("name", "length", "1 to 200 characters, not only spaces")
	}
	return nil
}

func checkDescription(d *string) error {
	if d != nil && len(*d) > MaxDescription {
		return apierr.Field("description", "max_length", "at most 2000 bytes")
	}
	return nil
}

// Change is a PATCH of a webhook: what is nil stays.
type Change struct {
	Name *string
	// DescriptionSet says Description was sent (null clears it).
	DescriptionSet bool
	Description    *string
	URL            *string
	Active         *bool
}

// Apply is w changed by c at now: active=false pauses it (disabled_at
// now, reason Paused); active=true clears disabled_at and disabled_reason
// whatever disabled it.
func (w Webhook) Apply(c Change, now time.Time) (Webhook, error) {
	if c.Name != nil {
		if err := checkName(*c.Name); err != nil {
			return w, err
		}
		w.Name = strings.TrimSpace(*c.Name)
	}
	if c.DescriptionSet {
		if err := checkDescription(c.Description); err != nil {
			return w, err
		}
		w.Description = c.Description
	}
	if c.URL != nil {
		w.URL = *c.URL
	}
	if c.Active != nil && *c.Active != w.Active {
		w.Active = *c.Active
		if w.Active {
			w.DisabledAt, w.DisabledReason = nil, nil
		} else {
			reason := Paused
			w.DisabledAt, w.DisabledReason = &now, &reason
		}
	}
	return w, nil
}

// checkedKey carries the outcome of the URL checks made before the
// transaction (the resolver's I/O never runs inside one).
type checkedKey struct{}

type checked map[string]error

// WithChecked is ctx carrying that url was checked, with err the outcome.
func WithChecked(ctx context.Context, url string, err error) context.Context {
	m, _ := ctx.Value(checkedKey{}).(checked)
	next := checked{url: err}
	for k, v := range m {
		next[k] = v
	}
	return context.WithValue(ctx, checkedKey{}, next)
}

// urlError is the refusal of url, from the check made before the
// transaction: a VALIDATION_ERROR on webhook_url naming the rule.
func urlError(ctx context.Context, url string) error {
	m, _ := ctx.Value(checkedKey{}).(checked)
	err, ok := m[url]
	if !ok {
		return errors.New("webhooks: the URL was not checked before the transaction")
	}
	var p *URLProblem
	if errors.As(err, &p) {
		return apierr.Field("webhook_url", p.Rule, p.Issue)
	}
	return err
}

// Registry registers webhooks and hands out their deliveries.
type Registry struct {
	store *Store
	box   *seal.Box
	audit *audit.Store
	now   func() time.Time
}

// NewRegistry returns the registry on s, sealing secrets with box.
func NewRegistry(s *Store, box *seal.Box, a *audit.Store, now func() time.Time) *Registry {
	return &Registry{store: s, box: box, audit: a, now: now}
}

// Create registers r for company (URL already checked: WithChecked),
// pinned to the current API version, with a new secret, which it
// answers: the only time it is seen.
func (g *Registry) Create(ctx context.Context, company uuid.UUID, r Registration, scopes []string) (Webhook, string, error) {
	if err := r.Check(scopes); err != nil {
		return Webhook{}, "", err
	}
	if err := urlError(ctx, r.URL); err != nil {
		return Webhook{}, "", err
	}
	secret, err := NewSecret()
	if err != nil {
		return Webhook{}, "", err
	}
	w := Webhook{CompanyID: company, ID: uuid.New(), Name: strings.TrimSpace(r.Name), Description: r.Description,
		EventType: r.EventType, URL: r.URL, Active: true, APIVersion: openapi.APIVersion}
	w.SecretSealed = g.box.Seal([]byte(secret), SecretContext(company, w.ID))
	if w, err = g.store.Insert(ctx, w); err != nil {
		return w, "", err
	}
	return w, secret, g.record(ctx, audit.Insert, nil, &w, "Webhook "+w.Name+" för "+w.EventType+" registrerades")
}

// Update applies c to webhook id (a changed URL already checked). A
// paused webhook takes no new deliveries, and those waiting end dead
// (EndInactive); re-enabled, it replays nothing.
func (g *Registry) Update(ctx context.Context, company, id uuid.UUID, c Change) (Webhook, error) {
	old, err := g.store.Get(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	w, err := old.Apply(c, g.now())
	if err != nil {
		return old, err
	}
	if w.URL != old.URL {
		if err := urlError(ctx, w.URL); err != nil {
			return old, err
		}
	}
	if w, err = g.store.Update(ctx, w); err != nil {
		return w, err
	}
	if old.Active && !w.Active {
		if _, err := g.store.End(ctx, company, id, EndInactive); err != nil {
			return w, err
		}
	}
	what := "ändrades"
	switch {
	case old.Active && !w.Active:
		what = "pausades"
	case !old.Active && w.Active:
		what = "aktiverades"
	}
	return w, g.record(ctx, audit.Update, &old, &w, "Webhook "+w.Name+" "+what)
}

// Delete removes webhook id: its deliveries stay, without it, and those
// not yet sent end dead (EndDeleted), never to be sent.
func (g *Registry) Delete(ctx context.Context, company, id uuid.UUID) error {
	w, err := g.store.Get(ctx, company, id, true)
	if err != nil {
		return err
	}
	if _, err := g.store.End(ctx, company, id, EndDeleted); err != nil {
		return err
	}
	if err := g.store.Delete(ctx, company, id); err != nil {
		return err
	}
	return g.record(ctx, audit.Delete, &w, nil, "Webhook "+w.Name+" togs bort")
}

// Rotate gives webhook id a new secret, which it answers with when: the
// old one signs nothing more, not even an attempt already due.
func (g *Registry) Rotate(ctx context.Context, company, id uuid.UUID) (string, time.Time, error) {
	w, err := g.store.Get(ctx, company, id, true)
	if err != nil {
		return "", time.Time{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return "", time.Time{}, err
	}
	at, err := g.store.SetSecret(ctx, company, id, g.box.Seal([]byte(secret), SecretContext(company, id)))
	if err != nil {
		return "", at, err
	}
	after := w
	after.SecretRotatedAt = &at
	return secret, at, g.record(ctx, audit.Update, &w, &after, "Webhook "+w.Name+" fick en ny signeringsnyckel")
}

// Test queues a webhook.test delivery to webhook id, sent at once.
func (g *Registry) Test(ctx context.Context, company, id uuid.UUID) (Delivery, error) {
	w, err := g.store.Get(ctx, company, id, false)
	if err != nil {
		return Delivery{}, err
	}
	if !w.Active {
		return Delivery{}, apierr.New(apierr.WebhookInactive, map[string]any{"webhook_id": id,
			"disabled_reason": w.DisabledReason})
	}
	now := g.now()
	payload, err := json.Marshal(map[string]any{"greeting": "Hej från Kontera! This is a test delivery.",
		"tested_at": now.UTC().Format(time.RFC3339)})
	if err != nil {
		return Delivery{}, err
	}
	d := Delivery{CompanyID: company, ID: uuid.New(), WebhookID: &w.ID, EventType: outbox.WebhookTest,
		Payload: payload, EventCreatedAt: now, APIVersion: w.APIVersion}
	return g.store.Enqueue(ctx, d)
}

// Retry queues delivery d again as a new delivery with its payload and
// event; d stays as it is. Only a delivered or dead delivery of a webhook
// still active is retried.
func (g *Registry) Retry(ctx context.Context, d Delivery) (Delivery, error) {
	refuse := func(reason string) error {
		return apierr.New(apierr.WebhookDeliveryNotRetryable, map[string]any{"webhook_delivery_id": d.ID,
			"status": d.Status, "reason": reason})
	}
	if d.Status != Delivered && d.Status != Dead {
		return Delivery{}, refuse("not_ended")
	}
	if d.WebhookID == nil {
		return Delivery{}, refuse(EndDeleted)
	}
	w, err := g.store.Get(ctx, d.CompanyID, *d.WebhookID, false)
	if apierr.Is(err, apierr.WebhookNotFound) {
		return Delivery{}, refuse(EndDeleted)
	}
	if err != nil {
		return Delivery{}, err
	}
	if !w.Active {
		return Delivery{}, refuse(EndInactive)
	}
	again := Delivery{CompanyID: d.CompanyID, ID: uuid.New(), WebhookID: d.WebhookID, EventID: d.EventID,
		EventType: d.EventType, Payload: d.Payload, EventCreatedAt: d.EventCreatedAt, APIVersion: d.APIVersion,
		RetryOf: &d.ID}
	return g.store.Enqueue(ctx, again)
}

// record audits a change of a webhook: its snapshots never hold the
// secret (Webhook's JSON leaves it out).
func (g *Registry) record(ctx context.Context, action audit.Action, old, new *Webhook, description string) error {
	w := old
	if w == nil {
		w = new
	}
	return g.audit.Record(ctx, audit.Change{CompanyID: w.CompanyID, Action: action, Table: "webhooks",
		RecordID: w.ID.String(), Description: description, Old: audit.Of(old), New: audit.Of(new)})
}
