package sieimport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
)

// reverse posts, through ledger.PostBatch, the stornos of the next chunk
// of what imp wrote that still stands, down from *at: each dated as its
// original, in its series, numbered after the series' last. It answers
// how many, and moves *at on; 0 when nothing stands any more. The year
// before that the import made from the file's balances (closed outside
// Kontera) is opened again and its few entries reversed first, so the
// walk down the import's own year meets no voucher of another year.
func (im *Importer) reverse(ctx context.Context, imp *Import, at **ledger.Position) (int, error) {
	if made := imp.Checkpoint().PreviousYear; *at == nil && made != nil {
		p, err := im.periods.Hold(ctx, imp.CompanyID, *made)
		if err != nil {
			return 0, err
		}
		if p.Closed && p.ClosedExternally {
			if _, err := im.periods.Reopen(ctx, imp.CompanyID, p); err != nil {
				return 0, err
			}
		}
		entries, err := im.ledger.Imported(ctx, imp.CompanyID, imp.ID, made, nil, im.Batch)
		if err != nil {
			return 0, err
		}
		if err := im.storno(ctx, imp, entries); err != nil {
			return 0, err
		}
	}
	entries, err := im.ledger.Imported(ctx, imp.CompanyID, imp.ID, imp.PeriodID, *at, im.Batch)
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	last := entries[len(entries)-1]
	*at = &ledger.Position{Series: last.Series, Number: last.Number}
	return len(entries), im.storno(ctx, imp, entries)
}

// storno posts the stornos of entries imp wrote, in one batch.
func (im *Importer) storno(ctx context.Context, imp *Import, entries []ledger.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	id := imp.ID
	batch := make([]ledger.BatchEntry, len(entries))
	for k, e := range entries {
		lines := make([]ledger.Line, len(e.Lines))
		for n, l := range e.Lines {
			lines[n] = ledger.Line{Account: l.Account, Debit: l.Credit, Credit: l.Debit, Description: l.Description,
				Dimensions: l.Dimensions, SortOrder: n}
		}
		orig := e.ID
		desc := []rune("Storno av " + e.Voucher() + ", SIE-import ångrad: " + e.Description)
		if len(desc) > 500 {
			desc = desc[:500]
		}
		batch[k] = ledger.BatchEntry{Import: &id, Input: ledger.Input{PeriodID: e.PeriodID, Date: e.Date,
			Description: string(desc), Series: e.Series, SourceType: ledger.StornoSource(e), ReversesID: &orig,
			ChainDepth: e.ChainDepth + 1, Lines: lines}}
	}
	_, err := im.ledger.PostBatch(ctx, imp.CompanyID, batch)
	return err
}

// undoStep reverses the next chunk of an import being undone; the last
// step marks it undone.
func (im *Importer) undoStep(ctx context.Context, run *jobs.Run, i *Import) (bool, any, error) {
	cp := i.Checkpoint()
	n, err := im.reverse(ctx, i, &cp.UndoneTo)
	if err != nil {
		return false, nil, err
	}
	cp.Reversed += n
	cp.Undone += n
	i.CheckpointJSON, _ = json.Marshal(cp)
	if n > 0 {
		run.Progress(jobs.Progress{Phase: phaseReversing, Current: cp.Undone})
		return true, nil, im.Imports.Save(ctx, i)
	}
	now := time.Now()
	i.State, i.UndoneAt = Undone, &now
	done := "undone"
	i.Phase = &done
	if err := im.Imports.Save(ctx, i); err != nil {
		return false, nil, err
	}
	if err := im.record(ctx, i, "SIE-import "+i.Filename+" ångrad"); err != nil {
		return false, nil, err
	}
	return false, map[string]any{"import_id": i.ID, "state": i.State, "reversed": cp.Undone}, nil
}

// Action is what resume and undo answer.
type Action struct {
	ImportID    uuid.UUID
	Action      string
	State       State
	Phase       *string
	Accepted    bool
	OperationID *uuid.UUID
	// WouldReverse is what a dry run of undo counts.
	WouldReverse *int
	// Queued is true when the action queued a run now (202), false when
	// the import was answered as it is or the run was a dry one.
	Queued bool
}

func (i Import) action(kind string) Action {
	op := i.OperationID
	return Action{ImportID: i.ID, Action: kind, State: i.State, Phase: i.Phase, Accepted: true, OperationID: &op}
}

// conflict is a refusal of an action on an import, with why.
func conflict(i Import, reason string, more map[string]any) error {
	d := map[string]any{"import_id": i.ID, "state": i.State, "reason": reason}
	for k, v := range more {
		d[k] = v
	}
	return apierr.New(apierr.SIEImportActionConflict, d)
}

// active reports whether the import's current operation is queued or
// running.
func (im *Importer) active(ctx context.Context, i Import) (bool, error) {
	op, err := im.ops.Get(ctx, i.OperationID)
	if err != nil {
		return false, err
	}
	return op.Status == jobs.Queued || op.Status == jobs.Running, nil
}

// otherRun refuses an action while another import of the company runs.
func (im *Importer) otherRun(ctx context.Context, i Import) error {
	others, err := im.Imports.Active(ctx, i.CompanyID, i.ID)
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.State == Paused {
			continue
		}
		return conflict(i, "another_run_active", map[string]any{"active_import_id": o.ID})
	}
	return nil
}

