package inbox

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/payables"
)

// Books are what the inbox needs of the rest of the books, filled in at
// composition.
type Books struct {
	// Keep writes the row of a document whose bytes the blob store holds
	// already, from source, as the document of inbox item item, and
	// answers its id (documents.Archive.Upload).
	Keep func(ctx context.Context, company uuid.UUID, f File, item uuid.UUID) (uuid.UUID, error)
	// Stamp makes a document underlag of a verifikat by the linking rule
	// (documents.Archive.Link: DOC_ATTACH_*).
	Stamp func(ctx context.Context, company, doc, entry uuid.UUID) error
	// Supplier refuses a supplier the company does not have, or has
	// archived (404 SUPPLIER_NOT_FOUND).
	Supplier func(ctx context.Context, company, id uuid.UUID) error
	// Match answers the company's active suppliers holding the
	// organisation number, VAT number or bankgiro given.
	Match func(ctx context.Context, company uuid.UUID, org, vat, bankgiro *string) ([]uuid.UUID, error)
	// Register registers a supplier invoice (payables.Payables.Create).
	Register func(ctx context.Context, company uuid.UUID, d payables.Draft) (payables.Created, error)
	// Transaction refuses a bank transaction the company does not have
	// (404 TX_CATEGORIZE_TX_NOT_FOUND).
	Transaction func(ctx context.Context, company, id uuid.UUID) error
}

// Inbox keeps a company's inbox items.
type Inbox struct {
	store *Store
	books Books
	audit *audit.Store
	now   func() time.Time
}

// New returns the inbox.
func New(s *Store, b Books, a *audit.Store, now func() time.Time) *Inbox {
	return &Inbox{store: s, books: b, audit: a, now: now}
}

// File is a file that came in, read before its transaction: its bytes
// kept in the blob store (Size, SHA256), its type found from them, and
// what it was read to say. A file no document can be made of carries
// Problem, in Swedish, instead.
type File struct {
	Name    string
	Mime    string
	Source  string // email, e_invoice, api
	Size    int64
	SHA256  string
	Reading *Reading
	Skipped bool
	Problem string
	// ItemID is the item the file becomes, when its document names it
	// already (an upload).
	ItemID *uuid.UUID
}

// Arrival is what came in at once: one upload, or one e-mail with its
// files.
type Arrival struct {
	Source  string // upload, api, email
	Message *Message
	Files   []File
	// DocumentID is the document an upload already wrote.
	DocumentID *uuid.UUID
}

func (b *Inbox) record(ctx context.Context, action audit.Action, desc string, old, new *Item) error {
	it := old
	if it == nil {
		it = new
	}
	view := func(i *Item) any {
		if i == nil {
			return nil
		}
		return Detail(*i)
	}
	return b.audit.Record(ctx, audit.Change{CompanyID: it.CompanyID, Action: action, Table: "inbox_items",
		RecordID: it.ID.String(), Description: desc, Old: audit.Of(view(old)), New: audit.Of(view(new))})
}

