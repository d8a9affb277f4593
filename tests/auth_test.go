package tests

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
)

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := e.key("owner@example.se", keySpec{})
	revoked := e.key("owner@example.se", keySpec{})
	if _, err := e.db.Exec(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, auth.HashToken(revoked)); err != nil {
		t.Fatal(err)
	}
	cases := map[string]map[string]string{
		"no header":      {"Authorization": ""},
		"not bearer":     {"Authorization": "Basic " + good},
		"empty bearer":   {"Authorization": "Bearer "},
		"foreign prefix": {"Authorization": "Bearer sk_live_abcdef"},
		"unknown key":    {"Authorization": "Bearer kontera_sk_doesnotexist0000000000000000000000"},
		"revoked key":    {"Authorization": "Bearer " + revoked},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.do(req{Method: "GET", Path: "/api/v1/api-key", Header: h})
			r.errorCode(t, 401, "UNAUTHORIZED")
			if r.str("error.docs_url") != base+"/docs/api/errors/UNAUTHORIZED" || r.str("error.message") == "" || r.str("error.message_en") == "" {
				t.Errorf("envelope incomplete: %s", r.Body)
			}
		})
	}
	e.get("/api/v1/api-key", good).status(t, 200)
	// Discovery needs no key, and a bad one does not make it fail.
	e.do(req{Method: "GET", Path: "/api/v1/health", Header: map[string]string{"Authorization": "Bearer nonsense"}}).status(t, 200)
}

func TestInsufficientScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Scope AB")
	readOnlyScopes := e.key("owner@example.se", keySpec{scopes: []string{"companies:read"}})

	r := e.post("/api/v1/companies", readOnlyScopes, map[string]any{"name": "X AB", "entity_type": "aktiebolag", "vat_registered": false, "f_skatt": true})
	r.errorCode(t, 403, "INSUFFICIENT_SCOPE")
	if r.str("error.details.required_scope") != "companies:write" {
		t.Errorf("required_scope = %v", r.at("error.details.required_scope"))
	}
	if g := r.list("error.details.granted_scopes"); len(g) != 1 || g[0] != "companies:read" {
		t.Errorf("granted_scopes = %v", g)
	}
	if r.str("error.recovery_hint") == "" {
		t.Error("INSUFFICIENT_SCOPE carries the spec's recovery hint")
	}
	e.get("/api/v1/companies/"+company.String()+"/audit-trail", readOnlyScopes).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	// No scope is needed to see one's own grant.
	none := e.key("owner@example.se", keySpec{scopes: []string{}})
	e.get("/api/v1/api-key", none).status(t, 200)
	if e.count(`SELECT count(*) FROM companies WHERE name = 'X AB'`) != 0 {
		t.Fatal("a refused write left a row")
	}
}

func TestApiKeyGrant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{name: "Bokföringsagent"})
	a := e.company(owner, "Alfa AB")
	b := e.company(owner, "Beta AB")

	e.member(b, "viewer@example.se", auth.Viewer, false)
	e.member(a, "viewer@example.se", auth.Member, true) // read-only connection
	viewer := e.key("viewer@example.se", keySpec{})

	r := e.get("/api/v1/api-key", viewer).status(t, 200)
	if r.str("data.mode") != "live" || r.str("data.company_access") != "all_memberships" {
		t.Fatalf("grant: %s", r.Body)
	}
	got := map[string][3]any{}
	for _, c := range r.list("data.companies") {
		m := c.(map[string]any)
		got[m["id"].(string)] = [3]any{m["role"], m["access"], m["read_only_code"]}
	}
	want := map[string][3]any{
		a.String(): {"member", "read_only", "CONNECTION_READ_ONLY"},
		b.String(): {"viewer", "read_only", "ROLE_READ_ONLY"},
	}
	if len(got) != 2 || got[a.String()] != want[a.String()] || got[b.String()] != want[b.String()] {
		t.Fatalf("companies = %v, want %v", got, want)
	}

	// all_memberships reaches a company joined later; archived ones are not listed.
	c := e.company(owner, "Gamma AB")
	e.member(c, "viewer@example.se", auth.Admin, false)
	if n := len(e.get("/api/v1/api-key", viewer).list("data.companies")); n != 3 {
		t.Fatalf("after joining a third company: %d companies", n)
	}
	if _, err := e.db.Exec(`UPDATE companies SET archived_at = now() WHERE id = $1`, c); err != nil {
		t.Fatal(err)
	}
	if n := len(e.get("/api/v1/api-key", viewer).list("data.companies")); n != 2 {
		t.Fatalf("archived company still listed: %d companies", n)
	}
	e.get("/api/v1/companies/"+c.String()+"/audit-trail", viewer).errorCode(t, 404, "NOT_FOUND")

	test := e.key("owner@example.se", keySpec{mode: auth.Test, scopes: []string{"companies:read"}})
	r = e.get("/api/v1/api-key", test).status(t, 200)
	if r.str("data.mode") != "test" || r.Header.Get("X-Kontera-Mode") != "test" {
		t.Fatalf("test key grant: %s %v", r.Body, r.Header)
	}
	if s := r.list("data.scopes"); len(s) != 1 || s[0] != "companies:read" {
		t.Fatalf("scopes = %v", s)
	}
}

