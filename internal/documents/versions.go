package documents

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/outbox"
)

// EventUploaded is the event of a document stored by an upload.
const EventUploaded = "document.uploaded"

// New is an upload as the archive takes it: the bytes (kept in the blob
// store already) and what the form said of them.
type New struct {
	File     Spooled
	Name     string
	MimeType string
	Source   string
	// EntryID and LineID make the document underlag at once.
	EntryID, LineID *uuid.UUID
	// SupersedesID makes it the next version of that document.
	SupersedesID     *uuid.UUID
	DigitizationDate *time.Time
	// InboxItemID is the inbox item the document came in as.
	InboxItemID *uuid.UUID
}

// Stored is what an upload stored: the row, and the company's other
// documents on the same bytes.
type Stored struct {
	Doc  Doc
	Same []uuid.UUID
}

// Upload writes the row of an upload whose bytes the blob store holds,
// audited, with document.uploaded, in the unit of work. A camera's
// digitization date is today unless given; none is after today
// (Europe/Stockholm). With EntryID the document becomes underlag under
// the linking rule (Attachable); with SupersedesID it is a new version
// (see supersede).
func (a *Archive) Upload(ctx context.Context, company uuid.UUID, n New) (Stored, error) {
	today := ledger.Today(a.now())
	if n.DigitizationDate == nil && n.Source == "camera" {
		n.DigitizationDate = &today
	}
	if n.DigitizationDate != nil && n.DigitizationDate.After(today) {
		return Stored{}, apierr.Field("digitization_date", "not_future", "must not be after today ("+today.Format(time.DateOnly)+", Europe/Stockholm)")
	}
	if n.LineID != nil && n.EntryID == nil {
		return Stored{}, apierr.Field("journal_entry_line_id", "requires", "needs journal_entry_id")
	}
	mime := n.MimeType
	d := Doc{CompanyID: company, ID: uuid.New(), FileName: n.Name, MimeType: &mime, Size: n.File.Size,
		SHA256: n.File.SHA256, Version: 1, Source: n.Source, DigitizationDate: n.DigitizationDate,
		EntryID: n.EntryID, LineID: n.LineID, InboxItemID: n.InboxItemID}
	var old *Doc
	var entry *ledger.Entry
	var err error
	if n.SupersedesID != nil {
		if old, entry, err = a.supersede(ctx, &d, *n.SupersedesID); err != nil {
			return Stored{}, err
		}
	} else if n.EntryID != nil {
		if entry, err = a.attachNew(ctx, d); err != nil {
			return Stored{}, err
		}
	}
	stored, same, err := a.store.Insert(ctx, d)
	if err != nil {
		return Stored{}, err
	}
	desc := "Underlaget " + d.FileName + " laddades upp"
	if old != nil {
		superseded, err := a.store.Supersede(ctx, *old, d.ID)
		if err != nil {
			return Stored{}, err
		}
		if err := a.record(ctx, audit.Update, "Underlaget "+old.FileName+" ersattes av version "+
			strconv.Itoa(d.Version), *old, old, &superseded); err != nil {
			return Stored{}, err
		}
		desc = "Version " + strconv.Itoa(d.Version) + " av underlaget laddades upp: " + d.FileName
	}
	if entry != nil {
		desc += ", underlag till verifikation " + voucherOf(*entry)
	}
	if err := a.record(ctx, audit.Insert, desc, d, nil, &stored); err != nil {
		return Stored{}, err
	}
	if entry != nil && entry.NoDocumentRequired {
		if err := a.ledger.ClearNoDocument(ctx, company, *entry); err != nil {
			return Stored{}, err
		}
	}
	if _, err := outbox.Emit(ctx, a.store.db, company, EventUploaded, map[string]any{"document": Detail(stored)}); err != nil {
		return Stored{}, err
	}
	return Stored{Doc: stored, Same: slices.DeleteFunc(same, func(id uuid.UUID) bool { return id == d.ID })}, nil
}

