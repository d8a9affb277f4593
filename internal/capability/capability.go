// Package capability holds what a company may use beyond its books: the
// paid capabilities, the 30-day trial of all of them every new company
// gets, and the check gated operations make (403 CAPABILITY_BLOCKED).
// The books themselves are never gated: Bokföringslagen wants them
// readable and writable whatever the plan.
package capability

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
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

// Parse reads a list of capabilities as an operator writes it: "all",
// "none" (or empty), or names separated by commas or spaces.
func Parse(s string) ([]Capability, error) {
	var out []Capability
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case f == "all":
			return slices.Clone(All), nil
		case f == "none":
			continue
		case !Known(f):
			return nil, fmt.Errorf("unknown capability %q (all, none, or of %v)", f, All)
		case !slices.Contains(out, Capability(f)):
			out = append(out, Capability(f))
		}
	}
	return out, nil
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
type Store struct {
	db    *store.DB
	audit *audit.Store
	// Default is what a new company holds for good beside its trial: the
	// operator's KONTERA_CAPABILITIES on a self-hosted server.
	Default []Capability
}

// NewStore returns the capability store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db, audit: audit.NewStore(db)} }

// StartTrial grants a new company every capability for TrialDays from
// now, and the Default ones for good, in the transaction of ctx.
func (s *Store) StartTrial(ctx context.Context, company uuid.UUID, now time.Time) error {
	if _, err := s.db.Q(ctx).ExecContext(ctx, `
		INSERT INTO company_capabilities (company_id, capability, source, active_from, active_until)
		SELECT $1::uuid, c, 'trial', $3::timestamptz, $4::timestamptz FROM unnest($2::text[]) c
		UNION ALL SELECT $1::uuid, c, 'subscription', $3::timestamptz, NULL FROM unnest($5::text[]) c`,
		company, pq.Array(All), now, now.AddDate(0, 0, TrialDays), pq.Array(s.Default)); err != nil {
		return err
	}
	return nil
}

// Grant gives company caps for good from now (a subscription, or an
// operator's grant on a self-hosted server), audited; a capability it
// holds already is left as it is.
func (s *Store) Grant(ctx context.Context, company uuid.UUID, caps []Capability, now time.Time) error {
	return s.change(ctx, company, caps, "Funktioner aktiverades: ", `
		INSERT INTO company_capabilities AS g (company_id, capability, source, active_from, active_until)
		SELECT $1, c, 'subscription', $3, NULL FROM unnest($2::text[]) c
		ON CONFLICT (company_id, capability, source) DO UPDATE SET
			active_from = CASE WHEN g.active_until IS NULL OR g.active_until > $3 THEN g.active_from ELSE $3 END,
			active_until = NULL`, now)
}

// Revoke ends every grant of caps the company holds at now, its trial
// too, audited.
func (s *Store) Revoke(ctx context.Context, company uuid.UUID, caps []Capability, now time.Time) error {
	return s.change(ctx, company, caps, "Funktioner avslutades: ", `
		UPDATE company_capabilities SET active_until = greatest($3, active_from + interval '1 microsecond')
		WHERE company_id = $1 AND capability = ANY ($2::text[]) AND (active_until IS NULL OR active_until > $3)`, now)
}

// change runs query ($1 company, $2 caps, $3 now) and audits the grants
// before and after it.
func (s *Store) change(ctx context.Context, company uuid.UUID, caps []Capability, what, query string, now time.Time) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		snapshot := func() (json.RawMessage, error) {
			var raw json.RawMessage
			err := s.db.Q(ctx).GetContext(ctx, &raw, `SELECT coalesce(jsonb_agg(g ORDER BY capability, source), '[]')
				FROM company_capabilities g WHERE company_id = $1`, company)
			return raw, err
		}
		old, err := snapshot()
		if err != nil {
			return err
		}
		if _, err := s.db.Q(ctx).ExecContext(ctx, query, company, pq.Array(caps), now); err != nil {
			return err
		}
		now, err := snapshot()
		if err != nil {
			return err
		}
		names := make([]string, len(caps))
		for i, c := range caps {
			names[i] = string(c)
		}
		return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "company_capabilities",
			RecordID: company.String(), Description: what + strings.Join(names, ", "), Old: old, New: now})
	})
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
