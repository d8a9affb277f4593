package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of the operations table.
type Store struct {
	db *store.DB
	// queued wakes an idle worker of this process once an operation it
	// queued has committed: it starts at once rather than at the next
	// poll, which stays for the operations other replicas queue.
	queued chan struct{}
}

// NewStore returns the operations store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db, queued: make(chan struct{}, 1)} }

const columns = `id, company_id, type, status, params, actor, progress, result, error, attempts, lease_until,
	created_at, started_at, completed_at`

// Enqueue queues an operation of typ for company with params, in the
// transaction of ctx: it exists only if the request that asked for it
// commits. The actor of ctx is kept for the audit trail of the run.
func (s *Store) Enqueue(ctx context.Context, company uuid.UUID, typ string, params any) (Operation, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return Operation{}, err
	}
	var o Operation
	err = s.db.Q(ctx).GetContext(ctx, &o, `INSERT INTO operations (company_id, type, params, actor)
		VALUES ($1, $2, $3, $4) RETURNING `+columns, company, typ, string(p), string(actorJSON(audit.ActorFrom(ctx))))
	if err == nil {
		store.AfterCommit(ctx, func(context.Context) {
			select {
			case s.queued <- struct{}{}:
			default: // a wake-up is pending already
			}
		})
	}
	return o, err
}

// Get returns operation id: OPERATION_NOT_FOUND when there is none.
func (s *Store) Get(ctx context.Context, id uuid.UUID) (Operation, error) {
	var o Operation
	err := s.db.Q(ctx).GetContext(ctx, &o, `SELECT `+columns+` FROM operations WHERE id = $1`, id)
	if store.NotFound(err) {
		return o, apierr.New(apierr.OperationNotFound, map[string]any{"operation_id": id})
	}
	return o, err
}

// Pending returns the company's queued or running operation of typ whose
// params contain match (a JSON object), if any: a second run of the same
// work is refused while one is under way.
func (s *Store) Pending(ctx context.Context, company uuid.UUID, typ string, match any) (*Operation, error) {
	m, err := json.Marshal(match)
	if err != nil {
		return nil, err
	}
	var out []Operation
	if err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns+` FROM operations
		WHERE company_id = $1 AND type = $2 AND status IN ('queued', 'running') AND params @> $3::jsonb
		ORDER BY created_at LIMIT 1`, company, typ, string(m)); err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// claim takes the oldest operation of a type in types that is queued, or
