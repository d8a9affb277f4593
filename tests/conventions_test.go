package tests

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/openapi"
)

// seedCompanies gives the key's user n companies straight in the database.
func seedCompanies(e *env, email string, n int) {
	e.t.Helper()
	_, err := e.db.Exec(`
		WITH u AS (SELECT id FROM users WHERE email = $1),
		c AS (
			INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by, created_at)
			SELECT 'Bolag ' || g, 'aktiebolag', '2026-01-01', '2026-12-31', u.id,
				now() - (g || ' seconds')::interval
			FROM u, generate_series(1, $2) g RETURNING id)
		INSERT INTO company_members (company_id, user_id, role) SELECT c.id, u.id, 'owner' FROM c, u`, email, n)
	if err != nil {
		e.t.Fatal(err)
	}
}

func TestCursorPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	seedCompanies(e, "owner@example.se", 5)

	first := e.get("/api/v1/companies?limit=2", owner).status(t, 200)
	next := first.str("meta.next_cursor")
	if len(first.list("data")) != 2 || next == "" {
		t.Fatalf("first page: %s", first.Body)
	}
	second := e.get("/api/v1/companies?limit=2&cursor="+url.QueryEscape(next), owner).status(t, 200)
	third := e.get("/api/v1/companies?limit=2&cursor="+url.QueryEscape(second.str("meta.next_cursor")), owner).status(t, 200)
	if len(third.list("data")) != 1 || third.at("meta.next_cursor") != nil {
		t.Fatalf("last page: %s", third.Body)
	}
	if _, present := third.JSON["meta"].(map[string]any)["next_cursor"]; !present {
		t.Fatal("next_cursor must be present and null on the last page")
	}
	names := []string{}
	for _, p := range []*response{first, second, third} {
		for _, c := range p.list("data") {
			names = append(names, c.(map[string]any)["name"].(string))
		}
	}
	// Oldest first: Bolag 5 was created earliest.
	if strings.Join(names, ",") != "Bolag 5,Bolag 4,Bolag 3,Bolag 2,Bolag 1" {
		t.Fatalf("order: %v", names)
	}

	// Stale, tampered or undecodable cursors give the first page.
	body, sig, _ := strings.Cut(next, ".")
	flipped := []byte(body)
	flipped[3] ^= 1
	for name, c := range map[string]string{
		"tampered body": string(flipped) + "." + sig,
		"tampered sig":  body + "." + strings.Repeat("A", len(sig)),
		"garbage":       "not a cursor at all",
		"other list":    e.get("/api/v1/companies/"+uuid.NewString()+"/audit-trail", owner).str("x"), // empty
		"foreign":       "eyJsIjoiY29tcGFuaWVzIiwicCI6e319.AAAAAAAAAAAAAAAAAAAAAA",
	} {
		r := e.get("/api/v1/companies?limit=2&cursor="+url.QueryEscape(c), owner).status(t, 200)
		if r.str("data.0.name") != "Bolag 5" {
			t.Errorf("%s: did not restart at the first page: %s", name, r.Body)
		}
	}
}

