package sieimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
	"github.com/kontera/kontera/internal/store"
)

// The operations an import runs as.
const (
	OpImport = "import.sie"
	OpUndo   = "import.sie.undo"
)

// The phases of an import's run.
const (
	phaseValidating  = "validating"
	phaseSuperseding = "superseding"
	phasePreparing   = "preparing"
	phaseVouchers    = "vouchers"
	phaseChecking    = "checking"
	phaseReversing   = "reversing"
)

// Books is what an import reads of the company beyond its own tables.
type Books struct {
	// OrgNumber is the company's organisation number, for the warning a
	// file of another company gets.
	OrgNumber func(ctx context.Context, company uuid.UUID) (string, error)
	// DefaultSeries is the series a voucher without one goes into.
	DefaultSeries func(ctx context.Context, company uuid.UUID) (string, error)
	// PeriodsChanged is told when an import opened a fiscal year (the
	// tax deadlines follow the years).
	PeriodsChanged func(ctx context.Context, company uuid.UUID) error
}

// Importer runs imports: the two passes, their chunks, and undo.
type Importer struct {
	db      *store.DB
	Files   *Files
	Uploads *Uploads
	Imports *Imports
	ops     *jobs.Store
	ledger  *ledger.Store
	chart   *chart.Store
	dims    *dimensions.Store
	periods *fiscal.Store
	audit   *audit.Store
	books   Books
	// Batch is how many vouchers a step posts.
	Batch int
}

// New returns an importer on db.
func New(db *store.DB, ops *jobs.Store, l *ledger.Store, c *chart.Store, d *dimensions.Store, p *fiscal.Store,
	a *audit.Store, b Books) *Importer {
	files := NewFiles(db)
	return &Importer{db: db, Files: files, Uploads: &Uploads{db: db, files: files}, Imports: &Imports{db: db}, ops: ops,
		ledger: l, chart: c, dims: d, periods: p, audit: a, books: b, Batch: ledger.BatchSize}
}

// params are an import operation's parameters.
type params struct {
	ImportID uuid.UUID `json:"import_id"`
}

// Step runs the next step of an import or its undo (jobs.Step).
func (im *Importer) Step(ctx context.Context, run *jobs.Run) (bool, any, error) {
	var p params
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return false, nil, err
	}
	i, err := im.Imports.Get(ctx, run.CompanyID, p.ImportID, true)
	if err != nil {
		return false, nil, err
	}
	if i.OperationID != run.ID {
		// A later run of the import took over; this one has nothing to do.
		return false, map[string]any{"import_id": i.ID, "state": i.State, "superseded_by_operation_id": i.OperationID}, nil
	}
	if run.Type == OpUndo {
		return im.undoStep(ctx, run, &i)
	}
	phase := ""
	if i.Phase != nil {
		phase = *i.Phase
	}
	switch phase {
	case "", phaseValidating:
		return im.validate(ctx, run, &i)
	case phaseSuperseding:
		return im.supersede(ctx, run, &i)
	case phasePreparing:
		return im.prepare(ctx, run, &i)
	case phaseVouchers:
		return im.post(ctx, run, &i)
	case phaseChecking:
		return im.check(ctx, &i)
	}
	return false, nil, fmt.Errorf("sieimport: import %s in unknown phase %q", i.ID, phase)
}

// Failed records how a run ended when it failed (jobs.FailFunc): an
// import that wrote nothing is failed (with the file's problems); one
// that committed chunks is paused, to be resumed or undone; an undo that
// stopped stays undoing, to be resumed. The client reads the import's id
// and state in the failure's details.
func (im *Importer) Failed(ctx context.Context, run *jobs.Run, f jobs.Failure) (jobs.Failure, error) {
	var p params
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return f, err
	}
	i, err := im.Imports.Get(ctx, run.CompanyID, p.ImportID, true)
	if err != nil || i.OperationID != run.ID {
		return f, err
	}
	if run.Type == OpImport {
		cp := i.Checkpoint()
		wrote := cp.Reversed > 0 || (i.Phase != nil && *i.Phase != phaseValidating && *i.Phase != phasePreparing) ||
			(i.Phase != nil && *i.Phase == phasePreparing && i.Supersedes != nil)
		if wrote {
			i.State = Paused
		} else {
			i.State = Failed
			now := time.Now()
			i.CompletedAt = &now
		}
		errs := []sie.Problem{}
		if list, ok := f.Details["errors"].([]sie.Problem); ok {
			errs = list
		} else {
			errs = append(errs, sie.Problem{Issue: f.Code + ": " + f.MessageEn})
		}
		b, _ := json.Marshal(errs)
		i.ErrorsJSON = b
	}
	if err := im.Imports.Save(ctx, &i); err != nil {
		return f, err
	}
	d := map[string]any{}
	for k, v := range f.Details {
		d[k] = v
	}
	d["import_id"], d["state"] = i.ID, i.State
	f.Details = d
	return f, im.record(ctx, &i, "SIE-import "+i.Filename+" avbröts ("+string(i.State)+")")
}