// Undo queues the batch storno of everything import id wrote (its
// opening balance too); a dry run counts what it would reverse. Refused
// (SIE_IMPORT_ACTION_CONFLICT) while another run is active, while a
// reversal is in progress, while an imported voucher has a live
// correction, or when the year is closed or locked.
func (im *Importer) Undo(ctx context.Context, company, id uuid.UUID, dry bool) (Action, error) {
	i, err := im.acted(ctx, company, id)
	if err != nil {
		return Action{}, err
	}
	switch i.State {
	case Undone:
		return i.action("undo"), nil
	case Failed:
		return Action{}, conflict(i, "nothing_written", nil)
	case Queued, Running:
		return Action{}, conflict(i, "another_run_active", nil)
	case Undoing:
		if on, err := im.active(ctx, i); err != nil || on {
			if err == nil {
				err = conflict(i, "reversal_in_progress", map[string]any{"operation_id": i.OperationID})
			}
			return Action{}, err
		}
	}
	if err := im.otherRun(ctx, i); err != nil {
		return Action{}, err
	}
	corrected, err := im.ledger.ImportCorrections(ctx, company, id)
	if err != nil {
		return Action{}, err
	}
	if len(corrected) > 0 {
		return Action{}, conflict(i, "live_correction", map[string]any{"journal_entry_ids": corrected})
	}
	if i.PeriodID != nil {
		p, err := im.periods.Get(ctx, company, *i.PeriodID)
		if err != nil {
			return Action{}, err
		}
		switch p.State() {
		case fiscal.Closed:
			return Action{}, conflict(i, "period_closed", map[string]any{"fiscal_period_id": p.ID})
		case fiscal.Locked:
			return Action{}, conflict(i, "period_locked", map[string]any{"fiscal_period_id": p.ID})
		}
	}
	if dry {
		// Only a dry run counts: the undo itself starts at once, and its
		// operation reports how far it has come.
		n, err := im.ledger.ImportStanding(ctx, company, id)
		if err != nil {
			return Action{}, err
		}
		a := i.action("undo")
		a.OperationID, a.WouldReverse = nil, &n
		return a, nil
	}
	return im.requeue(ctx, &i, OpUndo, Undoing, phaseReversing, "SIE-import "+i.Filename+" ångras")
}

// Resume re-queues a paused or interrupted run from its last committed
// chunk (an interrupted undo as undo), for the user who started it or an
// owner or admin (else FORBIDDEN); a finished or running one is answered
// as it is.
func (im *Importer) Resume(ctx context.Context, company, id uuid.UUID, dry bool) (Action, error) {
	i, err := im.acted(ctx, company, id)
	if err != nil {
		return Action{}, err
	}
	a := audit.ActorFrom(ctx)
	mine := a.UserID != nil && i.StartedByUser != nil && *a.UserID == *i.StartedByUser ||
		a.ID != nil && i.StartedByKey != nil && *a.ID == *i.StartedByKey
	if access := auth.AccessFrom(ctx); !mine && (access == nil || access.RequireRole([]string{"owner", "admin"}) != nil) {
		return Action{}, apierr.New(apierr.Forbidden, map[string]any{"import_id": i.ID,
			"reason": "only the user who started the import, an owner or an admin resumes it"})
	}
	kind := "resume"
	if i.State == Undoing {
		kind = "undo"
	}
	switch i.State {
	case Completed, Failed, Undone:
		return i.action(kind), nil
	case Queued, Running, Undoing:
		if on, err := im.active(ctx, i); err != nil || on {
			return i.action(kind), err
		}
	}
	if err := im.otherRun(ctx, i); err != nil {
		return Action{}, err
	}
	if dry {
		out := i.action(kind)
		out.OperationID = nil
		return out, nil
	}
	if kind == "undo" {
		return im.requeue(ctx, &i, OpUndo, Undoing, phaseReversing, "Ångrandet av SIE-import "+i.Filename+" återupptogs")
	}
	phase := ""
	if i.Phase != nil {
		phase = *i.Phase
	}
	return im.requeue(ctx, &i, OpImport, Queued, phase, "SIE-import "+i.Filename+" återupptogs")
}

// requeue gives import i a new run of typ in state, from phase.
func (im *Importer) requeue(ctx context.Context, i *Import, typ string, state State, phase, desc string) (Action, error) {
	op, err := im.ops.Enqueue(ctx, i.CompanyID, typ, params{ImportID: i.ID})
	if err != nil {
		return Action{}, err
	}
	i.OperationID, i.State = op.ID, state
	if phase != "" {
		i.Phase = &phase
	}
	if err := im.Imports.Save(ctx, i); err != nil {
		return Action{}, err
	}
	kind := "resume"
	if typ == OpUndo {
		kind = "undo"
	}
	a := i.action(kind)
	a.Queued = true
	return a, im.record(ctx, i, desc)
}

// acted is the import id an action (resume, undo) is asked of, with the
// company's imports held for the request: the legacy version refused.
func (im *Importer) acted(ctx context.Context, company, id uuid.UUID) (Import, error) {
	if err := im.Imports.Lock(ctx, company); err != nil {
		return Import{}, err
	}
	i, err := im.Imports.Get(ctx, company, id, true)
	if err == nil && i.JobVersion < JobVersion {
		err = legacy(i)
	}
	return i, err
}

func legacy(i Import) error {
	return apierr.New(apierr.SIEImportLegacyReviewRequired, map[string]any{"import_id": i.ID, "job_version": i.JobVersion,
		"current_job_version": JobVersion})
}
