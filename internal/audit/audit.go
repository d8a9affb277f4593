// Package audit keeps the audit trail (behandlingshistorik): one row per
// change, written in the transaction of the change, with the actor and the
// whole-row state before and after. Rows are never updated or deleted (a
// database trigger refuses it).
package audit

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"

	"github.com/google/uuid"
)

// Action is what happened to a record.
type Action string

// The actions of the spec.
const (
	Insert                Action = "INSERT"
	Update                Action = "UPDATE"
	Delete                Action = "DELETE"
	Commit                Action = "COMMIT"
	Reverse               Action = "REVERSE"
	Correct               Action = "CORRECT"
	LockPeriod            Action = "LOCK_PERIOD"
	ClosePeriod           Action = "CLOSE_PERIOD"
	DocumentDeleteBlocked Action = "DOCUMENT_DELETE_BLOCKED"
	RetentionBlock        Action = "RETENTION_BLOCK"
	SecurityEvent         Action = "SECURITY_EVENT"
	IntegrityFailure      Action = "INTEGRITY_FAILURE"
	CommittedAtOverride   Action = "COMMITTED_AT_OVERRIDE"
)

// Actor is who made a change: an API key (with its user), a person, or the
// system itself.
type Actor struct {
	Type   string // api_key, user, system
	ID     *uuid.UUID
	Label  string
	UserID *uuid.UUID
	// Email is the e-mail of the person behind the key, as it was when
	// the change was made.
	Email     string
	RequestID string
}

// System is the actor of changes no request made (migrations, workers,
// the command line).
var System = Actor{Type: "system", Label: "system"}

type actorKey struct{}

// WithActor returns ctx carrying the actor of the changes made under it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor of ctx; System when none was set.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return System
}

// Change is one audited change. Old and New are whole-row snapshots
// (JSON objects) or nil.
type Change struct {
	CompanyID   uuid.UUID
	Action      Action
	Table       string
	RecordID    string
	Description string
	Old, New    json.RawMessage
	// Fields, when set, are the changed fields as the caller knows them,
	// sorted (a bulk write of one change to many rows); nil: compared.
	Fields []string
}

// ChangedFields lists the top-level fields whose values differ between old
// and new snapshots, sorted; every field of the one present when the other
// is nil.
func ChangedFields(old, new json.RawMessage) []string {
	var o, n map[string]any
	_ = json.Unmarshal(old, &o)
	_ = json.Unmarshal(new, &n)
	seen := map[string]bool{}
	var out []string
	for k, v := range n {
		seen[k] = true
		if ov, ok := o[k]; !ok || !reflect.DeepEqual(ov, v) {
			out = append(out, k)
		}
	}
	for k := range o {
		if !seen[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// Keys are the fields of a snapshot made of m, sorted: the changed
// fields of a record created from it, said without reading it back.
func Keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// Of is the snapshot of a record for Change.Old or Change.New: its JSON,
// nil for nil (a nil pointer too: a record created or deleted has only
// one side). A record that cannot be encoded is a programming error.
func Of(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if r := reflect.ValueOf(v); r.Kind() == reflect.Pointer && r.IsNil() {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("audit: snapshot: " + err.Error())
	}
	return b
}