// running under a lease that ran out (its worker died): it becomes
// running under a new lease, one attempt more. SKIP LOCKED lets workers
// in every replica claim side by side. Nil when there is nothing to do.
func (s *Store) claim(ctx context.Context, types []string, lease time.Duration) (*Operation, error) {
	var o Operation
	err := s.db.GetContext(ctx, &o, `
		UPDATE operations SET status = 'running', attempts = attempts + 1,
			lease_until = now() + $2 * interval '1 millisecond', started_at = coalesce(started_at, now())
		WHERE id = (SELECT id FROM operations
			WHERE type = ANY($1) AND (status = 'queued' OR (status = 'running' AND lease_until < now()))
			ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+columns, pq.StringArray(types), lease.Milliseconds())
	if store.NotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// extend renews the lease of attempt of operation id, outside its run's
// transaction; false when the operation is no longer that attempt's.
func (s *Store) extend(ctx context.Context, id uuid.UUID, attempt int, lease time.Duration) (bool, error) {
	r, err := s.db.ExecContext(ctx, `UPDATE operations SET lease_until = now() + $3 * interval '1 millisecond'
		WHERE id = $1 AND attempts = $2 AND status = 'running'`, id, attempt, lease.Milliseconds())
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

// stepped records, in the unit of a step that is not the last, that
// attempt of operation id still runs: its lease renewed and its
// progress, if given. False when another worker took the operation over:
// the step must then roll back.
func (s *Store) stepped(ctx context.Context, id uuid.UUID, attempt int, lease time.Duration, p *Progress) (bool, error) {
	var prog any
	if p != nil {
		b, _ := json.Marshal(p)
		prog = string(b)
	}
	r, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE operations SET lease_until = now() + $3 * interval '1 millisecond',
			progress = coalesce($4::jsonb, progress)
		WHERE id = $1 AND attempts = $2 AND status = 'running'`, id, attempt, lease.Milliseconds(), prog)
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

// progress records how far attempt of operation id has come, outside its
// run's transaction so pollers see it while the run goes on.
func (s *Store) progress(ctx context.Context, id uuid.UUID, attempt int, p Progress) error {
	b, _ := json.Marshal(p)
	_, err := s.db.ExecContext(ctx, `UPDATE operations SET progress = $3
		WHERE id = $1 AND attempts = $2 AND status = 'running'`, id, attempt, string(b))
	return err
}

// EventCompleted is announced when an operation ends, succeeded or failed.
const EventCompleted = "operation.completed"

// finish ends attempt of operation op with status and its result or
// error, in the transaction of ctx (the run's own, for a success, so the
// work and its record commit together), and announces it
// (operation.completed). False when another worker took the operation
// over meanwhile: the caller must then roll back.
func (s *Store) finish(ctx context.Context, op Operation, status Status, result any, fail *Failure) (bool, error) {
	var res, errJSON any
	if result != nil {
		b, err := json.Marshal(result)
		if err != nil {
			return false, err
		}
		res = string(b)
	}
	if fail != nil {
		b, _ := json.Marshal(fail)
		errJSON = string(b)
	}
	r, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE operations SET status = $3, result = $4, error = $5,
			lease_until = NULL, completed_at = now()
		WHERE id = $1 AND attempts = $2 AND status = 'running'`, op.ID, op.Attempts, status, res, errJSON)
	if err != nil {
		return false, err
	}
	if n, err := r.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	_, err = outbox.Emit(ctx, s.db, op.CompanyID, EventCompleted, map[string]any{"operation_id": op.ID, "type": op.Type,
		"status": status, "result": result, "error": fail})
	return err == nil, err
}

// retryLater leaves attempt of operation id to be claimed again after
// delay, once a passing failure (a lost connection) ended it.
func (s *Store) retryLater(ctx context.Context, id uuid.UUID, attempt int, delay time.Duration) error {
	_, err := s.db.ExecContext(ctx, `UPDATE operations SET lease_until = now() + $3 * interval '1 millisecond'
		WHERE id = $1 AND attempts = $2 AND status = 'running'`, id, attempt, delay.Milliseconds())
	return err
}

// Backlog is the unfinished work of one operation type: how many are
// queued or running, and how long the oldest has waited.
type Backlog struct {
	Type   string  `db:"type"`
	Count  int     `db:"n"`
	Oldest float64 `db:"oldest_seconds"`
}

// Backlogs returns the unfinished operations per type.
func (s *Store) Backlogs(ctx context.Context) ([]Backlog, error) {
	out := []Backlog{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT type, count(*) AS n,
		extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS oldest_seconds
		FROM operations WHERE status IN ('queued', 'running') GROUP BY type ORDER BY type`)
	return out, err
}

// Chronicle returns up to limit+1 operations of company created from..to
// (to exclusive), oldest first, after the position after (nil: from the
// first), of the types listed (nil: every type).
func (s *Store) Chronicle(ctx context.Context, company uuid.UUID, from, to time.Time, types []string,
	after *cursor.Position, limit int) ([]Operation, error) {
	at, id := from.Add(-time.Microsecond), uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	var list any
	if types != nil {
		list = pq.StringArray(types)
	}
	out := []Operation{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+columns+` FROM operations
		WHERE company_id = $1 AND created_at >= $2 AND created_at < $3 AND (created_at, id) > ($4, $5)
			AND ($6::text[] IS NULL OR type = ANY($6))
		ORDER BY created_at, id LIMIT $7`, company, from, to, at, id, list, limit+1)
	return out, err
}

// Tally counts the operations of company created from..to per type.
func (s *Store) Tally(ctx context.Context, company uuid.UUID, from, to time.Time) (map[string]int, error) {
	var rows []struct {
		Type string `db:"type"`
		N    int    `db:"n"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT type, count(*) AS n FROM operations
		WHERE company_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY type`, company, from, to)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Type] = r.N
	}
	return out, err
}
