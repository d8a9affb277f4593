package auth

import (
	"context"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the key's own grant.
type Handler struct{ store *Store }

// NewHandler returns the auth handler.
func NewHandler(s *Store) *Handler { return &Handler{store: s} }

// GetApiKey shows the grant of the calling key.
func (h *Handler) GetApiKey(ctx context.Context, _ gen.GetApiKeyRequestObject) (gen.GetApiKeyResponseObject, error) {
	k := KeyFrom(ctx)
	reach, err := h.store.Reachable(ctx, k)
	if err != nil {
		return nil, err
	}
	g := gen.ApiKeyGrant{
		Mode: gen.ApiKeyGrantMode(k.Mode), CompanyAccess: gen.ApiKeyGrantCompanyAccess(k.CompanyAccess),
		Scopes: make([]gen.Scope, len(k.Scopes)), Companies: make([]gen.ApiKeyCompany, len(reach)),
	}
	for i, s := range k.Scopes {
		g.Scopes[i] = gen.Scope(s)
	}
	for i, a := range reach {
		c := gen.ApiKeyCompany{Id: a.CompanyID, Role: gen.Role(a.Role), Access: gen.ReadWrite,
			ReadOnlyCode: nullable.NewNullNullable[gen.ReadOnlyCode]()}
		if a.ReadOnly != "" {
			c.Access = gen.ReadOnly
			c.ReadOnlyCode = nullable.NewNullableWithValue(gen.ReadOnlyCode(a.ReadOnly))
		}
		g.Companies[i] = c
	}
	return gen.GetApiKey200JSONResponse{Data: g, Meta: envelope.Meta(ctx)}, nil
}
