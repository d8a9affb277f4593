package deadline

import (
	"context"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the deadline operations.
type Handler struct {
	deadlines *Store
	now       func() time.Time
}

// NewHandler returns the deadline handler.
func NewHandler(s *Store, now func() time.Time) *Handler { return &Handler{deadlines: s, now: now} }

// ListDeadlines lists the company's tax deadlines by due date.
func (h *Handler) ListDeadlines(ctx context.Context, req gen.ListDeadlinesRequestObject) (gen.ListDeadlinesResponseObject, error) {
	var f Filter
	if req.Params.Type != nil {
		f.Type = string(*req.Params.Type)
	}
	if req.Params.Status != nil {
		f.Status = string(*req.Params.Status)
	}
	now := h.now().UTC()
	rows, err := h.deadlines.List(ctx, uuid.UUID(req.CompanyId), time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), f)
	if err != nil {
		return nil, err
	}
	out := make([]gen.Deadline, len(rows))
	for i, d := range rows {
		var filed *openapi_types.Date
		if d.FiledOn != nil {
			filed = &openapi_types.Date{Time: *d.FiledOn}
		}
		out[i] = gen.Deadline{
			Id: d.ID, DeadlineType: gen.DeadlineDeadlineType(d.Type), Form: gen.DeadlineForm(d.Form),
			PeriodType: gen.DeadlinePeriodType(d.PeriodType), TaxPeriod: d.TaxPeriod,
			PeriodStart: openapi_types.Date{Time: d.Start}, PeriodEnd: openapi_types.Date{Time: d.End},
			DueDate: openapi_types.Date{Time: d.Due}, Status: gen.DeadlineStatus(d.Status),
			FiledOn: envelope.Nullable(filed), FiscalPeriodId: d.FiscalPeriodID,
		}
	}
	return gen.ListDeadlines200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.DeadlineList{Deadlines: out}}, nil
}