func TestLimitClamping(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.key("owner@example.se", keySpec{})
	seedCompanies(e, "owner@example.se", 105)

	r := e.get("/api/v1/companies?limit=1000", owner).status(t, 200)
	if n := len(r.list("data")); n != 100 || r.str("meta.next_cursor") == "" {
		t.Fatalf("limit=1000 gave %d rows", n)
	}
	r = e.get("/api/v1/companies", owner).status(t, 200)
	if n := len(r.list("data")); n != 50 {
		t.Fatalf("default page has %d rows, want 50", n)
	}
	r = e.get("/api/v1/companies?limit=100&cursor="+url.QueryEscape(e.get("/api/v1/companies?limit=100", owner).str("meta.next_cursor")), owner)
	if n := len(r.list("data")); n != 5 || r.at("meta.next_cursor") != nil {
		t.Fatalf("second page of 100: %d rows", n)
	}
	for _, bad := range []string{"0", "-1", "abc", "1.5"} {
		r := e.get("/api/v1/companies?limit="+bad, owner).errorCode(t, 400, "VALIDATION_ERROR")
		if f := r.issueFields(); len(f) != 1 || !strings.HasPrefix(f[0], "query:limit:") {
			t.Errorf("limit=%s: issues %v", bad, f)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rateLimit(100))
	key := e.key("owner@example.se", keySpec{})
	var last *response
	start := time.Now()
	allowed := 0
	for i := 0; i < 250; i++ {
		last = e.get("/api/v1/api-key", key)
		if last.Status == 429 {
			break
		}
		last.status(t, 200)
		allowed++
		if rem, _ := strconv.Atoi(last.Header.Get("X-RateLimit-Remaining")); rem > 100-allowed+refilled(start, 100) || rem < 0 {
			t.Fatalf("X-RateLimit-Remaining %d after %d requests", rem, allowed)
		}
	}
	// A full bucket of 100, and what refilled meanwhile (100 a minute).
	if allowed < 100 || allowed > 100+refilled(start, 100) {
		t.Fatalf("429 after %d requests in %v, want 100 and the refill", allowed, time.Since(start))
	}
	last.errorCode(t, 429, "RATE_LIMITED")
	ra, err := strconv.Atoi(last.Header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After = %q", last.Header.Get("Retry-After"))
	}
	reset, _ := strconv.ParseInt(last.Header.Get("X-RateLimit-Reset"), 10, 64)
	if d := time.Until(time.Unix(reset, 0)); d <= 0 || d > time.Minute+2*time.Second {
		t.Fatalf("X-RateLimit-Reset %d is %v away", reset, d)
	}
	if last.Header.Get("X-RateLimit-Limit") != "100" || last.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("headers: %v", last.Header)
	}
	// No second burst: a second later, about one more token, not a new 100.
	time.Sleep(1200 * time.Millisecond)
	again, burst := time.Now(), 0
	for i := 0; i < 20; i++ {
		if e.get("/api/v1/api-key", key).Status == 429 {
			break
		}
		burst++
	}
	if burst < 1 || burst > 2+refilled(again, 100) {
		t.Fatalf("%d requests passed right after the limit, want the refill of a second or two", burst)
	}
	// Other keys have their own buckets; public endpoints are not limited.
	other := e.key("owner@example.se", keySpec{})
	e.get("/api/v1/api-key", other).status(t, 200)
	e.get("/api/v1/health", "").status(t, 200)
}

// refilled is how many tokens a bucket of limit a minute gains since
// start, rounded up.
func refilled(start time.Time, limit int) int {
	return int(time.Since(start).Seconds()*float64(limit)/60) + 1
}

func TestRateLimitHeldAcrossReplicas(t *testing.T) {
	t.Parallel()
	a := newEnv(t, rateLimit(10))
	b := envOn(t, a.db, rateLimit(10))
	key := a.key("owner@example.se", keySpec{})
	start, allowed := time.Now(), 0
	for i := 0; i < 30; i++ {
		e := a
		if i%2 == 1 {
			e = b
		}
		if e.get("/api/v1/api-key", key).Status == 429 {
			break
		}
		allowed++
	}
	if allowed < 10 || allowed > 10+refilled(start, 10) {
		t.Fatalf("two replicas allowed %d requests, want the one bucket of 10", allowed)
	}
}

