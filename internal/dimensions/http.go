package dimensions

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the dimension register's operations.
type Handler struct {
	store *Store
}

// NewHandler returns the handler.
func NewHandler(s *Store) *Handler { return &Handler{store: s} }

// ListDimensions lists the dimensions with their values.
func (h *Handler) ListDimensions(ctx context.Context, req gen.ListDimensionsRequestObject) (gen.ListDimensionsResponseObject, error) {
	dims, err := h.store.List(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	out := gen.DimensionList{Dimensions: make([]gen.Dimension, len(dims))}
	for i, d := range dims {
		out.Dimensions[i] = view(d)
	}
	return gen.ListDimensions200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// CreateDimension adds a dimension of the company's own.
func (h *Handler) CreateDimension(ctx context.Context, req gen.CreateDimensionRequestObject) (gen.CreateDimensionResponseObject, error) {
	if err := h.store.LockRegister(ctx, req.CompanyId); err != nil {
		return nil, err
	}
	r, err := h.store.Register(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	b := req.Body
	d, err := r.Create(NewDimension{Name: b.Name, Number: b.SieDimNo, ResetsAnnually: b.ResetsAnnually,
		Parent: envelope.Optional(b.ParentSieDimNo)})
	if err != nil {
		return nil, err
	}
	d.CompanyID = req.CompanyId
	if d, err = h.store.InsertDimension(ctx, d); err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateDimension200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.DimensionCreateDryRun{DryRun: true,
			Preview: gen.DimensionPreviewResult{Dimension: preview(d)}}}, nil
	}
	return gen.CreateDimension201JSONResponse{Meta: envelope.Meta(ctx), Data: gen.DimensionResult{Dimension: view(d)}}, nil
}

// UpdateDimension renames, archives or reorders a dimension.
func (h *Handler) UpdateDimension(ctx context.Context, req gen.UpdateDimensionRequestObject) (gen.UpdateDimensionResponseObject, error) {
	old, err := h.store.Dimension(ctx, req.CompanyId, req.DimensionId, true)
	if err != nil {
		return nil, err
	}
	b := req.Body
	d, err := old.Apply(DimensionChange{Name: b.Name, IsActive: b.IsActive, SortOrder: b.SortOrder})
	if err != nil {
		return nil, err
	}
	if d, err = h.store.UpdateDimension(ctx, old, d); err != nil {
		return nil, err
	}
	res := gen.DimensionResult{Dimension: view(d)}
	var data gen.DimensionOutcome
	if store.IsDryRun(ctx) {
		err = data.FromDimensionDryRun(gen.DimensionDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromDimensionResult(res)
	}
	return gen.UpdateDimension200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteDimension removes a dimension nobody booked on.
func (h *Handler) DeleteDimension(ctx context.Context, req gen.DeleteDimensionRequestObject) (gen.DeleteDimensionResponseObject, error) {
	d, err := h.store.Dimension(ctx, req.CompanyId, req.DimensionId, true)
	if err != nil {
		return nil, err
	}
	if err := h.store.DeleteDimension(ctx, d); err != nil {
		return nil, err
	}
	res := gen.DimensionDeleted{Deleted: true, DimensionId: d.ID, SieDimNo: d.Number, ValuesDeleted: len(d.Values)}
	var data gen.DimensionDeletedOutcome
	if store.IsDryRun(ctx) {
		err = data.FromDimensionDeletedDryRun(gen.DimensionDeletedDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromDimensionDeleted(res)
	}
	return gen.DeleteDimension200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// CreateDimensionValue adds a value to a dimension.
func (h *Handler) CreateDimensionValue(ctx context.Context, req gen.CreateDimensionValueRequestObject) (gen.CreateDimensionValueResponseObject, error) {
	d, err := h.store.Dimension(ctx, req.CompanyId, req.DimensionId, true)
	if err != nil {
		return nil, err
	}
	b := req.Body
	ch := ValueChange{Code: b.Code, Name: &b.Name, IsActive: b.IsActive}
	ch.Start, ch.StartSet = date(b.StartDate)
	ch.End, ch.EndSet = date(b.EndDate)
	v, err := d.NewValue(ch)
	if err != nil {
		return nil, err
	}
	if v, err = h.store.InsertValue(ctx, d, v); err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateDimensionValue200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.DimensionValueCreateDryRun{DryRun: true, Preview: valuePreview(v)}}, nil
	}
	return gen.CreateDimensionValue201JSONResponse{Meta: envelope.Meta(ctx), Data: valueView(v)}, nil
}

// UpdateDimensionValue renames, archives or dates a value.
func (h *Handler) UpdateDimensionValue(ctx context.Context, req gen.UpdateDimensionValueRequestObject) (gen.UpdateDimensionValueResponseObject, error) {
	d, err := h.store.Dimension(ctx, req.CompanyId, req.DimensionId, true)
	if err != nil {
		return nil, err
	}
	old, err := d.Value(req.ValueId)
	if err != nil {
		return nil, err
	}
	b := req.Body
	ch := ValueChange{Name: b.Name, IsActive: b.IsActive}
	ch.Start, ch.StartSet = date(b.StartDate)
	ch.End, ch.EndSet = date(b.EndDate)
	v, err := d.ApplyValue(old, ch)
	if err != nil {
		return nil, err
	}
	if v, err = h.store.UpdateValue(ctx, d, old, v); err != nil {
		return nil, err
	}
	var data gen.DimensionValueOutcome
	if store.IsDryRun(ctx) {
		err = data.FromDimensionValueDryRun(gen.DimensionValueDryRun{DryRun: true, Preview: valueView(v)})
	} else {
		err = data.FromDimensionValue(valueView(v))
	}
	return gen.UpdateDimensionValue200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// DeleteDimensionValue removes a value nobody booked on.
func (h *Handler) DeleteDimensionValue(ctx context.Context, req gen.DeleteDimensionValueRequestObject) (gen.DeleteDimensionValueResponseObject, error) {
	d, err := h.store.Dimension(ctx, req.CompanyId, req.DimensionId, true)
	if err != nil {
		return nil, err
	}
	v, err := d.Value(req.ValueId)
	if err != nil {
		return nil, err
	}
	if err := h.store.DeleteValue(ctx, d, v); err != nil {
		return nil, err
	}
	res := gen.DimensionValueDeleted{Deleted: true, ValueId: v.ID, Code: v.Code}
	var data gen.DimensionValueDeletedOutcome
	if store.IsDryRun(ctx) {
		err = data.FromDimensionValueDeletedDryRun(gen.DimensionValueDeletedDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromDimensionValueDeleted(res)
	}
	return gen.DeleteDimensionValue200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// date reads a nullable date of a body: the day, and whether it was sent.
func date(n nullable.Nullable[openapi_types.Date]) (*time.Time, bool) {
	if !n.IsSpecified() {
		return nil, false
	}
	if n.IsNull() {
		return nil, true
	}
	t := n.MustGet().Time
	return &t, true
}

func view(d Dimension) gen.Dimension {
	out := gen.Dimension{Id: d.ID, SieDimNo: d.Number, Name: d.Name, ParentSieDimNo: envelope.Nullable(d.Parent),
		ResetsAnnually: d.ResetsAnnually, IsSystem: d.IsSystem, IsActive: d.IsActive, SortOrder: d.SortOrder,
		CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), Values: make([]gen.DimensionValue, len(d.Values))}
	for i, v := range d.Values {
		out.Values[i] = valueView(v)
	}
	return out
}

func preview(d Dimension) gen.DimensionPreview {
	v := view(d)
	return gen.DimensionPreview{Id: nullable.NewNullNullable[openapi_types.UUID](), SieDimNo: v.SieDimNo, Name: v.Name,
		ParentSieDimNo: v.ParentSieDimNo, ResetsAnnually: v.ResetsAnnually, IsSystem: v.IsSystem, IsActive: v.IsActive,
		SortOrder: v.SortOrder, CreatedAt: nullable.NewNullNullable[time.Time](), UpdatedAt: nullable.NewNullNullable[time.Time](),
		Values: v.Values}
}

func valueView(v Value) gen.DimensionValue {
	return gen.DimensionValue{Id: v.ID, DimensionId: v.DimensionID, Code: v.Code, Name: v.Name, IsActive: v.IsActive,
		StartDate: envelope.NullableDate(v.Start), EndDate: envelope.NullableDate(v.End), CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC()}
}

func valuePreview(v Value) gen.DimensionValuePreview {
	return gen.DimensionValuePreview{Id: nullable.NewNullNullable[openapi_types.UUID](), DimensionId: v.DimensionID,
		Code: v.Code, Name: v.Name, IsActive: v.IsActive, StartDate: envelope.NullableDate(v.Start), EndDate: envelope.NullableDate(v.End),
		CreatedAt: nullable.NewNullNullable[time.Time](), UpdatedAt: nullable.NewNullNullable[time.Time]()}
}
