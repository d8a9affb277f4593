package jobs

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
)

// ReachFunc reports whether the caller of ctx reaches company.
type ReachFunc func(ctx context.Context, company uuid.UUID) (bool, error)

// Handler serves GET /api/v1/operations/{id}.
type Handler struct {
	ops   *Store
	reach ReachFunc
}

// NewHandler returns the operations handler; reach decides whose
// operations a caller may read.
func NewHandler(s *Store, reach ReachFunc) *Handler { return &Handler{ops: s, reach: reach} }

// GetOperation answers an operation of a company the caller reaches; any
// other is OPERATION_NOT_FOUND, as if it did not exist.
func (h *Handler) GetOperation(ctx context.Context, req gen.GetOperationRequestObject) (gen.GetOperationResponseObject, error) {
	o, err := h.ops.Get(ctx, uuid.UUID(req.OperationId))
	if err != nil {
		return nil, err
	}
	ok, err := h.reach(ctx, o.CompanyID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.New(apierr.OperationNotFound, map[string]any{"operation_id": o.ID})
	}
	return gen.GetOperation200JSONResponse{Meta: envelope.Meta(ctx), Data: Wire(o)}, nil
}

// Wire is o as the API shows it.
func Wire(o Operation) gen.Operation {
	w := gen.Operation{
		OperationId: o.ID, Type: gen.OperationType(o.Type), Status: gen.OperationStatus(o.Status), CompanyId: o.CompanyID,
		CreatedAt: o.CreatedAt.UTC(), StartedAt: envelope.Nullable(o.StartedAt), CompletedAt: envelope.Nullable(o.CompletedAt),
		PollUrl: "/api/v1/operations/" + o.ID.String(), WebhookEvent: gen.OperationFieldsWebhookEvent(CompletedEvent),
		Progress: nullable.NewNullNullable[gen.OperationProgress](),
		Result:   nullable.NewNullNullable[map[string]any](), Error: nullable.NewNullNullable[gen.OperationError](),
	}
	var p gen.OperationProgress
	if len(o.Progress) > 0 && json.Unmarshal(o.Progress, &p) == nil {
		w.Progress.Set(p)
	}
	var r map[string]any
	if len(o.Result) > 0 && json.Unmarshal(o.Result, &r) == nil && r != nil {
		w.Result.Set(r)
	}
	var f Failure
	if len(o.Error) > 0 && json.Unmarshal(o.Error, &f) == nil && f.Code != "" {
		e := gen.OperationError{Code: gen.ErrorCode(f.Code), Message: f.Message, MessageEn: f.MessageEn}
		if f.Details != nil {
			e.Details = &f.Details
		}
		w.Error.Set(e)
	}
	return w
}
