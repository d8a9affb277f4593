package tests

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/webhooks"
)

// A webhook's registration: the secret shown once and never again, the
// URL rules, the payroll scope, dry run and idempotent replay.
func TestWebhookRegistration(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	b := newHookBooks(t, 0, func(c *httpapi.Config) {
		c.Log = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(logs),
			zap.DebugLevel))
	})
	rc := newReceiver(t, nil)
	body := map[string]any{"event_type": "customer.created", "webhook_url": rc.URL + "/kunder", "name": "Kundregister",
		"description": "Nya kunder till CRM"}

	// A dry run stores nothing and shows no secret.
	dry := b.do(req{Method: "POST", Path: b.path("webhooks?dry_run=true"), Token: b.token, Body: body}).status(t, 200)
	if dry.at("data.preview.webhook.id") != nil || strings.Contains(string(dry.Body), "whsec_") {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM webhooks`); n != 0 {
		t.Fatalf("a dry run stored %d webhooks", n)
	}

	key := newKey()
	created := b.do(req{Method: "POST", Path: b.path("webhooks"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	id, secret := created.str("data.id"), created.str("data.secret")
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+44 {
		t.Fatalf("secret %q", secret)
	}
	if created.at("data.api_version_pinned") != "2026-05-12" || created.at("data.active") != true {
		t.Fatalf("created: %s", created.Body)
	}
	// The replay answers the same secret, which is stored sealed.
	replay := b.do(req{Method: "POST", Path: b.path("webhooks"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}}).status(t, 201)
	if replay.str("data.secret") != secret || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s", replay.Body)
	}
	for _, q := range []string{
		`SELECT count(*) FROM idempotency_keys WHERE position(convert_to($1, 'UTF8') IN body) > 0`,
		`SELECT count(*) FROM audit_entries WHERE position($1 IN coalesce(old_state::text, '') || coalesce(new_state::text, '') || coalesce(description, '')) > 0`,
		`SELECT count(*) FROM webhooks WHERE position(convert_to($1, 'UTF8') IN secret_sealed) > 0`,
	} {
		if n := b.count(q, secret); n != 0 {
			t.Fatalf("the secret is readable at rest: %s", q)
		}
	}
	// Never in a read.
	for _, r := range []*response{b.get(b.path("webhooks"), b.token), b.get(b.path("webhooks/"+id), b.token),
		b.get(b.path("audit-trail"), b.token)} {
		r.status(t, 200)
		if bytes.Contains(r.Body, []byte(secret)) || bytes.Contains(r.Body, []byte("whsec_")) {
			t.Fatalf("a read shows the secret: %s", r.Body)
		}
	}
	b.test(id) // a delivery signed with it, logged as any other
	rc.wait(t, 1, 5*time.Second)
	if logs.Len() == 0 || strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), "whsec_") {
		t.Fatalf("the logs (%d bytes) hold the secret, or nothing was logged", logs.Len())
	}
	if got := b.get(b.path("webhooks"), b.token).list("data.webhooks"); len(got) != 1 {
		t.Fatalf("list: %v", got)
	}
	if b.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'webhooks' AND record_id = $1`, id) != 1 {
		t.Fatal("the registration is not audited")
	}

	// The URL rules, each a VALIDATION_ERROR on webhook_url.
	for _, u := range []string{"http://hooks.example.se/x", "https://[::1%25lo]/x", "https://10.0.0.1/x",
		"https://169.254.169.254/latest/meta-data", "https://[::ffff:127.0.0.2]/x", "https://0x7f000001/x",
		"https://2130706433/x", "https://0177.0.0.1/x", "https://metadata.google.internal/x",
		"https://user:pass@hooks.example.se/x", "https://hooks.invalid/x", "https://" + strings.Repeat("a", 2040) + ".se/",
		"https://[fd00:ec2::254]/x", "https://100.64.0.1/x"} {
		r := b.write("POST", "webhooks", map[string]any{"event_type": "customer.created", "webhook_url": u, "name": "x"})
		r.errorCode(t, 400, "VALIDATION_ERROR")
		if f := r.issueFields(); len(f) != 1 || !strings.Contains(f[0], ":webhook_url:") {
			t.Fatalf("%s: fields %v: %s", u, f, r.Body)
		}
	}
	// Loopback is admitted here only because the test flag is on; [::1]
	// too, never anything else of the ranges.
	if n := b.count(`SELECT count(*) FROM webhooks`); n != 1 {
		t.Fatalf("%d webhooks after the refusals", n)
	}
	b.write("POST", "webhooks", map[string]any{"event_type": "nope.created", "webhook_url": rc.URL, "name": "x"}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "webhooks", map[string]any{"event_type": "customer.created", "webhook_url": rc.URL, "name": "  "}).
		errorCode(t, 400, "VALIDATION_ERROR")

	// Payroll subscriptions need payroll:read besides webhooks:manage.
	var scopes []string
	for _, s := range auth.Scopes {
		if s != "payroll:read" {
			scopes = append(scopes, s)
		}
	}
	lacking := b.key("webhooks@example.se", keySpec{name: "utan lön", scopes: scopes})
	r := b.do(req{Method: "POST", Path: b.path("webhooks"), Token: lacking, Body: map[string]any{
		"event_type": "salary_run.booked", "webhook_url": rc.URL, "name": "Lön"}})
	r.errorCode(t, 403, "INSUFFICIENT_SCOPE")
	if r.at("error.details.required_scope") != "payroll:read" {
		t.Fatalf("payroll scope: %s", r.Body)
	}
	b.do(req{Method: "POST", Path: b.path("webhooks"), Token: lacking, Body: map[string]any{
		"event_type": "agi.generated", "webhook_url": rc.URL, "name": "AGI"}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	b.write("POST", "webhooks", map[string]any{"event_type": "agi.generated", "webhook_url": rc.URL, "name": "AGI"}).status(t, 201)
	manageOnly := b.key("webhooks@example.se", keySpec{name: "bara läsa", scopes: []string{"customers:read"}})
	b.get(b.path("webhooks"), manageOnly).errorCode(t, 403, "INSUFFICIENT_SCOPE")

	// PATCH: event_type cannot change; the rest can; a new URL is checked.
	b.write("PATCH", "webhooks/"+id, map[string]any{"event_type": "supplier.created"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "webhooks/"+id, map[string]any{"webhook_url": "https://10.1.2.3/"}).errorCode(t, 400, "VALIDATION_ERROR")
	p := b.write("PATCH", "webhooks/"+id, map[string]any{"name": "CRM", "description": nil,
		"webhook_url": rc.URL + "/ny"}).status(t, 200)
	if p.at("data.name") != "CRM" || p.at("data.description") != nil || p.at("data.webhook_url") != rc.URL+"/ny" {
		t.Fatalf("patch: %s", p.Body)
	}
	b.get(b.path("webhooks/00000000-0000-4000-8000-000000000000"), b.token).errorCode(t, 404, "WEBHOOK_NOT_FOUND")
}

// The signed delivery of a real event, a test delivery, and a rotation:
// the old secret fails on the very next delivery.
func TestWebhookDeliveryAndRotation(t *testing.T) {
	t.Parallel()
	b := newHookBooks(t, 0)
	rc := newReceiver(t, nil)
	hook, secret := b.register("customer.created", rc)
	b.write("POST", "customers", map[string]any{"name": "Kund Ett AB", "customer_type": "swedish_business",
		"org_number": orgNumber(1)}).status(t, 201)
	hits := rc.wait(t, 1, 10*time.Second)
	body := b.verify(hits[0], secret, "customer.created")
	id := body["id"].(string)
	row := b.settle(hook, id, "delivered", 5*time.Second)
	if row["attempts"] != float64(1) || row["request_id"] != "whdel_"+id || row["response_status"] != float64(200) {
		t.Fatalf("delivery row: %v", row)
	}
	obj := body["data"].(map[string]any)["object"].(map[string]any)
	if obj["customer"].(map[string]any)["name"] != "Kund Ett AB" {
		t.Fatalf("payload: %v", obj)
	}

	// The test endpoint: 202 pending, delivered at once.
	r := b.write("POST", "webhooks/"+hook+"/test", nil).status(t, 202)
	if r.at("data.status") != "pending" {
		t.Fatalf("test: %s", r.Body)
	}
	hits = rc.wait(t, 2, 5*time.Second)
	tb := b.verify(hits[1], secret, "webhook.test")
	if tb["id"] != r.str("data.webhook_delivery_id") {
		t.Fatalf("the test delivery's id %v, answered %s", tb["id"], r.str("data.webhook_delivery_id"))
	}
	if o := tb["data"].(map[string]any)["object"].(map[string]any); o["greeting"] == "" || o["tested_at"] == nil {
		t.Fatalf("webhook.test: %v", o)
	}

	// Rotation: the next delivery is signed with the new secret only.
	rot := b.write("POST", "webhooks/"+hook+"/rotate-secret", nil).status(t, 200)
	fresh := rot.str("data.secret")
	if fresh == secret || rot.str("data.id") != hook {
		t.Fatalf("rotate: %s", rot.Body)
	}
	b.write("POST", "webhooks/"+hook+"/test", nil).status(t, 202)
	hits = rc.wait(t, 3, 5*time.Second)
	b.verify(hits[2], fresh, "webhook.test")
	if verifies(hits[2], secret) {
		t.Fatal("the old secret still verifies after rotation")
	}
	if b.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'webhooks' AND record_id = $1`, hook) != 2 {
		t.Fatal("the rotation is not audited")
	}

	// The delivery list: newest first, in pages.
	page := b.get(b.path("webhooks/"+hook+"/deliveries?limit=2"), b.token).status(t, 200)
	rows := page.list("data")
	if len(rows) != 2 || rows[0].(map[string]any)["event_type"] != "webhook.test" || page.at("meta.next_cursor") == nil {
		t.Fatalf("first page: %s", page.Body)
	}
	rest := b.get(b.path("webhooks/"+hook+"/deliveries?limit=2&cursor="+page.str("meta.next_cursor")), b.token).status(t, 200)
	if r := rest.list("data"); len(r) != 1 || r[0].(map[string]any)["id"] != id || rest.at("meta.next_cursor") != nil {
		t.Fatalf("second page: %s", rest.Body)
	}
}

// verifies says whether h's X-Kontera-Signature verifies with secret.
func verifies(h hit, secret string) bool {
	ts, v1 := "", ""
	for _, part := range strings.Split(h.Header.Get("X-Kontera-Signature"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(h.Body)
	return hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(v1))
}

// test queues a test delivery to hook and answers its id.
func (b *hookBooks) test(hook string) string {
	b.t.Helper()
	return b.write("POST", "webhooks/"+hook+"/test", nil).status(b.t, 202).str("data.webhook_delivery_id")
}

// The delivery state machine, black-box: 500 then 200 with the same id
// (the retry's wait moved in the database, never slept), 410 and 3xx
// disabling, which answers' bodies are kept.
func TestWebhookStateMachine(t *testing.T) {
	t.Parallel()
	b := newHookBooks(t, 0)

	// 500, then 200: the same delivery id twice, attempts 2.
	flaky := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			_, _ = w.Write([]byte(`{"error":"tillfälligt fel"}`))
		}
	})
	hook, _ := b.register("customer.created", flaky)
	id := b.test(hook)
	row := b.settle(hook, id, "failed", 5*time.Second)
	next, _ := time.Parse(time.RFC3339Nano, row["next_attempt_at"].(string))
	if row["attempts"] != float64(1) || row["response_status"] != float64(500) ||
		row["response_body"] != `{"error":"tillfälligt fel"}` || time.Until(next) < 50*time.Second || time.Until(next) > 70*time.Second {
		t.Fatalf("after a 500: %v", row)
	}
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	hits := flaky.wait(t, 2, 5*time.Second)
	row = b.settle(hook, id, "delivered", 5*time.Second)
	if row["attempts"] != float64(2) || row["delivered_at"] == nil || row["next_attempt_at"] != nil {
		t.Fatalf("after the 200: %v", row)
	}
	for _, h := range hits {
		if h.Header.Get("X-Kontera-Delivery") != id {
			t.Fatalf("a retry with another delivery id: %s", h.Header.Get("X-Kontera-Delivery"))
		}
	}

	// 410: dead at once, the webhook disabled and the disabling audited;
	// re-enabled, it replays nothing.
	gone := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(410) })
	hook, _ = b.register("customer.created", gone)
	id = b.test(hook)
	row = b.settle(hook, id, "dead", 5*time.Second)
	w := b.get(b.path("webhooks/"+hook), b.token).status(t, 200)
	if row["attempts"] != float64(1) || w.at("data.active") != false || w.at("data.disabled_reason") != "gone" ||
		w.at("data.disabled_at") == nil {
		t.Fatalf("after a 410: %v %s", row, w.Body)
	}
	if b.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'webhooks' AND record_id = $1
		AND description LIKE '%stängdes av%'`, hook) != 1 {
		t.Fatal("the auto-disable is not audited")
	}
	b.write("POST", "webhooks/"+hook+"/test", nil).errorCode(t, 409, "WEBHOOK_INACTIVE")
	on := b.write("PATCH", "webhooks/"+hook, map[string]any{"active": true}).status(t, 200)
	if on.at("data.active") != true || on.at("data.disabled_at") != nil || on.at("data.disabled_reason") != nil {
		t.Fatalf("re-enabled: %s", on.Body)
	}
	time.Sleep(time.Second) // a sweep and more: nothing is replayed
	if n := len(gone.all()); n != 1 {
		t.Fatalf("re-enabling replayed: %d requests", n)
	}

	// 302 to another loopback receiver: not followed, the webhook disabled.
	elsewhere := newReceiver(t, nil)
	redirect := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/annan", http.StatusFound)
	})
	hook, _ = b.register("customer.created", redirect)
	id = b.test(hook)
	b.settle(hook, id, "dead", 5*time.Second)
	if w := b.get(b.path("webhooks/"+hook), b.token); w.at("data.disabled_reason") != "redirect" {
		t.Fatalf("after a 302: %s", w.Body)
	}
	if len(elsewhere.all()) != 0 {
		t.Fatal("the redirect was followed")
	}

	// 5 KB of HTML is not kept; 5 KB of JSON is kept cut to 4 KB.
	big := strings.Repeat("x", 5000)
	html := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>" + big + "</p>"))
	})
	hook, _ = b.register("customer.created", html)
	if row := b.settle(hook, b.test(hook), "delivered", 5*time.Second); row["response_body"] != nil {
		t.Fatalf("an HTML body was kept: %v", row["response_body"])
	}
	jsonBig := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"eko":"` + big + `"}`))
	})
	hook, _ = b.register("customer.created", jsonBig)
	row = b.settle(hook, b.test(hook), "delivered", 5*time.Second)
	if body, _ := row["response_body"].(string); len(body) != 4096 || !strings.HasPrefix(body, `{"eko":"xxx`) {
		t.Fatalf("the JSON body kept: %d bytes", len(body))
	}
}

