package idempotency

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRecordsExpireAfterTTL(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	var apiKey uuid.UUID
	err := d.Get(&apiKey, `WITH u AS (INSERT INTO users (email) VALUES ('k@example.se') RETURNING id)
		INSERT INTO api_keys (user_id, prefix, key_hash, mode, scopes, company_access)
		SELECT id, 'kontera_sk_x', sha256('x'), 'live', '{}', 'all_memberships' FROM u RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	fresh, old := uuid.New(), uuid.New()
	for _, k := range []uuid.UUID{fresh, old} {
		if err := Save(ctx, d, apiKey, k, Record{Hash: []byte{1}, Status: 201, ContentType: "application/json", Body: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Exec(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, old); err != nil {
		t.Fatal(err)
	}
	find := func(k uuid.UUID) *Record {
		t.Helper()
		tx := d.MustBegin()
		defer tx.Rollback()
		locked, r, err := Claim(ctx, tx, apiKey, k)
		if err != nil || !locked {
			t.Fatalf("claim: %v %v", locked, err)
		}
		return r
	}
	if r := find(fresh); r == nil || r.Status != 201 {
		t.Fatal("a fresh record was not found")
	}
	if r := find(old); r != nil {
		t.Fatal("a record older than 24 h still answers")
	}
	// Saving over an expired record starts afresh.
	if err := Save(ctx, d, apiKey, old, Record{Hash: []byte{2}, Status: 200, ContentType: "application/json", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if r := find(old); r == nil || r.Status != 200 {
		t.Fatal("an expired key could not be used again")
	}
	// A live record is never replaced: not even by a 4xx stored after
	// its own transaction rolled back.
	if err := Save(ctx, d, apiKey, fresh, Record{Hash: []byte{3}, Status: 400, ContentType: "application/json", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if r := find(fresh); r == nil || r.Status != 201 {
		t.Fatal("a live record was replaced")
	}
	if _, err := d.Exec(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, fresh); err != nil {
		t.Fatal(err)
	}
	if n, err := Purge(ctx, d.DB); err != nil || n != 1 {
		t.Fatalf("purged %d, %v", n, err)
	}
}
