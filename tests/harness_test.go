// Package tests drives the real HTTP server, in process and over real
// HTTP, against a fresh PostgreSQL database per test, and validates every
// response against openapi/openapi.json.
package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) {
	for _, ct := range []string{"text/markdown", "text/html", "application/xml"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	pgtest.Main(m)
}

const base = "http://kontera.test"

var secret = []byte("a-test-secret-of-at-least-32-bytes!")

// piiKey seals the test servers' personnummer.
var piiKey = []byte("0123456789abcdef0123456789abcdef")

// env is one server on one fresh database.
type env struct {
	t      *testing.T
	db     *store.DB
	server *httpapi.Server
	srv    *httptest.Server
	keys   *auth.Store
	router routers.Router
	doc    *openapi3.T
}

type option func(*httpapi.Config)

// mailFrom is the address the tests' servers send e-mail from.
const mailFrom = "faktura@kontera.test"

// mailVia sends the server's e-mail through t; nil turns e-mail off.
func mailVia(t mail.Transport) option { return func(c *httpapi.Config) { c.Mail = t } }

func rateLimit(n int) option { return func(c *httpapi.Config) { c.RateLimitPerMinute = n } }

// idleWorkers leaves queued operations queued: the workers look once, at
// start, and then not for an hour.
// slowFailureRefill gives each replica its own memory of failed
// authentications, 30 tries refilled at one an hour.
func slowFailureRefill() option {
	return func(c *httpapi.Config) {
		c.AuthFailures = ratelimit.NewFailuresRefilled(c.DB, ratelimit.DefaultFailuresPerMinute, 1.0/60)
	}
}

// idleWorkers runs the server without its operations workers: what it
// queues stays queued.
func idleWorkers() option { return func(c *httpapi.Config) { c.WorkerPoll = idle } }

// idle is the WorkerPoll of idleWorkers.
const idle = time.Hour

func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	return envOn(t, pgtest.New(t), opts...)
}

// blobDirs holds each test database's blob directory: replicas on one
// database share it, as they would share a volume.
var blobDirs sync.Map

func blobDir(t *testing.T, db *store.DB) string {
	dir, _ := blobDirs.LoadOrStore(db, t.TempDir())
	return dir.(string)
}

// standbys holds each test database's read replica (see readOnlyStandby).
var standbys sync.Map

// readOnlyStandby is db's read replica for the tests' servers: a second
// pool on the same database in which every transaction is read only, as
// on a hot standby. Every read the document marks x-replica-read goes
// there, so one that writes fails the test that makes it.
func readOnlyStandby(t *testing.T, db *store.DB) *standby.Standby {
	if sb, ok := standbys.Load(db); ok {
		return sb.(*standby.Standby)
	}
	if db.PingContext(t.Context()) != nil {
		return nil // a test of a server whose database is gone
	}
	// Looked at once: the same database is never behind.
	r := pgtest.ReadOnly(t, db, nil)
	// A test's pools live for the test: preparing each read again on each
	// connection of a second pool costs the suite more than it saves (the
	// prepared path on a replica is TestStatementBudgetsWithAReadReplica's
	// and the operator's drill's).
	r.SetPrepared(false)
	return startStandby(t, db, r, time.Hour)
}

// startStandby makes r db's read replica for the tests' servers on db,
// looked at every poll.
func startStandby(t *testing.T, db, r *store.DB, poll time.Duration) *standby.Standby {
	db.SetReader(r)
	sb := standby.New(db, r, standby.Config{Poll: poll, Sticky: standby.DefaultSticky, Log: testLog()})
	ctx, stop := context.WithCancel(context.Background())
	sb.Check(ctx) // reads go to it from the first
	done := make(chan struct{})
	go func() { sb.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	standbys.Store(db, sb)
	return sb
}

// defaultStandby stands for readOnlyStandby in a configuration until the
// options have had their say.
var defaultStandby = new(standby.Standby)

// primaryOnly runs the server without a read replica.
func primaryOnly() option { return func(c *httpapi.Config) { c.Standby = nil } }

// envOn starts another server (a replica) on db.
func envOn(t *testing.T, db *store.DB, opts ...option) *env {
	t.Helper()
	cfg := httpapi.Config{DB: db, BaseURL: base, Secret: secret, Log: testLog(), WorkerPoll: 100 * time.Millisecond, PIIKey: piiKey,
		Blobs: documents.FS{Dir: blobDir(t, db)}, Mail: mail.Drop{Dir: t.TempDir()}, MailFrom: mailFrom,
		Standby: defaultStandby}
	cfg.Log = zap.New(zapcore.NewTee(cfg.Log.Core(), replicaFailures{t}))
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Standby == defaultStandby {
		cfg.Standby = readOnlyStandby(t, db)
	}
	s, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	if cfg.WorkerPoll != idle {
		wctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Work(wctx, 2); close(done) }()
		t.Cleanup(func() { stop(); <-done })
	}
	router, err := routerOf(s.Contract().Doc)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, db: db, server: s, srv: ts, keys: auth.NewStore(db, audit.NewStore(db)), router: router, doc: s.Contract().Doc}
}

