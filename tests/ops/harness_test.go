//go:build ops

// Package ops holds the operator's drills, run by make test-ops (and once
// by .ci/run): a backup proven by a restore to a point in time. They start
// PostgreSQL clusters of their own and the tools an operator uses
// (pgBackRest), so they are slower than make test and kept apart from it.
package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/webhooks"
)

// need skips the drill when a tool is missing, and fails it under CI,
// where .ci/run installs them.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (apt-get install %s)", tool, tool)
			}
			t.Skipf("%s is missing (apt-get install %s); the drill needs it", tool, tool)
		}
	}
}

// root is a directory the postgres user can reach (the clusters run as
// it when the tests run as root), short enough for unix socket paths.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "kops")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asPostgres runs a command as the OS user the clusters run as.
func asPostgres(t *testing.T, name string, args ...string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		args = append([]string{"-u", "postgres", "--", name}, args...)
		name = "runuser"
	}
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ownedByPostgres makes dirs the postgres user's.
func ownedByPostgres(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o750); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if out, err := exec.Command("chown", "-R", "postgres:postgres", d).CombinedOutput(); err != nil {
				t.Fatalf("chown %s: %v %s", d, err, out)
			}
		}
	}
}

// cluster is a PostgreSQL cluster with Kontera's database: the owner
// role's URL (migrations) and the application role's (the server).
type cluster struct {
	*localpg.Cluster
	owner, app string
}

// startCluster starts (or, when dir holds a restored one, recovers) a
// cluster in dir with settings, and makes Kontera's roles and database
// when they are missing; the schema is the caller's (migrate).
func startCluster(t *testing.T, dir string, settings ...string) *cluster {
	t.Helper()
	c, err := localpg.Start(dir, localpg.Options{Settings: settings, Install: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	ctx := context.Background()
	admin, err := store.Open(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// A restored cluster finishes its recovery before it takes writes.
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var recovering bool
		if err := admin.Get(&recovering, `SELECT pg_is_in_recovery()`); err == nil && !recovering {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cluster is still in recovery")
		}
	}
	if err := localpg.EnsureRoles(ctx, c.URL("postgres")); err != nil {
		t.Fatal(err)
	}
	var exists bool
	if err := admin.Get(&exists, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = 'kontera')`); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := admin.Exec(`CREATE DATABASE kontera OWNER ` + localpg.OwnerRole); err != nil {
			t.Fatal(err)
		}
	}
	out := &cluster{Cluster: c}
	if out.owner, err = localpg.WithUser(c.URL("kontera"), localpg.OwnerRole); err != nil {
		t.Fatal(err)
	}
	if out.app, err = localpg.WithUser(c.URL("kontera"), localpg.AppRole); err != nil {
		t.Fatal(err)
	}
	return out
}

// migrate brings the cluster's schema up to this build's, as the owner.
func (c *cluster) migrate(t *testing.T) {
	t.Helper()
	if _, err := db.Migrate(context.Background(), open(t, c.owner).DB.DB); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, url string) *store.DB {
	t.Helper()
	d, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// server is Kontera serving a cluster, with its blob store in blobs.
type server struct {
	t     *testing.T
	db    *store.DB
	url   string
	token string
	stop  func()
	admin http.Handler // /metrics and /debug/pprof/
	srv   *httpapi.Server
}

var piiKey = bytes.Repeat([]byte{7}, 32)

// serve starts Kontera on the cluster's application role; token is an
// existing key, or "" to make one; opts change the configuration.
func serve(t *testing.T, c *cluster, blobs, token string, opts ...func(*httpapi.Config)) *server {
	t.Helper()
	d := open(t, c.app)
	cfg := httpapi.Config{DB: d, BaseURL: "http://kontera.test", Log: zap.NewNop(),
		Secret: []byte("an-operations-drill-secret-of-32+bytes"), PIIKey: piiKey, Blobs: documents.FS{Dir: blobs},
		Mail: mail.Drop{Dir: t.TempDir()}, MailFrom: "drift@kontera.test", WorkerPoll: time.Hour,
		Webhooks: httpapi.WebhookConfig{Client: webhooks.ClientOptions{Guard: webhooks.Guard{AllowLoopback: true}}}}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := httpapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	if token == "" {
		if token, _, err = auth.NewStore(d, audit.NewStore(d)).CreateKey(context.Background(), auth.NewKey{
			Email: "drift@example.se", Name: "drill", Mode: auth.Live, Scopes: auth.Scopes,
			CompanyAccess: auth.AllMemberships}); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{t: t, db: d, url: h.URL, token: token, stop: h.Close, admin: srv.Admin(), srv: srv}
	t.Cleanup(h.Close)
	return s
}

// call sends a JSON request (writes with a fresh Idempotency-Key) and
// answers the status and the decoded body.
func (s *server) call(method, path string, body any) (int, map[string]any) {
	s.t.Helper()
	a := s.ask(method, path, body)
	return a.status, a.body
}

// answer is a response with its headers.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (a answer) data() map[string]any { d, _ := a.body["data"].(map[string]any); return d }

// ask is call with headers (name, value pairs), answering the response
// whole.
func (s *server) ask(method, path string, body any, headers ...string) answer {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return s.exchange(req)
}

func (s *server) send(req *http.Request) (int, map[string]any) {
	s.t.Helper()
	a := s.exchange(req)
	return a.status, a.body
}

// exchange sends req with the key (and a fresh Idempotency-Key when it
// writes) and answers the response whole.
func (s *server) exchange(req *http.Request) answer {
	s.t.Helper()
	req.Header.Set("Authorization", "Bearer "+s.token)
	if req.Method != "GET" {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, header: res.Header}
	_ = json.NewDecoder(res.Body).Decode(&a.body)
	return a
}

// must is call expecting a 2xx; it answers data.
func (s *server) must(method, path string, body any) map[string]any {
	s.t.Helper()
	st, out := s.call(method, path, body)
	if st >= 300 {
		s.t.Fatalf("%s %s: %d %v", method, path, st, out)
	}
	data, _ := out["data"].(map[string]any)
	return data
}

// upload sends a file as a document of the company.
func (s *server) upload(company, name string, content []byte) map[string]any {
	s.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", name)
	_, _ = part.Write(content)
	_ = w.WriteField("upload_source", "api")
	_ = w.Close()
	req, _ := http.NewRequest("POST", s.url+"/api/v1/companies/"+company+"/documents", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	st, out := s.send(req)
	if st != 201 {
		s.t.Fatalf("upload %s: %d %v", name, st, out)
	}
	return out["data"].(map[string]any)
}

// post books a balanced cash sale on day and commits it: the voucher.
func (s *server) post(company, period, day, description string, amount int) {
	s.t.Helper()
	base := "/api/v1/companies/" + company
	e := s.must("POST", base+"/journal-entries", map[string]any{"fiscal_period_id": period, "entry_date": day,
		"description": description, "lines": []any{
			map[string]any{"account_number": "1930", "debit_amount": amount},
			map[string]any{"account_number": "3001", "credit_amount": amount}}})
	s.must("POST", fmt.Sprintf("%s/journal-entries/%s/commit", base, e["id"]), nil)
}

// png is a small image: a receipt's photo.
func png(seed byte) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"),
		bytes.Repeat([]byte{seed}, 64)...)
}

// copyTree copies a blob directory as an operator's copy tool would.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
