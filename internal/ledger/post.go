package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// The events the ledger announces.
const (
	EventCommitted = "journal_entry.committed"
	EventReversed  = "journal_entry.reversed"
	EventCorrected = "journal_entry.corrected"
)

// prepare checks in and everything it needs from the books: its period
// (PERIOD_NOT_FOUND; an engine may leave it out for the one holding the
// date), its date inside it, a period that takes postings,
// and its accounts in the chart (missing BAS accounts are added; on a dry
// run too, so the answer is the live one; a storno's accounts need only
// exist). It fills in the series and answers the books it read.
func (s *Store) prepare(ctx context.Context, company uuid.UUID, in *Input, engine bool) (books, error) {
	if err := Check(in, engine); err != nil {
		return books{}, err
	}
	var covering *time.Time
	if engine && in.PeriodID == uuid.Nil {
		covering = &in.Date
	}
	b, err := s.readBooks(ctx, company, in.PeriodID, covering, Accounts(in.Lines))
	p := b.period
	switch {
	case apierr.Is(err, apierr.PeriodNotFound) && covering != nil:
		return b, apierr.New(apierr.PeriodNotFound, map[string]any{"date": in.Date.Format(time.DateOnly)})
	case apierr.Is(err, apierr.PeriodNotFound):
		return b, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": in.PeriodID,
			"field": "fiscal_period_id"})
	case err != nil:
		return b, err
	}
	in.PeriodID = p.ID
	if err := InPeriod(p, in.Date); err != nil {
		return b, err
	}
	if err := Postable(p, b.company.LockedThrough, in.Date, postedAs(ctx, p, in.SourceType)); err != nil {
		return b, err
	}
	if in.Series == "" {
		in.Series = DefaultSeries(in.SourceType, b.company.SeriesPerSource, b.company.DefaultSeries)
	}
	if in.ReversesID != nil {
		// A storno undoes lines already booked: their accounts are in the
		// chart (the database holds them to it), and one deactivated since
		// must not keep a mistake in the books.
		return b, nil
	}
	if _, err := s.chart.EnsureKnown(ctx, company, Accounts(in.Lines), b.active, b.inactive); err != nil {
		return b, err
	}
	// An engine naming its party by name too has read it in this unit of
	// work; the database holds the reference to the company's parties.
	if !engine || in.Counterparty.CounterpartyName == nil {
		if err := s.counterparty(ctx, company, &in.Counterparty); err != nil {
			return b, err
		}
	}
	if yearEndSources[in.SourceType] {
		// Balances carried from the books, tags and all: a project archived
		// since still opens the next year with what it closed with.
		return b, nil
	}
	return b, s.checkDimensions(ctx, company, b.company, in.Date, in.Lines)
}

// counterparty fills in the name of a counterparty given as a customer
// or supplier, and refuses one the company does not have.
func (s *Store) counterparty(ctx context.Context, company uuid.UUID, c *Counterparty) error {
	if c.CounterpartyCustomerID == nil && c.CounterpartySupplierID == nil || s.PartyName == nil {
		return nil
	}
	name, err := s.PartyName(ctx, company, c.CounterpartyCustomerID, c.CounterpartySupplierID)
	if ae, ok := apierr.As(err); ok && ae.Status == 404 {
		f := "counterparty.customer_id"
		if c.CounterpartySupplierID != nil {
			f = "counterparty.supplier_id"
		}
		return apierr.Validation(apierr.Issue{Field: f, In: "body", Rule: "exists", Issue: "the company has no such party"})
	}
	if err != nil {
		return err
	}
	if c.CounterpartyName == nil {
		c.CounterpartyName = &name
	}
	return nil
}

// checkDimensions holds the lines' tags to the dimension register when
// the company has it enabled.
func (s *Store) checkDimensions(ctx context.Context, company uuid.UUID, c Company, day time.Time, lines []Line) error {
	if !c.DimensionsEnabled || s.CheckDimensions == nil {
		return nil
	}
	tags := make([]Dimensions, len(lines))
	for i, l := range lines {
		tags[i] = l.Dimensions
	}
	return s.CheckDimensions(ctx, company, day, tags)
}

