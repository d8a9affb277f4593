package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/openapi"
)

func TestWriteMode(t *testing.T) {
	previewable := &openapi.Operation{Method: "POST", Path: "/x", DryRun: true}
	final := &openapi.Operation{Method: "POST", Path: "/upload", DryRun: false}
	cases := []struct {
		op    *openapi.Operation
		mode  auth.Mode
		asked bool
		dry   bool
		code  apierr.Code
	}{
		{previewable, auth.Live, false, false, ""},
		{previewable, auth.Live, true, true, ""},
		{previewable, auth.Test, false, true, ""}, // forced
		{final, auth.Live, false, false, ""},
		{final, auth.Live, true, false, apierr.ValidationError},
		{final, auth.Test, false, false, apierr.TestKeyWriteBlocked},
	}
	for _, c := range cases {
		dry, err := writeMode(c.op, c.mode, c.asked)
		if c.code != "" {
			if !apierr.Is(err, c.code) {
				t.Errorf("%s %s asked=%v: error %v, want %s", c.op.Path, c.mode, c.asked, err, c.code)
			}
			continue
		}
		if err != nil || dry != c.dry {
			t.Errorf("%s %s asked=%v: dry=%v err=%v, want dry=%v", c.op.Path, c.mode, c.asked, dry, err, c.dry)
		}
	}
	e, _ := apierr.As(func() error { _, err := writeMode(final, auth.Test, false); return err }())
	if e.Status != 403 {
		t.Fatalf("TEST_KEY_WRITE_BLOCKED status %d", e.Status)
	}
}

func TestPanicIsInternalErrorAndLogged(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	s, err := New(Config{Log: zap.New(core), BaseURL: "http://kontera.test", Secret: []byte("x"), PIIKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/boom", func(echo.Context) error { panic("secret internals: password=hunter2") })
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/boom", nil)
	r.Header.Set("X-Request-Id", "boom-1")
	s.ServeHTTP(w, r)
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", w.Code)
	}
	if strings.Contains(w.Body.String(), "hunter2") || strings.Contains(w.Body.String(), "goroutine") {
		t.Fatalf("internals leaked: %s", w.Body)
	}
	var env map[string]map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &env)
	if env["error"]["code"] != "INTERNAL_ERROR" || env["error"]["request_id"] != "boom-1" {
		t.Fatalf("body: %s", w.Body)
	}
	found := false
	for _, l := range logs.FilterMessage("panic").All() {
		if l.ContextMap()["request_id"] == "boom-1" {
			found = true
		}
	}
	if !found {
		t.Fatal("the panic was not logged with the request id")
	}
}

func TestUnknownErrorIsInternal(t *testing.T) {
	s, err := New(Config{Log: zap.NewNop(), BaseURL: "http://kontera.test", Secret: []byte("x"), PIIKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/fail", func(echo.Context) error { return &json.SyntaxError{} })
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/fail", nil))
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"INTERNAL_ERROR"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// The document's OperationType enum is the list of operations the worker
// runs: a 202's operation, its poll and its event name one of them.
func TestOperationTypesMatchDocument(t *testing.T) {
	s, err := New(Config{Log: zap.NewNop(), BaseURL: "http://kontera.test", Secret: []byte("x"), PIIKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	enum := c.Enum("OperationType")
	got := s.worker.Types()
	sort.Strings(enum)
	sort.Strings(got)
	if !slices.Equal(enum, got) {
		t.Fatalf("document %v, worker %v", enum, got)
	}
}

// A dry run's answer is data {dry_run: true, preview}; one a handler gave
// its own dry-run shape, or that is no envelope, stays as it was.
func TestDryRunAnswer(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"data":{"id":"x","total":12.50},"meta":{"request_id":"r"}}` + "\n",
			`{"data":{"dry_run":true,"preview":{"id":"x","total":12.50}},"meta":{"request_id":"r"}}`},
		{`{"data":{"dry_run":true,"preview":{"id":null}},"meta":{}}`, ""},
		{`{"data":{"dry_run":true,"applied":0},"meta":{}}`, ""},
		{`{"data":[1,2],"meta":{}}`, ""},
		{`not json`, ""},
	} {
		got, ok := dryRunAnswer([]byte(c.in))
		if ok != (c.want != "") || ok && string(got) != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.in, got, ok, c.want)
		}
	}
}
