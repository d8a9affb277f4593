package sieimport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// JobVersion is the version of the import's run that writes an import
// now; an import written by an earlier one cannot be resumed or undone
// without review (SIE_IMPORT_LEGACY_REVIEW_REQUIRED).
const JobVersion = 1

// State is where an import is in its life.
type State string

// The states of an import: queued → running → completed | failed (the
// file refused, nothing written) | paused (stopped after committed
// chunks); a paused one is resumed (queued) or undone; completed or
// paused → undoing → undone.
const (
	Queued    State = "queued"
	Running   State = "running"
	Completed State = "completed"
	Failed    State = "failed"
	Paused    State = "paused"
	Undoing   State = "undoing"
	Undone    State = "undone"
)

// Holding reports whether an import in state s holds its year.
func (s State) Holding() bool { return s == Queued || s == Running || s == Paused || s == Undoing }

// Options are what the client chose for an import.
type Options struct {
	OnExistingPeriod   string     `json:"onExistingPeriod"`
	SupersedesImportID *uuid.UUID `json:"supersedesImportId,omitempty"`
	UpdateAccountNames bool       `json:"updateAccountNames"`
}

// Checkpoint is where the run stands after its last committed step.
type Checkpoint struct {
	// Next is the index of the next voucher to post, Offset and Line
	// where its #VER starts.
	Next   int   `json:"next_voucher"`
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	// Offsets shift a series' numbers past what the year holds already
	// (a replaced import's, an opening balance's).
	Offsets map[string]int `json:"series_offsets,omitempty"`
	Posted  int            `json:"posted"`
	Lines   int            `json:"lines"`
	// Reversed counts what an undo or a replacement reversed so far,
	// Undone what the import's own undo did of it.
	Reversed int `json:"reversed,omitempty"`
	Undone   int `json:"undone,omitempty"`
	// UndoneTo is where the import's own undo stands in its walk down the
	// vouchers; SupersededTo where the reversal of the import it replaces
	// stands in that one's.
	UndoneTo     *ledger.Position `json:"undone_to,omitempty"`
	SupersededTo *ledger.Position `json:"superseded_to,omitempty"`
	// PreviousYear is the year before the file's that the import made
	// from its #RAR -1 balances, closed outside Kontera: its undo opens
	// it again to reverse them.
	PreviousYear *uuid.UUID `json:"previous_year,omitempty"`
}

// Import is an SIE import as stored.
type Import struct {
	CompanyID      uuid.UUID       `db:"company_id"`
	ID             uuid.UUID       `db:"id"`
	State          State           `db:"state"`
	Phase          *string         `db:"phase"`
	SHA256         string          `db:"file_sha256"`
	Filename       string          `db:"filename"`
	OptionsJSON    json.RawMessage `db:"options"`
	Fingerprint    string          `db:"fingerprint"`
	PeriodID       *uuid.UUID      `db:"fiscal_period_id"`
	OperationID    uuid.UUID       `db:"operation_id"`
	JobVersion     int             `db:"job_version"`
	Supersedes     *uuid.UUID      `db:"supersedes_import_id"`
	StartedByUser  *uuid.UUID      `db:"started_by_user_id"`
	StartedByKey   *uuid.UUID      `db:"started_by_key_id"`
	CheckpointJSON []byte          `db:"checkpoint"`
	SummaryJSON    []byte          `db:"summary"`
	ResultJSON     []byte          `db:"result"`
	ErrorsJSON     []byte          `db:"errors"`
	WarningsJSON   json.RawMessage `db:"warnings"`
	CreatedAt      time.Time       `db:"created_at"`
	UpdatedAt      time.Time       `db:"updated_at"`
	CompletedAt    *time.Time      `db:"completed_at"`
	UndoneAt       *time.Time      `db:"undone_at"`
}

// Options reads the import's options.
func (i Import) Options() Options {
	var o Options
	_ = json.Unmarshal(i.OptionsJSON, &o)
	return o
}

// Checkpoint reads where the run stands.
func (i Import) Checkpoint() Checkpoint {
	var c Checkpoint
	if len(i.CheckpointJSON) > 0 {
		_ = json.Unmarshal(i.CheckpointJSON, &c)
	}
	return c
}

// Summary reads what pass 1 learnt, nil before it ran.
func (i Import) Summary() *Summary {
	if len(i.SummaryJSON) == 0 {
		return nil
	}
	var s Summary
	if json.Unmarshal(i.SummaryJSON, &s) != nil {
		return nil
	}
	return &s
}

// Warnings reads the import's warnings.
func (i Import) Warnings() []Warning {
	out := []Warning{}
	_ = json.Unmarshal(i.WarningsJSON, &out)
	return out
}

// Imports holds the SQL of sie_imports.
type Imports struct {
	db *store.DB
}

