package parties

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the customer and supplier operations.
type Handler struct {
	reg     *Registry
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(reg *Registry, cursors *cursor.Codec) *Handler {
	return &Handler{reg: reg, cursors: cursors}
}

// field turns a body's nullable field into a change's.
func field[T any](n nullable.Nullable[T]) Field[T] {
	if !n.IsSpecified() {
		return Field[T]{}
	}
	if n.IsNull() {
		return Field[T]{Set: true}
	}
	v := n.MustGet()
	return Field[T]{Set: true, Value: &v}
}

// unarchive reads archived_at from a PATCH body: the document allows only
// null there.
func unarchive(n nullable.Nullable[any]) bool { return n.IsSpecified() && n.IsNull() }

// filter reads a list's query.
func filter(typ *string, search *string, archived *bool) Filter {
	f := Filter{}
	if typ != nil {
		f.Type = *typ
	}
	if search != nil {
		f.Search = strings.TrimSpace(*search)
	}
	if archived != nil {
		f.IncludeArchived = *archived
	}
	return f
}

// page decodes a list's cursor.
func (h *Handler) page(name string, c *string) *cursor.Position {
	if p := new(cursor.Position); h.cursors.DecodeParam(name, c, p) {
		return p
	}
	return nil
}

func partyView(p Party) gen.Party {
	return gen.Party{Id: p.ID, LegalName: p.LegalName, OrgNumber: envelope.Nullable(shown(p.OrgNumber)),
		VatNumber: envelope.Nullable(shown(p.VATNumber)), Country: p.Country,
		Roles: gen.PartyRoles{CustomerId: nullableID(p.CustomerID), SupplierId: nullableID(p.SupplierID)}}
}

func nullableID(id *uuid.UUID) nullable.Nullable[openapi_types.UUID] {
	if id == nil {
		return nullable.NewNullNullable[openapi_types.UUID]()
	}
	return nullable.NewNullableWithValue(*id)
}

// embedParty fills the party of an expanded detail: null when there is
// none.
func (h *Handler) embedParty(ctx context.Context, company uuid.UUID, id *uuid.UUID) (nullable.Nullable[gen.Party], error) {
	if id == nil {
		return nullable.NewNullNullable[gen.Party](), nil
	}
	p, err := h.reg.Party(ctx, company, *id)
	if err != nil {
		return nil, err
	}
	return nullable.NewNullableWithValue(partyView(p)), nil
}

func invoicesView(in []OpenInvoice) *[]gen.OpenInvoiceSummary {
	out := make([]gen.OpenInvoiceSummary, len(in))
	for i, v := range in {
		out[i] = gen.OpenInvoiceSummary{Id: v.ID, InvoiceNumber: envelope.Nullable(v.Number), Status: v.Status,
			InvoiceDate: openapi_types.Date{Time: v.InvoiceDate}, DueDate: openapi_types.Date{Time: v.DueDate},
			Currency: v.Currency, Total: v.Total, BalanceDue: v.BalanceDue}
	}
	return &out
}

// withWarning adds w, if any, to the meta of an answer.
func withWarning(m gen.Meta, w *Warning, prefix string) gen.Meta {
	if w == nil {
		return m
	}
	return envelope.WithWarning(m, w.Code, prefix+w.SV, prefix+w.EN)
}

func summary[T any](items []BulkItem[T]) gen.BulkSummary {
	s := gen.BulkSummary{Total: len(items)}
	for _, it := range items {
		if it.Err == nil {
			s.Succeeded++
		}
	}
	s.Failed = s.Total - s.Succeeded
	return s
}