// CreateDraft stores a new draft (voucher number 0) after the rules of
// prepare.
func (s *Store) CreateDraft(ctx context.Context, company uuid.UUID, in Input) (Entry, error) {
	if _, err := s.prepare(ctx, company, &in, false); err != nil {
		return Entry{}, err
	}
	e, err := s.insertEntry(ctx, company, in)
	if err != nil {
		return e, err
	}
	return e, s.record(ctx, company, audit.Insert, "Utkast till verifikation skapades", nil, &e)
}

// Post books in at once, in the unit of work of ctx: the one door through
// which invoices, payments, payroll and imports write verifikationer. The
// entry gets the next voucher number of its series and the
// journal_entry.committed event. With in.Last its voucher number is known
// only when the unit commits (e.Number is a token until then).
func (s *Store) Post(ctx context.Context, company uuid.UUID, in Input) (Entry, error) {
	var e Entry
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		b, err := s.prepare(ctx, company, &in, true)
		if err != nil {
			return err
		}
		if e, err = s.insertEntry(ctx, company, in); err != nil {
			return err
		}
		closing := &b
		if !in.Last {
			closing = nil
		}
		return s.commit(ctx, company, &e, nil, closing)
	})
	return e, err
}

// commit posts the draft e, audits and announces it. old is the entry as
// it was, for the audit trail; nil when it was created in this unit. With
// the books b, the posting may close the unit of work (see post).
func (s *Store) commit(ctx context.Context, company uuid.UUID, e *Entry, old *Entry, b *books) error {
	if err := s.post(ctx, company, e, b); err != nil {
		return err
	}
	if err := s.record(ctx, company, audit.Commit, "Verifikation "+e.Voucher()+" bokförd", old, e); err != nil {
		return err
	}
	_, err := outbox.Emit(ctx, s.db, company, EventCommitted, Snapshot(*e))
	return err
}

// Commit posts the draft id: the period must still take postings and its
// accounts still be active. JOURNAL_ENTRY_NOT_DRAFT for anything but a
// draft.
func (s *Store) Commit(ctx context.Context, company, id uuid.UUID) (Entry, error) {
	e, err := s.get(ctx, company, id, true)
	if err != nil {
		return e, err
	}
	if e.Status != Draft {
		return e, apierr.New(apierr.JournalEntryNotDraft, map[string]any{
			"journal_entry_id": id, "current_status": e.Status})
	}
	in := e.input()
	b, err := s.prepare(ctx, company, &in, true)
	if err != nil {
		return e, err
	}
	old := e
	return e, s.commit(ctx, company, &e, &old, &b)
}

// input is the entry as a caller would have described it.
func (e Entry) input() Input {
	return Input{PeriodID: e.PeriodID, Date: e.Date, Description: e.Description, Series: e.Series,
		SourceType: e.SourceType, SourceID: e.SourceID, Notes: e.Notes, Lines: e.Lines, Counterparty: e.Counterparty,
		ReversesID: e.ReversesID, CorrectionOfID: e.CorrectionOfID, ChainDepth: e.ChainDepth}
}

