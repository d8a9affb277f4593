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
	return s.sign(company.String(), doc.String(), sha256, strconv.FormatInt(expires.Unix(), 10))
}

// sign is the signature over the URL's parts as text: only the text Sign
// wrote (canonical ids, plain decimal seconds) is signed, so any other
// spelling of the same values is a URL this server never made.
func (s *Signer) sign(company, doc, sha, expires string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(company + "\n" + doc + "\n" + sha + "\n" + expires))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Check verifies a download URL's parts as the URL has them (company and
// document ids, expires in Unix seconds, signature) against the document
// with content hash sha256, at time now: nil, ErrBadSignature (first: a
// forged URL is never told it is merely late), or ErrExpired. The text is
// compared, not what it parses to: an upper-case id, an expires of
// "+1774944000" or "01774944000" and a signature spelled with other
// padding bits are changed URLs, refused as any other change is.
func (s *Signer) Check(company, doc, sha256, expires, signature string, now time.Time) error {
	if !hmac.Equal([]byte(signature), []byte(s.sign(company, doc, sha256, expires))) {
		return ErrBadSignature
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if now.Unix() > exp {
		return ErrExpired
	}
	return nil
}
