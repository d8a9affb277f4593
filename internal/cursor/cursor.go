// Package cursor makes the opaque, signed cursors of list endpoints and
// holds the page-size rule. A cursor names the last row of a page (keyset
// pagination, never OFFSET) and the list it belongs to; anything that does
// not verify is treated as no cursor at all, so a stale or tampered cursor
// returns the first page.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Codec signs and verifies cursors with a server secret.
type Codec struct{ secret []byte }

// New returns a codec signing with secret.
func New(secret []byte) *Codec { return &Codec{secret: secret} }

type envelope struct {
	List string          `json:"l"`
	Pos  json.RawMessage `json:"p"`
}

// Encode returns the cursor for position pos (any JSON value) in list.
func (c *Codec) Encode(list string, pos any) string {
	p, err := json.Marshal(pos)
	if err != nil {
		panic(err) // positions are plain structs of ours
	}
	payload, _ := json.Marshal(envelope{List: list, Pos: p})
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(c.sign(body))
}

// Decode reads s into pos when s is a valid cursor of list; it reports
// false (and leaves pos alone) otherwise.
func (c *Codec) Decode(list, s string, pos any) bool {
	if s == "" {
		return false
	}
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.sign(body)) {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return false
	}
	var env envelope
	if json.Unmarshal(payload, &env) != nil || env.List != list {
		return false
	}
	return json.Unmarshal(env.Pos, pos) == nil
}

func (c *Codec) sign(body string) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("cursor:"))
	m.Write([]byte(body))
	return m.Sum(nil)[:16]
}

// Page sizes of the spec.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// Limit resolves a requested page size: def when absent, at most max
// (larger values are clamped, not refused).
func Limit(requested *int, def, max int) int {
	if requested == nil || *requested < 1 {
		return def
	}
	if *requested > max {
		return max
	}
	return *requested
}

// DecodeParam is Decode for an optional query parameter.
func (c *Codec) DecodeParam(list string, s *string, pos any) bool {
	return s != nil && c.Decode(list, *s, pos)
}

// Next trims rows, fetched as limit+1 to learn whether more follow, to one
// page, and returns the cursor of the next page: "" on the last page.
// position gives the keyset position of a row.
func Next[T any](c *Codec, list string, rows []T, limit int, position func(last T) any) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, c.Encode(list, position(rows[limit-1]))
}
