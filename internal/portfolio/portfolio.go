// Package portfolio answers a bureau's overview of the companies a key
// reaches: per company what waits for a bookkeeper, what is late, what
// is due next and how far the bank is reconciled, in one call. Each
// figure comes from the domain that keeps it, for a page of companies
// at a time.
package portfolio

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/invoicing"
	"github.com/kontera/kontera/internal/reconciliation"
)

// Company is one company of the overview, its figures gathered.
type Company struct {
	ID              uuid.UUID
	Name            string
	OrgNumber       *string
	Role            auth.Role
	UnbookedBank    int
	InboxWaiting    int
	DraftEntries    int
	Invoices        invoicing.Standing
	Next            *deadline.Next
	Reconciliation  reconciliation.Standing
	ReconciledState string
}

// Reconciliation states of a company's bank accounts.
const (
	NoAccounts = "none"
	Unsigned   = "unsigned"
	Behind     = "behind"
	Current    = "current"
)

// ReconciledState says how far s's accounts are reconciled on day
// today: every account signed off through the last day of the month
// before is current; one without a sign-off in force is unsigned.
func ReconciledState(s reconciliation.Standing, today time.Time) string {
	switch {
	case s.Accounts == 0:
		return NoAccounts
	case s.SignedOff < s.Accounts || s.Through == nil:
		return Unsigned
	}
	monthEnd := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	if s.Through.Before(monthEnd) {
		return Behind
	}
	return Current
}
