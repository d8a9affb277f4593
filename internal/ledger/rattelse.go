package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// Rattelse is a row of the rättelse log: an inline correction of a posted
// entry (BFL 5 kap. 5 §), kept forever with who made it.
type Rattelse struct {
	ID                uuid.UUID  `db:"id"`
	EntryID           uuid.UUID  `db:"journal_entry_id"`
	Type              string     `db:"rattelse_type"`
	OldDescription    *string    `db:"old_description"`
	NewDescription    *string    `db:"new_description"`
	OldDate           *time.Time `db:"old_entry_date"`
	NewDate           *time.Time `db:"new_entry_date"`
	StruckLines       []byte     `db:"struck_lines"` // JSON array, nil when none
	AddedLines        []byte     `db:"added_lines"`
	ActorType         string     `db:"actor_type"`
	ActorLabel        *string    `db:"actor_label"`
	ActorUserID       *uuid.UUID `db:"user_id"`
	ActorEmail        *string    `db:"actor_email"`
	Source            string     `db:"source"`
	ExternalSignature *string    `db:"external_signature"`
	CreatedAt         time.Time  `db:"created_at"`
}

// inline loads the posted entry id for an inline rättelse, locked, and
// refuses one the law wants corrected by storno instead: a storno entry,
// a reversed entry, or one in a locked or closed period or on or before
// the lock date (JOURNAL_RATTELSE_PERIOD_LOCKED).
func (s *Store) inline(ctx context.Context, company, id uuid.UUID) (Entry, books, error) {
	e, err := s.get(ctx, company, id, true)
	if err != nil {
		return e, books{}, err
	}
	if e.Status != Posted {
		return e, books{}, apierr.New(apierr.JournalEntryNotPosted, map[string]any{"journal_entry_id": id,
			"current_status": e.Status})
	}
	if e.SourceType == SourceStorno {
		return e, books{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{"reason": "storno_entry"})
	}
	if e.ReversedByID != nil {
		return e, books{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{"reason": "reversed",
			"reversed_by_id": *e.ReversedByID})
	}
	b, err := s.readBooks(ctx, company, e.PeriodID, nil, nil)
	if err != nil {
		return e, b, err
	}
	return e, b, b.openForRattelse(e.Date)
}

// openForRattelse refuses an inline change touching day of the period
// when that period or day is locked.
func (b books) openForRattelse(day time.Time) error {
	if reason := Closedness(b.period, b.company.LockedThrough, day, SourceManual); reason != "" {
		return periodLocked(apierr.JournalRattelsePeriodLocked, b.period, b.company.LockedThrough, reason)
	}
	return nil
}

// logRattelse writes a row of the rättelse log with the actor of ctx
// (from r.Source, the API when empty),
// through the database's ledger_log_rattelse (the only way in): it reads
// the old description and date, and the struck lines, itself. struck are
// the ids of the lines to strike; r.AddedLines the lines to add.
func (s *Store) logRattelse(ctx context.Context, company uuid.UUID, r Rattelse, struck []uuid.UUID) (Rattelse, error) {
	a := audit.ActorFrom(ctx)
	var date *string
	if r.NewDate != nil {
		d := r.NewDate.Format(time.DateOnly)
		date = &d
	}
	ids := make([]string, len(struck))
	for i, id := range struck {
		ids[i] = id.String()
	}
	var out Rattelse
	source := r.Source
	if source == "" {
		source = "api"
	}
	err := s.db.Q(ctx).GetContext(ctx, &out, `SELECT `+rattelseColumns+` FROM ledger_log_rattelse($1, $2, $3, $4,
		$5::date, $6::uuid[], $7::jsonb, $8, $9, $10, $11, $12, $13, $14)`,
		company, r.EntryID, r.Type, r.NewDescription, date, pq.Array(ids), jsonText(r.AddedLines),
		a.Type, a.ID, a.Label, a.UserID, nonEmpty(a.Email), source, r.ExternalSignature)
	return out, dbError(err)
}

const rattelseColumns = `id, journal_entry_id, rattelse_type, old_description, new_description, old_entry_date,
	new_entry_date, struck_lines, added_lines, actor_type, actor_label, user_id, actor_email, source,
	external_signature, created_at`