// A receiver that hangs holds no other webhook's delivery up: the other
// is delivered while every hanging attempt still hangs; and a hanging
// attempt fails at the timeout. (Not a measure of time: the hanging
// attempts end only when the test lets them, under a timeout no busy
// machine reaches; the second part's timeout is short on purpose.)
func TestWebhookHangingReceiver(t *testing.T) {
	t.Parallel()
	b := newHookBooks(t, 10*time.Minute)
	release := make(chan struct{})
	var ended atomic.Int32 // hanging attempts that have stopped hanging
	hang := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		defer ended.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	var endedBefore atomic.Int32
	endedBefore.Store(-1)
	fast := newReceiver(t, func(int, http.ResponseWriter, *http.Request) { endedBefore.CompareAndSwap(-1, ended.Load()) })
	slow, _ := b.register("customer.created", hang)
	quick, _ := b.register("customer.created", fast)
	for range 4 {
		b.test(slow)
	}
	hang.wait(t, 1, time.Minute)
	id := b.test(quick)
	fast.wait(t, 1, time.Minute)
	b.settle(quick, id, "delivered", time.Minute)
	if n := endedBefore.Load(); n != 0 {
		t.Fatalf("the other webhook was delivered only after %d hanging attempts had ended", n)
	}

	// The timeout: an attempt that hangs past it fails, without a status.
	short := newHookBooks(t, time.Second)
	stuck := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	hook, _ := short.register("customer.created", stuck)
	row := short.settle(hook, short.test(hook), "failed", time.Minute)
	if row["error"] != "timeout" {
		t.Fatalf("the hanging attempt: %v", row)
	}
	if row["response_status"] != nil {
		t.Fatalf("a timeout with a status: %v", row)
	}
}

