package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
)

// The operator lists, rotates and revokes keys at the command line; the
// database then refuses the old secrets.
func TestKeysListRotateRevoke(t *testing.T) {
	d, _ := migrated(t)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"keys", "create", "--email", "ops@example.se", "--name", "drift",
		"--expires-at", "2099-01-01T00:00:00Z"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var k struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out.Bytes(), &k); err != nil || k.ID == "" {
		t.Fatalf("%v: %s", err, out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "list", "--email", "ops@example.se"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, k.ID) || !strings.Contains(s, "active") || !strings.Contains(s, "2099-01-01") {
		t.Fatalf("list:\n%s", s)
	}
	keys := auth.NewStore(d, audit.NewStore(d))
	out.Reset()
	if err := run(ctx, []string{"keys", "rotate", k.ID, "--grace", "1h"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var r struct {
		Key   string `json:"key"`
		Grace string `json:"previous_secret_expires_at"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Key == "" || r.Key == k.Key || r.Grace == "" {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, token := range []string{k.Key, r.Key} {
		if _, err := keys.Authenticate(ctx, token); err != nil {
			t.Fatalf("within the grace: %v", err)
		}
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "revoke", k.ID}, &out, &errOut); err != nil || !strings.Contains(out.String(), "revoked") {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, token := range []string{k.Key, r.Key} {
		if _, err := keys.Authenticate(ctx, token); err != auth.ErrNoKey {
			t.Fatalf("revoked: %v", err)
		}
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "list", "--status", "revoked", "--json"}, &out, &errOut); err != nil ||
		strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), k.ID) {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, bad := range [][]string{
		{"keys", "rotate", k.ID},
		{"keys", "rotate", "nope"},
		{"keys", "rotate", k.ID, "--grace", "200h"},
		{"keys", "revoke", "nope"},
		{"keys", "list", "--status", "dead"},
		{"keys", "create", "--email", "a@example.se", "--expires-at", "2020-01-01T00:00:00Z"},
	} {
		if err := run(ctx, bad, &out, &errOut); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}
