package banking

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
)

// Pinned is a transaction's document after an attach or detach, and the
// one it had before.
type Pinned struct {
	Transaction Transaction
	Previous    *uuid.UUID
}

// Attach pins document doc to transaction id as its underlag: on a
// booked transaction it becomes underlag of the verifikat by the archive's
// linking rule (DOC_ATTACH_OTHER_VERIFIKAT, DOC_ATTACH_PERIOD_LOCKED); on
// an unbooked one it waits, and the verifikat that books it takes it. The
// underlag of a posted booking is never replaced (DOC_ATTACH_REPLACES_POSTED).
func (b *Bank) Attach(ctx context.Context, company, id, doc uuid.UUID) (Pinned, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Pinned{}, err
	}
	if err := b.books.Document(ctx, company, doc); err != nil {
		return Pinned{}, err
	}
	out := Pinned{Previous: t.DocumentID}
	if t.DocumentID != nil && *t.DocumentID == doc {
		out.Transaction = t
		return out, nil
	}
	if t.Booked() {
		if t.DocumentID != nil {
			return Pinned{}, apierr.New(apierr.DocAttachReplacesPosted, map[string]any{"transaction_id": id,
				"document_id": *t.DocumentID, "journal_entry_id": *t.JournalEntryID})
		}
		if err := b.books.Link(ctx, company, doc, *t.JournalEntryID); err != nil {
			return Pinned{}, err
		}
	}
	old := t
	t.DocumentID = &doc
	if t, err = b.store.Save(ctx, t); err != nil {
		return Pinned{}, err
	}
	out.Transaction = t
	return out, b.recordTx(ctx, audit.Update, &old, &t, "Ett underlag knöts till banktransaktionen")
}

// Detach unpins the document of unbooked transaction id; a booked
// transaction's underlag stays with its verifikat (409 CONFLICT).
func (b *Bank) Detach(ctx context.Context, company, id uuid.UUID) (Pinned, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Pinned{}, err
	}
	if t.Booked() {
		return Pinned{}, apierr.New(apierr.Conflict, map[string]any{"reason": "transaction_booked", "transaction_id": id,
			"journal_entry_id": t.JournalEntryID, "hint": "the underlag of a verifikat stays; uncategorize first"})
	}
	out := Pinned{Previous: t.DocumentID, Transaction: t}
	if t.DocumentID == nil {
		return out, nil
	}
	old := t
	t.DocumentID = nil
	if out.Transaction, err = b.store.Save(ctx, t); err != nil {
		return out, err
	}
	return out, b.recordTx(ctx, audit.Update, &old, &out.Transaction, "Underlaget togs bort från banktransaktionen")
}

// linkPinned makes the document pinned to t underlag of the verifikat
// that just booked it; the archive's refusal is answered, not raised: the
// booking stands and the document waits to be linked by hand.
func (b *Bank) linkPinned(ctx context.Context, company uuid.UUID, t Transaction, entry uuid.UUID) (*apierr.Error, error) {
	if t.DocumentID == nil {
		return nil, nil
	}
	err := b.store.db.Attempt(ctx, func(ctx context.Context) error {
		return b.books.Link(ctx, company, *t.DocumentID, entry)
	})
	if e, ok := apierr.As(err); ok {
		return e, nil
	}
	return nil, err
}
