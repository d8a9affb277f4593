package documents

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// DownloadTTL is how long a signed download URL is good for (002 Limits).
const DownloadTTL = 900 * time.Second

var (
	// ErrBadSignature says a download URL was not made by this server for
	// that document: answered as DOC_NOT_FOUND, as a missing document is.
	ErrBadSignature = errors.New("documents: the download URL's signature does not match")
	// ErrExpired says a genuine download URL is past its time.
	ErrExpired = errors.New("documents: the download URL has expired")
)

// Signer makes and checks signed download URLs. Its key is derived from
// the server's secret under a label of its own, so a signature made for a
// download is no good as anything else the secret signs (a cursor).
type Signer struct{ key []byte }

// NewSigner returns the signer for the server secret.
func NewSigner(secret []byte) (*Signer, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, "kontera document download v1", 32)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key}, nil
}

// Sign answers the signature of a download of document doc of company,
// with content hash sha256, good until expires: the URL names the bytes,
// not only the row.
func (s *Signer) Sign(company, doc uuid.UUID, sha256 string, expires time.Time) string {
	return base64.RawURLEncoding.EncodeToString(s.mac(company, doc, sha256, expires.Unix()))
}

func (s *Signer) mac(company, doc uuid.UUID, sha string, expires int64) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(company.String() + "\n" + doc.String() + "\n" + sha + "\n" + strconv.FormatInt(expires, 10)))
	return m.Sum(nil)
}

// Check verifies a download URL's expires (Unix seconds, as the URL has
// it) and signature for the document as stored, at time now: nil,
// ErrBadSignature (first: a forged URL is never told it is merely late),
// or ErrExpired.
func (s *Signer) Check(company, doc uuid.UUID, sha256, expires, signature string, now time.Time) error {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	sig, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(sig, s.mac(company, doc, sha256, exp)) {
		return ErrBadSignature
	}
	if now.Unix() > exp {
		return ErrExpired
	}
	return nil
}
