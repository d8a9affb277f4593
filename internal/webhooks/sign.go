package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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
