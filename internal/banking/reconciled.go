package banking

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Rows returns cash account id's transactions dated through to, in date
// order: the outside side of its reconciliation.
func (s *Store) Rows(ctx context.Context, company, id uuid.UUID, to time.Time) ([]Transaction, error) {
	out := []Transaction{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+txColumns+` FROM bank_transactions
		WHERE company_id = $1 AND cash_account_id = $2 AND date <= $3 ORDER BY date, id`, company, id, store.Day(to))
	return out, err
}

// TxLink is a transaction reconciliation ties to a verifikat it did not
// book: Tx as the caller holds it (FOR UPDATE, Held).
type TxLink struct {
	Tx      Transaction
	EntryID uuid.UUID
	Voucher string
}

// Reconcile records links of unbooked transactions, held by the caller,
// to verifikat already posted (reconciliation's links: nothing is
// booked): each transaction's journal_entry_id and method "linked" in one
// statement, an audit row and a transaction.reconciled event each. A
// transaction booked or ignored since it was held is a CONFLICT.
func (b *Bank) Reconcile(ctx context.Context, company uuid.UUID, links []TxLink) ([]Transaction, error) {
	if len(links) == 0 {
		return nil, nil
	}
	ids, entries := make([]uuid.UUID, len(links)), make([]uuid.UUID, len(links))
	for i, l := range links {
		ids[i], entries[i] = l.Tx.ID, l.EntryID
	}
	// The rows are held: what changes is known, so only the new
	// updated_at comes back.
	var stamps []struct {
		ID        uuid.UUID `db:"id"`
		UpdatedAt time.Time `db:"updated_at"`
	}
	if err := b.store.db.Q(ctx).SelectContext(ctx, &stamps, `UPDATE bank_transactions t
		SET journal_entry_id = l.entry, reconciliation_method = 'linked', updated_at = now()
		FROM unnest($2::uuid[], $3::uuid[]) AS l (id, entry)
		WHERE t.company_id = $1 AND t.id = l.id AND t.journal_entry_id IS NULL AND NOT t.is_ignored
		RETURNING t.id, t.updated_at`, company, pq.Array(ids), pq.Array(entries)); err != nil {
		return nil, err
	}
	if len(stamps) != len(links) {
		return nil, apierr.New(apierr.Conflict, map[string]any{"reason": "transaction_changed",
			"hint": "a transaction was booked, ignored or linked by another request; read the items again"})
	}
	at := make(map[uuid.UUID]time.Time, len(stamps))
	for _, s := range stamps {
		at[s.ID] = s.UpdatedAt
	}
	// Each row changed in the same fields: said, not compared.
	changed := []string{"journal_entry_id", "reconciliation_method", "updated_at"}
	out := make([]Transaction, len(links))
	for i, l := range links {
		t := l.Tx
		entry, method := l.EntryID, "linked"
		t.JournalEntryID, t.ReconciliationMethod, t.UpdatedAt = &entry, &method, at[t.ID]
		out[i] = t
		if err := b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "bank_transactions",
			RecordID: t.ID.String(), Description: "Banktransaktionen stämdes av mot verifikation " + l.Voucher,
			Old: audit.Of(l.Tx), New: audit.Of(t), Fields: changed}); err != nil {
			return nil, err
		}
		if _, err := outbox.Emit(ctx, b.store.db, company, EventReconciled, map[string]any{"transaction": TxDetail(t, nil, nil),
			"journal_entry_id": t.JournalEntryID, "reconciliation_method": "linked"}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Unreconcile releases transaction t (held by the caller) from the
// verifikat reconciliation linked it to; a transaction booked by its own
// verifikat is a CONFLICT: uncategorize it instead.
func (b *Bank) Unreconcile(ctx context.Context, t Transaction) (Transaction, error) {
	if t.ReconciliationMethod == nil || *t.ReconciliationMethod != "linked" {
		return t, apierr.New(apierr.Conflict, map[string]any{"reason": "own_verifikat", "transaction_id": t.ID,
			"journal_entry_id": t.JournalEntryID, "reconciliation_method": t.ReconciliationMethod,
			"hint": "the transaction is booked by its own verifikat; POST /transactions/{id}/uncategorize reverses it"})
	}
	return b.unlink(ctx, t)
}