// attachNew applies the linking rule to the new document d (its entry
// locked for the unit of work) and answers the entry.
func (a *Archive) attachNew(ctx context.Context, d Doc) (*ledger.Entry, error) {
	u, err := a.ledger.ForUnderlag(ctx, d.CompanyID, *d.EntryID)
	if err != nil {
		return nil, fieldOf(err, "journal_entry_id")
	}
	e := u.Entry
	if d.LineID != nil && !slices.ContainsFunc(e.Lines, func(l ledger.Line) bool { return l.ID == *d.LineID }) {
		return nil, apierr.Field("journal_entry_line_id", "line", "must be a current line of the entry")
	}
	if _, err := Attachable(Link{DocumentID: d.ID, Current: true, EntryID: e.ID, EntryStatus: e.Status,
		EntryDate: e.Date, EntrySource: e.SourceType, Period: u.Period, LockedThrough: u.LockedThrough}); err != nil {
		return nil, err
	}
	return &e, nil
}

// supersede makes d the next version of document id: id must be the
// current version (409 CONFLICT superseded) of other bytes (409 CONFLICT
// same_content). d takes over its link (and inbox item): a link given
// must be that one, and a verifikat in a closed or locked period takes no
// new version of its underlag (DOC_ATTACH_PERIOD_LOCKED). A version of a
// document without a link may link as an upload does. Locks the entry
// before the document, as linking does.
func (a *Archive) supersede(ctx context.Context, d *Doc, id uuid.UUID) (*Doc, *ledger.Entry, error) {
	peek, err := a.store.Get(ctx, d.CompanyID, id, false)
	if err != nil {
		return nil, nil, fieldOf(err, "supersedes_id")
	}
	var u *ledger.Underlag
	if peek.EntryID != nil {
		got, err := a.ledger.ForUnderlag(ctx, d.CompanyID, *peek.EntryID)
		if err != nil {
			return nil, nil, err
		}
		u = &got
	}
	old, err := a.store.Get(ctx, d.CompanyID, id, true)
	if err != nil {
		return nil, nil, fieldOf(err, "supersedes_id")
	}
	switch {
	case !old.Current:
		return nil, nil, apierr.New(apierr.Conflict, map[string]any{"reason": "superseded", "document_id": old.ID,
			"superseded_by_id": old.SupersededByID, "field": "supersedes_id"})
	case old.SHA256 == d.SHA256:
		return nil, nil, apierr.New(apierr.Conflict, map[string]any{"reason": "same_content", "document_id": old.ID,
			"sha256_hash": old.SHA256, "field": "file"})
	case !sameEntry(old.EntryID, peek.EntryID):
		// Moved by a correction between the two reads: ask again.
		return nil, nil, apierr.New(apierr.Conflict, map[string]any{"reason": "in_progress", "document_id": old.ID})
	}
	d.Version, d.OriginalID, d.InboxItemID = old.Version+1, old.OriginalID, old.InboxItemID
	if d.OriginalID == nil {
		d.OriginalID = &old.ID
	}
	if old.EntryID == nil {
		if d.EntryID == nil {
			return &old, nil, nil
		}
		e, err := a.attachNew(ctx, *d)
		return &old, e, err
	}
	if (d.EntryID != nil && *d.EntryID != *old.EntryID) || (d.LineID != nil && !sameEntry(d.LineID, old.LineID)) {
		return nil, nil, apierr.Field("journal_entry_id", "version_link",
			"a new version keeps the link of the version it supersedes ("+old.EntryID.String()+")")
	}
	d.EntryID, d.LineID = old.EntryID, old.LineID
	e := u.Entry
	if err := ledger.PostableOr(apierr.DocAttachPeriodLocked, u.Period, u.LockedThrough, e.Date, e.SourceType); err != nil {
		return nil, nil, err
	}
	return &old, &e, nil
}

func sameEntry(a, b *uuid.UUID) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// fieldOf names field in the details of a not-found error, so the caller
// knows which of the form's ids found nothing.
func fieldOf(err error, field string) error {
	if e, ok := apierr.As(err); ok && e.Status == 404 {
		if e.Details == nil {
			e.Details = map[string]any{}
		}
		e.Details["field"] = field
	}
	return err
}
