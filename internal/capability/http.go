package capability

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
)

// Handler serves the capability operations.
type Handler struct {
	grants *Store
	now    func() time.Time
}

// NewHandler returns the capability handler.
func NewHandler(s *Store, now func() time.Time) *Handler { return &Handler{grants: s, now: now} }

// ListCapabilities lists the company's grants and when its trial ends.
func (h *Handler) ListCapabilities(ctx context.Context, req gen.ListCapabilitiesRequestObject) (gen.ListCapabilitiesResponseObject, error) {
	grants, err := h.grants.Grants(ctx, uuid.UUID(req.CompanyId))
	if err != nil {
		return nil, err
	}
	now := h.now()
	out := make([]gen.CapabilityGrant, len(grants))
	var trialEnds *time.Time
	for i, g := range grants {
		var until *time.Time
		if g.ActiveUntil != nil {
			u := g.ActiveUntil.UTC()
			until = &u
			if g.Source == "trial" && (trialEnds == nil || u.After(*trialEnds)) {
				trialEnds = &u
			}
		}
		out[i] = gen.CapabilityGrant{Capability: gen.Capability(g.Capability), Active: g.Active(now),
			Source: gen.CapabilityGrantSource(g.Source), ActiveFrom: g.ActiveFrom.UTC(), ActiveUntil: envelope.Nullable(until)}
	}
	return gen.ListCapabilities200JSONResponse{Meta: envelope.Meta(ctx),
		Data: gen.CapabilityList{Capabilities: out, TrialEndsAt: envelope.Nullable(trialEnds)}}, nil
}
