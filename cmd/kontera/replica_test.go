package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/localpg"
)

// serve opens the read replica of KONTERA_READ_DATABASE_URL as it opens
// the primary: as the application role, refusing one that reaches past
// the guards; a replica that does not answer yet is no reason not to
// start.
func TestOpenStandby(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	url, d := childDB(t)
	cfg := config.Config{ReadMaxWait: 2 * time.Second, ReadMaxLag: 10 * time.Second, ReadSticky: 5 * time.Second, DBMaxConns: 4}

	if sb, r, err := openStandby(ctx, cfg, d, zap.NewNop()); sb != nil || r != nil || err != nil {
		t.Fatalf("without a URL: %v %v %v", sb, r, err)
	}

	owner, err := localpg.WithUser(url, localpg.OwnerRole)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ReadDatabaseURL = owner
	if _, _, err := openStandby(ctx, cfg, d, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "owns the tables") {
		t.Fatalf("the owner role as the replica's: %v", err)
	}
	if d.ReadPool() != nil {
		t.Fatal("a refused replica was kept")
	}

	cfg.ReadDatabaseURL = "postgres://kontera_app@/kontera?host=/nonexistent&sslmode=disable"
	sb, r, err := openStandby(ctx, cfg, d, zap.NewNop())
	if err != nil || sb == nil {
		t.Fatalf("a replica not answering yet: %v", err)
	}
	sb.Check(ctx)
	r.Close()
	if up, _ := sb.State(); up {
		t.Fatal("a replica that does not answer is up")
	}

	cfg.ReadDatabaseURL = url
	sb, r, err = openStandby(ctx, cfg, d, zap.NewNop())
	if err != nil || sb == nil || d.ReadPool() != r {
		t.Fatalf("the application role: %v", err)
	}
	defer r.Close()
	sb.Check(ctx)
	if up, _ := sb.State(); !up {
		t.Fatal("the replica does not answer")
	}
}