// Receive turns an arrival into items: one per file a document could be
// made of (written now, unless the upload wrote it), matched to the one
// supplier its numbers name; an e-mail with none becomes one error item
// saying why. A message whose Message-ID was taken before adds nothing.
func (b *Inbox) Receive(ctx context.Context, company uuid.UUID, a Arrival) ([]Item, error) {
	if a.Message != nil && a.Message.ID != "" {
		seen, err := b.store.Seen(ctx, company, a.Message.ID)
		if err != nil || seen {
			return nil, err
		}
	}
	var items []Item
	var problems []string
	for _, f := range a.Files {
		if f.Problem != "" {
			problems = append(problems, f.Problem)
			continue
		}
		it := Item{CompanyID: company, ID: uuid.New(), Status: "received", Source: a.Source, Kind: KindUnknown,
			Skipped: f.Skipped}
		if f.ItemID != nil {
			it.ID = *f.ItemID
		}
		name := f.Name
		it.FileName = &name
		doc := a.DocumentID
		if doc == nil {
			id, err := b.books.Keep(ctx, company, f, it.ID)
			if err != nil {
				return nil, err
			}
			doc = &id
		}
		it.DocumentID = doc
		if err := b.read(ctx, &it, f.Reading); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if len(items) == 0 && a.Message != nil {
		msg := "E-postmeddelandet hade ingen bilaga som kan bli underlag (PDF, bild, kontorsdokument eller e-faktura)."
		if len(problems) > 0 {
			msg = "Ingen bilaga kunde tas emot: " + strings.Join(problems, " ")
		}
		it := Item{CompanyID: company, ID: uuid.New(), Status: "error", Source: a.Source, Kind: KindUnknown,
			Skipped: true, ErrorMessage: &msg}
		items = append(items, it)
	}
	for i := range items {
		if m := a.Message; m != nil {
			from, subject, body, id := m.From, m.Subject, m.BodyText, m.ID
			items[i].EmailFrom, items[i].EmailSubject, items[i].EmailBody = &from, &subject, &body
			if id != "" {
				items[i].EmailMessageID = &id
			}
			at := b.now().UTC()
			if m.Date != nil {
				at = m.Date.UTC()
			}
			items[i].EmailReceivedAt = &at
		}
	}
	now := b.now().UTC()
	for i := range items {
		items[i].CreatedAt, items[i].UpdatedAt = now, now
		if items[i].DocumentID != nil {
			unlinked := "unlinked"
			items[i].UnderlagStatus = &unlinked
		}
	}
	if err := b.store.Insert(ctx, items); err != nil {
		return nil, err
	}
	for _, it := range items {
		if err := b.record(ctx, audit.Insert, "Inkorgsposten "+describe(it)+" togs emot", nil, &it); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// FromUpload takes an uploaded document that is no verifikat's underlag
// into the inbox as the item it names, with what outside work read of it
// before the transaction (ArrivalFrom); documents.Handler.Received.
func (b *Inbox) FromUpload(ctx context.Context, company uuid.UUID, name, mime, source string, doc, item uuid.UUID) error {
	f := File{Name: name, Mime: mime, Source: source, Skipped: true, ItemID: &item}
	if a := ArrivalFrom(ctx); a != nil && len(a.Files) == 1 {
		f.Reading, f.Skipped = a.Files[0].Reading, a.Files[0].Skipped
	}
	_, err := b.Receive(ctx, company, Arrival{Source: source, Files: []File{f}, DocumentID: &doc})
	return err
}

// describe names an item in the audit trail.
func describe(it Item) string {
	switch {
	case it.FileName != nil:
		return *it.FileName
	case it.EmailSubject != nil:
		return "\"" + *it.EmailSubject + "\""
	}
	return it.ID.String()
}

// read copies a reading onto the item and matches its supplier.
func (b *Inbox) read(ctx context.Context, it *Item, r *Reading) error {
	if r == nil || r.Empty() {
		it.Skipped = true
		return nil
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	it.Extracted, it.Kind, it.VendorName, it.Currency = raw, r.Kind, r.VendorName, r.Currency
	it.Amount = r.Total
	if r.InvoiceDate != nil {
		t := r.InvoiceDate.Time
		it.InvoiceDate = &t
	}
	if r.OrgNumber == nil && r.VATNumber == nil && r.Bankgiro == nil {
		return nil
	}
	ids, err := b.books.Match(ctx, it.CompanyID, r.OrgNumber, r.VATNumber, r.Bankgiro)
	if err == nil && len(ids) == 1 {
		it.MatchedSupplierID = &ids[0]
	}
	return err
}

// Get answers one item.
func (b *Inbox) Get(ctx context.Context, company, id uuid.UUID) (Item, error) {
	return b.store.Get(ctx, company, id, false)
}

// List answers a page of items.
func (b *Inbox) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Item, error) {
	return b.store.List(ctx, company, f, after, limit)
}

// taken is 409 INBOX_ITEM_ALREADY_CONVERTED of an item that became a
// supplier invoice or was stamped, or whose document is underlag.
func taken(it Item) error {
	if !it.Processed {
		return nil
	}
	d := map[string]any{"inbox_item_id": it.ID}
	if it.CreatedSupplierInvoice != nil {
		d["supplier_invoice_id"] = *it.CreatedSupplierInvoice
	}
	if it.CreatedEntryID != nil {
		d["journal_entry_id"] = *it.CreatedEntryID
	}
	if it.LinkedEntryID != nil {
		d["linked_journal_entry_id"] = *it.LinkedEntryID
	}
	return apierr.New(apierr.InboxItemAlreadyConverted, d)
}

// usable refuses an item that has no document (an error item).
func usable(it Item) error {
	if it.DocumentID == nil {
		return apierr.New(apierr.Conflict, map[string]any{"reason": "no_document", "inbox_item_id": it.ID,
			"error_message": it.ErrorMessage})
	}
	return nil
}

// Convert registers a supplier invoice from an item, its document the
// invoice's (rule 7 holds), along the create's whole path.
func (b *Inbox) Convert(ctx context.Context, company, id uuid.UUID, d payables.Draft) (payables.Created, Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return payables.Created{}, it, err
	}
	if err := taken(it); err != nil {
		return payables.Created{}, it, err
	}
	if err := usable(it); err != nil {
		return payables.Created{}, it, err
	}
	d.DocumentID, d.InboxItemID, d.Converted = it.DocumentID, &it.ID, true
	c, err := b.books.Register(ctx, company, d)
	if err != nil {
		return c, it, err
	}
	old := it
	it.CreatedSupplierInvoice, it.MatchedSupplierID = &c.Invoice.ID, &d.SupplierID
	if err := b.store.Save(ctx, it); err != nil {
		return c, it, err
	}
	if it, err = b.store.Get(ctx, company, id, false); err != nil {
		return c, it, err
	}
	return c, it, b.record(ctx, audit.Update, "Inkorgsposten "+describe(it)+" blev leverantörsfaktura "+c.Invoice.Number, &old, &it)
}

// Claim takes an item for the supplier invoice (or credit note) inv
// being registered with it: payables.Inbox.
func (b *Inbox) Claim(ctx context.Context, company, id, inv uuid.UUID) (*uuid.UUID, *time.Time, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if ae, ok := apierr.As(err); ok && ae.Code == apierr.InboxItemNotFound {
		ae.Details["field"] = "inbox_item_id"
	}
	if err != nil {
		return nil, nil, err
	}
	if err := taken(it); err != nil {
		return nil, nil, err
	}
	if err := usable(it); err != nil {
		return nil, nil, err
	}
	old := it
	it.CreatedSupplierInvoice = &inv
	if err := b.store.Save(ctx, it); err != nil {
		return nil, nil, err
	}
	if err := b.record(ctx, audit.Update, "Inkorgsposten "+describe(it)+" togs upp av en leverantörsfaktura", &old, &it); err != nil {
		return nil, nil, err
	}
	return it.DocumentID, it.InvoiceDate, nil
}

// MatchSupplier sets (or, with nil, clears) the item's supplier.
func (b *Inbox) MatchSupplier(ctx context.Context, company, id uuid.UUID, supplier *uuid.UUID) (Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return it, err
	}
	if supplier != nil {
		if err := b.books.Supplier(ctx, company, *supplier); err != nil {
			return it, err
		}
	}
	return b.change(ctx, it, "leverantör", func(it *Item) { it.MatchedSupplierID = supplier })
}

// MatchTransaction pairs item id with bank transaction tx (nil: releases
// the pairing): the receipt and the payment it shows. Pairing changes
// nothing in the books; the item shows the verifikat that books the
// transaction, when one does.
func (b *Inbox) MatchTransaction(ctx context.Context, company, id uuid.UUID, tx *uuid.UUID) (Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return it, err
	}
	if tx != nil {
		if err := b.books.Transaction(ctx, company, *tx); err != nil {
			return it, err
		}
	}
	if (tx == nil) == (it.MatchedTransactionID == nil) && (tx == nil || *tx == *it.MatchedTransactionID) {
		return it, nil
	}
	return b.change(ctx, it, "banktransaktion", func(it *Item) { it.MatchedTransactionID = tx })
}

