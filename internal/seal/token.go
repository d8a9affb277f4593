package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"regexp"
)

// tokenKeyLabel derives the fingerprint key from the box's key, so the
// one secret serves both and neither reveals the other.
const tokenKeyLabel = "kontera token key v1"

// Token is the stand-in for a sealed number in the columns that must
// still compare it (unique per company, found by its whole number, part
// of a party's identity) without holding it: kind (two capital letters:
// what the number is), 20 characters of HMAC-SHA256 of the number under
// a key derived from the box's, and the number's last four digits, which
// every answer shows anyway. The same number gives the same token under
// the same key; without the key it cannot be told from a guess.
func (b *Box) Token(kind, number string) string {
	m := hmac.New(sha256.New, b.tokenKey)
	m.Write([]byte(kind + ":" + number))
	sum := base32.StdEncoding.EncodeToString(m.Sum(nil))[:20]
	return kind + sum + number[len(number)-4:]
}

var token = regexp.MustCompile(`^[A-Z]{2}[A-Z2-7]{20}[0-9]{4}$`)

// IsToken reports whether s is a token of kind.
func IsToken(s, kind string) bool { return token.MatchString(s) && s[:2] == kind }

// TokenLast4 is the last four digits of the number behind a token.
func TokenLast4(t string) string { return t[len(t)-4:] }
