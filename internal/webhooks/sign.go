package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every signing secret, as Stripe's and Standard
// Webhooks' do.
const SecretPrefix = "whsec_"

// NewSecret is a fresh signing secret: whsec_ and the base64 of 32 random
// bytes.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Signature is the X-Kontera-Signature of body sent at t:
// "t=<unix seconds>,v1=<hex>", the HMAC-SHA256 of "<t>.<body>" keyed by
// the secret string exactly as it was handed out (as Stripe's libraries
// key theirs), so they verify it too.
func Signature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts + "."))
	h.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(h.Sum(nil))
}

// StandardSignature is the webhook-signature header of Standard Webhooks
// 1.0 for message id sent at t: "v1,<base64>" of the HMAC-SHA256 of
// "<id>.<t>.<body>" keyed by the secret's base64-decoded bytes.
func StandardSignature(secret, id string, t time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return "", fmt.Errorf("webhooks: the secret is not base64: %w", err)
	}
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id + "." + strconv.FormatInt(t.Unix(), 10) + "."))
	h.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// ErrSignature is what Verify answers for a delivery that is not signed
// with the secret, or was signed longer ago than the tolerance.
var ErrSignature = errors.New("webhooks: the signature does not verify")

// Verify checks an X-Kontera-Signature header as a receiver would: one of
// its v1 values must be the HMAC of "<t>.<body>" under secret, and t at most
// tolerance from now (either way), so a captured delivery cannot be
// replayed later. Several v1 values are accepted because a header may carry
// one per secret while a secret is rotated.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || -d > tolerance {
		return ErrSignature
	}
	want := strings.TrimPrefix(Signature(secret, time.Unix(sec, 0), body), "t="+ts+",v1=")
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return ErrSignature
}