// PATCH active both ways, DELETE keeping history, and retry only of an
// ended delivery, of the key's own companies.
func TestWebhookPauseDeleteRetry(t *testing.T) {
	t.Parallel()
	b := newHookBooks(t, 0)
	failing := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
	hook, _ := b.register("customer.created", failing)
	id := b.test(hook)
	b.settle(hook, id, "failed", 5*time.Second)

	// A failed delivery is not retried by hand.
	b.do(req{Method: "POST", Path: "/api/v1/webhook-deliveries/" + id + "/retry", Token: b.token}).
		errorCode(t, 409, "WEBHOOK_DELIVERY_NOT_RETRYABLE")

	// Paused: the waiting delivery ends dead, no new rows are made.
	off := b.write("PATCH", "webhooks/"+hook, map[string]any{"active": false}).status(t, 200)
	if off.at("data.active") != false || off.at("data.disabled_reason") != "paused" {
		t.Fatalf("paused: %s", off.Body)
	}
	row := b.delivery(hook, id)
	if row["status"] != "dead" || row["error"] != "webhook_inactive" {
		t.Fatalf("a waiting delivery of a paused webhook: %v", row)
	}
	b.write("POST", "customers", map[string]any{"name": "Pausad AB", "customer_type": "swedish_business"}).status(t, 201)
	// Once the dispatcher has passed the event by (on a loaded machine it
	// may lag): dispatched after the webhook is on again, it would be the
	// new webhook's to deliver.
	for wait := time.Now().Add(time.Minute); b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND feed_seq IS NULL`,
		b.company) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatal("the event was not dispatched in a minute")
		}
	}
	if n := b.count(`SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1`, hook); n != 1 {
		t.Fatalf("a paused webhook got %d deliveries", n)
	}
	// A dead delivery of a paused webhook is not retried either.
	b.do(req{Method: "POST", Path: "/api/v1/webhook-deliveries/" + id + "/retry", Token: b.token}).
		errorCode(t, 409, "WEBHOOK_DELIVERY_NOT_RETRYABLE")
	b.write("PATCH", "webhooks/"+hook, map[string]any{"active": true}).status(t, 200)
	before := len(failing.all())
	time.Sleep(time.Second)
	if len(failing.all()) != before {
		t.Fatal("re-enabling replayed a delivery")
	}

	// Retry of a dead delivery: a new row, the original kept as it was.
	r := b.do(req{Method: "POST", Path: "/api/v1/webhook-deliveries/" + id + "/retry", Token: b.token}).status(t, 202)
	again := r.str("data.webhook_delivery_id")
	if again == id || r.at("data.status") != "pending" {
		t.Fatalf("retry: %s", r.Body)
	}
	failing.wait(t, before+1, 5*time.Second)
	if got := failing.all()[before].Header.Get("X-Kontera-Delivery"); got != again {
		t.Fatalf("the retry went out as %s, want %s", got, again)
	}
	if row := b.delivery(hook, again); row["retry_of"] != id {
		t.Fatalf("retry row: %v", row)
	}
	if row := b.delivery(hook, id); row["status"] != "dead" || row["error"] != "webhook_inactive" {
		t.Fatalf("the original changed: %v", row)
	}

	// Another company's delivery is not found; nor is an unknown one.
	other := b.key("annan@example.se", keySpec{})
	b.env.company(other, "Annat AB")
	b.do(req{Method: "POST", Path: "/api/v1/webhook-deliveries/" + id + "/retry", Token: other}).
		errorCode(t, 404, "WEBHOOK_DELIVERY_NOT_FOUND")
	b.do(req{Method: "POST", Path: "/api/v1/webhook-deliveries/00000000-0000-4000-8000-000000000000/retry", Token: b.token}).
		errorCode(t, 404, "WEBHOOK_DELIVERY_NOT_FOUND")

	// DELETE: 204; the history stays without the webhook, and what was
	// not sent never is.
	b.settle(hook, again, "failed", 5*time.Second)
	sent := len(failing.all())
	b.do(req{Method: "DELETE", Path: b.path("webhooks/" + hook), Token: b.token}).status(t, 204)
	b.get(b.path("webhooks/"+hook), b.token).errorCode(t, 404, "WEBHOOK_NOT_FOUND")
	b.do(req{Method: "DELETE", Path: b.path("webhooks/" + hook), Token: b.token}).errorCode(t, 404, "WEBHOOK_NOT_FOUND")
	var kept []struct {
		Status string  `db:"status"`
		Error  *string `db:"error"`
	}
	if err := b.db.Select(&kept, `SELECT status, error FROM webhook_deliveries WHERE id IN ($1, $2) AND webhook_id IS NULL
		ORDER BY created_at`, id, again); err != nil || len(kept) != 2 {
		t.Fatalf("the history after DELETE: %v %v", kept, err)
	}
	if kept[1].Status != "dead" || kept[1].Error == nil || *kept[1].Error != "webhook_deleted" {
		t.Fatalf("the unsent delivery after DELETE: %+v", kept[1])
	}
	if _, err := b.db.Exec(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, again); err == nil {
		t.Fatal("a dead delivery could be changed")
	}
	time.Sleep(time.Second)
	if len(failing.all()) != sent {
		t.Fatal("a deleted webhook's delivery was sent")
	}
	if b.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'webhooks' AND record_id = $1 AND action = 'DELETE'`, hook) != 1 {
		t.Fatal("the deletion is not audited")
	}
}

