package portfolio

import (
	"testing"
	"time"

	"github.com/kontera/kontera/internal/reconciliation"
)

// On 20 May, an account signed off through 30 April is current; through
// 31 March, behind; an account without a sign-off leaves the company
// unsigned whatever the others say.
func TestReconciledState(t *testing.T) {
	today := time.Date(2026, 5, 20, 0, 0, 0, 0, time.UTC)
	day := func(s string) *time.Time {
		d, _ := time.Parse(time.DateOnly, s)
		return &d
	}
	for _, c := range []struct {
		s    reconciliation.Standing
		want string
	}{
		{reconciliation.Standing{}, NoAccounts},
		{reconciliation.Standing{Accounts: 2, SignedOff: 1}, Unsigned},
		{reconciliation.Standing{Accounts: 1, SignedOff: 1, Through: day("2026-03-31")}, Behind},
		{reconciliation.Standing{Accounts: 1, SignedOff: 1, Through: day("2026-04-30")}, Current},
		{reconciliation.Standing{Accounts: 2, SignedOff: 2, Through: day("2026-05-15")}, Current},
	} {
		if got := ReconciledState(c.s, today); got != c.want {
			t.Errorf("%+v: %s, want %s", c.s, got, c.want)
		}
	}
}