// With leases (a limit of 1,000 a minute leases 10 tokens at a time) the
// replicas together still never admit more than the bucket holds, and
// admit no fewer than it holds less what each may forfeit.
func TestRateLimitLeasesAcrossReplicas(t *testing.T) {
	t.Parallel()
	const limit = 1000
	a := newEnv(t, rateLimit(limit))
	b := envOn(t, a.db, rateLimit(limit))
	key := a.key("owner@example.se", keySpec{})
	start := time.Now()
	var allowed, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := a
			if w%2 == 1 {
				e = b
			}
			for refused.Load() < 50 {
				switch e.get("/api/v1/api-key", key).Status {
				case 200:
					allowed.Add(1)
				case 429:
					refused.Add(1)
				default:
					t.Error("neither admitted nor refused")
					return
				}
			}
		}()
	}
	wg.Wait()
	lease := ratelimit.New(limit).LeaseSize()
	refill := refilled(start, limit)
	// What may be forfeited: lease-1 per replica, second and request in
	// flight at once (four per replica here).
	forfeit := 2 * 4 * (lease - 1) * (int(time.Since(start).Seconds()) + 1)
	n := int(allowed.Load())
	if n > limit+refill || n < limit-forfeit {
		t.Fatalf("two replicas admitted %d requests; the bucket holds %d (+%d refilled), leases of %d may forfeit %d",
			n, limit, refill, lease, forfeit)
	}
	t.Logf("two replicas admitted %d of a bucket of %d (+%d refilled)", n, limit, refill)
}

func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rateLimit(0))
	key := e.key("owner@example.se", keySpec{})
	for range 120 {
		if r := e.get("/api/v1/api-key", key); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("limit off: %d %v", r.Status, r.Header)
		}
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("owner@example.se", keySpec{})
	r := e.do(req{Method: "GET", Path: "/api/v1/api-key", Token: key, Header: map[string]string{"X-Request-Id": "abc-123"}})
	if r.Header.Get("X-Request-Id") != "abc-123" || r.str("meta.request_id") != "abc-123" {
		t.Fatalf("success did not echo: %v %s", r.Header.Get("X-Request-Id"), r.Body)
	}
	r = e.do(req{Method: "GET", Path: "/api/v1/api-key", Header: map[string]string{"X-Request-Id": "trace.42:x_y"}})
	if r.Header.Get("X-Request-Id") != "trace.42:x_y" || r.str("error.request_id") != "trace.42:x_y" {
		t.Fatalf("error did not echo: %s", r.Body)
	}
	for _, unsafe := range []string{"has space", "semi;colon", strings.Repeat("a", 65), `quote"d`} {
		r = e.do(req{Method: "GET", Path: "/api/v1/health", Header: map[string]string{"X-Request-Id": unsafe}})
		got := r.Header.Get("X-Request-Id")
		if got == unsafe || !strings.HasPrefix(got, "req_") || r.str("meta.request_id") != got {
			t.Errorf("unsafe id %q answered %q", unsafe, got)
		}
	}
	if r.Header.Get("X-Content-Type-Options") != "nosniff" || e.get("/api/v1/api-key", key).Header.Get("Cache-Control") != "no-store" {
		t.Fatal("security headers missing")
	}
	a := e.get("/api/v1/health", "").Header.Get("X-Request-Id")
	b := e.get("/api/v1/health", "").Header.Get("X-Request-Id")
	if a == b {
		t.Fatal("generated ids repeat")
	}
}

