// Package capability holds what a company may use beyond its books: the
// paid capabilities, the 30-day trial of all of them every new company
// gets, and the check gated operations make (403 CAPABILITY_BLOCKED).
// The books themselves are never gated: Bokföringslagen wants them
// readable and writable whatever the plan.
package capability

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/store"
)

// Capability is a paid capability; operations name theirs in the
// document's x-capability flag.
type Capability string

// The paid capabilities.
const (
	BankSync Capability = "bank_sync" // bank connections and their sync
	Inbox    Capability = "inbox"     // the invoice inbox and its interpretation
	Payroll  Capability = "payroll"   // employees, salary runs, AGI
	Peppol   Capability = "peppol"    // e-invoices over Peppol
)

// All lists the paid capabilities.
var All = []Capability{BankSync, Inbox, Payroll, Peppol}

// Known reports whether c is a paid capability.
func Known(c string) bool {
	for _, k := range All {
		if string(k) == c {
			return true
		}
	}
	return false
}

// TrialDays is how long the trial of a new company lasts.
const TrialDays = 30

// Grant is a company's right to a capability over a time.
type Grant struct {
	Capability  Capability `db:"capability"`
	Source      string     `db:"source"` // trial or subscription
	ActiveFrom  time.Time  `db:"active_from"`
	ActiveUntil *time.Time `db:"active_until"`
}

// Active reports whether g holds at now.
func (g Grant) Active(now time.Time) bool {
	return !now.Before(g.ActiveFrom) && (g.ActiveUntil == nil || now.Before(*g.ActiveUntil))
}

// Store holds the SQL of company_capabilities.
type Store struct{ db *store.DB }

// NewStore returns the capability store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// StartTrial grants a new company every capability for TrialDays from
// now, in the transaction of ctx.
func (s *Store) StartTrial(ctx context.Context, company uuid.UUID, now time.Time) error {
	for _, c := range All {
		if _, err := s.db.Q(ctx).ExecContext(ctx, `
			INSERT INTO company_capabilities (company_id, capability, source, active_from, active_until)
			VALUES ($1, $2, 'trial', $3, $4)`, company, c, now, now.AddDate(0, 0, TrialDays)); err != nil {
			return err
		}
	}
	return nil
}

// Grants returns the company's grants, by capability.
func (s *Store) Grants(ctx context.Context, company uuid.UUID) ([]Grant, error) {
	out := []Grant{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT capability, source, active_from, active_until
		FROM company_capabilities WHERE company_id = $1 ORDER BY capability, source`, company)
	return out, err
}

// Require answers nil when the company holds c at now, and 403
// CAPABILITY_BLOCKED otherwise, saying when its grant ended.
func (s *Store) Require(ctx context.Context, company uuid.UUID, c Capability, now time.Time) error {
	grants, err := s.Grants(ctx, company)
	if err != nil {
		return err
	}
	var ended *time.Time
	for _, g := range grants {
		if g.Capability != c {
			continue
		}
		if g.Active(now) {
			return nil
		}
		if g.ActiveUntil != nil && (ended == nil || g.ActiveUntil.After(*ended)) {
			ended = g.ActiveUntil
		}
	}
	details := map[string]any{"capability": c}
	if ended != nil {
		details["ended_at"] = ended.UTC().Format(time.RFC3339)
	}
	return apierr.New(apierr.CapabilityBlocked, details)
}
