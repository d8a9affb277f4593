package auth

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
)

const keysList = "api_keys"

// ListApiKeys lists the keys the calling key may manage.
func (h *Handler) ListApiKeys(ctx context.Context, req gen.ListApiKeysRequestObject) (gen.ListApiKeysResponseObject, error) {
	m := Managed{Company: req.Params.CompanyId, Limit: cursor.Limit(req.Params.Limit, cursor.DefaultLimit, cursor.MaxLimit)}
	if req.Params.Status != nil {
		m.Status = string(*req.Params.Status)
	}
	if p := new(KeyPosition); h.cursors.DecodeParam(keysList, req.Params.Cursor, p) {
		m.After = p
	}
	rows, err := h.store.Keys(ctx, KeyFrom(ctx), m)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, keysList, rows, m.Limit, func(r Record) any {
		return KeyPosition{At: r.CreatedAt, ID: r.ID}
	})
	data := make([]gen.ApiKeyItem, len(rows))
	for i, r := range rows {
		data[i] = keyItem(r)
	}
	return gen.ListApiKeys200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// CreateApiKey creates a key for the calling key's user.
func (h *Handler) CreateApiKey(ctx context.Context, req gen.CreateApiKeyRequestObject) (gen.CreateApiKeyResponseObject, error) {
	b := req.Body
	n := NewKey{Name: b.Name, Mode: Live, CompanyAccess: Allowlist, Scopes: make([]string, len(b.Scopes))}
	for i, s := range b.Scopes {
		n.Scopes[i] = string(s)
	}
	if b.Mode != nil {
		n.Mode = Mode(*b.Mode)
	}
	if b.CompanyAccess != nil {
		n.CompanyAccess = CompanyAccess(*b.CompanyAccess)
	}
	if b.Companies != nil {
		n.Companies = *b.Companies
	}
	n.ReadOnly = b.ReadOnly != nil && *b.ReadOnly
	if t, err := b.ExpiresAt.Get(); err == nil {
		n.ExpiresAt = &t
	}
	token, r, err := h.store.Issue(ctx, KeyFrom(ctx), n, h.now())
	if err != nil {
		return nil, err
	}
	return gen.CreateApiKey201JSONResponse{Data: keySecret(*r, token), Meta: envelope.Meta(ctx)}, nil
}

// RotateApiKey replaces the secret of one of the caller's keys.
func (h *Handler) RotateApiKey(ctx context.Context, req gen.RotateApiKeyRequestObject) (gen.RotateApiKeyResponseObject, error) {
	var grace time.Duration
	if req.Body != nil && req.Body.GracePeriodSeconds != nil {
		grace = time.Duration(*req.Body.GracePeriodSeconds) * time.Second
	}
	if grace < 0 || grace > MaxGrace {
		return nil, apierr.Validation(apierr.Issue{Field: "grace_period_seconds", In: "body", Rule: "maximum",
			Issue: "at most 604800 seconds (7 days)"})
	}
	token, r, err := h.store.Rotate(ctx, KeyFrom(ctx), req.KeyId, grace)
	if err != nil {
		return nil, err
	}
	return gen.RotateApiKey200JSONResponse{Data: keySecret(*r, token), Meta: envelope.Meta(ctx)}, nil
}

// RevokeApiKey revokes a key for good.
func (h *Handler) RevokeApiKey(ctx context.Context, req gen.RevokeApiKeyRequestObject) (gen.RevokeApiKeyResponseObject, error) {
	r, err := h.store.Revoke(ctx, KeyFrom(ctx), req.KeyId)
	if err != nil {
		return nil, err
	}
	return gen.RevokeApiKey200JSONResponse{Data: keyItem(*r), Meta: envelope.Meta(ctx)}, nil
}

func keyItem(r Record) gen.ApiKeyItem {
	out := gen.ApiKeyItem{Id: r.ID, UserId: r.UserID, UserEmail: r.UserEmail, Prefix: r.Prefix,
		Mode: gen.ApiKeyItemMode(r.Mode), CompanyAccess: gen.ApiKeyItemCompanyAccess(r.CompanyAccess),
		ReadOnly: r.ReadOnly, Status: gen.ApiKeyItemStatus(r.Status), CreatedAt: r.CreatedAt,
		Name: envelope.Nullable(r.Name), LastUsedAt: envelope.NullableTime(r.LastUsedAt),
		ExpiresAt: envelope.NullableTime(r.ExpiresAt), RevokedAt: envelope.NullableTime(r.RevokedAt),
		RotatedAt: envelope.NullableTime(r.RotatedAt), PreviousSecretExpiresAt: envelope.NullableTime(r.PreviousExpiresAt),
		Scopes: make([]gen.Scope, len(r.Scopes)), Companies: make([]uuid.UUID, 0, len(r.Companies))}
	for i, s := range r.Scopes {
		out.Scopes[i] = gen.Scope(s)
	}
	for _, c := range r.Companies {
		if id, err := uuid.Parse(c); err == nil {
			out.Companies = append(out.Companies, id)
		}
	}
	return out
}

func keySecret(r Record, token string) gen.ApiKeySecret {
	i := keyItem(r)
	return gen.ApiKeySecret{Id: i.Id, UserId: i.UserId, UserEmail: i.UserEmail, Prefix: i.Prefix,
		Mode: gen.ApiKeySecretMode(i.Mode), CompanyAccess: gen.ApiKeySecretCompanyAccess(i.CompanyAccess),
		ReadOnly: i.ReadOnly, Status: gen.ApiKeySecretStatus(i.Status), CreatedAt: i.CreatedAt, Name: i.Name,
		LastUsedAt: i.LastUsedAt, ExpiresAt: i.ExpiresAt, RevokedAt: i.RevokedAt, RotatedAt: i.RotatedAt,
		PreviousSecretExpiresAt: i.PreviousSecretExpiresAt, Scopes: i.Scopes, Companies: i.Companies, Secret: token}
}
