package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/idempotency"
)

var companyBody = map[string]any{"name": "Dry AB", "entity_type": "aktiebolag", "org_number": "556677-8899",
	"vat_registered": true, "moms_period": "quarterly", "f_skatt": true}

func rows(e *env) [3]int {
	return [3]int{
		e.count(`SELECT count(*) FROM companies`),
		e.count(`SELECT count(*) FROM company_members`),
		e.count(`SELECT count(*) FROM audit_entries`),
	}
}

func TestDryRunLeavesNoRow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	before := rows(e)
	for name, r := range map[string]req{
		"query true":      {Path: "/api/v1/companies?dry_run=true"},
		"query any case":  {Path: "/api/v1/companies?dry_run=TrUe"},
		"header":          {Path: "/api/v1/companies", Header: map[string]string{"X-Dry-Run": "true"}},
		"header any case": {Path: "/api/v1/companies", Header: map[string]string{"X-Dry-Run": "TRUE"}},
	} {
		t.Run(name, func(t *testing.T) {
			r.Method, r.Token, r.Body = "POST", owner, companyBody
			res := e.do(r).status(t, 200)
			if res.Header.Get("X-Dry-Run") != "true" || res.at("data.dry_run") != true {
				t.Fatalf("not marked as a dry run: %v %s", res.Header, res.Body)
			}
			p, _ := res.at("data.preview").(map[string]any)
			if _, has := p["id"]; has || p["name"] != "Dry AB" || p["org_number"] != "556677-8899" || p["accounting_method"] != "accrual" {
				t.Fatalf("preview: %v", p)
			}
			if rows(e) != before {
				t.Fatalf("dry run left rows: %v -> %v", before, rows(e))
			}
		})
	}
	// Any other value commits.
	for _, v := range []string{"false", "yes", "1"} {
		e.post("/api/v1/companies?dry_run="+v, owner, companyBody).status(t, 201)
	}
	if n := e.count(`SELECT count(*) FROM companies`); n != 3 {
		t.Fatalf("%d companies after three live writes", n)
	}
	// A dry run still validates and answers the same errors.
	bad := map[string]any{"name": "X", "entity_type": "aktiebolag", "vat_registered": true, "f_skatt": true}
	e.post("/api/v1/companies?dry_run=true", owner, bad).errorCode(t, 400, "VALIDATION_ERROR")
}

func TestTestKeyForcesDryRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Test AB")
	test := e.key("owner@example.se", keySpec{mode: auth.Test})
	before := rows(e)

	r := e.post("/api/v1/companies", test, companyBody).status(t, 200)
	if r.Header.Get("X-Kontera-Mode") != "test" || r.Header.Get("X-Dry-Run") != "true" || r.at("data.dry_run") != true {
		t.Fatalf("test key write: %v %s", r.Header, r.Body)
	}
	r = e.post("/api/v1/companies/"+company.String()+"/members", test, map[string]any{"email": "a@example.se", "role": "member"}, "Idempotency-Key", newKey())
	r.status(t, 200)
	if r.str("data.preview.email") != "a@example.se" || r.Header.Get("X-Kontera-Mode") != "test" {
		t.Fatalf("member preview: %s", r.Body)
	}
	if rows(e) != before {
		t.Fatalf("a test key wrote: %v -> %v", before, rows(e))
	}
	// Reads are real and marked.
	r = e.get("/api/v1/companies", test).status(t, 200)
	if len(r.list("data")) != 1 || r.Header.Get("X-Kontera-Mode") != "test" {
		t.Fatalf("test key read: %v %s", r.Header, r.Body)
	}
	if e.get("/api/v1/companies", owner).Header.Get("X-Kontera-Mode") != "" {
		t.Fatal("a live key's response carries X-Kontera-Mode")
	}
}

func TestIdempotentReplayAndReuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Idem AB")
	path := "/api/v1/companies/" + company.String() + "/members"
	key := newKey()

	first := e.post(path, owner, map[string]any{"email": "anna@example.se", "role": "member"}, "Idempotency-Key", key).status(t, 201)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the first response is marked replayed")
	}
	// Same body in another key order and spacing: a replay.
	replay := e.post(path, owner, `{ "role": "member",  "email": "anna@example.se" }`, "Idempotency-Key", key).status(t, 201)
	if replay.Header.Get("Idempotent-Replayed") != "true" || string(replay.Body) != string(first.Body) {
		t.Fatalf("replay differs:\n%s\n%s", first.Body, replay.Body)
	}
	// Another body under the same key.
	r := e.post(path, owner, map[string]any{"email": "bert@example.se", "role": "member"}, "Idempotency-Key", key)
	r.errorCode(t, 409, "IDEMPOTENCY_KEY_REUSE")
	if r.str("error.recovery_hint") == "" || r.str("error.details.key") != key {
		t.Fatalf("reuse error: %s", r.Body)
	}
	// The same key as a dry run is another request too.
	e.post(path+"?dry_run=true", owner, map[string]any{"email": "anna@example.se", "role": "member"}, "Idempotency-Key", key).
		errorCode(t, 409, "IDEMPOTENCY_KEY_REUSE")
	if n := e.count(`SELECT count(*) FROM company_members WHERE company_id = $1`, company); n != 2 {
		t.Fatalf("%d members, want 2 (owner and anna)", n)
	}

	// Keys are scoped per API key: another key's same UUID is a new request.
	other := e.key("owner@example.se", keySpec{})
	e.post(path, other, map[string]any{"email": "cecilia@example.se", "role": "member"}, "Idempotency-Key", key).status(t, 201)

	// A dry run is never stored: the live call under the same key runs.
	dryKey := newKey()
	e.post(path+"?dry_run=true", owner, map[string]any{"email": "david@example.se", "role": "viewer"}, "Idempotency-Key", dryKey).status(t, 200)
	e.post(path, owner, map[string]any{"email": "david@example.se", "role": "viewer"}, "Idempotency-Key", dryKey).status(t, 201)

	// A refused request's outcome is stored and replayed too.
	dupKey := newKey()
	c1 := e.post(path, owner, map[string]any{"email": "david@example.se", "role": "admin"}, "Idempotency-Key", dupKey).errorCode(t, 409, "CONFLICT")
	c2 := e.post(path, owner, map[string]any{"email": "david@example.se", "role": "admin"}, "Idempotency-Key", dupKey).errorCode(t, 409, "CONFLICT")
	if c2.Header.Get("Idempotent-Replayed") != "true" || string(c1.Body) != string(c2.Body) {
		t.Fatal("a stored 409 was not replayed")
	}
}

func TestIdempotencyKeyRequiredAndFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Idem AB")
	path := "/api/v1/companies/" + company.String() + "/members"
	body := map[string]any{"email": "anna@example.se", "role": "member"}

	r := e.post(path, owner, body).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "header:Idempotency-Key:required" {
		t.Fatalf("issues = %v", f)
	}
	r = e.post(path, owner, body, "Idempotency-Key", "not-a-uuid").errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "header:Idempotency-Key:format" {
		t.Fatalf("issues = %v", f)
	}
	// Said in words, not as the regular expression the check uses; a
	// malformed id in the path is told the same way.
	if s := r.str("error.details.issues.0.issue"); !strings.HasPrefix(s, "must be a UUID") || strings.Contains(s, "pattern") {
		t.Fatalf("the Idempotency-Key refusal says %q", s)
	}
	if s := e.get(path[:len(path)-len("/members")]+"x/members", owner).str("error.details.issues.0.issue"); !strings.HasPrefix(s, "must be a UUID") {
		t.Fatalf("a malformed company id: %q", s)
	}
	// POST /companies honours the key (a Kontera extension): a retry
	// answers the first company, never a second one.
	before := e.count(`SELECT count(*) FROM companies`)
	key := newKey()
	a := e.post("/api/v1/companies", owner, companyBody, "Idempotency-Key", key).status(t, 201)
	b := e.post("/api/v1/companies", owner, companyBody, "Idempotency-Key", key).status(t, 201)
	if a.str("data.id") != b.str("data.id") || b.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("POST /companies retried: %s then %s", a.str("data.id"), b.str("data.id"))
	}
	if n := e.count(`SELECT count(*) FROM companies`); n != before+1 {
		t.Fatalf("%d companies made by a create and its retry", n-before)
	}
	other := map[string]any{}
	for k, v := range companyBody {
		other[k] = v
	}
	other["name"] = "Ett annat namn AB"
	e.post("/api/v1/companies", owner, other, "Idempotency-Key", key).errorCode(t, 409, "IDEMPOTENCY_KEY_REUSE")
	// The company it made answers on its own path, as the list shows it.
	g := e.get("/api/v1/companies/"+a.str("data.id"), owner).status(t, 200)
	if g.str("data.id") != a.str("data.id") || g.str("data.role") != "owner" || g.str("data.name") != a.str("data.name") {
		t.Fatalf("GET the company: %s", g.Body)
	}
	e.get("/api/v1/companies/"+uuid.NewString(), owner).errorCode(t, 404, "NOT_FOUND")
	stranger := e.key("stranger@example.se", keySpec{})
	e.get("/api/v1/companies/"+a.str("data.id"), stranger).errorCode(t, 404, "NOT_FOUND")
}

func TestConcurrentSameKeyActsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Race AB")
	path := "/api/v1/companies/" + company.String() + "/members"
	key := newKey()
	body, _ := json.Marshal(map[string]any{"email": "race@example.se", "role": "member"})
	auditBefore := e.count(`SELECT count(*) FROM audit_entries`)

	const n = 12
	statuses := make([]int, n)
	replayed := make([]bool, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			hreq, _ := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(string(body)))
			hreq.Header.Set("Authorization", "Bearer "+owner)
			hreq.Header.Set("Content-Type", "application/json")
			hreq.Header.Set("Idempotency-Key", key)
			res, err := e.srv.Client().Do(hreq)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
			replayed[i] = res.Header.Get("Idempotent-Replayed") == "true"
		}()
	}
	close(start)
	wg.Wait()
	fresh := 0
	for i, s := range statuses {
		switch {
		case s == 201 && !replayed[i]:
			fresh++
		case s == 201 && replayed[i], s == 409:
		default:
			t.Errorf("request %d: status %d", i, s)
		}
	}
	if fresh != 1 {
		t.Fatalf("%d requests acted, want exactly 1 (statuses %v)", fresh, statuses)
	}
	if m := e.count(`SELECT count(*) FROM company_members m JOIN users u ON u.id = m.user_id WHERE u.email = 'race@example.se'`); m != 1 {
		t.Fatalf("%d memberships", m)
	}
	if a := e.count(`SELECT count(*) FROM audit_entries`) - auditBefore; a != 1 {
		t.Fatalf("%d audit rows for one change", a)
	}
	// The loser of the race gets CONFLICT, never IDEMPOTENCY_KEY_REUSE.
	r := e.post(path, owner, string(body), "Idempotency-Key", key)
	if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after the race: %d %v", r.Status, r.Header)
	}
}

func TestInFlightKeyAnswersConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Lock AB")
	key := newKey()
	k, _ := e.keys.Authenticate(t.Context(), owner)
	// Hold the key's lock as a request in flight would.
	tx, err := e.db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if ok, _, err := idempotency.Claim(t.Context(), tx, k.ID, uuid.MustParse(key)); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	r := e.post("/api/v1/companies/"+company.String()+"/members", owner, map[string]any{"email": "x@example.se", "role": "member"}, "Idempotency-Key", key)
	r.errorCode(t, 409, "CONFLICT")
	if r.str("error.details.reason") != "in_progress" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("in-flight answer: %s", r.Body)
	}
	tx.Rollback()
	e.post("/api/v1/companies/"+company.String()+"/members", owner, map[string]any{"email": "x@example.se", "role": "member"}, "Idempotency-Key", key).status(t, 201)
}

func TestAuditRowsWithTheChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{name: "Bokföringsagent"})
	company := e.company(owner, "Spår AB")
	path := "/api/v1/companies/" + company.String() + "/audit-trail"

	r := e.get(path, owner).status(t, 200)
	entries := r.list("data.entries")
	if len(entries) != 4 || r.at("data.snapshots_included") != true {
		t.Fatalf("trail: %s", r.Body)
	}
	// Newest first: the first fiscal period, the chart, the owner
	// membership, then the company.
	tables := []string{}
	for _, en := range entries {
		tables = append(tables, en.(map[string]any)["table_name"].(string))
	}
	if strings.Join(tables, ",") != "fiscal_periods,accounts,company_members,companies" {
		t.Fatalf("entries: %v", tables)
	}
	m1 := entries[3].(map[string]any)
	if m1["action"] != "INSERT" {
		t.Fatalf("company entry: %v", m1)
	}
	if m1["record_id"] != company.String() || m1["actor_type"] != "api_key" || m1["actor_label"] != "Bokföringsagent" {
		t.Fatalf("company entry: %v", m1)
	}
	if ns, _ := m1["new_state"].(map[string]any); ns["name"] != "Spår AB" || m1["old_state"] != nil {
		t.Fatalf("snapshot: %v", m1["new_state"])
	}

	// A member sees what changed, not the snapshots.
	e.member(company, "member@example.se", auth.Member, false)
	member := e.key("member@example.se", keySpec{})
	r = e.get(path+"?table_name=companies", member).status(t, 200)
	if r.at("data.snapshots_included") != false || r.at("data.entries.0.new_state") != nil {
		t.Fatalf("member sees snapshots: %s", r.Body)
	}
	if f := r.list("data.entries.0.changed_fields"); len(f) == 0 {
		t.Fatal("changed_fields missing for a member")
	}

	// A write that fails leaves no audit row; a dry run neither.
	before := e.count(`SELECT count(*) FROM audit_entries`)
	e.post("/api/v1/companies/"+company.String()+"/members?dry_run=true", owner, map[string]any{"email": "n@example.se", "role": "member"}, "Idempotency-Key", newKey()).status(t, 200)
	e.post("/api/v1/companies/"+company.String()+"/members", member, map[string]any{"email": "n@example.se", "role": "member"}, "Idempotency-Key", newKey()).status(t, 403)
	if e.count(`SELECT count(*) FROM audit_entries`) != before {
		t.Fatal("a dry run or refused write was audited")
	}
	e.post("/api/v1/companies/"+company.String()+"/members", owner, map[string]any{"email": "n@example.se", "role": "viewer"}, "Idempotency-Key", newKey()).status(t, 201)
	r = e.get(path+"?table_name=company_members&action=INSERT&limit=1", owner).status(t, 200)
	if ns, _ := r.at("data.entries.0.new_state").(map[string]any); ns["role"] != "viewer" {
		t.Fatalf("newest membership entry: %s", r.Body)
	}
	if r.str("data.next_cursor") == "" {
		t.Fatal("limit=1 over three membership entries has no next_cursor")
	}
	// Filters by record and date.
	r = e.get(path+"?record_id="+company.String(), owner).status(t, 200)
	if len(r.list("data.entries")) != 1 {
		t.Fatalf("record filter: %s", r.Body)
	}
	// Two days ahead, so a date turning during the test changes nothing.
	later := time.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02")
	if n := len(e.get(path+"?from_date="+later, owner).list("data.entries")); n != 0 {
		t.Fatalf("from %s: %d entries", later, n)
	}
	if n := len(e.get(path+"?to_date="+later, owner).list("data.entries")); n != 6 {
		t.Fatalf("to %s: %d entries, want 6", later, n)
	}
	if n := len(e.get(path+"?to_date=2020-01-01", owner).list("data.entries")); n != 0 {
		t.Fatalf("to 2020-01-01: %d entries", n)
	}
	e.get(path+"?limit=201", owner).status(t, 200)
	e.get(path+"?action=NOPE", owner).errorCode(t, 400, "VALIDATION_ERROR")
	e.get(path+"?from_date=2026-02-30", owner).errorCode(t, 400, "VALIDATION_ERROR")
}

func TestAuditTrailPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Sida AB")
	for i := range 5 {
		e.member(company, fmt.Sprintf("m%d@example.se", i), auth.Member, false)
	}
	path := "/api/v1/companies/" + company.String() + "/audit-trail?limit=3"
	seen := map[string]bool{}
	cursor := ""
	for page := 0; page < 5; page++ {
		p := path
		if cursor != "" {
			p += "&cursor=" + cursor
		}
		r := e.get(p, owner).status(t, 200)
		for _, en := range r.list("data.entries") {
			id := en.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("entry %s on two pages", id)
			}
			seen[id] = true
		}
		cursor = r.str("data.next_cursor")
		// The cursor is where every list answers it, too.
		if r.str("meta.next_cursor") != cursor {
			t.Fatalf("meta.next_cursor %q, data.next_cursor %q", r.str("meta.next_cursor"), cursor)
		}
		if cursor == "" {
			break
		}
	}
	if len(seen) != 9 {
		t.Fatalf("walked %d entries, want 9", len(seen))
	}
}

func TestAuditTrailLimitClampedAt200(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	company := e.company(owner, "Många AB")
	if _, err := e.db.Exec(`INSERT INTO audit_entries (company_id, action, table_name, record_id)
		SELECT $1, 'UPDATE', 'companies', g::text FROM generate_series(1, 250) g`, company); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/companies/" + company.String() + "/audit-trail"
	r := e.get(path+"?limit=1000", owner).status(t, 200)
	if n := len(r.list("data.entries")); n != 200 || r.str("data.next_cursor") == "" {
		t.Fatalf("limit=1000 gave %d entries", n)
	}
	if n := len(e.get(path, owner).list("data.entries")); n != 50 {
		t.Fatalf("default page %d entries, want 50", n)
	}
	if n := len(e.get(path+"?limit=150", owner).list("data.entries")); n != 150 {
		t.Fatalf("limit=150 gave %d: the audit trail allows pages above 100", n)
	}
	e.get(path+"?limit=0", owner).errorCode(t, 400, "VALIDATION_ERROR")
}

// Request bodies are checked against the document exactly: öre amounts
// pass whatever their binary float form (0.07 is no exact double), a
// fraction of an öre does not, and a date must be on the calendar.
func TestBodyValidationIsExact(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	entry := func(amount any, date string) *response {
		return b.create(map[string]any{"fiscal_period_id": b.period, "entry_date": date, "description": "Öresavrundning",
			"lines": []map[string]any{{"account_number": "1930", "debit_amount": amount}, {"account_number": "3740", "credit_amount": amount}}})
	}
	for _, a := range []any{0.07, 0.29, 1250.35, 99999999.99} {
		entry(a, b.day("03-01")).status(t, 201)
	}
	r := entry(0.005, b.day("03-01")).errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:lines.0.debit_amount:multipleOf body:lines.1.credit_amount:multipleOf" {
		t.Fatalf("issues %s", got)
	}
	r = entry(1, b.year+"-02-30").errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:entry_date:format" {
		t.Fatalf("issues %s", got)
	}
	b.post(b.base+"/journal-entries", b.token, "{", "Idempotency-Key", ik()).errorCode(t, 400, "VALIDATION_ERROR")
	r = b.post(b.base+"/journal-entries", b.token, "", "Idempotency-Key", ik()).errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:body:required" {
		t.Fatalf("empty body: %s", got)
	}
}
