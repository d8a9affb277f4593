package company

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/pdf"
)

// Letterhead is what the company's documents print of it: the settings
// read model with the organisation number in full (a sole trader's
// invoice carries it), and the logo, nil when none is uploaded.
type Letterhead struct {
	Settings Settings
	Logo     []byte
}

// Letterhead reads the company's letterhead in one statement.
func (s *Store) Letterhead(ctx context.Context, company uuid.UUID) (Letterhead, error) {
	var row struct {
		Raw  string `db:"settings"`
		Logo []byte `db:"logo"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &row, `
		SELECT (to_jsonb(s) - 'updated_at') || jsonb_build_object('company_id', c.id, 'entity_type', c.entity_type,
				'org_number', c.org_number, 'company_name', c.name) AS settings,
			(SELECT l.bytes FROM company_logos l WHERE l.company_id = c.id) AS logo
		FROM company_settings s JOIN companies c ON c.id = s.company_id WHERE s.company_id = $1`, company)
	if err != nil {
		return Letterhead{}, err
	}
	set, err := DecodeSettings([]byte(row.Raw))
	return Letterhead{Settings: set, Logo: row.Logo}, err
}

// Logo describes the company's uploaded logo.
type Logo struct {
	MimeType  string    `db:"mime_type" json:"mime_type"`
	Size      int       `db:"size_bytes" json:"size_bytes"`
	SHA256    string    `db:"sha256" json:"sha256"`
	Width     int       `db:"width" json:"width"`
	Height    int       `db:"height" json:"height"`
	UpdatedAt time.Time `db:"updated_at" json:"updated_at"`
}

// MaxLogoBytes is the largest logo kept: a logo is read with every render.
const MaxLogoBytes = 512 * 1024

// CheckLogo reads what b is by its content, whatever the request said:
// a PNG or JPEG of at most MaxLogoBytes, with its pixel size.
func CheckLogo(b []byte) (Logo, error) {
	if len(b) == 0 {
		return Logo{}, apierr.Field("body", "required", "send the logo's bytes as the request body")
	}
	if len(b) > MaxLogoBytes {
		return Logo{}, apierr.Field("body", "max_size", fmt.Sprintf("a logo is at most %d bytes (512 KB); this is %d", MaxLogoBytes, len(b)))
	}
	w, h, format, err := pdf.ImageSize(b)
	if err != nil {
		return Logo{}, apierr.Field("body", "image", "a logo is a PNG or JPEG image")
	}
	sum := sha256.Sum256(b)
	return Logo{MimeType: "image/" + format, Size: len(b), SHA256: hex.EncodeToString(sum[:]), Width: w, Height: h}, nil
}

// SetLogo keeps b as the company's logo, audited, and answers it.
func (s *Store) SetLogo(ctx context.Context, company uuid.UUID, l Logo, b []byte) (Logo, error) {
	var out struct {
		Logo
		Old *string `db:"old"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH prev AS (SELECT sha256 FROM company_logos WHERE company_id = $1)
		INSERT INTO company_logos AS l (company_id, mime_type, bytes, sha256, width, height)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (company_id) DO UPDATE SET mime_type = $2, bytes = $3, sha256 = $4, width = $5, height = $6,
			updated_at = now()
		RETURNING l.mime_type, octet_length(l.bytes) AS size_bytes, l.sha256, l.width, l.height, l.updated_at,
			(SELECT sha256 FROM prev) AS old`, company, l.MimeType, b, l.SHA256, l.Width, l.Height)
	if err != nil {
		return Logo{}, err
	}
	snap, _ := json.Marshal(out.Logo)
	var old json.RawMessage
	if out.Old != nil {
		old, _ = json.Marshal(map[string]string{"sha256": *out.Old})
	}
	return out.Logo, s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "company_logos",
		RecordID: company.String(), Description: "Logotypen för fakturor laddades upp", Old: old, New: snap})
}

// DeleteLogo removes the company's logo, audited; false when it had none.
func (s *Store) DeleteLogo(ctx context.Context, company uuid.UUID) (bool, error) {
	var old []byte
	err := s.db.Q(ctx).GetContext(ctx, &old, `DELETE FROM company_logos l WHERE company_id = $1
		RETURNING jsonb_build_object('mime_type', l.mime_type, 'sha256', l.sha256, 'width', l.width, 'height', l.height)`, company)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Delete, Table: "company_logos",
		RecordID: company.String(), Description: "Logotypen för fakturor togs bort", Old: old})
}
