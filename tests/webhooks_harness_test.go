package tests

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/webhooks"
)

// hit is one request a receiver got.
type hit struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is a loopback TLS endpoint webhooks are delivered to; answer
// decides each reply (nil: 200).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []hit
	answer func(n int, w http.ResponseWriter, r *http.Request)
	got    chan struct{}
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer, got: make(chan struct{}, 1000)}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{Header: r.Header.Clone(), Body: body, At: time.Now()})
		n := len(rc.hits)
		rc.mu.Unlock()
		rc.got <- struct{}{}
		if rc.answer != nil {
			rc.answer(n, w, r)
		}
	}))
	rc.StartTLS()
	t.Cleanup(rc.Close)
	return rc
}

// all answers what the receiver got so far.
func (rc *receiver) all() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// wait waits for the receiver's n-th request, at most d.
func (rc *receiver) wait(t *testing.T, n int, d time.Duration) []hit {
	t.Helper()
	deadline := time.After(d)
	for len(rc.all()) < n {
		select {
		case <-rc.got:
		case <-deadline:
			t.Fatalf("the receiver got %d requests in %s, want %d", len(rc.all()), d, n)
		}
	}
	return rc.all()
}

// testCA writes the certificate httptest's TLS servers share, for the
// delivery client to trust (KONTERA_WEBHOOK_CA_FILE).
func testCA(t *testing.T) string {
	t.Helper()
	s := httptest.NewTLSServer(http.NotFoundHandler())
	defer s.Close()
	path := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// hookBooks is a company whose server delivers webhooks to loopback
// receivers.
type hookBooks struct {
	*env
	token   string
	company uuid.UUID
	url     string
}

// withHooks delivers webhooks: loopback admitted, the test CA trusted,
// wake-ups heard on url, a quick sweep.
func withHooks(url, ca string, timeout time.Duration) option {
	return func(c *httpapi.Config) {
		c.Webhooks = httpapi.WebhookConfig{Client: webhooks.ClientOptions{Guard: webhooks.Guard{AllowLoopback: true},
			CAFile: ca, Timeout: timeout}, Workers: 4, Sweep: 300 * time.Millisecond, ListenURL: url}
	}
}

// newHookBooks starts a server delivering webhooks (attempts time out
// after timeout; 0 is the real 10 s) on a fresh database.
func newHookBooks(t *testing.T, timeout time.Duration, opts ...option) *hookBooks {
	t.Helper()
	url := pgtest.NewURL(t)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := envOn(t, db, append([]option{withHooks(url, testCA(t), timeout)}, opts...)...)
	e.deliver()
	token := e.key("webhooks@example.se", keySpec{})
	return &hookBooks{env: e, token: token, company: e.company(token, "Krokbolaget AB"), url: url}
}

// deliver runs e's webhook delivery until the test ends.
func (e *env) deliver() {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.server.DeliverWebhooks(ctx); close(done) }()
	e.t.Cleanup(func() { stop(); <-done })
}

func (b *hookBooks) path(p string) string {
	return fmt.Sprintf("/api/v1/companies/%s/%s", b.company, p)
}

func (b *hookBooks) write(method, p string, body any) *response {
	b.t.Helper()
	return b.do(req{Method: method, Path: b.path(p), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": newKey()}})
}

// register makes a webhook for typ to rc and answers its id and secret.
func (b *hookBooks) register(typ string, rc *receiver) (string, string) {
	b.t.Helper()
	r := b.write("POST", "webhooks", map[string]any{"event_type": typ, "webhook_url": rc.URL + "/hook/" + typ,
		"name": "Mottagare " + typ}).status(b.t, 201)
	return r.str("data.id"), r.str("data.secret")
}

// delivery reads one delivery of webhook hook.
func (b *hookBooks) delivery(hook, id string) map[string]any {
	b.t.Helper()
	r := b.get(b.path("webhooks/"+hook+"/deliveries?delivery_id="+id), b.token).status(b.t, 200)
	rows := r.list("data")
	if len(rows) != 1 {
		b.t.Fatalf("delivery %s: %d rows", id, len(rows))
	}
	return rows[0].(map[string]any)
}

// settle waits until delivery id of hook is in state, at most d.
func (b *hookBooks) settle(hook, id, state string, d time.Duration) map[string]any {
	b.t.Helper()
	deadline := time.Now().Add(d)
	for {
		row := b.delivery(hook, id)
		if row["status"] == state {
			return row
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("delivery %s is %v after %s, want %s: %v", id, row["status"], d, state, row)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// verify checks a delivery as a receiver would: the signature over the
// raw body with secret, the headers, and the body against the document's
// webhooks entry for its type.
func (e *env) verify(h hit, secret, typ string) map[string]any {
	e.t.Helper()
	if !verifies(h, secret) {
		e.t.Fatalf("%s: the signature %q does not verify with the secret", typ, h.Header.Get("X-Kontera-Signature"))
	}
	ts, _, _ := strings.Cut(strings.TrimPrefix(h.Header.Get("X-Kontera-Signature"), "t="), ",")
	if at, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(at, 0)) > 5*time.Minute {
		e.t.Fatalf("%s: t=%s is not a current Unix time", typ, ts)
	}
	var body map[string]any
	if err := json.Unmarshal(h.Body, &body); err != nil {
		e.t.Fatalf("%s: body: %v", typ, err)
	}
	id, _ := body["id"].(string)
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "kontera-webhook/1",
		"X-Kontera-Event": typ, "X-Kontera-Delivery": id, "X-Kontera-Api-Version": "2026-05-12",
		"X-Request-Id": "whdel_" + id, "webhook-id": id} {
		if got := h.Header.Get(k); got != want {
			e.t.Errorf("%s: header %s = %q, want %q", typ, k, got, want)
		}
	}
	if body["type"] != typ || body["previous_attributes"] != nil {
		e.t.Errorf("%s: envelope %v", typ, body)
	}
	item := e.doc.Webhooks[typ]
	if item == nil || item.Post == nil {
		e.t.Fatalf("the document has no webhooks entry for %s", typ)
	}
	schema := item.Post.RequestBody.Value.Content["application/json"].Schema.Value
	var v any
	_ = json.Unmarshal(h.Body, &v)
	if err := schema.VisitJSON(v); err != nil {
		e.t.Errorf("%s: the delivered body does not match the document: %v\n%s", typ, err, clip(h.Body))
	}
	return body
}
