package ledger

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/envelope"
)

// MaxBulkMarks is how many entries one bulk no-document-required call
// may mark.
const MaxBulkMarks = 500

// SetNotes sets, replaces or (nil or blank) clears the internal note of
// entry id. A note is not bookkeeping: it may change on a posted entry,
// but not on a cancelled one.
func (s *Store) SetNotes(ctx context.Context, company, id uuid.UUID, notes *string) (Entry, error) {
	notes = envelope.Text(notes)
	if notes != nil && len([]rune(*notes)) > maxNotes {
		return Entry{}, apierr.Field("notes", "length", fmt.Sprintf("must be at most %d characters", maxNotes))
	}
	old, err := s.get(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if old.Status == Cancelled {
		return old, apierr.New(apierr.JournalEntryNoteFailed, map[string]any{"reason": "cancelled",
			"journal_entry_id": id})
	}
	e := old
	if err := s.db.Q(ctx).QueryRowxContext(ctx, `UPDATE journal_entries SET notes = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING notes, updated_at`, company, id, notes).
		Scan(&e.Notes, &e.UpdatedAt); err != nil {
		return old, dbError(err)
	}
	return e, s.record(ctx, company, audit.Update, "Anteckning på verifikation ändrades", &old, &e)
}

// MarkNoDocument marks the posted entry id as needing no underlag, with
// an optional reason; marking again replaces the reason.
func (s *Store) MarkNoDocument(ctx context.Context, company, id uuid.UUID, reason *string) (Entry, error) {
	reason = envelope.Text(reason)
	if reason != nil && len([]rune(*reason)) > maxDescription {
		return Entry{}, apierr.Field("reason", "length", fmt.Sprintf("must be at most %d characters", maxDescription))
	}
	old, err := s.get(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if old.Status != Posted {
		return old, apierr.New(apierr.JournalEntryNotPosted, map[string]any{"journal_entry_id": id,
			"current_status": old.Status})
	}
	has, err := s.underlagOf(ctx, company, []uuid.UUID{id})
	if err != nil {
		return old, err
	}
	if has[id] {
		return old, apierr.New(apierr.Conflict, map[string]any{"reason": "has_document", "journal_entry_id": id})
	}
	return s.setNoDocument(ctx, company, old, true, reason)
}

// UnmarkNoDocument removes the mark from entry id; removed is false when
// it had none.
func (s *Store) UnmarkNoDocument(ctx context.Context, company, id uuid.UUID) (e Entry, removed bool, err error) {
	old, err := s.get(ctx, company, id, true)
	if err != nil || !old.NoDocumentRequired {
		return old, false, err
	}
	e, err = s.setNoDocument(ctx, company, old, false, nil)
	return e, err == nil, err
}

// ClearNoDocument takes the no-document-required mark off e, an entry the
// unit of work has read and locked, audited: underlag came for it.
func (s *Store) ClearNoDocument(ctx context.Context, company uuid.UUID, e Entry) error {
	_, err := s.setNoDocument(ctx, company, e, false, nil)
	return err
}

func (s *Store) setNoDocument(ctx context.Context, company uuid.UUID, old Entry, mark bool, reason *string) (Entry, error) {
	e := old
	if err := s.db.Q(ctx).QueryRowxContext(ctx, `UPDATE journal_entries SET no_document_required = $3,
			no_document_reason = $4, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING no_document_required, no_document_reason, updated_at`,
		company, old.ID, mark, reason).Scan(&e.NoDocumentRequired, &e.NoDocumentReason, &e.UpdatedAt); err != nil {
		return old, dbError(err)
	}
	desc := "Verifikation " + old.Voucher() + " markerades som utan underlag"
	if !mark {
		desc = "Markeringen utan underlag togs bort från verifikation " + old.Voucher()
	}
	return e, s.record(ctx, company, audit.Update, desc, &old, &e)
}

// BulkMark is what a bulk no-document-required call did.
type BulkMark struct {
	Exempted []uuid.UUID
	Skipped  []uuid.UUID
}

// MarkManyNoDocument marks each of ids that is a posted, unreversed
// entry of the company, in a year not closed, whose kind can have an
// underlag; the rest are skipped. Entries already marked keep their reason and count as
// exempted.
func (s *Store) MarkManyNoDocument(ctx context.Context, company uuid.UUID, ids []uuid.UUID, reason *string) (BulkMark, error) {
	reason = envelope.Text(reason)
	if reason != nil && len([]rune(*reason)) > maxDescription {
		return BulkMark{}, apierr.Field("reason", "length", fmt.Sprintf("must be at most %d characters", maxDescription))
	}
	var eligible []Entry
	if err := s.db.Q(ctx).SelectContext(ctx, &eligible, `SELECT `+entryColumns+` FROM journal_entries
		WHERE company_id = $1 AND id = ANY($2) AND status = 'posted' AND reversed_by_id IS NULL
		  AND NOT (source_type = ANY($3)) ORDER BY id FOR UPDATE`,
		company, pq.Array(ids), pq.Array(sortedKeys(needsNoDocument))); err != nil {
		return BulkMark{}, err
	}
	periods, err := s.periods.List(ctx, company)
	if err != nil {
		return BulkMark{}, err
	}
	closed := map[uuid.UUID]bool{}
	for _, p := range periods {
		closed[p.ID] = p.Closed
	}
	candidates := make([]uuid.UUID, len(eligible))
	for i, e := range eligible {
		candidates[i] = e.ID
	}
	has, err := s.underlagOf(ctx, company, candidates)
	if err != nil {
		return BulkMark{}, err
	}
	ok := map[uuid.UUID]bool{}
	out := BulkMark{Exempted: []uuid.UUID{}, Skipped: []uuid.UUID{}}
	for _, e := range eligible {
		if closed[e.PeriodID] || has[e.ID] {
			continue // a closed year's entries stay as they were closed; one with underlag needs no mark
		}
		ok[e.ID] = true
		if !e.NoDocumentRequired {
			if _, err := s.setNoDocument(ctx, company, e, true, reason); err != nil {
				return out, err
			}
		}
	}
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if ok[id] {
			out.Exempted = append(out.Exempted, id)
		} else {
			out.Skipped = append(out.Skipped, id)
		}
	}
	return out, nil
}