// change saves a change of it, audited, and answers it as read again.
func (b *Inbox) change(ctx context.Context, it Item, what string, f func(*Item)) (Item, error) {
	old := it
	f(&it)
	if err := b.store.Save(ctx, it); err != nil {
		return it, err
	}
	saved, err := b.store.Get(ctx, it.CompanyID, it.ID, false)
	if err != nil {
		return saved, err
	}
	return saved, b.record(ctx, audit.Update, "Inkorgsposten "+describe(saved)+": "+what+" ändrades", &old, &saved)
}

// Stamp makes the item's document underlag of a verifikat (the linking
// rule's DOC_ATTACH_* refusals stand) and the item consumed by it.
func (b *Inbox) Stamp(ctx context.Context, company, id, entry uuid.UUID) (Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return it, err
	}
	if err := taken(it); err != nil {
		return it, err
	}
	if err := usable(it); err != nil {
		return it, err
	}
	if err := b.books.Stamp(ctx, company, *it.DocumentID, entry); err != nil {
		return it, err
	}
	return b.change(ctx, it, "underlag till verifikation", func(it *Item) { it.CreatedEntryID = &entry })
}

// Linked marks an item stamped by the verifikat its document is being
// linked to through the documents API (documents.Archive.InboxLinked):
// the item must hold that document and not be taken already.
func (b *Inbox) Linked(ctx context.Context, company, id, doc, entry uuid.UUID) error {
	it, err := b.store.Get(ctx, company, id, true)
	if ae, ok := apierr.As(err); ok && ae.Code == apierr.InboxItemNotFound {
		ae.Details["field"] = "inbox_item_id"
	}
	if err != nil {
		return err
	}
	if it.DocumentID == nil || *it.DocumentID != doc {
		return apierr.Field("inbox_item_id", "document", "the inbox item holds another document")
	}
	if it.CreatedEntryID != nil && *it.CreatedEntryID == entry {
		return nil
	}
	if it.CreatedSupplierInvoice != nil || it.CreatedEntryID != nil {
		return taken(it)
	}
	_, err = b.change(ctx, it, "underlag till verifikation", func(it *Item) { it.CreatedEntryID = &entry })
	return err
}

