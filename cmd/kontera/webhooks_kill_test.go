package main

import (
	"encoding/hex"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/webhooks"
)

// A server process killed with SIGKILL while a receiver holds its attempt
// open loses nothing: once the lease has run out (moved in the database,
// never slept) another process makes the attempt again with the same
// X-Kontera-Delivery, and the delivery ends delivered.
func TestWebhookSurvivesSIGKILL(t *testing.T) {
	t.Parallel() // each has its own database and processes; they wait on them side by side
	url, d := childDB(t)

	type got struct{ delivery string }
	var mu sync.Mutex
	var seen []got
	arrived := make(chan struct{}, 4)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end: only then does the server notice the
		// connection close, and end the request's context.
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, got{r.Header.Get("X-Kontera-Delivery")})
		first := len(seen) == 1
		mu.Unlock()
		arrived <- struct{}{}
		if first { // held open until the process that sent it is gone
			<-r.Context().Done()
			return
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	key := childPIIKey()
	box, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	var user, company uuid.UUID
	if err := d.Get(&user, `INSERT INTO users (email) VALUES ('dod@example.se') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&company, `INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end,
		created_by) VALUES ('Kraschen AB', 'aktiebolag', '2026-01-01', '2026-12-31', $1) RETURNING id`, user); err != nil {
		t.Fatal(err)
	}
	hook := uuid.New()
	if _, err := d.Exec(`INSERT INTO webhooks (company_id, id, name, event_type, webhook_url, secret_sealed,
		api_version_pinned) VALUES ($1, $2, 'Mottagaren', 'invoice.paid', $3, $4, '2026-05-12')`, company, hook,
		srv.URL+"/hook", box.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), webhooks.SecretContext(company, hook))); err != nil {
		t.Fatal(err)
	}

	start := func() *exec.Cmd {
		return serveChild(t, url, "KONTERA_WEBHOOK_ALLOW_LOOPBACK=true", "KONTERA_WEBHOOK_CA_FILE="+ca, "KONTERA_WEBHOOK_SWEEP=1s",
			"KONTERA_PII_KEY="+hex.EncodeToString(key))
	}
	first := start()
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	if _, err := d.Exec(`INSERT INTO events (company_id, type, payload, api_version)
		VALUES ($1, 'invoice.paid', '{"invoice": {"id": "x"}}', '2026-05-12')`, company); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(2 * time.Minute): // a process starting on a busy machine (make test runs all at once)
		t.Fatal("the first process made no attempt")
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no handing back
		t.Fatal(err)
	}
	_ = first.Wait()
	var status string
	var attempts int
	if err := d.QueryRow(`SELECT status, attempts FROM webhook_deliveries WHERE company_id = $1`, company).
		Scan(&status, &attempts); err != nil || status != "in_flight" || attempts != 1 {
		t.Fatalf("after the kill: %s, %d attempts (%v)", status, attempts, err)
	}
	if _, err := d.Exec(`UPDATE webhook_deliveries SET lease_until = now() WHERE company_id = $1`, company); err != nil {
		t.Fatal(err)
	}

	second := start()
	defer func() { _ = second.Process.Kill(); _ = second.Wait() }()
	select {
	case <-arrived:
	case <-time.After(3 * time.Minute): // the sweep (every second) finds a lease run out; a bound on a hang
		t.Fatal("no other process made the attempt again")
	}
	deadline := time.Now().Add(2 * time.Minute) // a bound on a hang: the result is awaited, not timed
	for {
		if err := d.QueryRow(`SELECT status, attempts FROM webhook_deliveries WHERE company_id = $1`, company).
			Scan(&status, &attempts); err != nil {
			t.Fatal(err)
		}
		if status == "delivered" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if status != "delivered" || attempts != 2 || len(seen) != 2 || seen[0].delivery == "" || seen[1] != seen[0] {
		t.Fatalf("after the second process: %s, %d attempts, requests %v", status, attempts, seen)
	}
}
