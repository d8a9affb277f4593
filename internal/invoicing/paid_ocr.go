package invoicing

import (
	"context"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// OCRsPaidBy answers, for each of entries that books a payment of an
// invoice, the OCR references of the invoices it pays: what a bank row's
// reference is matched against.
func (s *Store) OCRsPaidBy(ctx context.Context, company uuid.UUID, entries []uuid.UUID) (map[uuid.UUID][]string, error) {
	var rows []struct {
		Entry uuid.UUID `db:"journal_entry_id"`
		OCR   string    `db:"ocr_reference"`
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT DISTINCT p.journal_entry_id, i.ocr_reference
		FROM invoice_payments p JOIN invoices i ON i.company_id = p.company_id AND i.id = p.invoice_id
		WHERE p.company_id = $1 AND p.journal_entry_id = ANY($2) AND i.ocr_reference IS NOT NULL`,
		company, pq.Array(entries)); err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]string{}
	for _, r := range rows {
		out[r.Entry] = append(out[r.Entry], r.OCR)
	}
	return out, nil
}
