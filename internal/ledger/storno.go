package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/outbox"
)

// Reversal is the outcome of a storno, a correction or a redate: the
// original, the storno that cancels it, and the replacement when there
// is one.
type Reversal struct {
	Original    Entry
	Storno      Entry
	Replacement *Entry
}

// reversible loads the posted entry id for a storno, locked, and the
// depth its successors get. Nothing reverses an entry of a closed year
// or one the year-end wrote; an opening balance is reversed only where a
// new one could be set by hand.
func (s *Store) reversible(ctx context.Context, company, id uuid.UUID, allowDeep bool) (Entry, int, error) {
	e, err := s.get(ctx, company, id, true)
	if err != nil {
		return e, 0, err
	}
	if err := Reversible(e); err != nil {
		return e, 0, err
	}
	p, err := s.periods.Get(ctx, company, e.PeriodID)
	if err != nil {
		return e, 0, err
	}
	if p.Closed {
		return e, 0, apierr.New(apierr.PeriodLocked, map[string]any{"reason": "original_period_closed",
			"fiscal_period_id": p.ID, "journal_entry_id": e.ID})
	}
	switch e.SourceType {
	case SourceYearEnd, SourceAppropriation:
		return e, 0, apierr.New(apierr.EntryOwnedByYearEnd, map[string]any{"journal_entry_id": e.ID,
			"source_type": e.SourceType, "fiscal_period_id": p.ID})
	case SourceOpeningBalance:
		if err := s.openingSettable(ctx, company, p); err != nil {
			return e, 0, err
		}
	}
	depth, err := NextDepth(e, allowDeep)
	return e, depth, err
}

// stornoSource is the source type of the storno of orig: an opening
// balance or result appropriation is undone by an entry of its own kind,
// so the reports count the storno where they counted the original.
func StornoSource(orig Entry) string {
	if orig.SourceType == SourceOpeningBalance || orig.SourceType == SourceAppropriation {
		return orig.SourceType
	}
	return SourceStorno
}

// storno posts the entry cancelling orig, dated day in period p; the
// database links the two as it posts it.
func (s *Store) storno(ctx context.Context, company uuid.UUID, orig *Entry, p uuid.UUID, day time.Time, depth int) (Entry, error) {
	id := orig.ID
	in := Input{PeriodID: p, Date: day, Series: orig.Series, SourceType: StornoSource(*orig),
		Description: truncate(fmt.Sprintf("Storno av %s: %s", orig.Voucher(), orig.Description), maxDescription),
		Lines:       Storno(orig.Lines), ReversesID: &id, ChainDepth: depth, Counterparty: orig.Counterparty}
	if _, err := s.prepare(ctx, company, &in, true); err != nil {
		return Entry{}, err
	}
	st, err := s.insertEntry(ctx, company, in)
	if err != nil {
		return st, err
	}
	if err := s.post(ctx, company, &st, nil); err != nil {
		return st, err
	}
	old := *orig
	orig.ReversedByID, orig.UpdatedAt = &st.ID, st.UpdatedAt
	if err := s.record(ctx, company, audit.Reverse, fmt.Sprintf("Verifikation %s makulerades med storno %s",
		orig.Voucher(), st.Voucher()), &old, orig); err != nil {
		return st, err
	}
	return st, s.record(ctx, company, audit.Commit, "Verifikation "+st.Voucher()+" bokförd", nil, &st)
}

