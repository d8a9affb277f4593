package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// lockedBuffer is a buffer two goroutines may use: the server writes its
// output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Under kontera dev (its own cluster, DATABASE_URL unset) a webhook is
// delivered on the wake-up of its event's commit: the sweep is set to an
// hour, so only LISTEN can bring it.
func TestDevDeliversWebhooksOnCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	arrived := make(chan string, 4)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- r.Header.Get("X-Kontera-Event")
	}))
	defer srv.Close()
	dir := t.TempDir()
	// The cluster runs as the postgres user when the test runs as root.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for k, v := range map[string]string{"DATABASE_URL": "", "KONTERA_MIGRATE_DATABASE_URL": "", "KONTERA_DATA_DIR": dir,
		"KONTERA_ADDR": addr, "KONTERA_BASE_URL": "", "KONTERA_ADMIN_ADDR": "off", "KONTERA_LOG_LEVEL": "error",
		"KONTERA_SECRET": "", "KONTERA_PII_KEY": "", "KONTERA_WEBHOOK_ALLOW_LOOPBACK": "true",
		"KONTERA_WEBHOOK_CA_FILE": ca, "KONTERA_WEBHOOK_SWEEP": "1h"} {
		t.Setenv(k, v)
	}
	ctx, stop := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"dev"}, &out, &errOut) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("dev: %v\n%s", err, errOut.String())
		}
	}()
	keyRE := regexp.MustCompile(`kontera_sk_[A-Za-z0-9]+`)
	var key string
	for deadline := time.Now().Add(3 * time.Minute); key == ""; time.Sleep(50 * time.Millisecond) {
		key = keyRE.FindString(out.String())
		select {
		case err := <-done:
			t.Fatalf("dev ended: %v\n%s", err, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no demo key:\n%s\n%s", out.String(), errOut.String())
		}
	}
	api := "http://" + addr + "/api/v1"
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		var res *http.Response
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			req, _ := http.NewRequest(method, api+path, bytes.NewReader(raw))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", uuid.NewString())
			if res, err = http.DefaultClient.Do(req); err == nil || time.Now().After(deadline) {
				break // the listener may still be opening
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, m)
		}
		return m
	}
	company := call("POST", "/companies", map[string]any{"name": "Väckningen AB", "entity_type": "aktiebolag",
		"vat_registered": false, "f_skatt": true})["data"].(map[string]any)["id"].(string)
	c := "/companies/" + company
	call("POST", c+"/webhooks", map[string]any{"name": "Mottagaren", "event_type": "customer.created",
		"webhook_url": srv.URL + "/hook"})
	start := time.Now()
	call("POST", c+"/customers", map[string]any{"name": "Första kunden AB", "customer_type": "swedish_business"})
	select {
	case typ := <-arrived:
		if typ != "customer.created" {
			t.Fatalf("delivered %q", typ)
		}
		t.Logf("delivered %s after the commit", time.Since(start).Round(time.Millisecond))
	case <-time.After(2 * time.Minute): // a bound for a busy machine; the sweep would take an hour
		t.Fatal(fmt.Sprintf("no delivery: the dev server does not wake on the event's commit\n%s", errOut.String()))
	}
	if strings.Contains(errOut.String(), "LISTEN") {
		t.Fatalf("listening failed:\n%s", errOut.String())
	}
}