// UpdateDraft replaces the header and every line of the draft id.
func (s *Store) UpdateDraft(ctx context.Context, company, id uuid.UUID, in Input) (Entry, error) {
	old, err := s.get(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	if old.Status != Draft {
		return old, apierr.New(apierr.CannotEditNonDraft, map[string]any{
			"journal_entry_id": id, "current_status": old.Status})
	}
	in.SourceType, in.SourceID = old.SourceType, old.SourceID
	if _, err := s.prepare(ctx, company, &in, engineSources[old.SourceType]); err != nil {
		return old, err
	}
	q := s.db.Q(ctx)
	if _, err := q.ExecContext(ctx, `DELETE FROM journal_lines WHERE company_id = $1 AND journal_entry_id = $2`,
		company, id); err != nil {
		return old, dbError(err)
	}
	var e Entry
	if err := q.GetContext(ctx, &e, `UPDATE journal_entries SET fiscal_period_id = $3, entry_date = $4,
			description = $5, voucher_series = $6, notes = $7, counterparty_name = $8, counterparty_customer_id = $9,
			counterparty_supplier_id = $10, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+entryColumns,
		company, id, in.PeriodID, in.Date, in.Description, in.Series, in.Notes, in.Counterparty.CounterpartyName,
		in.Counterparty.CounterpartyCustomerID, in.Counterparty.CounterpartySupplierID); err != nil {
		return old, dbError(err)
	}
	e.HasDocument = old.HasDocument // a draft's underlag stays with it
	if e.Lines, err = s.insertLines(ctx, company, id, in.Lines, nil); err != nil {
		return old, err
	}
	return e, s.record(ctx, company, audit.Update, "Utkast till verifikation ändrades", &old, &e)
}

// Cancel makes the draft id cancelled (makulerat utkast); it never had a
// number, so no gap is left, and it may be cancelled whatever its date.
// Cancelling a cancelled entry again answers it as it is.
func (s *Store) Cancel(ctx context.Context, company, id uuid.UUID) (Entry, error) {
	old, err := s.get(ctx, company, id, true)
	if err != nil || old.Status == Cancelled {
		return old, err
	}
	if old.Status != Draft {
		return old, apierr.New(apierr.CannotCancelNonDraft, map[string]any{
			"journal_entry_id": id, "current_status": old.Status})
	}
	// Cancelling books nothing, so neither a lock nor the lock date stands
	// in its way: a draft left behind a lock date that moved past it must
	// not block the period's lock for good.
	e := old
	if err := s.db.Q(ctx).QueryRowxContext(ctx, `UPDATE journal_entries SET status = 'cancelled',
			cancelled_at = now(), updated_at = now() WHERE company_id = $1 AND id = $2
		RETURNING status, cancelled_at, updated_at`, company, id).Scan(&e.Status, &e.CancelledAt, &e.UpdatedAt); err != nil {
		return old, dbError(err)
	}
	return e, s.record(ctx, company, audit.Update, "Utkast till verifikation makulerades", &old, &e)
}

// record writes the audit row of a change to an entry.
func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, desc string, old, new *Entry) error {
	snap := func(e *Entry) json.RawMessage {
		if e == nil {
			return nil
		}
		b, _ := json.Marshal(Snapshot(*e))
		return b
	}
	id := ""
	if new != nil {
		id = new.ID.String()
	} else if old != nil {
		id = old.ID.String()
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "journal_entries",
		RecordID: id, Description: desc, Old: snap(old), New: snap(new)})
}

// Snapshot is the entry as the audit trail and the events carry it, in
// the API's field names. A struct, not a map: a batch marshals one per
// voucher, and maps cost the import a fifth of its Go time.
func Snapshot(e Entry) EntrySnapshot {
	lines := make([]LineSnapshot, len(e.Lines))
	for i, l := range e.Lines {
		lines[i] = LineSnapshot{ID: l.ID, Account: l.Account, Debit: l.Debit, Credit: l.Credit,
			Description: l.Description, Dimensions: l.Dimensions, SortOrder: l.SortOrder}
	}
	return EntrySnapshot{ID: e.ID, PeriodID: e.PeriodID, Series: e.Series, Number: e.Number,
		Date: e.Date.Format(time.DateOnly), Description: e.Description, Status: e.Status, SourceType: e.SourceType,
		SourceID: e.SourceID, Notes: e.Notes, ReversesID: e.ReversesID, ReversedByID: e.ReversedByID,
		CorrectionOfID: e.CorrectionOfID, Lines: lines}
}

// EntrySnapshot is Snapshot's shape.
type EntrySnapshot struct {
	ID             uuid.UUID      `json:"id"`
	PeriodID       uuid.UUID      `json:"fiscal_period_id"`
	Series         string         `json:"voucher_series"`
	Number         int            `json:"voucher_number"`
	Date           string         `json:"entry_date"`
	Description    string         `json:"description"`
	Status         Status         `json:"status"`
	SourceType     string         `json:"source_type"`
	SourceID       *string        `json:"source_id"`
	Notes          *string        `json:"notes"`
	ReversesID     *uuid.UUID     `json:"reverses_id"`
	ReversedByID   *uuid.UUID     `json:"reversed_by_id"`
	CorrectionOfID *uuid.UUID     `json:"correction_of_id"`
	Lines          []LineSnapshot `json:"lines"`
}

// LineSnapshot is a line in an EntrySnapshot.
type LineSnapshot struct {
	ID          uuid.UUID    `json:"id"`
	Account     string       `json:"account_number"`
	Debit       money.Amount `json:"debit_amount"`
	Credit      money.Amount `json:"credit_amount"`
	Description *string      `json:"line_description"`
	Dimensions  Dimensions   `json:"dimensions"`
	SortOrder   int          `json:"sort_order"`
}
