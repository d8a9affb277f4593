package documents

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/store"
)

// Doc is a document row: the description of bytes in the blob store, its
// place among the versions of the same document, and what it is underlag
// of.
type Doc struct {
	CompanyID        uuid.UUID  `db:"company_id"`
	ID               uuid.UUID  `db:"id"`
	FileName         string     `db:"file_name"`
	MimeType         *string    `db:"mime_type"`
	Size             int64      `db:"file_size_bytes"`
	SHA256           string     `db:"sha256_hash"`
	StorageKey       string     `db:"storage_key"`
	Version          int        `db:"version"`
	OriginalID       *uuid.UUID `db:"original_id"`
	SupersededByID   *uuid.UUID `db:"superseded_by_id"`
	Current          bool       `db:"is_current_version"`
	Source           string     `db:"upload_source"`
	EntryID          *uuid.UUID `db:"journal_entry_id"`
	LineID           *uuid.UUID `db:"journal_entry_line_id"`
	InboxItemID      *uuid.UUID `db:"inbox_item_id"`
	DigitizationDate *time.Time `db:"digitization_date"`
	RetentionUntil   *time.Time `db:"retention_until"`
	CreatedAt        time.Time  `db:"created_at"`
	// Linked is derived: the current underlag of a posted verifikat.
	Linked bool `db:"linked"`
}

// docColumns reads a row of documents d with whether it is linked.
const docColumns = `d.company_id, d.id, d.file_name, d.mime_type, d.file_size_bytes, d.sha256_hash, d.storage_key,
	d.version, d.original_id, d.superseded_by_id, d.is_current_version, d.upload_source, d.journal_entry_id,
	d.journal_entry_line_id, d.inbox_item_id, d.digitization_date, d.retention_until, d.created_at,
	documents_linked_until(d) IS NOT NULL AS linked`

// Store holds the SQL of documents.
type Store struct{ db *store.DB }

// NewStore returns the documents store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Insert writes d as a new row (the database stamps its retention when it
// is underlag of a posted verifikat) and answers it as stored, with the
// company's other rows that name the same bytes, in one statement.
func (s *Store) Insert(ctx context.Context, d Doc) (Doc, []uuid.UUID, error) {
	var out struct {
		Doc
		Same pq.StringArray `db:"same"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH d AS (
			INSERT INTO documents (company_id, id, file_name, mime_type, file_size_bytes, sha256_hash, storage_key,
				version, original_id, upload_source, journal_entry_id, journal_entry_line_id, inbox_item_id,
				digitization_date)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING *)
		SELECT `+docColumns+`, ARRAY(SELECT o.id::text FROM documents o
			WHERE o.company_id = $1 AND o.sha256_hash = $6 ORDER BY o.created_at, o.id) AS same FROM d`,
		d.CompanyID, d.ID, d.FileName, d.MimeType, d.Size, d.SHA256, Key(d.CompanyID, d.SHA256), d.Version,
		d.OriginalID, d.Source, d.EntryID, d.LineID, d.InboxItemID, d.DigitizationDate)
	if err != nil {
		return out.Doc, nil, store.Refused(err)
	}
	same := make([]uuid.UUID, 0, len(out.Same))
	for _, id := range out.Same {
		same = append(same, uuid.MustParse(id))
	}
	return out.Doc, same, nil
}

// Supersede marks old as superseded by the version id, which is written
// already; the database keeps its retention at least what its link gave.
func (s *Store) Supersede(ctx context.Context, old Doc, id uuid.UUID) (Doc, error) {
	var out Doc
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH d AS (UPDATE documents SET superseded_by_id = $3, is_current_version = false
			WHERE company_id = $1 AND id = $2 RETURNING *)
		SELECT `+docColumns+` FROM d`, old.CompanyID, old.ID, id)
	return out, store.Refused(err)
}

// Get answers document id of company, locked for the rest of the unit of
// work when forUpdate; DOC_NOT_FOUND when the company has none.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, forUpdate bool) (Doc, error) {
	q := `SELECT ` + docColumns + ` FROM documents d WHERE d.company_id = $1 AND d.id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var d Doc
	err := s.db.Q(ctx).GetContext(ctx, &d, q, company, id)
	if errors.Is(err, sql.ErrNoRows) {
		return d, apierr.New(apierr.DocNotFound, map[string]any{"document_id": id})
	}
	return d, err
}