// open reads the import's file from offset on.
func (im *Importer) open(ctx context.Context, i *Import, offset int64) io.Reader {
	return im.Files.Open(ctx, i.CompanyID, i.SHA256, offset)
}

// validate is pass 1: the whole file read and checked before anything is
// written, and the year it goes into found.
func (im *Importer) validate(ctx context.Context, run *jobs.Run, i *Import) (bool, any, error) {
	var sn sie.Sniffer
	if _, err := io.Copy(&sn, im.open(ctx, i, 0)); err != nil {
		return false, nil, err
	}
	s, probs, err := Scan(im.open(ctx, i, 0), sn.Encoding())
	if err != nil {
		return false, nil, err
	}
	if len(probs) > 0 {
		return false, nil, apierr.New(apierr.SIEImportInvalidFile, map[string]any{"errors": probs,
			"error_count": len(probs), "import_id": i.ID})
	}
	p, _, err := im.target(ctx, i.CompanyID, s)
	if err != nil {
		return false, nil, err
	}
	opts := i.Options()
	if p != nil {
		i.PeriodID = &p.ID
		if opts.OnExistingPeriod != "replace" {
			if err := im.vacant(ctx, i.CompanyID, p.ID); err != nil {
				return false, nil, err
			}
		}
	}
	warnings := s.Warnings
	if org, err := im.books.OrgNumber(ctx, i.CompanyID); err == nil && s.OrgNumber != "" && org != "" &&
		identifier.Digits(org) != identifier.Digits(s.OrgNumber) {
		warnings = append(warnings, Warning{Code: WarnOrgNumber,
			Message:   "Filen gäller organisationsnummer " + s.OrgNumber + ", inte företagets " + org + ".",
			MessageEn: "The file is for organisation number " + s.OrgNumber + ", not the company's " + org + ".",
			Details:   map[string]any{"file_org_number": s.OrgNumber, "company_org_number": org}})
	} else if err != nil {
		return false, nil, err
	}
	s.Warnings = nil
	i.SummaryJSON, _ = json.Marshal(s)
	i.WarningsJSON = warningsJSON(warnings)
	i.State = Running
	next := phasePreparing
	if opts.OnExistingPeriod == "replace" {
		next = phaseSuperseding
	}
	i.Phase = &next
	run.Progress(jobs.Progress{Phase: phaseValidating, Current: s.Vouchers, Total: s.Vouchers})
	return true, nil, im.Imports.Save(ctx, i)
}

// warningsJSON is warnings as stored: a JSON array, empty when none.
func warningsJSON(w []Warning) []byte {
	if w == nil {
		w = []Warning{}
	}
	b, _ := json.Marshal(w)
	return b
}

// notEmpty is the refusal of a year that holds posted entries already.
func notEmpty(period uuid.UUID, n int, imports []uuid.UUID) error {
	return apierr.New(apierr.SIEImportPeriodNotEmpty, map[string]any{"fiscal_period_id": period, "count": n,
		"import_ids": imports})
}

