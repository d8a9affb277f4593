package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/webhooks"
)

// Stripe's and Standard Webhooks' own libraries verify a real delivery
// (its raw body, headers and secret, captured by a loopback receiver),
// and refuse it tampered, under another secret, and signed six minutes ago
// (the Go signer on a fixed clock). Runs under make test
// (KONTERA_CONTRACT=1), which installs the libraries, pinned in
// scripts/contract.
func TestWebhookSignaturesVerifyWithReceiversLibraries(t *testing.T) {
	t.Parallel()
	tools := contractTools(t)
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed for the contract tools: %v", err)
	}
	b := newHookBooks(t, 0)
	rc := newReceiver(t, nil)
	hook, secret := b.register("customer.created", rc)
	b.test(hook)
	h := rc.wait(t, 1, 5*time.Second)[0]
	id := h.Header.Get("webhook-id")
	old := time.Now().Add(-6 * time.Minute)
	oldStandard, err := webhooks.StandardSignature(secret, id, old, h.Body)
	if err != nil {
		t.Fatal(err)
	}
	other, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	capture := map[string]any{
		"body": string(h.Body), "signature": h.Header.Get("X-Kontera-Signature"), "secret": secret,
		"other_secret": other, "webhook_id": id, "webhook_timestamp": h.Header.Get("webhook-timestamp"),
		"webhook_signature": h.Header.Get("webhook-signature"),
		"old": map[string]string{"signature": webhooks.Signature(secret, old, h.Body),
			"webhook_timestamp": strconv.FormatInt(old.Unix(), 10), "webhook_signature": oldStandard},
	}
	raw, err := json.Marshal(capture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "capture.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, tools, nil, "node", "verify-webhook.mjs", path)
	if strings.Count(out, "ok  ") != 8 {
		t.Fatalf("verify-webhook.mjs:\n%s", out)
	}
	t.Log(out)
}
