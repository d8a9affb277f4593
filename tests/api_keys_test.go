package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
)

// keyEnv is a company with an owner, an admin and a member, each with a
// key reaching every company of theirs, served by two replicas.
type keyEnv struct {
	*env
	other                 *env
	company               uuid.UUID
	owner, admin, member  string
	ownerID, memberID     string
	adminKeyID, memberKey string
}

func newKeyEnv(t *testing.T) *keyEnv {
	e := newEnv(t)
	k := &keyEnv{env: e, other: envOn(t, e.db)}
	k.owner = e.key("agare@example.se", keySpec{name: "ägare"})
	k.company = e.company(k.owner, "Nyckelbolaget AB")
	e.member(k.company, "admin@example.se", auth.Admin, false)
	e.member(k.company, "bokforare@example.se", auth.Member, false)
	k.admin = e.key("admin@example.se", keySpec{name: "admin"})
	k.member = e.key("bokforare@example.se", keySpec{name: "bokförare"})
	k.ownerID = keyID(t, e, k.owner)
	k.adminKeyID = keyID(t, e, k.admin)
	k.memberKey = keyID(t, e, k.member)
	return k
}

// keyID is the id of the key a token names.
func keyID(t *testing.T, e *env, token string) string {
	t.Helper()
	var id string
	if err := e.db.Get(&id, `SELECT id::text FROM api_keys WHERE key_hash = $1`, auth.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return id
}

func (k *keyEnv) revoke(token, id string) *response {
	return k.do(req{Method: "DELETE", Path: "/api/v1/api-keys/" + id, Token: token})
}

// events answers the payloads of the company's events of type, each
// checked against the document.
func (k *keyEnv) events(typ string) []map[string]any {
	k.t.Helper()
	var raws [][]byte
	if err := k.db.Select(&raws, `SELECT payload FROM events WHERE company_id = $1 AND type = $2 ORDER BY created_at`,
		k.company, typ); err != nil {
		k.t.Fatal(err)
	}
	out := make([]map[string]any, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			k.t.Fatal(err)
		}
		if err := k.doc.Components.Schemas["ApiKeyEventPayload"].Value.VisitJSON(out[i]); err != nil {
			k.t.Fatalf("%s against the document: %v", typ, err)
		}
	}
	return out
}