func TestValidationDetails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("owner@example.se", keySpec{})
	r := e.post("/api/v1/companies", key, map[string]any{
		"entity_type": "handelsbolag", "vat_registered": "yes", "f_skatt": true, "surprise": 1,
		"moms_period": "weekly", "first_fiscal_year": map[string]any{"start": "2026-02-30"}, "fiscal_year_start_month": 13,
	}).errorCode(t, 400, "VALIDATION_ERROR")
	want := []string{
		"body:entity_type:enum", "body:first_fiscal_year.end:required", "body:first_fiscal_year.start:format",
		"body:fiscal_year_start_month:maximum", "body:moms_period:enum", "body:name:required",
		"body:surprise:additionalProperties", "body:vat_registered:type",
	}
	if got := r.issueFields(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("issues:\n got %v\nwant %v", got, want)
	}
	for _, i := range r.list("error.details.issues") {
		if i.(map[string]any)["issue"] == "" {
			t.Fatal("an issue without text")
		}
	}
	// Malformed JSON, no body, a wrong content type, a body too large.
	e.post("/api/v1/companies", key, `{"name": `).errorCode(t, 400, "VALIDATION_ERROR")
	e.do(req{Method: "POST", Path: "/api/v1/companies", Token: key}).errorCode(t, 400, "VALIDATION_ERROR")
	e.do(req{Method: "POST", Path: "/api/v1/companies", Token: key, Body: "name=x", Header: map[string]string{"Content-Type": "text/plain"}}).
		errorCode(t, 415, "UNSUPPORTED_MEDIA_TYPE")
	big := `{"name": "` + strings.Repeat("x", 2<<20) + `"}`
	e.post("/api/v1/companies", key, big).errorCode(t, 413, "PAYLOAD_TOO_LARGE")
	// Path parameters are checked too.
	r = e.get("/api/v1/companies/not-a-uuid/audit-trail", key).errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || !strings.HasPrefix(f[0], "path:companyId:") {
		t.Fatalf("issues = %v", f)
	}
	if n := e.count(`SELECT count(*) FROM companies`); n != 0 {
		t.Fatal("a refused body created a company")
	}
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("owner@example.se", keySpec{})
	r := e.get("/api/v1/no-such-thing", key).errorCode(t, 404, "NOT_FOUND")
	if r.str("error.details.path") != "/api/v1/no-such-thing" || r.str("error.request_id") == "" {
		t.Fatalf("404: %s", r.Body)
	}
	e.get("/nowhere", "").errorCode(t, 404, "NOT_FOUND")
	r = e.do(req{Method: "DELETE", Path: "/api/v1/companies", Token: key}).errorCode(t, 405, "METHOD_NOT_ALLOWED")
	if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Fatalf("Allow = %q", allow)
	}
	e.do(req{Method: "PUT", Path: "/api/v1/health"}).errorCode(t, 405, "METHOD_NOT_ALLOWED")
}

func TestSpecServedByteIdentical(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.get("/api/v1/openapi.json", "").status(t, 200)
	onDisk, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != string(onDisk) || string(r.Body) != string(openapi.Document) {
		t.Fatal("the served document differs from openapi/openapi.json")
	}
	if r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", r.Header.Get("Content-Type"))
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.get("/api/v1/health", "").status(t, 200)
	if r.str("data.status") != "ok" || r.str("data.service") != "kontera" || r.str("data.api_version") != "2026-05-12" ||
		r.str("meta.api_version") != "2026-05-12" || r.Header.Get("X-Kontera-Api-Version") != "2026-05-12" {
		t.Fatalf("health: %s", r.Body)
	}
	if _, err := time.Parse(time.RFC3339, r.str("data.timestamp")); err != nil {
		t.Fatalf("timestamp: %v", err)
	}
}

func TestHealthDegradedWithoutDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, err := store.Open(t.Context(), pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	d.Close() // the replica's database is gone
	down := envOn(t, d)
	r := down.get("/api/v1/health", "").status(t, 200)
	if r.str("data.status") != "degraded" {
		t.Fatalf("health with no database: %s", r.Body)
	}
	if e.get("/api/v1/health", "").str("data.status") != "ok" {
		t.Fatal("a healthy replica reports degraded")
	}
}

// Text PostgreSQL cannot store, or would store altered, is a client
// mistake: 400 naming the field, never a 500, nothing stored.
func TestTextThatCannotBeStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("owner@example.se", keySpec{})
	c := e.company(key, "Text AB")
	r := e.post("/api/v1/companies", key, `{"name":"a\u0000b","entity_type":"aktiebolag","vat_registered":false,"f_skatt":true,"city":"\u0000"}`).
		errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:city:characters body:name:characters" {
		t.Fatalf("issues %s", got)
	}
	r = e.post("/api/v1/companies", key, "{\"name\":\"\xff\",\"entity_type\":\"aktiebolag\",\"vat_registered\":false,\"f_skatt\":true}").
		errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:body:encoding" {
		t.Fatalf("issues %s", got)
	}
	r = e.get("/api/v1/companies/"+c.String()+"/audit-trail?table_name=a%00b&record_id=%ff", key).errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "query:record_id:characters query:table_name:characters" {
		t.Fatalf("issues %s", got)
	}
	// An escaped backslash before u0000 is ordinary text.
	e.post("/api/v1/companies", key, `{"name":"C:\\u0000 AB","entity_type":"aktiebolag","vat_registered":false,"f_skatt":true}`).status(t, 201)
	if n := e.count(`SELECT count(*) FROM companies`); n != 2 {
		t.Fatalf("%d companies", n)
	}
	// A long undecodable cursor is still just ignored.
	e.get("/api/v1/companies?cursor="+strings.Repeat("A", 3000), key).status(t, 200)
}

