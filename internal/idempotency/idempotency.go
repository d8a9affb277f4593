// Package idempotency keeps the outcomes of writes sent with an
// Idempotency-Key, so a retried write returns the first outcome instead of
// acting twice. A record is written in the transaction of the write it
// describes (a 4xx's after that transaction rolled back), and a
// transaction-scoped advisory lock on the key turns a second, concurrent
// request with the same key into a 409 CONFLICT rather than a second
// effect.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/url"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// TTL is how long an outcome is kept; after it a key may be used afresh.
const TTL = 24 * time.Hour

// Record is the stored outcome of a write.
type Record struct {
	Hash        []byte    `db:"request_hash"`
	Status      int       `db:"status"`
	ContentType string    `db:"content_type"`
	Body        []byte    `db:"body"`
	CreatedAt   time.Time `db:"created_at"`
}

// Outcome says what to do with a request given the stored record.
type Outcome int

// The outcomes of Decide.
const (
	Execute Outcome = iota // no record: run the request
	Replay                 // same request: answer the stored response
	Reuse                  // another request under the same key: 409 IDEMPOTENCY_KEY_REUSE
)

// Decide compares a request's hash with the stored record (nil when none).
func Decide(rec *Record, hash []byte) Outcome {
	switch {
	case rec == nil:
		return Execute
	case bytes.Equal(rec.Hash, hash):
		return Replay
	default:
		return Reuse
	}
}

// Hash fingerprints a request: method, path, query (without dry_run, which
// is marked separately), the body as canonical JSON (so key order and
// spacing do not matter), and whether it is a dry run.
func Hash(method, path string, query url.Values, body []byte, dryRun bool) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	keys := make([]string, 0, len(query))
	for k := range query {
		if k != "dry_run" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range query[k] {
			h.Write([]byte(k + "=" + v + "&"))
		}
	}
	h.Write([]byte("\n"))
	h.Write(canonical(body))
	if dryRun {
		h.Write([]byte("\ndry_run"))
	}
	return h.Sum(nil)
}

func canonical(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return body
	}
	return out
}

// Claim takes the key's transaction-scoped advisory lock without waiting
// and answers the key's live record (nil when none), in one round trip;
// locked false means another request holds the key right now. The record
// is read after the lock is taken (see idempotency_claim), so a request
// that held the key before is seen with its outcome.
func Claim(ctx context.Context, q store.Querier, apiKey, key uuid.UUID) (locked bool, rec *Record, err error) {
	var row struct {
		Locked      bool       `db:"locked"`
		Hash        []byte     `db:"request_hash"`
		Status      *int       `db:"status"`
		ContentType *string    `db:"content_type"`
		Body        []byte     `db:"body"`
		CreatedAt   *time.Time `db:"created_at"`
	}
	err = q.GetContext(ctx, &row, `SELECT locked, request_hash, status, content_type, body, created_at
		FROM idempotency_claim($1, $2, $3::interval)`, apiKey, key, TTL.String())
	if err != nil || !row.Locked || row.Status == nil {
		return row.Locked, nil, err
	}
	return true, &Record{Hash: row.Hash, Status: *row.Status, ContentType: *row.ContentType, Body: row.Body,
		CreatedAt: *row.CreatedAt}, nil
}

// Save stores the outcome of (apiKey, key) with the unit of work in ctx
// (at its end, with its other append-only rows), or at once without one.
// It replaces an expired record but never a live one: a request that ran
// while this one's 4xx was being stored keeps its outcome.
func Save(ctx context.Context, db *store.DB, apiKey, key uuid.UUID, r Record) error {
	if r.Body == nil {
		r.Body = []byte{} // a 204 has no body, which is not NULL
	}
	return db.Append(ctx, store.Append{
		Into:   "idempotency_keys (api_key_id, key, request_hash, status, content_type, body)",
		Values: "($1, $2, $3, $4, $5, $6)",
		Suffix: `ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status,
			content_type = EXCLUDED.content_type, body = EXCLUDED.body, created_at = now()
			WHERE idempotency_keys.created_at <= now() - '` + TTL.String() + `'::interval`,
		Args: []any{apiKey, key, r.Hash, r.Status, r.ContentType, r.Body}})
}

// Purge deletes expired records.
func Purge(ctx context.Context, q store.Querier) (int64, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval`, TTL.String())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ReplyContext binds a sealed stored answer (one that carries a secret or
// a personnummer) to its API key and Idempotency-Key.
func ReplyContext(apiKey, key uuid.UUID) string {
	return "idempotency/" + apiKey.String() + "/" + key.String()
}

// Rekey seals the sealed stored answers anew under to, in the transaction
// of ctx (kontera pii rekey), and answers how many it moved. An answer is
// sealed when it opens under either key for its context: a stored answer
// in clear (JSON, a PDF) opens under neither and stays as it is.
func Rekey(ctx context.Context, db *store.DB, from, to *seal.Box) (int, error) {
	var rows []struct {
		APIKey uuid.UUID `db:"api_key_id"`
		Key    uuid.UUID `db:"key"`
		Body   []byte    `db:"body"`
	}
	// A sealed value starts with its version, 1; JSON never does.
	if err := db.Q(ctx).SelectContext(ctx, &rows, `SELECT api_key_id, key, body FROM idempotency_keys
		WHERE length(body) > 0 AND get_byte(body, 0) = 1 FOR UPDATE`); err != nil {
		return 0, err
	}
	moved := 0
	for _, r := range rows {
		out, _, did, err := seal.Reseal(from, to, r.Body, ReplyContext(r.APIKey, r.Key))
		if err != nil || !did {
			continue // in clear, or sealed under the new key already
		}
		if _, err := db.Q(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET body = $3 WHERE api_key_id = $1 AND key = $2`,
			r.APIKey, r.Key, out); err != nil {
			return moved, err
		}
		moved++
	}
	return moved, nil
}
