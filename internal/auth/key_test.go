package auth

import (
	"slices"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/openapi"
)

func TestScopesMatchDocument(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range c.Doc.Components.Schemas["Scope"].Value.Enum {
		enum = append(enum, v.(string))
	}
	if !slices.Equal(enum, Scopes) {
		t.Fatalf("Scope enum %v\nauth.Scopes %v", enum, Scopes)
	}
}

func TestReadOnlyCode(t *testing.T) {
	cases := []struct {
		role      Role
		conn, key bool
		want      apierr.Code
	}{
		{Owner, false, false, ""}, {Admin, false, false, ""}, {Member, false, false, ""},
		{Viewer, false, false, apierr.RoleReadOnly}, {Viewer, true, true, apierr.RoleReadOnly},
		{Owner, true, false, apierr.ConnectionReadOnly}, {Member, false, true, apierr.ConnectionReadOnly},
	}
	for _, c := range cases {
		if got := ReadOnlyCode(c.role, c.conn, c.key); got != c.want {
			t.Errorf("ReadOnlyCode(%s, %v, %v) = %q, want %q", c.role, c.conn, c.key, got, c.want)
		}
	}
}

func TestRequireRoleAndScopes(t *testing.T) {
	a := &Access{Role: Member}
	if !apierr.Is(a.RequireWrite([]string{"owner", "admin"}), apierr.Forbidden) || a.RequireWrite(nil) != nil {
		t.Fatal("member rules")
	}
	v := &Access{Role: Viewer, ReadOnly: apierr.RoleReadOnly}
	if !apierr.Is(v.RequireWrite(nil), apierr.RoleReadOnly) || v.RequireRole(nil) != nil {
		t.Fatal("viewer rules")
	}
	k := &Key{Scopes: []string{"companies:read"}}
	if k.RequireScopes([]string{"companies:read"}) != nil || !apierr.Is(k.RequireScopes([]string{"companies:write"}), apierr.InsufficientScope) {
		t.Fatal("scopes")
	}
}

func TestTokensAndBearer(t *testing.T) {
	live, h := NewToken(Live)
	test, _ := NewToken(Test)
	if len(live) != len(LivePrefix)+40 || live[:len(LivePrefix)] != LivePrefix || test[:len(TestPrefix)] != TestPrefix {
		t.Fatalf("tokens %s %s", live, test)
	}
	if string(HashToken(live)) != string(h) {
		t.Fatal("hash")
	}
	if a, _ := NewToken(Live); a == live {
		t.Fatal("tokens repeat")
	}
	if ParseBearer("Bearer "+live) != live || ParseBearer("bearer "+live) != live || ParseBearer(live) != "" || ParseBearer("Bearer sk_x") != "" {
		t.Fatal("ParseBearer")
	}
	if _, err := ParseScopes("companies:read,nope"); err == nil {
		t.Fatal("unknown scope accepted")
	}
	if s, _ := ParseScopes("all"); len(s) != len(Scopes) {
		t.Fatal("all")
	}
}