// Correction is a PATCH body: the reading corrected; nil leaves a field.
type Correction struct {
	Kind        *string
	VendorName  **string
	Amount      **money.Amount
	Currency    **string
	InvoiceDate **time.Time
}

// Correct corrects the reading of an item not yet converted.
func (b *Inbox) Correct(ctx context.Context, company, id uuid.UUID, c Correction) (Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return it, err
	}
	if err := taken(it); err != nil {
		return it, err
	}
	return b.change(ctx, it, "avläsningen", func(it *Item) {
		if c.Kind != nil {
			it.Kind = *c.Kind
		}
		if c.VendorName != nil {
			it.VendorName = *c.VendorName
		}
		if c.Amount != nil {
			it.Amount = *c.Amount
		}
		if c.Currency != nil {
			it.Currency = *c.Currency
		}
		if c.InvoiceDate != nil {
			it.InvoiceDate = *c.InvoiceDate
		}
	})
}

// Delete discards an item never converted, stamped or booked; its
// document stays, as any upload does.
func (b *Inbox) Delete(ctx context.Context, company, id uuid.UUID) (Item, error) {
	it, err := b.store.Get(ctx, company, id, true)
	if err != nil {
		return it, err
	}
	if err := taken(it); err != nil {
		return it, err
	}
	if err := b.store.Delete(ctx, it); err != nil {
		return it, err
	}
	return it, b.record(ctx, audit.Delete, "Inkorgsposten "+describe(it)+" togs bort", &it, nil)
}
