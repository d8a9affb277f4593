package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
)

// childEnv marks this test binary run as a server process of a test that
// kills it (TestWebhookSurvivesSIGKILL, TestSieImportSurvivesSIGKILL).
const childEnv = "KONTERA_SERVE_CHILD"

// TestServeChild is not a test: it is `kontera serve` in a process of its
// own, for a test to kill with SIGKILL.
func TestServeChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("the server process of the SIGKILL tests, run only by them")
	}
	if err := run(context.Background(), []string{"serve"}, os.Stdout, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// serveChild starts `kontera serve` on the database url in a process of
// its own (this test binary, running TestServeChild), with env added;
// the caller kills it.
func serveChild(t *testing.T, url string, env ...string) *exec.Cmd {
	t.Helper()
	key := childPIIKey()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"=1", "TEST_DATABASE_URL="+pgtest.URL(), "DATABASE_URL="+url,
		"KONTERA_MIGRATE_DATABASE_URL=", "KONTERA_ADDR=127.0.0.1:0", "KONTERA_ADMIN_ADDR=off",
		"KONTERA_SECRET=a-test-secret-of-at-least-32-bytes!", "KONTERA_PII_KEY="+hex.EncodeToString(key),
		"KONTERA_DATA_DIR="+t.TempDir(), "KONTERA_LOG_LEVEL=error"), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// childPIIKey is the KONTERA_PII_KEY of the server processes: a test that
// seals or reads their sealed data uses the same.
func childPIIKey() []byte {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i + 1)
	}
	return key
}

// childDB is a fresh database for a test of the server processes: its
// URL, and a handle to it closed when the test ends.
func childDB(t *testing.T) (string, *store.DB) {
	t.Helper()
	url := pgtest.NewURL(t)
	d, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return url, d
}

// migrated is a fresh database, migrated by `kontera migrate`, that the
// tools of this test reach through DATABASE_URL; with a handle to it.
func migrated(t *testing.T) (*store.DB, string) {
	t.Helper()
	url, d := childDB(t)
	t.Setenv("DATABASE_URL", url)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"migrate"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	return d, url
}
