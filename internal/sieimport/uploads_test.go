package sieimport

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// An upload token is good as it was signed, and not spelled otherwise:
// its signature's last character with an unused bit set decodes to the
// same bytes, but is not the token this server wrote.
func TestUploadTokenAsSigned(t *testing.T) {
	s, err := NewSigner([]byte("a-test-secret-of-at-least-32-bytes!"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	u := Upload{CompanyID: uuid.New(), ID: uuid.New(), Size: 1024, ExpiresAt: now.Add(UploadLife)}
	token, err := s.Sign(u)
	if err != nil {
		t.Fatal(err)
	}
	if company, id, size, err := s.Check(token, now); err != nil || company != u.CompanyID || id != u.ID || size != 1024 {
		t.Fatalf("genuine: %v %v %d %v", company, id, size, err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	respelled := token[:len(token)-1] + string(alphabet[last^1])
	if _, _, _, err := s.Check(respelled, now); !apierr.Is(err, apierr.SIEUploadTokenInvalid) {
		t.Fatalf("respelled: %v", err)
	}
	if _, _, _, err := s.Check(token, now.Add(UploadLife+time.Second)); !apierr.Is(err, apierr.SIEUploadTokenInvalid) {
		t.Fatalf("late: %v", err)
	}
}