// The document is cacheable and compressible, and still the same bytes
// once decoded.
func TestSpecETagAndGzip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := func(h map[string]string) *http.Response {
		req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/openapi.json", nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	plain := get(nil)
	etag := plain.Header.Get("ETag")
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || len(etag) != 66 ||
		plain.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("plain: %d %v", plain.StatusCode, plain.Header)
	}
	z := get(map[string]string{"Accept-Encoding": "br;q=1.0, gzip;q=0.8"})
	if z.StatusCode != 200 || z.Header.Get("Content-Encoding") != "gzip" || z.Header.Get("ETag") != etag {
		t.Fatalf("gzip: %d %v", z.StatusCode, z.Header)
	}
	zr, err := gzip.NewReader(z.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(body, openapi.Document) {
		t.Fatalf("the gzipped document decodes to other bytes (%v)", err)
	}
	if n, _ := strconv.Atoi(z.Header.Get("Content-Length")); n <= 0 || n > len(openapi.Document)/5 {
		t.Fatalf("gzip length %d of %d", n, len(openapi.Document))
	}
	if r := get(map[string]string{"Accept-Encoding": "gzip;q=0"}); r.Header.Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 refuses gzip")
	}
	nm := get(map[string]string{"If-None-Match": etag})
	if b, _ := io.ReadAll(nm.Body); nm.StatusCode != 304 || len(b) != 0 || nm.Header.Get("ETag") != etag {
		t.Fatalf("not modified: %d %q", nm.StatusCode, b)
	}
	if r := get(map[string]string{"If-None-Match": `"stale"`}); r.StatusCode != 200 {
		t.Fatalf("stale etag: %d", r.StatusCode)
	}
}

// Keys cannot be guessed at speed: an address that sent 30 unknown keys
// in a minute is refused with 429 — and then so is a valid key from it —
// while another address is heard as before.
func TestFailedAuthenticationsAreLimited(t *testing.T) {
	t.Parallel()
	// A token comes back an hour after it was taken, not in two seconds:
	// however slow the machine, none returns while the test runs.
	e := newEnv(t, slowFailureRefill())
	valid := e.key("owner@example.se", keySpec{})
	statuses := map[int]int{}
	for i := 0; i < 40; i++ {
		r := e.get("/api/v1/api-key", "kontera_sk_"+strings.Repeat("x", 40)+strconv.Itoa(i))
		statuses[r.Status]++
		if r.Status == 429 {
			r.errorCode(t, 429, "RATE_LIMITED")
			if r.str("error.details.reason") != "failed_authentications" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("429: %s %v", r.Body, r.Header)
			}
		}
	}
	if statuses[401] != 30 || statuses[429] != 10 {
		t.Fatalf("answers to 40 unknown keys: %v", statuses)
	}
	e.get("/api/v1/api-key", valid).errorCode(t, 429, "RATE_LIMITED")
	// Public endpoints need no key, and are not held back.
	e.get("/api/v1/health", "").status(t, 200)
	// Another replica has not seen the failures: it hears one more try,
	// learns from the database, and refuses the address too.
	other := envOn(t, e.db, slowFailureRefill())
	first := other.get("/api/v1/api-key", "kontera_sk_"+strings.Repeat("y", 40))
	if first.Status != 429 {
		t.Fatalf("the other replica let a guess through: %d", first.Status)
	}
	other.get("/api/v1/api-key", valid).errorCode(t, 429, "RATE_LIMITED")
}