// Reverse cancels the posted entry id with a storno dated day (in the
// period covering it), the original's own lines on the other side. A
// storno is never dated before its original; an opening balance is undone
// on its own date, in its own year.
func (s *Store) Reverse(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (Reversal, error) {
	orig, depth, err := s.reversible(ctx, company, id, allowDeep)
	if err != nil {
		return Reversal{Original: orig}, err
	}
	if orig.SourceType == SourceOpeningBalance {
		day = orig.Date
	}
	if day.Before(orig.Date) {
		return Reversal{Original: orig}, apierr.Validation(apierr.Issue{Field: "reversal_date", In: "body",
			Rule: "not_before_original", Issue: "a storno is not dated before the entry it reverses, " +
				orig.Date.Format(time.DateOnly)})
	}
	p, err := s.covering(ctx, company, day, apierr.PeriodLocked, StornoSource(orig))
	if err != nil {
		return Reversal{Original: orig}, err
	}
	st, err := s.storno(ctx, company, &orig, p.ID, day, depth)
	if err != nil {
		return Reversal{Original: orig}, err
	}
	r := Reversal{Original: orig, Storno: st}
	if s.Reversed != nil {
		if err := s.Reversed(ctx, company, orig, st); err != nil {
			return r, err
		}
	}
	_, err = outbox.Emit(ctx, s.db, company, EventReversed, map[string]any{
		"original": Snapshot(orig), "reversal": Snapshot(st)})
	return r, err
}

// Correction describes the replacement of a posted entry.
type Correction struct {
	// Description of the replacement; nil keeps the original's.
	Description *string
	Lines       []Line
	AllowDeep   bool
}

// Correct replaces the posted entry id (BFL 5 kap. 5 §): a storno and a
// replacement with c's lines, both on the original's date and in its
// period.
func (s *Store) Correct(ctx context.Context, company, id uuid.UUID, c Correction) (Reversal, error) {
	orig, depth, err := s.reversible(ctx, company, id, c.AllowDeep)
	if err != nil {
		return Reversal{Original: orig}, err
	}
	if orig.SourceType == SourceOpeningBalance {
		return Reversal{Original: orig}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
			"reason": "opening_balance_entry", "journal_entry_id": id,
			"hint": "reverse it and set the opening balance again with POST /fiscal-periods/{id}/opening-balances/manual"})
	}
	desc := orig.Description
	if c.Description != nil {
		desc = *c.Description
	}
	repl := Input{PeriodID: orig.PeriodID, Date: orig.Date, Description: desc, Series: orig.Series,
		SourceType: SourceCorrection, SourceID: orig.SourceID, Lines: c.Lines, CorrectionOfID: &orig.ID,
		ChainDepth: depth, Counterparty: orig.Counterparty}
	// The replacement is checked before anything is posted, so its errors
	// name the caller's lines.
	if err := Check(&repl, true); err != nil {
		return Reversal{Original: orig}, err
	}
	if MeaninglessLines(orig.Lines, repl.Lines) && desc == orig.Description {
		return Reversal{Original: orig}, apierr.New(apierr.MeaninglessCorrection, map[string]any{
			"reason": "no_change", "journal_entry_id": id})
	}
	return s.replace(ctx, company, &orig, depth, repl)
}

// replace posts the storno of orig on its own date, then the replacement.
func (s *Store) replace(ctx context.Context, company uuid.UUID, orig *Entry, depth int, repl Input) (Reversal, error) {
	st, err := s.storno(ctx, company, orig, orig.PeriodID, orig.Date, depth)
	if err != nil {
		return Reversal{Original: *orig}, err
	}
	r := Reversal{Original: *orig, Storno: st}
	if _, err := s.prepare(ctx, company, &repl, true); err != nil {
		return r, err
	}
	e, err := s.insertEntry(ctx, company, repl)
	if err != nil {
		return r, err
	}
	if err := s.post(ctx, company, &e, nil); err != nil {
		return r, err
	}
	moved, err := s.moveUnderlag(ctx, company, *orig, e)
	if err != nil {
		return r, err
	}
	e.HasDocument = moved > 0
	if s.Replaced != nil {
		if err := s.Replaced(ctx, company, *orig, e); err != nil {
			return r, err
		}
	}
	if err := s.record(ctx, company, audit.Correct, fmt.Sprintf("Verifikation %s rättades med %s och %s",
		orig.Voucher(), st.Voucher(), e.Voucher()), nil, &e); err != nil {
		return r, err
	}
	r.Replacement = &e
	_, err = outbox.Emit(ctx, s.db, company, EventCorrected, map[string]any{
		"original": Snapshot(r.Original), "reversal": Snapshot(st), "corrected": Snapshot(e)})
	return r, err
}