func ids(r *response) []string {
	var out []string
	for _, it := range r.list("data") {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

// A key makes keys holding no more than it does; the secret is shown
// once, works at once, and the company's audit trail and feed record it.
func TestAPIKeyCreateWithinTheGrant(t *testing.T) {
	t.Parallel()
	k := newKeyEnv(t)
	second := k.env.company(k.owner, "Andra bolaget AB")
	body := map[string]any{"name": "Fakturaintegration", "scopes": []string{"invoices:read", "api_keys:manage"},
		"companies": []string{k.company.String()}}
	r := k.post("/api/v1/api-keys", k.owner, body).status(t, 201)
	secret := r.str("data.secret")
	if !strings.HasPrefix(secret, auth.LivePrefix) || !strings.HasPrefix(secret, r.str("data.prefix")) ||
		r.str("data.status") != "active" || r.str("data.company_access") != "allowlist" ||
		r.str("data.user_email") != "agare@example.se" || r.at("data.last_used_at") != nil {
		t.Fatalf("created: %s", r.Body)
	}
	if got := r.list("data.companies"); len(got) != 1 || got[0] != k.company.String() {
		t.Fatalf("companies %v", got)
	}
	id := r.str("data.id")
	if n := k.count(`SELECT count(*) FROM api_keys WHERE id = $1 AND key_hash = $2`, id, auth.HashToken(secret)); n != 1 {
		t.Fatal("the secret is not what is stored, hashed")
	}
	// It works at once, on the other replica too, with what was asked.
	g := k.other.get("/api/v1/api-key", secret).status(t, 200)
	if s := g.list("data.scopes"); len(s) != 2 || len(g.list("data.companies")) != 1 {
		t.Fatalf("grant %s", g.Body)
	}
	k.other.get("/api/v1/companies/"+second.String()+"/invoices", secret).errorCode(t, 404, "NOT_FOUND")
	// Audited and announced in the company it reaches, never the secret.
	if n := k.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'api_keys'
		AND record_id = $2 AND action = 'INSERT' AND actor_label = 'ägare' AND new_state->>'prefix' IS NOT NULL
		AND new_state::text NOT LIKE '%'||$3||'%'`, k.company, id, secret); n != 1 {
		t.Fatalf("%d audit rows", n)
	}
	if n := k.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'api_keys'`, second); n != 0 {
		t.Fatal("a company the key does not reach was told of it")
	}
	if ev := k.events("api_key.created"); len(ev) != 1 || ev[0]["api_key"].(map[string]any)["id"] != id {
		t.Fatalf("events %v", ev)
	}
	// The new key holds api_keys:manage and one company: what it makes
	// stays within that.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "x", "scopes": []string{"invoices:write"}, "companies": []string{k.company.String()}}, "scopes"},
		{map[string]any{"name": "x", "scopes": []string{"invoices:read"}, "company_access": "all_memberships"}, "company_access"},
		{map[string]any{"name": "x", "scopes": []string{"invoices:read"}, "companies": []string{second.String()}}, "companies"},
	} {
		e := k.post("/api/v1/api-keys", secret, c.body).errorCode(t, 403, "API_KEY_GRANT_EXCEEDED")
		if e.str("error.details.field") != c.field {
			t.Fatalf("%v: %s", c.body, e.Body)
		}
	}
	r = k.post("/api/v1/api-keys", secret, map[string]any{"name": "läs", "scopes": []string{"invoices:read"},
		"companies": []string{k.company.String()}, "read_only": true}).status(t, 201)
	readOnly := r.str("data.secret")
	k.post("/api/v1/api-keys", readOnly, body).errorCode(t, 403, "INSUFFICIENT_SCOPE")
	// The allowlist key lists its user's keys, but of the companies they
	// reach only its own: the second company stays unknown to it.
	for _, it := range k.get("/api/v1/api-keys", secret).status(t, 200).list("data") {
		for _, c := range it.(map[string]any)["companies"].([]any) {
			if c == second.String() {
				t.Fatalf("an allowlist key learnt of a company outside its list: %v", it)
			}
		}
	}
	// Bad requests change nothing.
	before := k.count(`SELECT count(*) FROM api_keys`)
	k.post("/api/v1/api-keys", k.owner, map[string]any{"name": "x", "scopes": []string{"invoices:read"}}).
		errorCode(t, 400, "VALIDATION_ERROR")
	k.post("/api/v1/api-keys", k.owner, map[string]any{"name": "x", "scopes": []string{"invoices:read"},
		"companies": []string{k.company.String()}, "expires_at": "2020-01-01T00:00:00Z"}).errorCode(t, 400, "VALIDATION_ERROR")
	k.post("/api/v1/api-keys", k.owner, map[string]any{"name": "x", "scopes": []string{"nope:read"},
		"companies": []string{k.company.String()}}).errorCode(t, 400, "VALIDATION_ERROR")
	if after := k.count(`SELECT count(*) FROM api_keys`); after != before {
		t.Fatalf("keys %d → %d", before, after)
	}
	// A key that expires gives at most its own lifetime.
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	r = k.post("/api/v1/api-keys", k.owner, map[string]any{"name": "kort", "scopes": []string{"api_keys:manage", "invoices:read"},
		"company_access": "all_memberships", "expires_at": exp.Format(time.RFC3339)}).status(t, 201)
	short := r.str("data.secret")
	r = k.post("/api/v1/api-keys", short, map[string]any{"name": "ärver", "scopes": []string{"invoices:read"},
		"companies": []string{k.company.String()}}).status(t, 201)
	if got, _ := time.Parse(time.RFC3339, r.str("data.expires_at")); !got.Equal(exp) {
		t.Fatalf("inherited expiry %s, want %s", r.str("data.expires_at"), exp)
	}
	k.post("/api/v1/api-keys", short, map[string]any{"name": "längre", "scopes": []string{"invoices:read"},
		"companies": []string{k.company.String()}, "expires_at": exp.Add(time.Hour).Format(time.RFC3339)}).
		errorCode(t, 403, "API_KEY_GRANT_EXCEEDED")
	// An expired key is refused, and listed as expired.
	if _, err := k.db.Exec(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE key_hash = $1`, auth.HashToken(short)); err != nil {
		t.Fatal(err)
	}
	k.other.get("/api/v1/api-key", short).errorCode(t, 401, "UNAUTHORIZED")
	l := k.get("/api/v1/api-keys?status=expired", k.owner).status(t, 200)
	if len(l.list("data")) != 1 || l.str("data.0.name") != "kort" {
		t.Fatalf("expired: %s", l.Body)
	}
	// A test key manages no keys.
	test := k.key("agare@example.se", keySpec{mode: auth.Test})
	k.post("/api/v1/api-keys", test, body).errorCode(t, 403, "TEST_KEY_WRITE_BLOCKED")
}

// Owners and admins see the keys reaching their company; a member sees
// only its own. Revocation holds at once on another replica.
func TestAPIKeyListAndRevokeAcrossReplicas(t *testing.T) {
	t.Parallel()
	k := newKeyEnv(t)
	k.get("/api/v1/api-key", k.member).status(t, 200) // last used, now
	own := ids(k.get("/api/v1/api-keys", k.owner).status(t, 200))
	for _, want := range []string{k.ownerID, k.adminKeyID, k.memberKey} {
		if !slices.Contains(own, want) {
			t.Fatalf("the owner does not see %s: %v", want, own)
		}
	}
	if got := ids(k.get("/api/v1/api-keys", k.member).status(t, 200)); !slices.Equal(got, []string{k.memberKey}) {
		t.Fatalf("the member sees %v", got)
	}
	stranger := k.key("annan@example.se", keySpec{})
	elsewhere := k.env.company(stranger, "Främlingen AB")
	if got := ids(k.get("/api/v1/api-keys?company_id="+elsewhere.String(), k.owner).status(t, 200)); len(got) != 0 {
		t.Fatalf("keys of a company the owner is not in: %v", got)
	}
	l := k.get("/api/v1/api-keys?company_id="+k.company.String()+"&limit=1", k.owner).status(t, 200)
	next := l.str("meta.next_cursor")
	l2 := k.get("/api/v1/api-keys?company_id="+k.company.String()+"&limit=1&cursor="+next, k.owner).status(t, 200)
	if next == "" || len(l.list("data")) != 1 || len(l2.list("data")) != 1 || ids(l)[0] == ids(l2)[0] {
		t.Fatalf("pages %s %s", l.Body, l2.Body)
	}
	for _, it := range k.get("/api/v1/api-keys", k.owner).list("data") {
		m := it.(map[string]any)
		if m["id"] == k.memberKey && m["last_used_at"] == nil {
			t.Fatal("last_used_at not set")
		}
		if _, ok := m["secret"]; ok {
			t.Fatal("a listed key shows its secret")
		}
	}
	// A member cannot touch another's key; an admin cannot revoke an
	// owner's key, nor rotate anyone else's.
	k.revoke(k.member, k.ownerID).errorCode(t, 404, "API_KEY_NOT_FOUND")
	k.revoke(k.admin, k.ownerID).errorCode(t, 403, "FORBIDDEN")
	k.post("/api/v1/api-keys/"+k.memberKey+"/rotate", k.admin, nil).errorCode(t, 403, "FORBIDDEN")
	k.revoke(k.owner, uuid.NewString()).errorCode(t, 404, "API_KEY_NOT_FOUND")
	k.other.get("/api/v1/api-key", k.owner).status(t, 200)
	// The admin revokes the member's key: the other replica refuses it at
	// once, and the revocation is final.
	k.other.get("/api/v1/api-key", k.member).status(t, 200)
	r := k.revoke(k.admin, k.memberKey).status(t, 200)
	if r.str("data.status") != "revoked" || r.str("data.revoked_at") == "" {
		t.Fatalf("revoked: %s", r.Body)
	}
	k.other.get("/api/v1/api-key", k.member).errorCode(t, 401, "UNAUTHORIZED")
	k.get("/api/v1/api-key", k.member).errorCode(t, 401, "UNAUTHORIZED")
	again := k.revoke(k.owner, k.memberKey).status(t, 200)
	if again.str("data.revoked_at") != r.str("data.revoked_at") {
		t.Fatalf("revoked twice: %s then %s", r.str("data.revoked_at"), again.str("data.revoked_at"))
	}
	if got := ids(k.get("/api/v1/api-keys?status=revoked", k.owner)); !slices.Equal(got, []string{k.memberKey}) {
		t.Fatalf("revoked list %v", got)
	}
	if n := k.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'api_keys'
		AND record_id = $2 AND action = 'UPDATE' AND actor_label = 'admin' AND new_state->>'revoked_at' IS NOT NULL`,
		k.company, k.memberKey); n != 1 {
		t.Fatalf("%d audit rows of the revocation", n)
	}
	// Nothing brings a revoked key back, not even SQL.
	for _, q := range []string{`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`,
		`UPDATE api_keys SET key_hash = sha256('x') WHERE id = $1`, `DELETE FROM api_keys WHERE id = $1`} {
		if _, err := k.db.Exec(q, k.memberKey); err == nil {
			t.Fatalf("%s: taken", q)
		}
	}
	// A key may revoke itself.
	k.revoke(k.owner, k.ownerID).status(t, 200)
	k.other.get("/api/v1/api-key", k.owner).errorCode(t, 401, "UNAUTHORIZED")
}

