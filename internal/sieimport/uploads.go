package sieimport

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/store"
)

// UploadLife is how long a signed upload, and the storage path it
// names, may be used.
const UploadLife = 2 * time.Hour

// Upload is a signed upload: a file of Size bytes the holder of its token
// may PUT once, until ExpiresAt.
type Upload struct {
	CompanyID  uuid.UUID  `db:"company_id"`
	ID         uuid.UUID  `db:"id"`
	Filename   string     `db:"filename"`
	Size       int64      `db:"size"`
	ExpiresAt  time.Time  `db:"expires_at"`
	SHA256     *string    `db:"sha256"`
	UploadedAt *time.Time `db:"uploaded_at"`
}

// StoragePath is how POST imports/sie names the upload's file.
func (u Upload) StoragePath() string { return "uploads/sie/" + u.ID.String() }

// uploadID reads a storage path back.
func uploadID(path string) (uuid.UUID, bool) {
	id, err := uuid.Parse(strings.TrimPrefix(path, "uploads/sie/"))
	return id, err == nil && strings.HasPrefix(path, "uploads/sie/")
}

// Signer signs and checks upload tokens: a JWT (HS256, under a key
// derived from KONTERA_SECRET) naming the company, the upload, its size
// and its expiry. The token is the PUT's only credential.
type Signer struct {
	key []byte
}

// NewSigner derives the upload key from secret.
func NewSigner(secret []byte) (*Signer, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, "kontera sie upload v1", 32)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key}, nil
}

type uploadClaims struct {
	Company string `json:"company"`
	Upload  string `json:"upload"`
	Size    int64  `json:"size"`
	jwt.RegisteredClaims
}

// Sign answers the token of u.
func (s *Signer) Sign(u Upload) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, uploadClaims{Company: u.CompanyID.String(), Upload: u.ID.String(),
		Size: u.Size, RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(u.ExpiresAt)}}).SignedString(s.key)
}

// Check reads a token at time now: the company, upload and size it
// grants, or SIE_UPLOAD_TOKEN_INVALID (reason invalid or expired).
func (s *Signer) Check(token string, now time.Time) (company, upload uuid.UUID, size int64, err error) {
	var c uploadClaims
	_, perr := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithExpirationRequired(), jwt.WithStrictDecoding()) // a token spelled otherwise is not the one signed
	if errors.Is(perr, jwt.ErrTokenExpired) {
		return company, upload, 0, apierr.New(apierr.SIEUploadTokenInvalid, map[string]any{"reason": "expired"})
	}
	company, err1 := uuid.Parse(c.Company)
	upload, err2 := uuid.Parse(c.Upload)
	if perr != nil || err1 != nil || err2 != nil || c.Size <= 0 {
		return company, upload, 0, apierr.New(apierr.SIEUploadTokenInvalid, map[string]any{"reason": "invalid"})
	}
	return company, upload, c.Size, nil
}

// Uploads holds the SQL of sie_uploads.
type Uploads struct {
	db    *store.DB
	files *Files
}

const uploadColumns = `company_id, id, filename, size, expires_at, sha256, uploaded_at`

// Create records a new upload of company.
func (s *Uploads) Create(ctx context.Context, company uuid.UUID, filename string, size int64, now time.Time) (Upload, error) {
	var u Upload
	err := s.db.Q(ctx).GetContext(ctx, &u, `INSERT INTO sie_uploads (company_id, filename, size, expires_at)
		VALUES ($1, $2, $3, $4) RETURNING `+uploadColumns, company, filename, size, now.Add(UploadLife))
	return u, err
}

// get reads company's upload id, locked for the unit of work when lock.
func (s *Uploads) get(ctx context.Context, company, id uuid.UUID, lock bool) (Upload, bool, error) {
	var u Upload
	q := `SELECT ` + uploadColumns + ` FROM sie_uploads WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := s.db.Q(ctx).GetContext(ctx, &u, q, company, id)
	if store.NotFound(err) {
		return u, false, nil
	}
	return u, err == nil, err
}

// SpoolUpload reads the bytes of an upload of size from r: exactly its
// size (PAYLOAD_TOO_LARGE past it, SIE_UPLOAD_SIZE_MISMATCH short of it).
// The caller removes the file.
func SpoolUpload(r io.Reader, size int64) (*os.File, File, error) {
	tmp, f, err := Spool(r, size)
	if err != nil {
		return nil, f, err
	}
	if f.Size != size {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, f, apierr.New(apierr.SIEUploadSizeMismatch, map[string]any{"expected_bytes": size, "received_bytes": f.Size})
	}
	return tmp, f, nil
}

// Receive keeps the spooled bytes f (read from r) of upload id of
// company, once (SIE_UPLOAD_ALREADY_RECEIVED after).
func (s *Uploads) Receive(ctx context.Context, company, id uuid.UUID, f File, r io.Reader) (Upload, error) {
	u, ok, err := s.get(ctx, company, id, true)
	if err != nil {
		return u, err
	}
	if !ok {
		return u, apierr.New(apierr.SIEUploadTokenInvalid, map[string]any{"reason": "invalid"})
	}
	if u.UploadedAt != nil {
		return u, apierr.New(apierr.SIEUploadAlreadyReceived, map[string]any{"storage_path": u.StoragePath(),
			"uploaded_at": u.UploadedAt})
	}
	if err := s.files.Put(ctx, company, f, r); err != nil {
		return u, err
	}
	err = s.db.Q(ctx).GetContext(ctx, &u, `UPDATE sie_uploads SET sha256 = $3, uploaded_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+uploadColumns, company, id, f.SHA256)
	return u, err
}

// Stored finds the file a storage path names for company at time now:
// SIE_UPLOAD_INVALID when the path is unknown, another company's,
// expired or not uploaded yet.
func (s *Uploads) Stored(ctx context.Context, company uuid.UUID, path string, now time.Time) (Upload, File, error) {
	bad := func(reason string) (Upload, File, error) {
		return Upload{}, File{}, apierr.New(apierr.SIEUploadInvalid, map[string]any{"field": "storagePath",
			"reason": reason, "storagePath": path})
	}
	id, ok := uploadID(path)
	if !ok {
		return bad("unknown")
	}
	u, ok, err := s.get(ctx, company, id, false)
	switch {
	case err != nil:
		return u, File{}, err
	case !ok:
		return bad("unknown")
	case now.After(u.ExpiresAt):
		return bad("expired")
	case u.SHA256 == nil:
		return bad("not_uploaded")
	}
	return u, File{SHA256: *u.SHA256, Size: u.Size}, nil
}
