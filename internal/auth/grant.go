package auth

import (
	"slices"
	"time"

	"github.com/kontera/kontera/internal/apierr"
)

// ManageScope is the scope of the key endpoints: listing, creating,
// rotating and revoking keys. A Kontera extension of the spec's scopes.
const ManageScope = "api_keys:manage"

// MaxGrace is the longest a replaced secret keeps working after a
// rotation.
const MaxGrace = 7 * 24 * time.Hour

// Within answers nil when a key asked for by caller gives no more than
// caller holds, and 403 API_KEY_GRANT_EXCEEDED naming what it exceeds
// otherwise: its scopes, the companies it reaches (reach is the caller's),
// all_memberships (which reaches companies joined later, so only an
// all_memberships key may give it), write access, and its lifetime. A key
// that could mint a stronger or longer-lived key would make revoking it
// pointless. n.ExpiresAt is set to the caller's expiry when it leaves it
// out. Malformed requests (an allowlist of none, an expiry in the past)
// are VALIDATION_ERROR.
func Within(caller *Key, reach []Access, n *NewKey, now time.Time) error {
	for _, s := range n.Scopes {
		if !slices.Contains(caller.Scopes, s) {
			return exceeded("scopes", map[string]any{"scope": s})
		}
	}
	switch n.CompanyAccess {
	case AllMemberships:
		if len(n.Companies) > 0 {
			return apierr.Validation(apierr.Issue{Field: "companies", In: "body", Rule: "company_access",
				Issue: "companies are listed only with company_access allowlist"})
		}
		if caller.CompanyAccess != AllMemberships {
			return exceeded("company_access", map[string]any{"caller_company_access": caller.CompanyAccess})
		}
	case Allowlist:
		if len(n.Companies) == 0 {
			return apierr.Validation(apierr.Issue{Field: "companies", In: "body", Rule: "minItems",
				Issue: "an allowlist names at least one company"})
		}
		for _, c := range n.Companies {
			if !slices.ContainsFunc(reach, func(a Access) bool { return a.CompanyID == c }) {
				return exceeded("companies", map[string]any{"company_id": c})
			}
		}
	}
	if caller.ReadOnly && !n.ReadOnly {
		return exceeded("read_only", nil)
	}
	if n.ExpiresAt != nil && !n.ExpiresAt.After(now) {
		return apierr.Validation(apierr.Issue{Field: "expires_at", In: "body", Rule: "future",
			Issue: "expires_at must be in the future"})
	}
	if caller.ExpiresAt != nil {
		if n.ExpiresAt == nil {
			n.ExpiresAt = caller.ExpiresAt
		} else if n.ExpiresAt.After(*caller.ExpiresAt) {
			return exceeded("expires_at", map[string]any{"caller_expires_at": caller.ExpiresAt.UTC().Format(time.RFC3339)})
		}
	}
	return nil
}

func exceeded(field string, details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	details["field"] = field
	return apierr.New(apierr.APIKeyGrantExceeded, details)
}

// Roles is a caller's and a key holder's roles in one company the key
// reaches and the caller manages.
type Roles struct{ Caller, Holder Role }

// MayRevoke decides whether a caller may revoke a key of another user,
// given their roles in each company the key reaches where the caller is
// owner or admin: an owner there may; an admin may unless the key's user
// is an owner there, since an admin cannot take away an owner's access.
// The caller's own keys are always theirs to revoke (not asked here).
func MayRevoke(shared []Roles) bool {
	for _, r := range shared {
		if r.Caller == Owner || r.Caller == Admin && r.Holder != Owner {
			return true
		}
	}
	return false
}
