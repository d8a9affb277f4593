package invoicing

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/store"
)

// ArchiveJob is a row of invoice_archive waiting to be archived.
type ArchiveJob struct {
	CompanyID uuid.UUID `db:"company_id"`
	InvoiceID uuid.UUID `db:"invoice_id"`
	Kind      string    `db:"kind"`
	Attempts  int       `db:"attempts"`
}

// queueArchive is the statement MarkSent runs with its update: the
// issued invoice's PDF joins the archive queue in the same transaction,
// so a committed issue is always archived and a rolled back one never.
const queueArchive = `WITH queued AS (INSERT INTO invoice_archive (company_id, invoice_id, kind)
		VALUES ($1, $2, 'pdf') ON CONFLICT DO NOTHING) `

// ClaimArchive takes the oldest archive job that is due, locked for the
// transaction of ctx; others' workers skip it. nil when none is due.
func (s *Store) ClaimArchive(ctx context.Context) (*ArchiveJob, error) {
	return s.claimArchive(ctx, `SELECT company_id, invoice_id, kind, attempts FROM invoice_archive
		WHERE document_id IS NULL AND run_after <= now() ORDER BY run_after LIMIT 1 FOR UPDATE SKIP LOCKED`)
}

// ClaimArchiveOf takes the archive job of one invoice while it is not
// archived, waiting for a worker that has it; nil when there is none to do.
func (s *Store) ClaimArchiveOf(ctx context.Context, company, invoice uuid.UUID) (*ArchiveJob, error) {
	return s.claimArchive(ctx, `SELECT company_id, invoice_id, kind, attempts FROM invoice_archive
		WHERE company_id = $1 AND invoice_id = $2 AND kind = 'pdf' AND document_id IS NULL FOR UPDATE`, company, invoice)
}

func (s *Store) claimArchive(ctx context.Context, q string, args ...any) (*ArchiveJob, error) {
	var j ArchiveJob
	err := s.db.Q(ctx).GetContext(ctx, &j, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &j, err
}

// Archived names the document a job archived.
func (s *Store) Archived(ctx context.Context, j ArchiveJob, doc uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoice_archive SET document_id = $4, archived_at = now(),
			attempts = attempts + 1, last_error = NULL
		WHERE company_id = $1 AND invoice_id = $2 AND kind = $3`, j.CompanyID, j.InvoiceID, j.Kind, doc)
	return store.Refused(err)
}

// ArchiveFailed records a failed attempt and when to try again.
func (s *Store) ArchiveFailed(ctx context.Context, j ArchiveJob, cause string, again time.Duration) error {
	if len(cause) > 1000 {
		cause = cause[:1000]
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoice_archive SET attempts = attempts + 1, last_error = $4,
			run_after = now() + $5 * interval '1 second'
		WHERE company_id = $1 AND invoice_id = $2 AND kind = $3 AND document_id IS NULL`,
		j.CompanyID, j.InvoiceID, j.Kind, cause, int64(again/time.Second))
	return err
}

// ArchivedDocument answers the document an invoice's PDF was archived as,
// nil while it is not (yet).
func (s *Store) ArchivedDocument(ctx context.Context, company, invoice uuid.UUID) (*uuid.UUID, error) {
	var id *uuid.UUID
	err := s.db.Q(ctx).GetContext(ctx, &id, `SELECT document_id FROM invoice_archive
		WHERE company_id = $1 AND invoice_id = $2 AND kind = 'pdf'`, company, invoice)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return id, err
}

// FirstEntry answers the first verifikat of an invoice: its sale's, else
// its first payment's (kontantmetoden, deferred booking); nil when the
// ledger has none yet.
func (s *Store) FirstEntry(ctx context.Context, company, invoice uuid.UUID) (*uuid.UUID, error) {
	var id *uuid.UUID
	err := s.db.Q(ctx).GetContext(ctx, &id, `SELECT coalesce(i.journal_entry_id, (SELECT p.journal_entry_id
			FROM invoice_payments p WHERE p.company_id = i.company_id AND p.invoice_id = i.id
				AND p.journal_entry_id IS NOT NULL ORDER BY p.created_at, p.id LIMIT 1))
		FROM invoices i WHERE i.company_id = $1 AND i.id = $2`, company, invoice)
	return id, err
}

// Held answers an invoice's archived documents (its PDF, its e-invoices)
// no verifikat holds yet whose invoice has one now: the invoice held
// them until its first verifikat (kontantmetoden, deferred booking). At
// most limit, locked; others' workers skip them.
func (s *Store) Held(ctx context.Context, limit int) ([]HeldDocument, error) {
	var out []HeldDocument
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT a.company_id, a.invoice_id, a.document_id, e.id AS entry_id
		FROM (SELECT company_id, invoice_id, document_id, archived_at AS at FROM invoice_archive
				WHERE document_id IS NOT NULL
			UNION ALL SELECT company_id, invoice_id, document_id, created_at FROM peppol_deliveries) a
		JOIN documents d ON d.company_id = a.company_id AND d.id = a.document_id
		JOIN invoices i ON i.company_id = a.company_id AND i.id = a.invoice_id
		CROSS JOIN LATERAL (SELECT coalesce(i.journal_entry_id, (SELECT p.journal_entry_id FROM invoice_payments p
			WHERE p.company_id = i.company_id AND p.invoice_id = i.id AND p.journal_entry_id IS NOT NULL
			ORDER BY p.created_at, p.id LIMIT 1)) AS id) e
		WHERE d.journal_entry_id IS NULL AND d.is_current_version AND e.id IS NOT NULL
			AND i.status IN ('sent', 'paid', 'credited')
		ORDER BY a.at LIMIT $1 FOR UPDATE OF d SKIP LOCKED`, limit)
	return out, err
}

// HeldDocument is an archived PDF to be linked to its invoice's first
// verifikat.
type HeldDocument struct {
	CompanyID  uuid.UUID `db:"company_id"`
	InvoiceID  uuid.UUID `db:"invoice_id"`
	DocumentID uuid.UUID `db:"document_id"`
	EntryID    uuid.UUID `db:"entry_id"`
}
