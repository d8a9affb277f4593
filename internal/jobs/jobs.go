// Package jobs runs asynchronous operations (year-end, imports): a request
// enqueues an operation in its own transaction and answers 202; workers in
// any replica take queued operations with SKIP LOCKED under a lease, run
// them in one transaction that also records the outcome, and take over an
// operation whose worker died once its lease runs out. Clients poll
// GET /api/v1/operations/{id}.
package jobs

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
)

// Status is where an operation is in its life.
type Status string

// The states of an operation; succeeded, failed and cancelled are final.
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// CompletedEvent is the event a finished operation names for webhooks.
const CompletedEvent = "operation.completed"

// Operation is an asynchronous job as stored.
type Operation struct {
	ID          uuid.UUID       `db:"id"`
	CompanyID   uuid.UUID       `db:"company_id"`
	Type        string          `db:"type"`
	Status      Status          `db:"status"`
	Params      json.RawMessage `db:"params"`
	Actor       json.RawMessage `db:"actor"`
	Progress    []byte          `db:"progress"` // NULL scans as nil
	Result      []byte          `db:"result"`
	Error       []byte          `db:"error"`
	Attempts    int             `db:"attempts"`
	LeaseUntil  *time.Time      `db:"lease_until"`
	CreatedAt   time.Time       `db:"created_at"`
	StartedAt   *time.Time      `db:"started_at"`
	CompletedAt *time.Time      `db:"completed_at"`
}

// Progress is how far a running operation has come.
type Progress struct {
	Phase   string `json:"phase"`
	Current int    `json:"current"`
	Total   int    `json:"total"`
}

// Failure is the error of a failed operation, as the API shows it: a
// catalogue code, its message and details.
type Failure struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	MessageEn string         `json:"message_en"`
	Details   map[string]any `json:"details,omitempty"`
}

// failure turns the error that ended a run into what the client reads: a
// catalogue error as it is, anything else as fallback with no inner
// detail (that goes to the log).
func failure(err error, fallback apierr.Code) Failure {
	e, ok := apierr.As(err)
	if !ok {
		e = apierr.New(fallback, nil)
	}
	return Failure{Code: string(e.Code), Message: e.Message, MessageEn: e.MessageEn, Details: e.Details}
}

// actor is the stored form of the audit actor who asked for an operation;
// its changes are audited under that actor, not the worker.
type actor struct {
	Type      string     `json:"type"`
	ID        *uuid.UUID `json:"id,omitempty"`
	Label     string     `json:"label"`
	UserID    *uuid.UUID `json:"user_id,omitempty"`
	Email     string     `json:"email,omitempty"`
	RequestID string     `json:"request_id,omitempty"`
}

func actorJSON(a audit.Actor) json.RawMessage {
	b, _ := json.Marshal(actor{Type: a.Type, ID: a.ID, Label: a.Label, UserID: a.UserID, Email: a.Email, RequestID: a.RequestID})
	return b
}

func (o Operation) actor() audit.Actor {
	var a actor
	if err := json.Unmarshal(o.Actor, &a); err != nil || a.Type == "" {
		return audit.System
	}
	return audit.Actor{Type: a.Type, ID: a.ID, Label: a.Label, UserID: a.UserID, Email: a.Email, RequestID: a.RequestID}
}
