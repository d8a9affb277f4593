// Package auth holds who may do what: users, their memberships of
// companies (owner, admin, member, viewer), API keys with their mode,
// scopes and company access, and the rules that turn those into a yes or a
// catalogue error.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

// Key prefixes: the brand word, sk, and test for test keys.
const (
	LivePrefix = "kontera_sk_"
	TestPrefix = "kontera_sk_test_"
)

// Mode is live or test. Test keys read real data but every write they make
// is a dry run.
type Mode string

// The key modes.
const (
	Live Mode = "live"
	Test Mode = "test"
)

// CompanyAccess says which companies a key reaches.
type CompanyAccess string

// The company access kinds.
const (
	// AllMemberships reaches every company the user belongs to, including
	// ones joined later.
	AllMemberships CompanyAccess = "all_memberships"
	// Allowlist reaches only the listed companies, never another one, not
	// even one the key itself creates.
	Allowlist CompanyAccess = "allowlist"
)

// Role is a user's role in a company.
type Role string

// The roles, from most to least powerful.
const (
	Owner  Role = "owner"
	Admin  Role = "admin"
	Member Role = "member"
	Viewer Role = "viewer"
)

// ParseRole returns the role named s.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Owner, Admin, Member, Viewer:
		return r, nil
	}
	return "", fmt.Errorf("unknown role %q (owner, admin, member or viewer)", s)
}

// Scopes is every scope a key can hold, in the order the spec names them.
var Scopes = []string{
	"companies:read", "companies:write",
	"customers:read", "customers:write",
	"suppliers:read", "suppliers:write",
	"invoices:read", "invoices:write",
	"transactions:read", "transactions:write",
	"documents:read", "documents:write",
	"reports:read",
	"payroll:read", "payroll:write",
	"bookkeeping:write",
	"webhooks:manage",
	"compliance:read",
	"reconciliation:read", "reconciliation:write", "reconciliation:signoff",
	ManageScope,
}

// ParseScopes reads "all" or a comma list of scopes.
func ParseScopes(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(Scopes), nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(Scopes, p) {
			return nil, fmt.Errorf("unknown scope %q", p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scopes given")
	}
	return out, nil
}

// Key is an authenticated API key.
type Key struct {
	ID     uuid.UUID `db:"id"`
	UserID uuid.UUID `db:"user_id"`
	// UserEmail is the e-mail of the person the key belongs to: the actor
	// the audit trail and the books name beside the key's label.
	UserEmail     string        `db:"email"`
	Name          *string       `db:"name"`
	Mode          Mode          `db:"mode"`
	Scopes        []string      `db:"-"`
	CompanyAccess CompanyAccess `db:"company_access"`
	// ReadOnly keys may read every company they reach and write none.
	ReadOnly bool `db:"read_only"`
	// ExpiresAt is when the key stops working; nil: never.
	ExpiresAt *time.Time `db:"expires_at"`
}

// Label is how the key appears as an actor in the audit trail.
func (k *Key) Label() string {
	if k.Name != nil && *k.Name != "" {
		return *k.Name
	}
	return "Unnamed API key"
}

// RequireScopes returns INSUFFICIENT_SCOPE unless the key holds every scope
// in required.
func (k *Key) RequireScopes(required []string) error {
	for _, s := range required {
		if !slices.Contains(k.Scopes, s) {
			granted := k.Scopes
			if granted == nil {
				granted = []string{}
			}
			return apierr.New(apierr.InsufficientScope, map[string]any{"required_scope": s, "granted_scopes": granted})
		}
	}
	return nil
}

// Access is what a key may do in one company.
type Access struct {
	CompanyID uuid.UUID `db:"company_id"`
	Role      Role      `db:"role"`
	// ReadOnly is the code a write is refused with, or "" when the key may
	// write: ROLE_READ_ONLY for a viewer, CONNECTION_READ_ONLY for a
	// read-only key or membership.
	ReadOnly apierr.Code `db:"-"`
}

// ReadOnlyCode decides whether a member may write, and if not, why: a
// viewer's role is read-only whatever the key; otherwise a read-only key or
// a read-only connection to the company makes it read-only.
func ReadOnlyCode(role Role, connectionReadOnly, keyReadOnly bool) apierr.Code {
	switch {
	case role == Viewer:
		return apierr.RoleReadOnly
	case connectionReadOnly || keyReadOnly:
		return apierr.ConnectionReadOnly
	}
	return ""
}

// RequireWrite returns the error a write is refused with, or nil: the
// read-only code of the access, or FORBIDDEN when roles (the operation's
// x-roles) is not empty and does not hold the member's role.
func (a *Access) RequireWrite(roles []string) error {
	if a.ReadOnly != "" {
		return apierr.New(a.ReadOnly, map[string]any{"company_id": a.CompanyID, "role": a.Role})
	}
	return a.RequireRole(roles)
}

// RequireRole returns FORBIDDEN unless roles is empty or holds the role.
func (a *Access) RequireRole(roles []string) error {
	if len(roles) > 0 && !slices.Contains(roles, string(a.Role)) {
		return apierr.New(apierr.Forbidden, map[string]any{"required_roles": roles, "role": a.Role})
	}
	return nil
}

// SeesSnapshots reports whether the member may read whole-row snapshots in
// the audit trail (owners and admins).
func (a *Access) SeesSnapshots() bool { return a.Role == Owner || a.Role == Admin }

// NewToken makes a fresh key of mode: the secret handed out once, and the
// hash that is stored.
func NewToken(mode Mode) (token string, hash []byte) {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	const n = 40 // 40 symbols of 57: about 233 bits
	buf := make([]byte, 0, n)
	rnd := make([]byte, 64)
	for len(buf) < n {
		_, _ = rand.Read(rnd)
		for _, b := range rnd {
			// Rejection sampling keeps the symbols uniform.
			if int(b) < 256-256%len(alphabet) && len(buf) < n {
				buf = append(buf, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	prefix := LivePrefix
	if mode == Test {
		prefix = TestPrefix
	}
	token = prefix + string(buf)
	return token, HashToken(token)
}

// Prefix is the part of a token kept to recognise it by: the brand
// prefix and four symbols of the secret.
func Prefix(token string) string { return token[:len(token)-36] }

// HashToken is how a key is stored and looked up: SHA-256 is enough for a
// random secret of this length (no dictionary to guess from).
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// ParseBearer returns the key in an Authorization header value, or "".
func ParseBearer(header string) string {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, LivePrefix) || len(token) > 200 {
		return ""
	}
	return token
}

type keyCtx struct{}
type accessCtx struct{}

// WithKey returns ctx carrying the authenticated key.
func WithKey(ctx context.Context, k *Key) context.Context { return context.WithValue(ctx, keyCtx{}, k) }

// KeyFrom returns the authenticated key of ctx, or nil.
func KeyFrom(ctx context.Context) *Key {
	k, _ := ctx.Value(keyCtx{}).(*Key)
	return k
}

// WithAccess returns ctx carrying the key's access to the company of the
// request.
func WithAccess(ctx context.Context, a *Access) context.Context {
	return context.WithValue(ctx, accessCtx{}, a)
}

// AccessFrom returns the access to the request's company, or nil.
func AccessFrom(ctx context.Context) *Access {
	a, _ := ctx.Value(accessCtx{}).(*Access)
	return a
}