// A rotation's grace period holds on every replica, and ends.
func TestAPIKeyRotationGrace(t *testing.T) {
	t.Parallel()
	k := newKeyEnv(t)
	r := k.post("/api/v1/api-keys/"+k.memberKey+"/rotate", k.member, map[string]any{"grace_period_seconds": 3600}).status(t, 200)
	fresh := r.str("data.secret")
	if fresh == k.member || r.str("data.id") != k.memberKey || r.str("data.previous_secret_expires_at") == "" ||
		!strings.HasPrefix(fresh, r.str("data.prefix")) {
		t.Fatalf("rotated: %s", r.Body)
	}
	// Both secrets work, on both replicas, as the same key.
	for _, e := range []*env{k.env, k.other} {
		e.get("/api/v1/api-key", fresh).status(t, 200)
		e.get("/api/v1/api-key", k.member).status(t, 200)
	}
	// The grace ends (as if an hour passed): the old secret is refused.
	if _, err := k.db.Exec(`UPDATE api_keys SET previous_expires_at = now() - interval '1 second' WHERE id = $1`, k.memberKey); err != nil {
		t.Fatal(err)
	}
	k.other.get("/api/v1/api-key", k.member).errorCode(t, 401, "UNAUTHORIZED")
	k.get("/api/v1/api-key", fresh).status(t, 200)
	// Without grace, the old secret stops at once.
	r = k.other.post("/api/v1/api-keys/"+k.memberKey+"/rotate", fresh, nil).status(t, 200)
	if r.at("data.previous_secret_expires_at") != nil {
		t.Fatalf("no grace: %s", r.Body)
	}
	k.get("/api/v1/api-key", fresh).errorCode(t, 401, "UNAUTHORIZED")
	newest := r.str("data.secret")
	k.get("/api/v1/api-key", newest).status(t, 200)
	k.post("/api/v1/api-keys/"+k.memberKey+"/rotate", newest, map[string]any{"grace_period_seconds": 604801}).
		errorCode(t, 400, "VALIDATION_ERROR")
	// A revoked key is not rotated.
	k.revoke(k.owner, k.adminKeyID).status(t, 200)
	another := k.key("admin@example.se", keySpec{})
	k.post("/api/v1/api-keys/"+k.adminKeyID+"/rotate", another, nil).errorCode(t, 409, "API_KEY_REVOKED")
	var n int
	if err := k.db.Get(&n, `SELECT count(*) FROM audit_entries WHERE table_name = 'api_keys' AND record_id = $1
		AND description LIKE 'API-nyckelns hemlighet byttes%'`, k.memberKey); err != nil || n != 2 {
		t.Fatalf("%d rotation audit rows, %v", n, err)
	}
	if rotated := k.events("api_key.rotated"); len(rotated) != 2 {
		t.Fatalf("rotation events %v", rotated)
	}
}