// moveUnderlag hands the underlag of orig to its replacement e (correct
// and redate; a storno leaves it where it is): a line link follows to the
// line of the same sort order.
func (s *Store) moveUnderlag(ctx context.Context, company uuid.UUID, orig, e Entry) (int, error) {
	if s.MoveUnderlag == nil {
		return 0, nil
	}
	bySort := make(map[int]uuid.UUID, len(e.Lines))
	for _, l := range e.Lines {
		bySort[l.SortOrder] = l.ID
	}
	lines := map[uuid.UUID]uuid.UUID{}
	for _, l := range orig.Lines {
		if id, ok := bySort[l.SortOrder]; ok {
			lines[l.ID] = id
		}
	}
	return s.MoveUnderlag(ctx, company, orig.ID, e.ID, lines)
}

// Redate moves the posted entry id to day: a storno on its own date and a
// copy on the new one. The new date's period must exist and take
// postings (NO_OPEN_PERIOD_FOR_DATE, TARGET_PERIOD_CLOSED,
// TARGET_PERIOD_LOCKED).
func (s *Store) Redate(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (Reversal, error) {
	orig, depth, err := s.reversible(ctx, company, id, allowDeep)
	if err != nil {
		return Reversal{Original: orig}, err
	}
	if day.Equal(orig.Date) {
		return Reversal{Original: orig}, apierr.New(apierr.MeaninglessCorrection, map[string]any{
			"reason": "no_date_change", "journal_entry_id": id})
	}
	if keepsDate[orig.SourceType] {
		return Reversal{Original: orig}, apierr.New(apierr.JournalRattelseRefused, map[string]any{
			"reason": "date_is_fixed", "source_type": orig.SourceType})
	}
	target, err := s.covering(ctx, company, day, "", SourceStorno)
	if err != nil {
		return Reversal{Original: orig}, err
	}
	repl := orig.input()
	repl.Lines = make([]Line, len(orig.Lines))
	for i, l := range orig.Lines {
		l.ID, l.AddedBy, l.StruckBy = uuid.Nil, nil, nil
		repl.Lines[i] = l
	}
	repl.PeriodID, repl.Date, repl.SourceType = target.ID, day, SourceCorrection
	repl.CorrectionOfID, repl.ReversesID, repl.ChainDepth = &orig.ID, nil, depth
	return s.replace(ctx, company, &orig, depth, repl)
}

// covering returns the period holding day, refusing one that takes no
// postings of source: with PERIOD_LOCKED when code says so, else with the
// TARGET_PERIOD_* codes of a redate.
func (s *Store) covering(ctx context.Context, company uuid.UUID, day time.Time, code apierr.Code, source string) (fiscal.Period, error) {
	p, err := s.periods.Covering(ctx, company, day)
	if err != nil {
		return p, err
	}
	if p.ID == uuid.Nil {
		return p, apierr.New(apierr.NoOpenPeriodForDate, map[string]any{"date": day.Format(time.DateOnly)})
	}
	c, err := s.company(ctx, company)
	if err != nil {
		return p, err
	}
	reason := Closedness(p, c.LockedThrough, day, source)
	switch {
	case reason == "":
		return p, nil
	case code != "":
		return p, periodLocked(code, p, c.LockedThrough, reason)
	case reason == reasonClosed:
		return p, periodLocked(apierr.TargetPeriodClosed, p, c.LockedThrough, reason)
	}
	return p, periodLocked(apierr.TargetPeriodLocked, p, c.LockedThrough, reason)
}

// MeaninglessLines reports whether b books exactly what a does, line for
// line in any order.
func MeaninglessLines(a, b []Line) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(l Line) string {
		return fmt.Sprintf("%s|%s|%s", l.Account, l.Debit, l.Credit)
	}
	count := map[string]int{}
	for _, l := range a {
		count[key(l)]++
	}
	for _, l := range b {
		count[key(l)]--
		if count[key(l)] < 0 {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