// routerOf answers the router of the document every server serves (one
// parsed document): built once, not per server, since it compiles a
// pattern per path. Finding a route only reads it.
var routerOf = func() func(*openapi3.T) (routers.Router, error) {
	var mu sync.Mutex
	built := map[*openapi3.T]routers.Router{}
	return func(doc *openapi3.T) (routers.Router, error) {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := built[doc]; ok {
			return r, nil
		}
		r, err := gorillamux.NewRouter(doc)
		if err == nil {
			built[doc] = r
		}
		return r, err
	}
}()

// keySpec describes a key to make; the zero value is a live key with every
// scope reaching all the user's companies.
type keySpec struct {
	name      string
	mode      auth.Mode
	scopes    []string
	allowlist []uuid.UUID
	readOnly  bool
}

// key makes a key for the user email (created when new).
func (e *env) key(email string, k keySpec) string {
	e.t.Helper()
	if k.mode == "" {
		k.mode = auth.Live
	}
	if k.scopes == nil {
		k.scopes = auth.Scopes
	}
	access := auth.AllMemberships
	if k.allowlist != nil {
		access = auth.Allowlist
	}
	token, _, err := e.keys.CreateKey(context.Background(), auth.NewKey{Email: email, Name: k.name, Mode: k.mode,
		Scopes: k.scopes, CompanyAccess: access, Companies: k.allowlist, ReadOnly: k.readOnly})
	if err != nil {
		e.t.Fatal(err)
	}
	return token
}

// member makes email a member of company with role, straight in the
// database (as `kontera members add` does).
func (e *env) member(company uuid.UUID, email string, role auth.Role, readOnly bool) {
	e.t.Helper()
	ctx := context.Background()
	err := e.db.InTx(ctx, func(ctx context.Context) error {
		uid, err := e.keys.EnsureUser(ctx, email)
		if err != nil {
			return err
		}
		_, err = e.keys.AddMember(ctx, company, uid, role, readOnly)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// response is a validated response.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// req is a request to send; Body is JSON-encoded unless it is a string.
type req struct {
	Method, Path, Token string
	Body                any
	Header              map[string]string
}

// do sends r and validates the response against the document: status,
// headers and body for a documented route, the error envelope otherwise.
func (e *env) do(r req) *response {
	e.t.Helper()
	var body io.Reader
	var raw []byte
	switch b := r.Body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			e.t.Fatal(err)
		}
	}
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	hreq, err := http.NewRequest(r.Method, e.srv.URL+r.Path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if raw != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		hreq.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, v := range r.Header {
		if v == "" {
			hreq.Header.Del(k)
		} else {
			hreq.Header.Set(k, v)
		}
	}
	hres, err := e.srv.Client().Do(hreq)
	if err != nil {
		e.t.Fatal(err)
	}
	defer hres.Body.Close()
	out := &response{Status: hres.StatusCode, Header: hres.Header}
	if out.Body, err = io.ReadAll(hres.Body); err != nil {
		e.t.Fatal(err)
	}
	if hres.Header.Get("X-Request-Id") == "" {
		e.t.Errorf("%s %s: no X-Request-Id header", r.Method, r.Path)
	}
	if strings.HasPrefix(hres.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
			e.t.Errorf("%s %s: body is not a JSON object: %v\n%s", r.Method, r.Path, err, out.Body)
		}
	}
	e.validate(hreq, raw, out)
	return out
}

func (e *env) validate(hreq *http.Request, raw []byte, out *response) {
	e.t.Helper()
	ctx := context.Background()
	// The router matches the path as the client wrote it.
	vreq := hreq.Clone(ctx)
	vreq.URL.Scheme, vreq.URL.Host, vreq.Host = "", "", ""
	if raw != nil {
		vreq.Body = io.NopCloser(bytes.NewReader(raw))
	}
	route, params, err := e.router.FindRoute(vreq)
	if err != nil {
		// Unknown path or method: the answer must still be the error envelope.
		if out.Status < 400 {
			e.t.Errorf("%s %s: %d for a route the document does not have", hreq.Method, hreq.URL.Path, out.Status)
		}
		var v any
		_ = json.Unmarshal(out.Body, &v)
		if err := e.doc.Components.Schemas["ErrorEnvelope"].Value.VisitJSON(v); err != nil {
			e.t.Errorf("%s %s: error body does not match ErrorEnvelope: %v\n%s", hreq.Method, hreq.URL.Path, err, out.Body)
		}
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts},
		Status:                 out.Status, Header: out.Header, Options: opts,
	}
	in.SetBodyBytes(out.Body)
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		e.t.Errorf("%s %s: response %d does not match the document: %v\n%s", hreq.Method, hreq.URL.Path, out.Status, err, clip(out.Body))
	}
	if err := responseBody(route, out.Status, out.Header.Get("Content-Type"), out.Body); err != nil {
		e.t.Errorf("%s %s: the body of %d does not match the document: %v\n%s", hreq.Method, hreq.URL.Path, out.Status, err, clip(out.Body))
	}
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// get is a GET with a token.
func (e *env) get(path, token string) *response {
	e.t.Helper()
	return e.do(req{Method: "GET", Path: path, Token: token})
}