// A rotation sent again with its Idempotency-Key answers the first
// rotation's secret rather than rotating twice (an agent's retry is safe),
// and the stored answer holds the secret sealed, never in clear.
func TestAPIKeyRotationRetried(t *testing.T) {
	t.Parallel()
	k := newKeyEnv(t)
	ik := newKey()
	first := k.post("/api/v1/api-keys/"+k.memberKey+"/rotate", k.member, map[string]any{"grace_period_seconds": 3600},
		"Idempotency-Key", ik).status(t, 200)
	again := k.other.post("/api/v1/api-keys/"+k.memberKey+"/rotate", k.member, map[string]any{"grace_period_seconds": 3600},
		"Idempotency-Key", ik).status(t, 200)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.str("data.secret") != first.str("data.secret") {
		t.Fatalf("the retry: %s, first %s", again.Body, first.Body)
	}
	if n := k.count(`SELECT count(*) FROM audit_entries WHERE table_name = 'api_keys' AND record_id = $1
		AND description LIKE 'API-nyckelns hemlighet byttes%'`, k.memberKey); n != 1 {
		t.Fatalf("%d rotations", n)
	}
	if n := k.count(`SELECT count(*) FROM idempotency_keys WHERE position($1::bytea IN body) > 0`,
		[]byte(first.str("data.secret"))); n != 0 {
		t.Fatal("the stored answer holds the secret in clear")
	}
}