func TestAllowlist(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	a := e.company(owner, "Alfa AB")
	b := e.company(owner, "Beta AB")
	listed := e.key("owner@example.se", keySpec{allowlist: []uuid.UUID{a}})

	r := e.get("/api/v1/api-key", listed).status(t, 200)
	if r.str("data.company_access") != "allowlist" || len(r.list("data.companies")) != 1 || r.str("data.companies.0.id") != a.String() {
		t.Fatalf("allowlist grant: %s", r.Body)
	}
	if l := e.get("/api/v1/companies", listed).list("data"); len(l) != 1 {
		t.Fatalf("list shows %d companies, want 1", len(l))
	}
	e.get("/api/v1/companies/"+a.String()+"/audit-trail", listed).status(t, 200)
	outside := e.get("/api/v1/companies/"+b.String()+"/audit-trail", listed).errorCode(t, 404, "NOT_FOUND")
	missing := e.get("/api/v1/companies/"+uuid.NewString()+"/audit-trail", listed).errorCode(t, 404, "NOT_FOUND")
	if outside.str("error.message") != missing.str("error.message") {
		t.Error("an unreachable company must look exactly like a missing one")
	}

	// Not even a company the key itself creates.
	c := e.company(listed, "Gamma AB")
	e.get("/api/v1/companies/"+c.String()+"/audit-trail", listed).errorCode(t, 404, "NOT_FOUND")
	if n := len(e.get("/api/v1/companies", listed).list("data")); n != 1 {
		t.Fatalf("allowlist key sees %d companies after creating one", n)
	}
	if n := len(e.get("/api/v1/companies", owner).list("data")); n != 3 {
		t.Fatalf("the user's all_memberships key sees %d companies, want 3", n)
	}
}

func TestViewerAndReadOnlyWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Roll AB")
	path := "/api/v1/companies/" + company.String() + "/members"
	body := map[string]any{"email": "ny@example.se", "role": "member"}

	e.member(company, "viewer@example.se", auth.Viewer, false)
	viewer := e.key("viewer@example.se", keySpec{})
	e.get(path, viewer).status(t, 200)
	e.get("/api/v1/companies/"+company.String()+"/audit-trail", viewer).status(t, 200)
	e.post(path, viewer, body, "Idempotency-Key", newKey()).errorCode(t, 403, "ROLE_READ_ONLY")

	e.member(company, "ansluten@example.se", auth.Admin, true)
	connection := e.key("ansluten@example.se", keySpec{})
	e.post(path, connection, body, "Idempotency-Key", newKey()).errorCode(t, 403, "CONNECTION_READ_ONLY")

	readOnlyKey := e.key("owner@example.se", keySpec{readOnly: true})
	e.get(path, readOnlyKey).status(t, 200)
	e.post(path, readOnlyKey, body, "Idempotency-Key", newKey()).errorCode(t, 403, "CONNECTION_READ_ONLY")
	e.post("/api/v1/companies", readOnlyKey, map[string]any{"name": "Y AB", "entity_type": "aktiebolag", "vat_registered": false, "f_skatt": true}).
		errorCode(t, 403, "CONNECTION_READ_ONLY")

	// A viewer's role wins over a read-only key: the code names the role.
	viewerRO := e.key("viewer@example.se", keySpec{readOnly: true})
	e.post(path, viewerRO, body, "Idempotency-Key", newKey()).errorCode(t, 403, "ROLE_READ_ONLY")

	if n := e.count(`SELECT count(*) FROM company_members WHERE company_id = $1`, company); n != 3 {
		t.Fatalf("%d members, want 3: a refused write changed something", n)
	}
}

func TestOwnerAdminOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Roll AB")
	path := "/api/v1/companies/" + company.String() + "/members"

	e.member(company, "member@example.se", auth.Member, false)
	member := e.key("member@example.se", keySpec{})
	r := e.post(path, member, map[string]any{"email": "x@example.se", "role": "viewer"}, "Idempotency-Key", newKey())
	r.errorCode(t, 403, "FORBIDDEN")

	e.member(company, "admin@example.se", auth.Admin, false)
	admin := e.key("admin@example.se", keySpec{})
	e.post(path, admin, map[string]any{"email": "x@example.se", "role": "viewer"}, "Idempotency-Key", newKey()).status(t, 201)
	// Only an owner makes owners.
	e.post(path, admin, map[string]any{"email": "y@example.se", "role": "owner"}, "Idempotency-Key", newKey()).errorCode(t, 403, "FORBIDDEN")
	e.post(path, owner, map[string]any{"email": "y@example.se", "role": "owner"}, "Idempotency-Key", newKey()).status(t, 201)

	r = e.get(path, member).status(t, 200)
	var roles []string
	for _, m := range r.list("data") {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	slices.Sort(roles)
	if !slices.Equal(roles, []string{"admin", "member", "owner", "owner", "viewer"}) {
		t.Fatalf("roles = %v", roles)
	}
	// Adding an existing member is a conflict, not a silent role change.
	e.post(path, owner, map[string]any{"email": "X@example.se", "role": "admin"}, "Idempotency-Key", newKey()).errorCode(t, 409, "CONFLICT")
}

func TestKeysStoredHashed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	token := e.key("owner@example.se", keySpec{})
	if n := e.count(`SELECT count(*) FROM api_keys WHERE position($1 in prefix) > 0 OR encode(key_hash, 'escape') LIKE '%' || $1 || '%'`, token); n != 0 {
		t.Fatal("the key is stored in clear")
	}
	k, err := e.keys.Authenticate(context.Background(), token)
	if err != nil || k == nil {
		t.Fatalf("authenticate: %v", err)
	}
	test := e.key("owner@example.se", keySpec{mode: auth.Test})
	if len(token) < 40 || token[:11] != "kontera_sk_" || test[:16] != "kontera_sk_test_" {
		t.Fatalf("key prefixes: %s %s", token[:16], test[:16])
	}
}
