package auth

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
)

func code(err error) apierr.Code {
	if e, ok := err.(*apierr.Error); ok {
		return e.Code
	}
	return ""
}

func TestWithin(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	reach := []Access{{CompanyID: a, Role: Owner}, {CompanyID: b, Role: Member}}
	later := now.Add(24 * time.Hour)
	caller := &Key{Scopes: []string{"invoices:read", "invoices:write"}, CompanyAccess: Allowlist}
	for _, tc := range []struct {
		name   string
		caller *Key
		n      NewKey
		want   apierr.Code
		field  string
	}{
		{"a narrower key", caller, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a, b}}, "", ""},
		{"a scope it lacks", caller, NewKey{Scopes: []string{"reports:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a}}, apierr.APIKeyGrantExceeded, "scopes"},
		{"a company it does not reach", caller, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{c}}, apierr.APIKeyGrantExceeded, "companies"},
		{"all memberships from an allowlist", caller, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: AllMemberships}, apierr.APIKeyGrantExceeded, "company_access"},
		{"all memberships from all memberships", &Key{Scopes: caller.Scopes, CompanyAccess: AllMemberships}, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: AllMemberships}, "", ""},
		{"an empty allowlist", caller, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist}, apierr.ValidationError, ""},
		{"write access from a read-only key", &Key{Scopes: caller.Scopes, CompanyAccess: Allowlist, ReadOnly: true}, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a}}, apierr.APIKeyGrantExceeded, "read_only"},
		{"an expiry past", caller, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a}, ExpiresAt: &now}, apierr.ValidationError, ""},
		{"outliving the caller", &Key{Scopes: caller.Scopes, CompanyAccess: Allowlist, ExpiresAt: &later}, NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a}, ExpiresAt: ptr(later.Add(time.Second))}, apierr.APIKeyGrantExceeded, "expires_at"},
	} {
		err := Within(tc.caller, reach, &tc.n, now)
		if code(err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
			continue
		}
		if tc.field != "" && err.(*apierr.Error).Details["field"] != tc.field {
			t.Errorf("%s: details %v", tc.name, err.(*apierr.Error).Details)
		}
	}
	// An expiring caller gives its own expiry when none is asked.
	n := NewKey{Scopes: []string{"invoices:read"}, CompanyAccess: Allowlist, Companies: []uuid.UUID{a}}
	if err := Within(&Key{Scopes: caller.Scopes, CompanyAccess: Allowlist, ExpiresAt: &later}, reach, &n, now); err != nil ||
		n.ExpiresAt == nil || !n.ExpiresAt.Equal(later) {
		t.Fatalf("inherited expiry %v %v", n.ExpiresAt, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestMayRevoke(t *testing.T) {
	for _, tc := range []struct {
		shared []Roles
		want   bool
	}{
		{nil, false},
		{[]Roles{{Owner, Owner}}, true},
		{[]Roles{{Admin, Member}}, true},
		{[]Roles{{Admin, Admin}}, true},
		{[]Roles{{Admin, Owner}}, false},
		{[]Roles{{Admin, Owner}, {Owner, Member}}, true},
	} {
		if got := MayRevoke(tc.shared); got != tc.want {
			t.Errorf("%v: %v", tc.shared, got)
		}
	}
}
