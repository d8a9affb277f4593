package company

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// GetSettings returns the company's settings.
func (h *Handler) GetSettings(ctx context.Context, req gen.GetSettingsRequestObject) (gen.GetSettingsResponseObject, error) {
	var out gen.CompanySettings
	if err := h.read(ctx, uuid.UUID(req.CompanyId), nil, &out); err != nil {
		return nil, err
	}
	return gen.GetSettings200JSONResponse{Meta: envelope.Meta(ctx), Data: out}, nil
}

// UpdateSettings changes non-legal settings.
func (h *Handler) UpdateSettings(ctx context.Context, req gen.UpdateSettingsRequestObject) (gen.UpdateSettingsResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	patch, cur, err := h.patchOf(ctx, company, req.Body)
	if err != nil {
		return nil, err
	}
	if err := CheckGeneral(patch, cur); err != nil {
		return nil, err
	}
	if _, sent := patch["vat_number"]; sent {
		// The read model masks an enskild firma's number; the rule needs it whole.
		org, err := h.companies.OrgNumber(ctx, company)
		if err != nil {
			return nil, err
		}
		if err := CheckVATNumber(org, patch, cur); err != nil {
			return nil, err
		}
	}
	if err := h.companies.UpdateSettings(ctx, company, patch, "Inställningarna ändrades"); err != nil {
		return nil, err
	}
	data, err := h.result(ctx, company)
	return gen.UpdateSettings200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// UpdateBookkeepingLock sets, moves or removes the lock date.
func (h *Handler) UpdateBookkeepingLock(ctx context.Context, req gen.UpdateBookkeepingLockRequestObject) (gen.UpdateBookkeepingLockResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	cur, err := h.companies.SettingsForUpdate(ctx, company)
	if err != nil {
		return nil, err
	}
	b := req.Body
	patch := Settings{}
	move := LockMove{Acknowledged: b.AcknowledgeFiledVatPeriods != nil && *b.AcknowledgeFiledVatPeriods}
	if s := cur.str("bookkeeping_locked_through"); s != "" {
		from, _ := time.Parse(time.DateOnly, s)
		move.From, move.To = &from, &from
	}
	if b.BookkeepingLockedThrough.IsSpecified() {
		move.To = nil
		patch["bookkeeping_locked_through"] = nil
		if d := envelope.Optional(b.BookkeepingLockedThrough); d != nil {
			move.To = &d.Time
			patch["bookkeeping_locked_through"] = d.Time.Format(time.DateOnly)
		}
	}
	if b.AutoLockPeriodDays.IsSpecified() {
		patch["auto_lock_period_days"] = envelope.Optional(b.AutoLockPeriodDays)
	}
	if len(patch) == 0 {
		return nil, apierr.Field("bookkeeping_locked_through", "required",
			"send bookkeeping_locked_through or auto_lock_period_days")
	}
	filed, err := h.companies.FiledVATPeriods(ctx, company)
	if err != nil {
		return nil, err
	}
	if err := CheckLock(move, filed, dateOf(h.now().UTC())); err != nil {
		return nil, err
	}
	if h.ImportHold != nil && move.To != nil && (move.From == nil || move.To.After(*move.From)) {
		from := time.Time{}
		if move.From != nil {
			from = move.From.AddDate(0, 0, 1)
		}
		if err := h.ImportHold(ctx, company, from, *move.To); err != nil {
			return nil, err
		}
	}
	if h.AccrualsPending != nil && move.To != nil && (move.From == nil || move.To.After(*move.From)) {
		if err := h.AccrualsPending(ctx, company, *move.To); err != nil {
			return nil, err
		}
	}
	if err := h.companies.UpdateSettings(ctx, company, patch, "Bokföringens låsdatum ändrades"); err != nil {
		return nil, err
	}
	meta := envelope.Meta(ctx)
	if move.Backwards() {
		meta = envelope.WithWarning(meta, "BOOKKEEPING_LOCK_MOVED_BACKWARDS",
			"Låsdatumet flyttades bakåt: redan låsta dagar kan åter bokföras.",
			"The lock date moved backwards: days that were locked can be booked again.")
	}
	data, err := h.result(ctx, company)
	return gen.UpdateBookkeepingLock200JSONResponse{Meta: meta, Data: data}, err
}

// UpdateTaxProfile changes the tax profile and regenerates the deadlines
// it moves.
func (h *Handler) UpdateTaxProfile(ctx context.Context, req gen.UpdateTaxProfileRequestObject) (gen.UpdateTaxProfileResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	patch, cur, err := h.patchOf(ctx, company, req.Body)
	if err != nil {
		return nil, err
	}
	// The read model masks an enskild firma's number; the rules need it whole.
	org, err := h.companies.OrgNumber(ctx, company)
	if err != nil {
		return nil, err
	}
	change, err := CheckTaxProfile(EntityType(cur.str("entity_type")), org, patch, cur)
	if err != nil {
		return nil, err
	}
	if change.MethodChanged {
		n, err := h.companies.PostedIn(ctx, company, h.now().UTC())
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, apierr.New(apierr.AccountingMethodChangeMidYear, map[string]any{"posted_entries": n})
		}
	}
	if err := h.companies.UpdateSettings(ctx, company, change.Patch, "Skatteprofilen ändrades"); err != nil {
		return nil, err
	}
	if change.Deadlines {
		if err := h.companies.RegenerateDeadlines(ctx, company); err != nil {
			return nil, err
		}
	}
	var data gen.TaxProfileResult
	var s gen.TaxProfileSettings
	if err := h.read(ctx, company, map[string]any{"deadlines_regenerated": change.Deadlines}, &s); err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		err = data.FromTaxProfileDryRun(gen.TaxProfileDryRun{DryRun: true, Preview: s})
	} else {
		err = data.FromTaxProfileSettings(s)
	}
	return gen.UpdateTaxProfile200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// patchOf returns the body as settings (only the fields the client sent)
// and the company's current settings.
func (h *Handler) patchOf(ctx context.Context, company uuid.UUID, body any) (Settings, Settings, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, nil, err
	}
	patch, err := DecodeSettings(b)
	if err != nil {
		return nil, nil, err
	}
	cur, err := h.companies.SettingsForUpdate(ctx, company)
	return patch, cur, err
}

// read fills out with the company's settings read model and extra keys.
func (h *Handler) read(ctx context.Context, company uuid.UUID, extra map[string]any, out any) error {
	s, err := h.companies.Settings(ctx, company)
	if err != nil {
		return err
	}
	for k, v := range extra {
		s[k] = v
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// result is the answer of a settings change: the settings, or on a dry
// run the preview of them.
func (h *Handler) result(ctx context.Context, company uuid.UUID) (gen.SettingsUpdateResult, error) {
	var s gen.CompanySettings
	var data gen.SettingsUpdateResult
	if err := h.read(ctx, company, nil, &s); err != nil {
		return data, err
	}
	if store.IsDryRun(ctx) {
		return data, data.FromSettingsDryRun(gen.SettingsDryRun{DryRun: true, Preview: s})
	}
	return data, data.FromCompanySettings(s)
}
