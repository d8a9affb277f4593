package documents

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
)

// Archive is the documents' rules over their store: linking, moving with
// a correction, deleting, uploads and versions (versions.go), each audited
// in the unit of work.
type Archive struct {
	store  *Store
	ledger *ledger.Store
	audit  *audit.Store
	blobs  Blobs
	now    func() time.Time
	log    func(error)
	// InboxLinked is the inbox told that the document of item is being
	// linked to entry (LinkTo.InboxItemID): it refuses an item of another
	// document or one already taken, and marks it stamped. Nil: there is
	// no inbox (INBOX_ITEM_NOT_FOUND).
	InboxLinked func(ctx context.Context, company, item, doc, entry uuid.UUID) error
}

// NewArchive returns the archive on s, attaching underlag to the entries
// of l, auditing to a, keeping bytes in b, with the clock now; log hears
// what fails after a commit.
func NewArchive(s *Store, l *ledger.Store, a *audit.Store, b Blobs, now func() time.Time, log func(error)) *Archive {
	return &Archive{store: s, ledger: l, audit: a, blobs: b, now: now, log: log}
}

// Delete removes document id of company when nothing holds it: a linked
// document (underlag of a posted verifikat) is 409 CONFLICT, reason
// linked, with its holder, and a DOCUMENT_DELETE_BLOCKED audit row; one
// still under retention (a superseded version of underlag) is 409
// CONFLICT, reason retention, and a RETENTION_BLOCK audit row. Both rows
// outlive the refusal's rollback (audit.RecordKept). The database refuses
// the same deletions itself. Once the deletion commits the blob goes too,
// unless another row names the same bytes.
func (a *Archive) Delete(ctx context.Context, company, id uuid.UUID) (Doc, error) {
	d, err := a.store.Get(ctx, company, id, true)
	if err != nil {
		return d, err
	}
	var refusal *apierr.Error
	var action audit.Action
	switch {
	case d.Linked:
		action = audit.DocumentDeleteBlocked
		refusal = apierr.New(apierr.Conflict, map[string]any{"reason": "linked", "document_id": d.ID,
			"holder": map[string]any{"type": "journal_entry", "id": d.EntryID}})
	case Kept(d.RetentionUntil, ledger.Today(a.now())):
		action = audit.RetentionBlock
		refusal = apierr.New(apierr.Conflict, map[string]any{"reason": "retention", "document_id": d.ID,
			"retention_until": d.RetentionUntil.Format(time.DateOnly)})
	}
	if refusal != nil {
		if err := a.audit.RecordKept(ctx, audit.Change{CompanyID: company, Action: action, Table: "documents",
			RecordID: d.ID.String(), Description: "Underlaget " + d.FileName + " raderades inte: " +
				refusal.Details["reason"].(string)}); err != nil {
			return d, err
		}
		return d, refusal
	}
	if err := a.store.Delete(ctx, d); err != nil {
		return d, err
	}
	a.afterDelete(ctx, d)
	return d, a.record(ctx, audit.Delete, "Underlaget "+d.FileName+" raderades", d, &d, nil)
}

// LinkTo is where a document is to be linked: an entry and optionally one
// of its lines, or an inbox item.
type LinkTo struct {
	EntryID     uuid.UUID
	LineID      *uuid.UUID
	InboxItemID *uuid.UUID
}

// Link makes document id of company underlag of to.EntryID after the
// linking rule (Attachable); linking it to the entry it is underlag of
// already is a no-op. A no-document-required mark on the entry goes, as
// the entry now has its underlag.
func (a *Archive) Link(ctx context.Context, company, id uuid.UUID, to LinkTo) (Doc, error) {
	if to.InboxItemID != nil {
		if a.InboxLinked == nil {
			return Doc{}, apierr.New(apierr.InboxItemNotFound, map[string]any{"inbox_item_id": *to.InboxItemID,
				"field": "inbox_item_id"})
		}
		if err := a.InboxLinked(ctx, company, *to.InboxItemID, id, to.EntryID); err != nil {
			return Doc{}, err
		}
	}
	// The entry first, then the document: the order a correction locks
	// them in when it moves underlag.
	u, err := a.ledger.ForUnderlag(ctx, company, to.EntryID)
	if err != nil {
		return Doc{}, err
	}
	d, err := a.store.Get(ctx, company, id, true)
	if err != nil {
		return d, err
	}
	if to.LineID != nil && !slices.ContainsFunc(u.Entry.Lines, func(l ledger.Line) bool { return l.ID == *to.LineID }) {
		return d, apierr.Field("journal_entry_line_id", "line", "must be a current line of the entry")
	}
	e := u.Entry
	unchanged, err := Attachable(Link{DocumentID: d.ID, Current: d.Current, Holder: d.EntryID, HolderPosted: d.Linked,
		EntryID: e.ID, EntryStatus: e.Status, EntryDate: e.Date, EntrySource: e.SourceType, Period: u.Period,
		LockedThrough: u.LockedThrough})
	if err != nil {
		return d, err
	}
	if unchanged && (to.LineID == nil || (d.LineID != nil && *d.LineID == *to.LineID)) {
		return d, nil
	}
	if unchanged && d.Linked {
		return d, apierr.New(apierr.Conflict, map[string]any{"reason": "linked", "document_id": d.ID,
			"journal_entry_id": e.ID, "field": "journal_entry_line_id"})
	}
	linked, err := a.store.SetLink(ctx, d, e.ID, to.LineID)
	if err != nil {
		return d, err
	}
	if err := a.record(ctx, audit.Update, "Underlaget "+d.FileName+" kopplades till verifikation "+voucherOf(e), d, &d, &linked); err != nil {
		return d, err
	}
	if e.NoDocumentRequired {
		if err := a.ledger.ClearNoDocument(ctx, company, e); err != nil {
			return d, err
		}
	}
	return linked, nil
}

// MoveUnderlag moves the current underlag of entry from to its
// correction to, each line link to lines[line] (none where it has none),
// audited, and answers how many documents moved: the ledger's seam for
// correct and redate. The database allows this one move of a linked
// document.
func (a *Archive) MoveUnderlag(ctx context.Context, company, from, to uuid.UUID, lines map[uuid.UUID]uuid.UUID) (int, error) {
	docs, err := a.store.Underlying(ctx, company, from)
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		var line *uuid.UUID
		if d.LineID != nil {
			if id, ok := lines[*d.LineID]; ok {
				line = &id
			}
		}
		moved, err := a.store.SetLink(ctx, d, to, line)
		if err != nil {
			return 0, err
		}
		if err := a.record(ctx, audit.Update, "Underlaget "+d.FileName+" följde rättelsen av verifikationen", d, &d, &moved); err != nil {
			return 0, err
		}
	}
	return len(docs), nil
}

func voucherOf(e ledger.Entry) string {
	if v := e.Voucher(); v != "" {
		return v
	}
	return "(utkast " + e.ID.String() + ")"
}

// record writes the audit row of a change to document d: its detail as
// it was (old) and as it is (new), either nil.
func (a *Archive) record(ctx context.Context, action audit.Action, desc string, d Doc, old, new *Doc) error {
	return a.audit.Record(ctx, audit.Change{CompanyID: d.CompanyID, Action: action, Table: "documents",
		RecordID: d.ID.String(), Description: desc, Old: snapshot(old), New: snapshot(new)})
}

func snapshot(d *Doc) json.RawMessage {
	if d == nil {
		return nil
	}
	b, _ := json.Marshal(Detail(*d))
	return b
}