const importColumns = `company_id, id, state, phase, file_sha256, filename, options, fingerprint, fiscal_period_id,
	operation_id, job_version, supersedes_import_id, started_by_user_id, started_by_key_id, checkpoint, summary,
	result, errors, warnings, created_at, updated_at, completed_at, undone_at`

// Lock holds the company's imports for the unit of work: two requests
// to import at once are answered one after the other, the second seeing
// what the first did (the same import again, or another run active).
func (s *Imports) Lock(ctx context.Context, company uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('sie_imports:' || $1::text))`, company)
	return err
}

// Insert stores a new queued import.
func (s *Imports) Insert(ctx context.Context, i Import) (Import, error) {
	var out Import
	err := s.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO sie_imports (company_id, id, state, file_sha256, filename,
			options, fingerprint, fiscal_period_id, operation_id, job_version, supersedes_import_id,
			started_by_user_id, started_by_key_id)
		VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING `+importColumns,
		i.CompanyID, i.ID, i.SHA256, i.Filename, string(i.OptionsJSON), i.Fingerprint, i.PeriodID, i.OperationID,
		JobVersion, i.Supersedes, i.StartedByUser, i.StartedByKey)
	return out, err
}

// Get reads company's import id, locked for the unit of work when lock:
// SIE_IMPORT_NOT_FOUND when there is none.
func (s *Imports) Get(ctx context.Context, company, id uuid.UUID, lock bool) (Import, error) {
	var i Import
	q := `SELECT ` + importColumns + ` FROM sie_imports WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	err := s.db.Q(ctx).GetContext(ctx, &i, q, company, id)
	if store.NotFound(err) {
		return i, apierr.New(apierr.SIEImportNotFound, map[string]any{"import_id": id})
	}
	return i, err
}

// Retried finds the import an identical request made, unless it was
// undone or failed (a failed import wrote nothing: a retry is a new
// import).
func (s *Imports) Retried(ctx context.Context, company uuid.UUID, fingerprint string) (*Import, error) {
	var out []Import
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+importColumns+` FROM sie_imports
		WHERE company_id = $1 AND fingerprint = $2 AND state NOT IN ('undone', 'failed')`, company, fingerprint); err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// Made returns the import that made company's year period from its
// file's #RAR -1 balances (a year before its own), nil when none did.
func (s *Imports) Made(ctx context.Context, company, period uuid.UUID) (*Import, error) {
	var out []Import
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+importColumns+` FROM sie_imports
		WHERE company_id = $1 AND checkpoint->>'previous_year' = $2::text AND state IN ('completed', 'paused')`,
		company, period); err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// List returns up to limit+1 of company's imports, newest first, after
// the position after.
func (s *Imports) List(ctx context.Context, company uuid.UUID, after *cursor.Position, limit int) ([]Import, error) {
	var at *time.Time
	var id *uuid.UUID
	if after != nil {
		at, id = &after.At, &after.ID
	}
	out := []Import{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+importColumns+` FROM sie_imports
		WHERE company_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
		ORDER BY created_at DESC, id DESC LIMIT $4`, company, at, id, limit+1)
	return out, err
}

// Active returns company's imports in a state that holds their year
// other than id's own (uuid.Nil: all of them).
func (s *Imports) Active(ctx context.Context, company, except uuid.UUID) ([]Import, error) {
	out := []Import{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+importColumns+` FROM sie_imports
		WHERE company_id = $1 AND state IN ('queued', 'running', 'paused', 'undoing') AND id <> $2
		ORDER BY created_at`, company, except)
	return out, err
}

// Save writes the import's moving parts back.
func (s *Imports) Save(ctx context.Context, i *Import) error {
	return s.db.Q(ctx).GetContext(ctx, i, `UPDATE sie_imports SET state = $3, phase = $4, fiscal_period_id = $5,
			operation_id = $6, checkpoint = $7, summary = $8, result = $9, errors = $10, warnings = $11,
			completed_at = $12, undone_at = $13, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+importColumns,
		i.CompanyID, i.ID, i.State, i.Phase, i.PeriodID, i.OperationID, nullJSON(i.CheckpointJSON),
		nullJSON(i.SummaryJSON), nullJSON(i.ResultJSON), nullJSON(i.ErrorsJSON), string(i.WarningsJSON),
		i.CompletedAt, i.UndoneAt)
}

// Holds returns the imports of company that hold a year overlapping
// from..to.
func (s *Imports) Holds(ctx context.Context, company uuid.UUID, from, to time.Time) ([]Import, error) {
	out := []Import{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+importColumns+` FROM sie_imports i
		WHERE company_id = $1 AND state IN ('queued', 'running', 'paused', 'undoing')
		  AND EXISTS (SELECT 1 FROM fiscal_periods p WHERE p.company_id = i.company_id AND p.id = i.fiscal_period_id
		              AND p.period_start <= $3 AND p.period_end >= $2)
		ORDER BY created_at`, company, from, to)
	return out, err
}

func nullJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