// Without KONTERA_WEBHOOK_ALLOW_LOOPBACK a loopback receiver is refused at
// registration, and one that got into the table anyway is never reached:
// the dial is refused, the delivery dead, the webhook disabled.
func TestLoopbackNeverReachedWithoutTheFlag(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	b := newHookBooks(t, 0, func(c *httpapi.Config) { c.Webhooks.Client.Guard.AllowLoopback = false })
	for _, u := range []string{rc.URL, "https://127.0.0.1/x", "https://[::1]/x", "https://[::ffff:127.0.0.1]/x",
		"https://0x7f000001/x", "https://localhost/x"} {
		b.write("POST", "webhooks", map[string]any{"event_type": "customer.created", "webhook_url": u, "name": "x"}).
			errorCode(t, 400, "VALIDATION_ERROR")
	}
	box, err := seal.New(piiKey)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if _, err := b.db.Exec(`INSERT INTO webhooks (company_id, id, name, event_type, webhook_url, secret_sealed,
		api_version_pinned) VALUES ($1, $2, 'Förbi regeln', 'customer.created', $3, $4, '2026-05-12')`,
		b.company, id, rc.URL+"/x", box.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
			webhooks.SecretContext(b.company, id))); err != nil {
		t.Fatal(err)
	}
	b.write("POST", "customers", map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201)
	deadline := time.Now().Add(5 * time.Second)
	for b.count(`SELECT count(*) FROM webhook_deliveries WHERE status = 'dead'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the delivery did not end")
		}
		time.Sleep(50 * time.Millisecond)
	}
	w := b.get(b.path("webhooks/"+id.String()), b.token).status(t, 200)
	if len(rc.all()) != 0 || w.at("data.active") != false || w.at("data.disabled_reason") != "blocked_address" {
		t.Fatalf("reached %d times; webhook %s", len(rc.all()), w.Body)
	}
}

// lockedBuffer is a log sink the server writes from many goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lockedBuffer) Len() int { return len(l.String()) }