// post is a POST of body with a token and optional header pairs.
func (e *env) post(path, token string, body any, header ...string) *response {
	e.t.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return e.do(req{Method: "POST", Path: path, Token: token, Body: body, Header: h})
}

// company creates an aktiebolag named name, with the postal address its
// invoices print, and returns its id.
func (e *env) company(token, name string) uuid.UUID {
	e.t.Helper()
	r := e.post("/api/v1/companies", token, map[string]any{"name": name, "entity_type": "aktiebolag", "vat_registered": false,
		"f_skatt": true, "address_line1": "Storgatan 1", "postal_code": "111 22", "city": "Stockholm"})
	r.status(e.t, 201)
	return uuid.MustParse(r.str("data.id"))
}

// count returns the number of rows of a query.
func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.GetContext(context.Background(), &n, query, args...); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (r *response) status(t *testing.T, want int) *response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d\n%s", r.Status, want, clip(r.Body))
	}
	return r
}

// errorCode asserts the status and the catalogue code of an error.
func (r *response) errorCode(t *testing.T, status int, code string) *response {
	t.Helper()
	r.status(t, status)
	if got := r.str("error.code"); got != code {
		t.Fatalf("error code %s, want %s\n%s", got, code, clip(r.Body))
	}
	return r
}

// at returns the value at a dotted path (numbers index arrays).
func (r *response) at(path string) any {
	var v any = r.JSON
	for _, p := range strings.Split(path, ".") {
		switch n := v.(type) {
		case map[string]any:
			v = n[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(n) {
				return nil
			}
			v = n[i]
		default:
			return nil
		}
	}
	return v
}

func (r *response) str(path string) string {
	s, _ := r.at(path).(string)
	return s
}

func (r *response) list(path string) []any {
	l, _ := r.at(path).([]any)
	return l
}

// issueFields lists the fields of details.issues of a VALIDATION_ERROR.
func (r *response) issueFields() []string {
	var out []string
	for _, i := range r.list("error.details.issues") {
		m, _ := i.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v:%v", m["in"], m["field"], m["rule"]))
	}
	return out
}

func newKey() string { return uuid.NewString() }

var today = time.Now().UTC()

// replicaFailures fails the test when the server says a read failed on
// its read replica: in the tests the replica is the same database, read
// only, so only a read that writes fails there. The primary answering it
// instead would hide it.
type replicaFailures struct{ t *testing.T }

func (f replicaFailures) Enabled(l zapcore.Level) bool      { return l >= zapcore.WarnLevel }
func (f replicaFailures) With([]zapcore.Field) zapcore.Core { return f }
func (f replicaFailures) Sync() error                       { return nil }

func (f replicaFailures) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if strings.HasPrefix(e.Message, "read replica failed a read") {
		return ce.AddCore(e, f)
	}
	return ce
}

func (f replicaFailures) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, fl := range fields {
		fl.AddTo(enc)
	}
	f.t.Errorf("%s: %v", e.Message, enc.Fields)
	return nil
}

func testLog() *zap.Logger {
	if os.Getenv("KONTERA_TEST_LOG") != "" {
		l, _ := zap.NewDevelopment()
		return l
	}
	return zap.NewNop()
}