// Filter selects documents of the list.
type Filter struct {
	// Linked, when set, keeps the linked (true) or the other (false).
	Linked  *bool
	EntryID *uuid.UUID
	// From and To bound the upload's UTC date, both inclusive.
	From, To *time.Time
	// All includes superseded versions; by default only current ones.
	All bool
}

// List answers up to limit+1 documents of company matching f after the
// position after, newest upload first: the extra one says another page
// exists.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Doc, error) {
	var at *time.Time
	var id *uuid.UUID
	if after != nil {
		at, id = &after.At, &after.ID
	}
	var to *time.Time
	if f.To != nil {
		next := f.To.AddDate(0, 0, 1)
		to = &next
	}
	out := []Doc{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT * FROM (SELECT `+docColumns+` FROM documents d
			WHERE d.company_id = $1 AND ($2 OR d.is_current_version)
			  AND ($3::uuid IS NULL OR d.journal_entry_id = $3)
			  AND ($4::timestamptz IS NULL OR d.created_at >= $4)
			  AND ($5::timestamptz IS NULL OR d.created_at < $5)
			  AND ($6::timestamptz IS NULL OR d.created_at < $6 OR (d.created_at = $6 AND d.id > $7))) l
		WHERE $8::boolean IS NULL OR l.linked = $8
		ORDER BY l.created_at DESC, l.id LIMIT $9`,
		company, f.All, f.EntryID, utcDay(f.From), utcDay(to), at, id, f.Linked, limit+1)
	return out, err
}

// utcDay is the start of day d in UTC, or nil.
func utcDay(d *time.Time) *time.Time {
	if d == nil {
		return nil
	}
	t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	return &t
}

// SetLink makes d underlag of entry (and line): the database refuses a
// move of a linked document anywhere but to its verifikat's correction.
func (s *Store) SetLink(ctx context.Context, d Doc, entry uuid.UUID, line *uuid.UUID) (Doc, error) {
	var out Doc
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		WITH d AS (UPDATE documents SET journal_entry_id = $3, journal_entry_line_id = $4
			WHERE company_id = $1 AND id = $2 RETURNING *)
		SELECT `+docColumns+` FROM d`, d.CompanyID, d.ID, entry, line)
	return out, store.Refused(err)
}

// Delete removes d's row; the database refuses it while d is linked or
// under retention.
//
// A record that holds the document (a supplier invoice registered with
// it, an inbox item converted or stamped) keeps it: 409 CONFLICT, reason
// held, naming the table. An inbox item nothing came of goes with it.
func (s *Store) Delete(ctx context.Context, d Doc) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM documents WHERE company_id = $1 AND id = $2`, d.CompanyID, d.ID)
	if err = store.Refused(err); err == nil {
		return nil
	}
	var pe *pq.Error
	if _, coded := apierr.As(err); !coded && errors.As(err, &pe) && (pe.Code == "23503" || pe.Code == "23001") {
		return apierr.New(apierr.Conflict, map[string]any{"reason": "held", "document_id": d.ID, "holder": pe.Table})
	}
	return err
}

// Underlag answers which of ids (journal entries or their lines) current
// documents of company are underlag of: the ledger's seam (ledger.Store.Underlag).
func (s *Store) Underlag(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var held []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &held, `
		SELECT journal_entry_id FROM documents
			WHERE company_id = $1 AND is_current_version AND journal_entry_id = ANY($2)
		UNION SELECT journal_entry_line_id FROM documents
			WHERE company_id = $1 AND is_current_version AND journal_entry_line_id = ANY($2)`, company, pq.Array(ids))
	out := make(map[uuid.UUID]bool, len(held))
	for _, id := range held {
		out[id] = true
	}
	return out, err
}

// Underlying answers the current documents that are underlag of entry,
// locked for the unit of work.
func (s *Store) Underlying(ctx context.Context, company, entry uuid.UUID) ([]Doc, error) {
	out := []Doc{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+docColumns+` FROM documents d
		WHERE d.company_id = $1 AND d.journal_entry_id = $2 AND d.is_current_version ORDER BY d.created_at, d.id FOR UPDATE`,
		company, entry)
	return out, err
}

// HasDocumentSQL is whether the journal entry e has current underlag: the
// ledger's seam (ledger.Store.HasDocument), read in the entry's own query.
const HasDocumentSQL = `EXISTS (SELECT 1 FROM documents d WHERE d.company_id = e.company_id
	AND d.journal_entry_id = e.id AND d.is_current_version)`
