package sieimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/sie"
)

// Request is an import asked for: the file (kept already, or spooled and
// to be kept), its name and the client's options.
type Request struct {
	Filename string
	File     File
	// Body reads a spooled file from its start; nil when the company
	// keeps the file already (an upload).
	Body    io.ReadSeeker
	Options Options
}

// CheckName refuses a file whose name is not a SIE file's (.se, .sie,
// .si).
func CheckName(name string) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".se", ".sie", ".si":
		return nil
	}
	return apierr.New(apierr.SIEImportUnsupportedFile, map[string]any{"field": "file", "filename": name})
}

// ReadOptions reads the multipart options field (JSON): onExistingPeriod
// block (default) or replace, supersedesImportId (required with
// replace, refused without), updateAccountNames (default true).
func ReadOptions(raw string) (Options, error) {
	o := Options{OnExistingPeriod: "block", UpdateAccountNames: true}
	if strings.TrimSpace(raw) == "" {
		return o, nil
	}
	var in struct {
		OnExistingPeriod   *string    `json:"onExistingPeriod"`
		SupersedesImportID *uuid.UUID `json:"supersedesImportId"`
		UpdateAccountNames *bool      `json:"updateAccountNames"`
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	bad := func(field, rule, issue string) (Options, error) {
		return o, apierr.Validation(apierr.Issue{Field: "options." + field, In: "body", Rule: rule, Issue: issue})
	}
	if err := dec.Decode(&in); err != nil {
		return bad("", "json", "options must be a JSON object with onExistingPeriod, supersedesImportId and updateAccountNames")
	}
	if in.OnExistingPeriod != nil {
		o.OnExistingPeriod = *in.OnExistingPeriod
	}
	if o.OnExistingPeriod != "block" && o.OnExistingPeriod != "replace" {
		return bad("onExistingPeriod", "enum", "must be block or replace")
	}
	if in.UpdateAccountNames != nil {
		o.UpdateAccountNames = *in.UpdateAccountNames
	}
	o.SupersedesImportID = in.SupersedesImportID
	switch {
	case o.OnExistingPeriod == "replace" && o.SupersedesImportID == nil:
		return bad("supersedesImportId", "required", "replace names the import it replaces")
	case o.OnExistingPeriod == "block" && o.SupersedesImportID != nil:
		return bad("supersedesImportId", "replace_only", "only a replace names an import it replaces")
	}
	return o, nil
}

// fingerprint stands for a request: the file's bytes and the options, as
// normalised. An identical retry has the same.
func fingerprint(f File, o Options) string {
	b, _ := json.Marshal(o)
	h := sha256.Sum256([]byte(f.SHA256 + "\n" + string(b)))
	return hex.EncodeToString(h[:])
}

// Start keeps the file and queues its import (operation import.sie), in
// the unit of work of ctx. An identical retry, unless that import failed
// (it wrote nothing) or was undone, answers the import it made and runs
// nothing (retried true).
// Refused: while another import of the company runs
// (SIE_IMPORT_ACTION_CONFLICT, another_run_active); a replace by anyone
// but an owner or admin (FORBIDDEN) or of an import that is not a
// completed or paused one of the same year; a year that holds posted
// entries already, when the file names it (SIE_IMPORT_PERIOD_NOT_EMPTY).
func (im *Importer) Start(ctx context.Context, company uuid.UUID, req Request) (Import, jobs.Operation, bool, error) {
	var none Import
	if err := im.Imports.Lock(ctx, company); err != nil {
		return none, jobs.Operation{}, false, err
	}
	fp := fingerprint(req.File, req.Options)
	if prev, err := im.Imports.Retried(ctx, company, fp); err != nil || prev != nil {
		if err != nil {
			return none, jobs.Operation{}, false, err
		}
		op, err := im.ops.Get(ctx, prev.OperationID)
		return *prev, op, true, err
	}
	others, err := im.Imports.Active(ctx, company, uuid.Nil)
	if err != nil {
		return none, jobs.Operation{}, false, err
	}
	for _, o := range others {
		if o.State != Paused {
			return none, jobs.Operation{}, false, apierr.New(apierr.SIEImportActionConflict, map[string]any{
				"reason": "another_run_active", "import_id": o.ID, "state": o.State})
		}
	}
	var head io.Reader
	if req.Body != nil {
		if _, err := req.Body.Seek(0, io.SeekStart); err != nil {
			return none, jobs.Operation{}, false, err
		}
		head = req.Body
	} else {
		head = im.Files.Open(ctx, company, req.File.SHA256, 0)
	}
	year, err := header(head)
	if req.Body != nil {
		if _, serr := req.Body.Seek(0, io.SeekStart); err == nil {
			err = serr
		}
	}
	if err != nil {
		return none, jobs.Operation{}, false, err
	}
	var period *uuid.UUID
	if year != nil {
		all, err := im.periods.List(ctx, company)
		if err != nil {
			return none, jobs.Operation{}, false, err
		}
		for _, p := range all {
			if p.Start.Equal(year.Start) && p.End.Equal(year.End) {
				id := p.ID
				period = &id
			}
		}
	}
	if sup := req.Options.SupersedesImportID; sup != nil {
		if err := im.supersedable(ctx, company, *sup, period); err != nil {
			return none, jobs.Operation{}, false, err
		}
	} else if period != nil {
		if err := im.vacant(ctx, company, *period); err != nil {
			return none, jobs.Operation{}, false, err
		}
	}
	if req.Body != nil {
		if err := im.Files.Put(ctx, company, req.File, req.Body); err != nil {
			return none, jobs.Operation{}, false, err
		}
	}
	id := uuid.New()
	op, err := im.ops.Enqueue(ctx, company, OpImport, params{ImportID: id})
	if err != nil {
		return none, op, false, err
	}
	a := audit.ActorFrom(ctx)
	opts, _ := json.Marshal(req.Options)
	i, err := im.Imports.Insert(ctx, Import{CompanyID: company, ID: id, SHA256: req.File.SHA256, Filename: req.Filename,
		OptionsJSON: opts, Fingerprint: fp, PeriodID: period, OperationID: op.ID, Supersedes: req.Options.SupersedesImportID,
		StartedByUser: a.UserID, StartedByKey: a.ID})
	if err != nil {
		return i, op, false, err
	}
	return i, op, false, im.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "sie_imports",
		RecordID: i.ID.String(), Description: "SIE-import av " + i.Filename + " köades",
		New: audit.Of(map[string]any{"filename": i.Filename, "sha256": i.SHA256, "size": req.File.Size,
			"options": req.Options, "operation_id": op.ID})})
}

