package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/openapi"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func company(t *testing.T, d *store.DB) uuid.UUID {
	var id uuid.UUID
	err := d.Get(&id, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id)
		INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
		SELECT 'X AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Events live and die with the transaction of the change that caused them.
func TestEmitJoinsTheTransaction(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	c := company(t, d)
	rollback := errors.New("rolled back")
	err := d.InTx(ctx, func(ctx context.Context) error {
		if _, err := outbox.Emit(ctx, d, c, "customer.created", map[string]any{"id": "1"}); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if ev, _ := outbox.Pending(ctx, d.DB, c, 10); len(ev) != 0 {
		t.Fatalf("a rolled-back event survived: %v", ev)
	}
	err = d.InTx(ctx, func(ctx context.Context) error {
		_, err := outbox.Emit(ctx, d, c, "customer.created", map[string]any{"id": "2", "name": "Åsa"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := outbox.Pending(ctx, d.DB, c, 10)
	if err != nil || len(ev) != 1 || ev[0].Type != "customer.created" || string(ev[0].Payload) != `{"id": "2", "name": "Åsa"}` {
		t.Fatalf("pending: %v %+v", err, ev)
	}
	var version string
	_ = d.Get(&version, `SELECT api_version FROM events`)
	if version != "2026-05-12" {
		t.Fatalf("api_version %q", version)
	}
}

// The catalogue is the one list of event types: every type an emitter
// names (Emit refuses any other) may be subscribed to, is the document's
// WebhookEventType enum and has its webhooks entry with its payload; only
// webhook.test is a delivery without an event. Payroll's and api_key's
// need their reading scope to subscribe to.
func TestCatalogue(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	enum := c.Enum("WebhookEventType")
	sort.Strings(enum)
	if got := outbox.Subscribable(); !slices.Equal(got, enum) {
		t.Fatalf("subscribable %v, document %v", got, enum)
	}
	if got := outbox.Feedable(); !slices.Equal(got, enum) {
		t.Fatalf("in the feed %v, document %v", got, enum)
	}
	var spec struct {
		Webhooks map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Properties struct {
								Type struct {
									Const string `json:"const"`
								} `json:"type"`
								Data struct {
									Properties struct {
										Object json.RawMessage `json:"object"`
									} `json:"properties"`
								} `json:"data"`
							} `json:"properties"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(openapi.Document, &spec); err != nil {
		t.Fatal(err)
	}
	for _, typ := range append(enum, outbox.WebhookTest) {
		body := spec.Webhooks[typ].Post.RequestBody.Content["application/json"].Schema.Properties
		if body.Type.Const != typ || len(body.Data.Properties.Object) < 3 {
			t.Errorf("%s: the document's webhooks entry is missing or names no payload: %+v", typ, body)
		}
	}
	if len(spec.Webhooks) != len(enum)+1 {
		t.Errorf("%d webhooks entries for %d event types and webhook.test", len(spec.Webhooks), len(enum))
	}
	if k, ok := outbox.Lookup(outbox.WebhookTest); !ok || k.Subscribable {
		t.Fatalf("webhook.test: %+v %v", k, ok)
	}
	for typ, scope := range map[string]string{"salary_run.booked": "payroll:read", "api_key.created": "api_keys:manage"} {
		if k, _ := outbox.Lookup(typ); k.Scope != scope || !k.Guarded {
			t.Fatalf("%s: %+v", typ, k)
		}
	}
	if k, _ := outbox.Lookup("invoice.overdue"); k.Guarded {
		t.Fatalf("invoice.overdue is guarded: %+v", k)
	}
	if _, err := outbox.Emit(context.Background(), nil, uuid.New(), "invoice.deleted", nil); err == nil {
		t.Fatal("an uncatalogued type was taken")
	}
}