// supersede reverses, a chunk per step, what the import it replaces
// wrote; that import is then undone.
func (im *Importer) supersede(ctx context.Context, run *jobs.Run, i *Import) (bool, any, error) {
	prev, err := im.Imports.Get(ctx, i.CompanyID, *i.Supersedes, true)
	if err != nil {
		return false, nil, err
	}
	cp := i.Checkpoint()
	n, err := im.reverse(ctx, &prev, &cp.SupersededTo)
	if err != nil {
		return false, nil, err
	}
	cp.Reversed += n
	i.CheckpointJSON, _ = json.Marshal(cp)
	if n == 0 {
		now := time.Now()
		prev.State, prev.UndoneAt = Undone, &now
		done := "superseded"
		prev.Phase = &done
		if err := im.Imports.Save(ctx, &prev); err != nil {
			return false, nil, err
		}
		if err := im.record(ctx, &prev, "SIE-import "+prev.Filename+" ersattes av en ny import"); err != nil {
			return false, nil, err
		}
		next := phasePreparing
		i.Phase = &next
	}
	run.Progress(jobs.Progress{Phase: phaseSuperseding, Current: cp.Reversed})
	return true, nil, im.Imports.Save(ctx, i)
}

// post is pass 2: the next chunk of vouchers from the checkpoint,
// through ledger.PostBatch, with the corrections the file carries.
func (im *Importer) post(ctx context.Context, run *jobs.Run, i *Import) (bool, any, error) {
	s := i.Summary()
	cp := i.Checkpoint()
	series, err := im.books.DefaultSeries(ctx, i.CompanyID)
	if err != nil {
		return false, nil, err
	}
	rd := sie.NewReaderAt(im.open(ctx, i, cp.Offset), s.Encoding, cp.Offset, cp.Line)
	var batch []Posting
	read, lines, eof := 0, 0, false
	for read < im.Batch {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			eof = true
			break
		}
		if err != nil {
			return false, nil, err
		}
		if rec.Label != "#VER" {
			continue
		}
		read++
		v, probs := sie.ParseVoucher(rec)
		if len(probs) > 0 {
			return false, nil, apierr.New(apierr.SIEImportInvalidFile, map[string]any{"errors": probs})
		}
		p, ok := plan(v, *i.PeriodID, i.ID, series, s, cp.Offsets)
		if !ok {
			continue
		}
		lines += len(p.Entry.Lines)
		batch = append(batch, p)
	}
	if !eof {
		// The next step starts where this chunk ends.
		cp.Offset, cp.Line = rd.Offset(), rd.Line()
	}
	if err := im.follow(ctx, i, batch, &cp); err != nil {
		return false, nil, err
	}
	entries := make([]ledger.BatchEntry, len(batch))
	for k := range batch {
		entries[k] = batch[k].Entry
	}
	posted, err := im.ledger.PostBatch(ctx, i.CompanyID, entries)
	if err != nil {
		return false, nil, err
	}
	for k, p := range batch {
		if len(p.Struck) == 0 && len(p.Added) == 0 {
			continue
		}
		strike := make([]uuid.UUID, len(p.Struck))
		for n, at := range p.Struck {
			strike[n] = posted[k].Lines[at].ID
		}
		if err := im.ledger.StrikeImported(ctx, i.CompanyID, posted[k].ID, strike, p.Added, p.Signature); err != nil {
			return false, nil, err
		}
	}
	cp.Next += read
	cp.Posted += len(posted)
	cp.Lines += lines
	i.CheckpointJSON, _ = json.Marshal(cp)
	if eof || cp.Next >= s.Vouchers {
		next := phaseChecking
		i.Phase = &next
	}
	run.Progress(jobs.Progress{Phase: phaseVouchers, Current: cp.Next, Total: s.Vouchers})
	return true, nil, im.Imports.Save(ctx, i)
}

// follow moves a chunk's numbers past what its series took meanwhile
// (a verifikat posted by hand while the import was paused): numbers are
// never reused, so the series continues after it, and the shift is
// warned about and kept for the chunks that follow.
func (im *Importer) follow(ctx context.Context, i *Import, batch []Posting, cp *Checkpoint) error {
	first := map[string]Posting{}
	for _, p := range batch {
		if n := p.Entry.Number; n > 0 {
			if f, ok := first[p.Entry.Series]; !ok || n < f.Entry.Number {
				first[p.Entry.Series] = p
			}
		}
	}
	if len(first) == 0 {
		return nil
	}
	last, err := im.ledger.LastNumbers(ctx, i.CompanyID, *i.PeriodID)
	if err != nil {
		return err
	}
	warnings := i.Warnings()
	for _, series := range sortedKeys(first) {
		f := first[series]
		if f.Entry.Number > last[series] {
			continue
		}
		shift := last[series] - f.Entry.Number + 1
		if cp.Offsets == nil {
			cp.Offsets = map[string]int{}
		}
		cp.Offsets[series] += shift
		for k := range batch {
			if batch[k].Entry.Series == series && batch[k].Entry.Number > 0 {
				batch[k].Entry.Number += shift
			}
		}
		w := renumbered(series, cp.Offsets[series])
		w.Details["from_file_number"] = f.FileNumber
		warnings = append(warnings, w)
	}
	i.WarningsJSON = warningsJSON(warnings)
	return nil
}