// Rattelser returns the rättelse log of the company's entry id, newest
// first.
func (s *Store) Rattelser(ctx context.Context, company, id uuid.UUID) ([]Rattelse, error) {
	if _, err := s.Get(ctx, company, id); err != nil {
		return nil, err
	}
	out := []Rattelse{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+rattelseColumns+` FROM journal_rattelser
		WHERE company_id = $1 AND journal_entry_id = $2 ORDER BY created_at DESC, id DESC`, company, id)
	return out, err
}

// MetadataChange is what correct-metadata did; Log is nil when nothing
// changed.
type MetadataChange struct {
	Log   *Rattelse
	Entry Entry
}

// CorrectMetadata corrects the description and/or date of the posted
// entry id inline, logged. The new date must stay in the entry's own
// period (else JOURNAL_RATTELSE_REFUSED: use redate); year-end,
// opening-balance and VAT-settlement entries keep their date.
func (s *Store) CorrectMetadata(ctx context.Context, company, id uuid.UUID, desc *string, day *time.Time) (MetadataChange, error) {
	if desc == nil && day == nil {
		return MetadataChange{}, apierr.Field("description", "required", "send description, entry_date or both")
	}
	if desc != nil {
		t := strings.TrimSpace(*desc)
		if t == "" || len([]rune(t)) > maxDescription {
			return MetadataChange{}, apierr.Field("description", "length", fmt.Sprintf("must be 1-%d characters", maxDescription))
		}
		desc = &t
	}
	e, b, err := s.inline(ctx, company, id)
	if err != nil {
		return MetadataChange{Entry: e}, err
	}
	r := Rattelse{EntryID: id, Type: "metadata"}
	if desc != nil && *desc != e.Description {
		r.OldDescription, r.NewDescription = &e.Description, desc
	}
	if day != nil && !day.Equal(e.Date) {
		if keepsDate[e.SourceType] {
			return MetadataChange{Entry: e}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
				"reason": "date_is_fixed", "source_type": e.SourceType})
		}
		if !b.period.Span().Contains(*day) {
			return MetadataChange{Entry: e}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
				"reason": "outside_fiscal_period", "hint": "use POST /journal-entries/{id}/redate"})
		}
		if err := b.openForRattelse(*day); err != nil {
			return MetadataChange{Entry: e}, err
		}
		old := e.Date
		r.OldDate, r.NewDate = &old, day
	}
	if r.NewDescription == nil && r.NewDate == nil {
		return MetadataChange{Entry: e}, nil
	}
	log, err := s.logRattelse(ctx, company, r, nil)
	if err != nil {
		return MetadataChange{Entry: e}, err
	}
	old := e
	if r.NewDescription != nil {
		e.Description = *r.NewDescription
	}
	if r.NewDate != nil {
		e.Date = *r.NewDate
	}
	if err := s.db.Q(ctx).QueryRowxContext(ctx, `UPDATE journal_entries SET description = $3, entry_date = $4,
		updated_at = now() WHERE company_id = $1 AND id = $2 RETURNING updated_at`, company, id, e.Description, e.Date).
		Scan(&e.UpdatedAt); err != nil {
		return MetadataChange{Entry: old}, dbError(err)
	}
	return MetadataChange{Log: &log, Entry: e}, s.announceRattelse(ctx, company, &old, &e, log)
}

// announceRattelse audits and announces an inline rättelse.
func (s *Store) announceRattelse(ctx context.Context, company uuid.UUID, old, e *Entry, log Rattelse) error {
	if err := s.record(ctx, company, audit.Correct, "Verifikation "+e.Voucher()+" rättades (rättelse)", old, e); err != nil {
		return err
	}
	_, err := outbox.Emit(ctx, s.db, company, EventCorrected, map[string]any{
		"original": Snapshot(*old), "corrected": Snapshot(*e), "rattelse_id": log.ID})
	return err
}

// Strike is what strike-lines did.
type Strike struct {
	Log           Rattelse
	Struck        int
	Added         int
	Debit, Credit money.Amount
}

