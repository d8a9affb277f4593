package audit

import (
	openapi_types "github.com/oapi-codegen/runtime/types"

	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the audit trail.
type Handler struct {
	store   *Store
	cursors *cursor.Codec
	// seesSnapshots tells whether the caller of ctx may read whole-row
	// snapshots (owners and admins); the auth package knows, and audit must
	// not import it (auth audits its own changes).
	seesSnapshots func(ctx context.Context) bool
}

// NewHandler returns the audit trail handler.
func NewHandler(s *Store, c *cursor.Codec, seesSnapshots func(context.Context) bool) *Handler {
	return &Handler{store: s, cursors: c, seesSnapshots: seesSnapshots}
}

// MaxLimit is the audit trail's larger page size.
const MaxLimit = 200

const listName = "audit-trail"

// ListAuditEntries reads a page of a company's audit trail, newest first.
func (h *Handler) ListAuditEntries(ctx context.Context, req gen.ListAuditEntriesRequestObject) (gen.ListAuditEntriesResponseObject, error) {
	p := req.Params
	f := Filter{Limit: cursor.Limit(p.Limit, cursor.DefaultLimit, MaxLimit)}
	if p.Action != nil {
		f.Action = Action(*p.Action)
	}
	if p.TableName != nil {
		f.Table = *p.TableName
	}
	if p.RecordId != nil {
		f.RecordID = *p.RecordId
	}
	if p.FromDate != nil {
		t := p.FromDate.Time
		f.From = &t
	}
	if p.ToDate != nil {
		t := p.ToDate.Time
		f.To = &t
	}
	if pos := new(cursor.Position); h.cursors.DecodeParam(listName, p.Cursor, pos) {
		f.After = pos
	}
	rows, err := h.store.List(ctx, req.CompanyId, f)
	if err != nil {
		return nil, err
	}
	rows, cur := cursor.Next(h.cursors, listName, rows, f.Limit, func(e Entry) any { return cursor.Position{At: e.CreatedAt, ID: e.ID} })
	next := nullable.NewNullNullable[string]()
	if cur != "" {
		next = nullable.NewNullableWithValue(cur)
	}
	snapshots := h.seesSnapshots(ctx)
	entries := make([]gen.AuditEntry, len(rows))
	for i, r := range rows {
		entries[i] = gen.AuditEntry{
			Id: r.ID, Action: gen.AuditAction(r.Action), TableName: nullable.NewNullNullable[string](),
			RecordId: nullable.NewNullNullable[string](), ActorType: nullable.NewNullNullable[gen.ActorType](),
			ActorLabel: nullable.NewNullNullable[string](), ActorEmail: nullable.NewNullNullable[string](),
			ActorUserId: nullable.NewNullNullable[openapi_types.UUID](), Description: nullable.NewNullNullable[string](),
			OldState: nullable.NewNullNullable[map[string]any](), NewState: nullable.NewNullNullable[map[string]any](),
			ChangedFields: nullable.NewNullableWithValue([]string(r.ChangedFields)), CreatedAt: r.CreatedAt.UTC().Truncate(time.Microsecond),
		}
		e := &entries[i]
		setString(&e.TableName, r.Table)
		setString(&e.RecordId, r.RecordID)
		setString(&e.ActorType, r.ActorType)
		setString(&e.ActorLabel, r.ActorLabel)
		setString(&e.ActorEmail, r.ActorEmail)
		if r.ActorUserID != nil {
			e.ActorUserId = nullable.NewNullableWithValue(*r.ActorUserID)
		}
		setString(&e.Description, r.Description)
		if snapshots {
			setObject(&e.OldState, r.Old)
			setObject(&e.NewState, r.New)
		}
	}
	return gen.ListAuditEntries200JSONResponse{Meta: envelope.Page(ctx, cur), Data: gen.AuditTrail{
		Entries: entries, NextCursor: next, SnapshotsIncluded: snapshots}}, nil
}

func setString[T ~string](dst *nullable.Nullable[T], s *string) {
	if s != nil {
		*dst = nullable.NewNullableWithValue(T(*s))
	}
}

func setObject(dst *nullable.Nullable[map[string]any], raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil && m != nil {
		*dst = nullable.NewNullableWithValue(m)
	}
}