// check ends an import: the books compared with the file's own figures,
// and the result.
func (im *Importer) check(ctx context.Context, i *Import) (bool, any, error) {
	s := i.Summary()
	p, err := im.periods.Get(ctx, i.CompanyID, *i.PeriodID)
	if err != nil {
		return false, nil, err
	}
	bal, err := im.ledger.Balances(ctx, i.CompanyID, p.ID)
	if err != nil {
		return false, nil, err
	}
	balances := map[string]money.Amount{}
	for _, b := range bal {
		balances[b.Account] = b.Amount
	}
	turnover, err := im.ledger.Window(ctx, i.CompanyID, p.Start, p.End, "0000", "9999", false)
	if err != nil {
		return false, nil, err
	}
	months := map[string]money.Amount{}
	for _, t := range turnover {
		months[monthKey(t.Account, t.Month)] = t.Debit.Sub(t.Credit)
	}
	sheet, err := im.sheet(ctx, i.CompanyID, s)
	if err != nil {
		return false, nil, err
	}
	bc := compare(s, sheet, balances, months)
	warnings := i.Warnings()
	if !bc.Balanced {
		warnings = append(warnings, Warning{Code: WarnMismatch,
			Message:   fmt.Sprintf("%d belopp i böckerna skiljer sig från filens egna (#UB, #RES, #PSALDO, #IB); se result.balance_check.", len(bc.Mismatches)),
			MessageEn: fmt.Sprintf("%d figures in the books differ from the file's own (#UB, #RES, #PSALDO, #IB); see result.balance_check.", len(bc.Mismatches)),
			Details:   map[string]any{"mismatches": len(bc.Mismatches)}})
	}
	cp := i.Checkpoint()
	res := Result{}
	if r := i.Result(); r != nil {
		res = *r
	}
	res.Series = map[string]SeriesResult{}
	for name, st := range s.Series {
		res.Series[name] = SeriesResult{Vouchers: st.Count, First: st.Min, Last: st.Max, Offset: cp.Offsets[name]}
	}
	res.ImportID, res.PeriodID, res.Encoding, res.Vouchers = i.ID, p.ID, s.Encoding, s.Vouchers
	res.VouchersPosted, res.LinesPosted, res.ZeroRows, res.Empty, res.Corrected = cp.Posted, cp.Lines, s.ZeroRows, s.Empty, s.Corrected
	res.Checksum, res.BalanceCheck, res.Warnings, res.Reversed = s.Checksum, bc, warnings, cp.Reversed
	if res.Warnings == nil {
		res.Warnings = []Warning{}
	}
	i.ResultJSON, _ = json.Marshal(res)
	i.WarningsJSON = warningsJSON(warnings)
	now := time.Now()
	i.State, i.CompletedAt = Completed, &now
	done := "completed"
	i.Phase = &done
	if err := im.Imports.Save(ctx, i); err != nil {
		return false, nil, err
	}
	if err := im.record(ctx, i, fmt.Sprintf("SIE-import %s slutförd: %d verifikationer bokförda", i.Filename, cp.Posted)); err != nil {
		return false, nil, err
	}
	return false, res, nil
}

// record audits a change of the import's state.
func (im *Importer) record(ctx context.Context, i *Import, desc string) error {
	return im.audit.Record(ctx, audit.Change{CompanyID: i.CompanyID, Action: audit.Update, Table: "sie_imports",
		RecordID: i.ID.String(), Description: desc,
		New: audit.Of(map[string]any{"state": i.State, "phase": i.Phase, "operation_id": i.OperationID})})
}