// StrikeLines strikes lines of the posted entry id and adds replacement
// lines inline, logged, without a new voucher number. What remains must
// be at least two lines and balance to the öre.
func (s *Store) StrikeLines(ctx context.Context, company, id uuid.UUID, strike []uuid.UUID, add []Line) (Strike, error) {
	if len(strike) == 0 && len(add) == 0 {
		return Strike{}, apierr.Field("strike_line_ids", "required", "send strike_line_ids, lines or both")
	}
	if issues := lineShapes(add, "lines", false); len(issues) > 0 {
		return Strike{}, apierr.Validation(issues...)
	}
	if err := CheckAmounts(add, "lines"); err != nil {
		return Strike{}, err
	}
	e, b, err := s.inline(ctx, company, id)
	if err != nil {
		return Strike{}, err
	}
	if yearEndSources[e.SourceType] {
		// Their lines are the year's balances; striking one would break
		// the continuity of the books.
		return Strike{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{"reason": "year_end_entry",
			"source_type": e.SourceType, "hint": "run the year-end again, or reverse an opening balance set by hand"})
	}
	byID := map[uuid.UUID]Line{}
	for _, l := range e.Lines {
		byID[l.ID] = l
	}
	var struck []Line
	gone := map[uuid.UUID]bool{}
	for _, lid := range strike {
		l, ok := byID[lid]
		if !ok || gone[lid] {
			return Strike{}, apierr.Field("strike_line_ids", "unknown",
				"line "+lid.String()+" is not a current line of the entry")
		}
		if l.Currency != nil && *l.Currency != "SEK" {
			return Strike{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
				"reason": "foreign_currency_line", "line_id": lid})
		}
		gone[lid] = true
		struck = append(struck, l)
	}
	has, err := s.underlagOf(ctx, company, strike)
	if err != nil {
		return Strike{}, err
	}
	for _, lid := range strike {
		if has[lid] {
			return Strike{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
				"reason": "linked_document", "line_id": lid})
		}
	}
	next := len(e.Lines)
	for _, l := range e.Lines {
		next = max(next, l.SortOrder+1)
	}
	var remaining []Line
	for _, l := range e.Lines {
		if !gone[l.ID] {
			remaining = append(remaining, l)
		}
	}
	for i := range add {
		add[i].ID, add[i].SortOrder = newID(), next+i
	}
	remaining = append(remaining, add...)
	if len(remaining) < 2 {
		return Strike{}, apierr.New(apierr.JournalRattelseRefused, map[string]any{"reason": "too_few_lines",
			"remaining_lines": len(remaining)})
	}
	if err := CheckBalance(remaining); err != nil {
		return Strike{}, err
	}
	if MeaninglessLines(struck, add) {
		return Strike{}, apierr.New(apierr.MeaninglessCorrection, map[string]any{"reason": "same_lines"})
	}
	if _, err := s.chart.Ensure(ctx, company, Accounts(add)); err != nil {
		return Strike{}, err
	}
	if err := s.checkDimensions(ctx, company, b.company, e.Date, add); err != nil {
		return Strike{}, err
	}
	aj, _ := json.Marshal(lineSnapshots(add))
	log, err := s.logRattelse(ctx, company, Rattelse{EntryID: id, Type: "lines", AddedLines: aj}, strike)
	if err != nil {
		return Strike{}, err
	}
	if len(strike) > 0 {
		if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE journal_lines SET struck_by_rattelse_id = $3
			WHERE company_id = $1 AND id = ANY($2)`, company, pq.Array(strike), log.ID); err != nil {
			return Strike{}, dbError(err)
		}
	}
	if len(add) > 0 {
		if _, err := s.insertLines(ctx, company, id, add, &log.ID); err != nil {
			return Strike{}, err
		}
	}
	old := e
	e.Lines = remaining
	d, c := Totals(remaining)
	return Strike{Log: log, Struck: len(struck), Added: len(add), Debit: d, Credit: c},
		s.announceRattelse(ctx, company, &old, &e, log)
}

func lineSnapshots(lines []Line) []map[string]any {
	out := make([]map[string]any, len(lines))
	for i, l := range lines {
		out[i] = map[string]any{"id": l.ID, "account_number": l.Account, "debit_amount": l.Debit,
			"credit_amount": l.Credit, "line_description": l.Description, "dimensions": l.Dimensions}
	}
	return out
}

// jsonText passes JSON as text (binary parameters would send []byte as
// binary jsonb); nil stays NULL.
func jsonText(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
