package payables

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
)

// Replaced is the ledger telling payables that verifikat orig was
// replaced by e (a rättelse or a redate), in e's unit of work: the
// invoice or credit note orig registered names e as its registration from
// now on, so a later credit, uncredit or storno finds the verifikat that
// stands.
func (p *Payables) Replaced(ctx context.Context, company uuid.UUID, orig, e ledger.Entry) error {
	return p.store.Repoint(ctx, company, orig.ID, e.ID)
}

// Repoint moves the invoices registered by verifikat from onto its
// replacement to; the database lets an invoice's verifikat move to its
// replacement only.
func (s *Store) Repoint(ctx context.Context, company, from, to uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE supplier_invoices SET registration_journal_entry_id = $3
		WHERE company_id = $1 AND registration_journal_entry_id = $2`, company, from, to)
	return err
}
