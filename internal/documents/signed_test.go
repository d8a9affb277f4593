package documents

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
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
	companyID, docID := uuid.New(), uuid.New()
	company, doc := companyID.String(), docID.String()
	sha := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	exp := now.Add(DownloadTTL)
	sig := s.Sign(companyID, docID, sha, exp)
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
		"other company":   s.Check(uuid.NewString(), doc, sha, expires, sig, now),
		"other document":  s.Check(company, uuid.NewString(), sha, expires, sig, now),
		"other bytes":     s.Check(company, doc, "0"+sha[1:], expires, sig, now),
		"moved expiry":    s.Check(company, doc, sha, later, sig, now),
		"not a number":    s.Check(company, doc, sha, "soon", sig, now),
		"not a signature": s.Check(company, doc, sha, expires, "%%%", now),
		"late and forged": s.Check(company, doc, sha, expires, sig[:len(sig)-2]+"AA", exp.Add(time.Hour)),
		// The same values spelled otherwise: a URL this server never made.
		"upper-case company":    s.Check(strings.ToUpper(company), doc, sha, expires, sig, now),
		"upper-case document":   s.Check(company, strings.ToUpper(doc), sha, expires, sig, now),
		"braced company":        s.Check("{"+company+"}", doc, sha, expires, sig, now),
		"urn document":          s.Check(company, "urn:uuid:"+doc, sha, expires, sig, now),
		"company without -":     s.Check(strings.ReplaceAll(company, "-", ""), doc, sha, expires, sig, now),
		"expires with +":        s.Check(company, doc, sha, "+"+expires, sig, now),
		"expires with a 0":      s.Check(company, doc, sha, "0"+expires, sig, now),
		"signature respelled":   s.Check(company, doc, sha, expires, respell(sig), now),
		"signature padded":      s.Check(company, doc, sha, expires, sig+"=", now),
		"signature in std form": s.Check(company, doc, sha, expires, "+/"+sig[2:], now),
	} {
		if !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v, want a bad signature", name, err)
		}
	}
	if b1, _ := base64.RawURLEncoding.DecodeString(sig); string(b1) == "" || respell(sig) == sig {
		t.Fatal("respell changed nothing")
	} else if b2, _ := base64.RawURLEncoding.DecodeString(respell(sig)); string(b1) != string(b2) {
		t.Fatal("respell changed the bytes: it should only spell them otherwise")
	}
	other, _ := NewSigner([]byte("another-secret-another-secret-01"))
	if err := other.Check(company, doc, sha, expires, sig, now); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("another server's secret: %v", err)
	}
}

// respell writes the same signature bytes otherwise: 32 bytes take 43
// base64 characters, the last carrying two bits no byte uses; a lenient
// decoder reads both spellings alike.
func respell(sig string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, sig[len(sig)-1])
	return sig[:len(sig)-1] + string(alphabet[last^1])
}
