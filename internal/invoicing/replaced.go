package invoicing

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
)

// Replaced is the ledger telling invoicing that verifikat orig was
// replaced by e (a rättelse or a redate), in e's unit of work: the
// invoice whose sale orig booked names e as its verifikat from now on.
func (s *Sales) Replaced(ctx context.Context, company uuid.UUID, orig, e ledger.Entry) error {
	return s.store.Repoint(ctx, company, orig.ID, e.ID)
}

// Repoint moves the invoices booked by verifikat from onto its
// replacement to; the database lets an invoice's verifikat move to its
// replacement only.
func (s *Store) Repoint(ctx context.Context, company, from, to uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE invoices SET journal_entry_id = $3
		WHERE company_id = $1 AND journal_entry_id = $2`, company, from, to)
	return err
}