// supersedable refuses a replacement of import sup: only by an owner or
// admin, of a completed or paused import of the year the file names.
func (im *Importer) supersedable(ctx context.Context, company, sup uuid.UUID, period *uuid.UUID) error {
	if access := auth.AccessFrom(ctx); access == nil || access.RequireRole([]string{"owner", "admin"}) != nil {
		return apierr.New(apierr.Forbidden, map[string]any{"field": "options.supersedesImportId",
			"reason": "only an owner or admin replaces an import"})
	}
	prev, err := im.Imports.Get(ctx, company, sup, true)
	if apierr.Is(err, apierr.SIEImportNotFound) {
		return apierr.Validation(apierr.Issue{Field: "options.supersedesImportId", In: "body", Rule: "exists",
			Issue: "the company has no such import"})
	}
	if err != nil {
		return err
	}
	if prev.JobVersion < JobVersion {
		return legacy(prev)
	}
	if prev.State != Completed && prev.State != Paused {
		return apierr.Validation(apierr.Issue{Field: "options.supersedesImportId", In: "body", Rule: "state",
			Issue: "only a completed or paused import is replaced; this one is " + string(prev.State)})
	}
	if period == nil || prev.PeriodID == nil || *prev.PeriodID != *period {
		return apierr.Validation(apierr.Issue{Field: "options.supersedesImportId", In: "body", Rule: "same_year",
			Issue: "the import replaced must be of the fiscal year the file names (#RAR 0)"})
	}
	corrected, err := im.ledger.ImportCorrections(ctx, company, sup)
	if err != nil {
		return err
	}
	if len(corrected) > 0 {
		return conflict(prev, "live_correction", map[string]any{"journal_entry_ids": corrected})
	}
	return nil
}

// header reads a file's fiscal year (#RAR 0) from the records before its
// first voucher, nil when it names none there. Dates are ASCII, so any
// encoding reads them.
func header(r io.Reader) (*Span, error) {
	rd := sie.NewReader(r, sie.CP437)
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) || rec.Label == "#VER" {
			return nil, nil
		}
		if _, ok := sie.AsProblem(err); ok {
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.Label == "#RAR" && rec.Text(0) == "0" {
			start, ok1 := sie.Date(rec.Text(1))
			end, ok2 := sie.Date(rec.Text(2))
			if ok1 && ok2 {
				return &Span{Start: start, End: end}, nil
			}
			return nil, nil
		}
	}
}
