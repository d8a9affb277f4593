package auth

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the key's own grant and the members of companies.
type Handler struct {
	store   *Store
	cursors *cursor.Codec
	now     func() time.Time
}

// NewHandler returns the auth handler.
func NewHandler(s *Store, c *cursor.Codec, now func() time.Time) *Handler {
	return &Handler{store: s, cursors: c, now: now}
}

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

const membersList = "members"

// ListMembers lists the members of the request's company.
func (h *Handler) ListMembers(ctx context.Context, req gen.ListMembersRequestObject) (gen.ListMembersResponseObject, error) {
	var after *MemberPosition
	if p := new(MemberPosition); h.cursors.DecodeParam(membersList, req.Params.Cursor, p) {
		after = p
	}
	limit := cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.store.Members(ctx, req.CompanyId, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, membersList, rows, limit, func(m Membership) any {
		return MemberPosition{At: m.CreatedAt, ID: m.UserID}
	})
	data := make([]gen.Member, len(rows))
	for i, m := range rows {
		data[i] = member(m)
	}
	return gen.ListMembers200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// AddMember gives a user a role in the request's company.
func (h *Handler) AddMember(ctx context.Context, req gen.AddMemberRequestObject) (gen.AddMemberResponseObject, error) {
	b := req.Body
	role := Role(b.Role)
	readOnly := b.ReadOnly != nil && *b.ReadOnly
	if role == Owner && AccessFrom(ctx).Role != Owner {
		return nil, apierr.New(apierr.Forbidden, map[string]any{"reason": "only an owner may make someone an owner"})
	}
	uid, err := h.store.EnsureUser(ctx, b.Email)
	if err != nil {
		return nil, apierr.Field("email", "format", err.Error())
	}
	existing, err := h.store.Member(ctx, req.CompanyId, uid)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return nil, apierr.New(apierr.Conflict, map[string]any{"reason": "already_member", "user_id": uid, "role": existing.Role})
	}
	m, err := h.store.AddMember(ctx, req.CompanyId, uid, role, readOnly)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.AddMember200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.MemberDryRun{DryRun: true,
			Preview: gen.MemberPreview{Email: m.Email, Role: gen.Role(m.Role), ReadOnly: m.ReadOnly}}}, nil
	}
	return gen.AddMember201JSONResponse{Meta: envelope.Meta(ctx), Data: member(m)}, nil
}

func member(m Membership) gen.Member {
	return gen.Member{UserId: m.UserID, Email: m.Email, Role: gen.Role(m.Role), ReadOnly: m.ReadOnly, CreatedAt: m.CreatedAt.UTC()}
}
