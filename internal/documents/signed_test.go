package documents

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A URL is good until its time and for its document, company and bytes
// only; a forged one is refused as a forgery even when late too.
func TestSignedDownload(t *testing.T) {
	s, err := NewSigner([]byte("server-secret-server-secret-0123"))
	if err != nil {
		t.Fatal(err)
	}
	company, doc := uuid.New(), uuid.New()
	sha := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	exp := now.Add(DownloadTTL)
	sig := s.Sign(company, doc, sha, exp)
	expires := strconv.FormatInt(exp.Unix(), 10)

	if err := s.Check(company, doc, sha, expires, sig, now); err != nil {
		t.Fatalf("genuine: %v", err)
	}
	if err := s.Check(company, doc, sha, expires, sig, exp); err != nil {
		t.Fatalf("at its last second: %v", err)
	}
	if err := s.Check(company, doc, sha, expires, sig, exp.Add(time.Second)); !errors.Is(err, ErrExpired) {
		t.Fatalf("a second late: %v", err)
	}
	later := strconv.FormatInt(exp.Unix()+3600, 10)
	for name, err := range map[string]error{
		"other company":   s.Check(uuid.New(), doc, sha, expires, sig, now),
		"other document":  s.Check(company, uuid.New(), sha, expires, sig, now),
		"other bytes":     s.Check(company, doc, "0"+sha[1:], expires, sig, now),
		"moved expiry":    s.Check(company, doc, sha, later, sig, now),
		"not a number":    s.Check(company, doc, sha, "soon", sig, now),
		"not a signature": s.Check(company, doc, sha, expires, "%%%", now),
		"late and forged": s.Check(company, doc, sha, expires, sig[:len(sig)-2]+"AA", exp.Add(time.Hour)),
	} {
		if !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want a bad signature", name, err)
		}
	}
	other, _ := NewSigner([]byte("another-secret-another-secret-01"))
	if err := other.Check(company, doc, sha, expires, sig, now); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("another server's secret: %v", err)
	}
}
