package documents

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
)

// Link is a proposed link of a document to a verifikat, with what the
// linking rule must know of both. The inbox, supplier invoices and bank
// transactions attach underlag through the same rule.
type Link struct {
	DocumentID uuid.UUID
	// Current is false for a version another has superseded.
	Current bool
	// Holder is the entry the document is underlag of now, if any, and
	// whether that entry is posted.
	Holder       *uuid.UUID
	HolderPosted bool

	// The entry to link to, its period and the company's lock date.
	EntryID       uuid.UUID
	EntryStatus   ledger.Status
	EntryDate     time.Time
	EntrySource   string
	Period        fiscal.Period
	LockedThrough *time.Time

	// ReplacesPosted is true when the link would replace the underlag of a
	// posted bank transaction.
	ReplacesPosted bool
}

// Attachable applies the linking rule to l: nil when the link may be made,
// unchanged reporting that the document is already underlag of that
// entry (a no-op). Refusals: a superseded version (CONFLICT, superseded);
// a cancelled entry (CONFLICT, entry_cancelled); underlag of another
// posted verifikat (DOC_ATTACH_OTHER_VERIFIKAT; a draft's underlag may
// move); the entry's period closed or locked, or its date on or before the
// lock date (DOC_ATTACH_PERIOD_LOCKED); a posted transaction's underlag
// replaced (DOC_ATTACH_REPLACES_POSTED).
func Attachable(l Link) (unchanged bool, err error) {
	switch {
	case !l.Current:
		return false, apierr.New(apierr.Conflict, map[string]any{"reason": "superseded",
			"document_id": l.DocumentID, "field": "document_id"})
	case l.EntryStatus == ledger.Cancelled:
		return false, apierr.New(apierr.Conflict, map[string]any{"reason": "entry_cancelled",
			"journal_entry_id": l.EntryID, "field": "journal_entry_id"})
	case l.Holder != nil && *l.Holder == l.EntryID:
		return true, nil
	case l.Holder != nil && l.HolderPosted:
		return false, apierr.New(apierr.DocAttachOtherVerifikat, map[string]any{"document_id": l.DocumentID,
			"journal_entry_id": *l.Holder})
	case l.ReplacesPosted:
		return false, apierr.New(apierr.DocAttachReplacesPosted, map[string]any{"document_id": l.DocumentID})
	}
	return false, ledger.PostableOr(apierr.DocAttachPeriodLocked, l.Period, l.LockedThrough, l.EntryDate, l.EntrySource)
}
