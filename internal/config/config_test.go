package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/documents"
)

// The blob store is the filesystem under the data directory unless told
// otherwise; an unknown kind is refused at start; s3 needs its bucket.
func TestBlobStore(t *testing.T) {
	t.Setenv("KONTERA_DATA_DIR", "/var/lib/kontera")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Blobs()
	if fs, ok := b.(documents.FS); err != nil || !ok || fs.Dir != filepath.Join("/var/lib/kontera", "documents") {
		t.Fatalf("default store %#v (%v)", b, err)
	}
	t.Setenv("KONTERA_BLOB_STORE", "tape")
	if _, err := FromEnv(); err == nil {
		t.Fatal("KONTERA_BLOB_STORE=tape accepted")
	}
	t.Setenv("KONTERA_BLOB_STORE", "s3")
	c, err = FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Blobs(); err == nil {
		t.Fatal("an s3 store without endpoint and bucket opened")
	}
	t.Setenv("KONTERA_S3_ENDPOINT", "s3.eu-north-1.amazonaws.com")
	t.Setenv("KONTERA_S3_BUCKET", "underlag")
	c, _ = FromEnv()
	if b, err := c.Blobs(); err != nil {
		t.Fatalf("s3 store: %v", err)
	} else if _, ok := b.(*documents.S3); !ok || !c.S3.UseSSL {
		t.Fatalf("s3 store %T, ssl %v", b, c.S3.UseSSL)
	}
}

// The server answers after the database gave up on a statement: the
// write timeout is always past the statement timeout.
func TestWriteTimeoutOutlastsStatements(t *testing.T) {
	for st, want := range map[time.Duration]time.Duration{0: 0, time.Second: time.Minute, time.Minute: 90 * time.Second,
		5 * time.Minute: 5*time.Minute + 30*time.Second} {
		got := Config{StatementTimeout: st}.WriteTimeout()
		if got != want || (st > 0 && got <= st) {
			t.Errorf("statement timeout %v: write timeout %v, want %v", st, got, want)
		}
	}
}

// The read replica's bounds: their defaults, a value each, and the
// refusals a typo gets at start.
func TestReadReplicaSettings(t *testing.T) {
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadDatabaseURL != "" || c.ReadMaxWait != 2*time.Second || c.ReadMaxLag != 10*time.Second || c.ReadSticky != 5*time.Second {
		t.Fatalf("defaults: %q %v %v %v", c.ReadDatabaseURL, c.ReadMaxWait, c.ReadMaxLag, c.ReadSticky)
	}
	t.Setenv("KONTERA_READ_DATABASE_URL", "postgres://kontera_app@standby/kontera")
	t.Setenv("KONTERA_READ_MAX_WAIT", "500ms")
	t.Setenv("KONTERA_READ_MAX_LAG", "1m")
	t.Setenv("KONTERA_READ_STICKY", "0")
	if c, err = FromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.ReadDatabaseURL != "postgres://kontera_app@standby/kontera" || c.ReadMaxWait != 500*time.Millisecond ||
		c.ReadMaxLag != time.Minute || c.ReadSticky != 0 {
		t.Fatalf("set: %q %v %v %v", c.ReadDatabaseURL, c.ReadMaxWait, c.ReadMaxLag, c.ReadSticky)
	}
	for name, bad := range map[string]string{"KONTERA_READ_MAX_WAIT": "0", "KONTERA_READ_MAX_LAG": "ten",
		"KONTERA_READ_STICKY": "-1s"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, bad)
			if _, err := FromEnv(); err == nil {
				t.Fatalf("%s=%s accepted", name, bad)
			}
		})
	}
}
