package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/mcp"
	"github.com/kontera/kontera/internal/ratelimit"
	"github.com/kontera/kontera/openapi"
)

// guard lets a request reach its handler only when everything the
// operation's flags demand holds, in this order: a valid key (401), the
// rate limit (429), the scopes (403), a request the document accepts
// (400), a company the key reaches (404), and for writes the right to
// write there (403) with test keys forced into a dry run. A route the
// document does not know passes on to Echo's 404 and 405.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.contract.Route(c.Request().Method, c.Path())
		if op == nil {
			return next(c)
		}
		c.Set(opKey, op)
		var key *auth.Key
		var found *auth.Found
		if !op.Public {
			var err error
			if found, err = s.authenticate(c, op); err != nil {
				return err
			}
			key = found.Key
			if err := s.takeRate(c, found); err != nil {
				return err
			}
			if err := key.RequireScopes(op.Scopes); err != nil {
				return err
			}
		}
		streaming := s.streamed[op.ID] != nil
		if !streaming {
			if err := s.readBody(c); err != nil {
				return err
			}
		}
		raw, _ := c.Get(rawBodyKey).([]byte)
		if binaryBody(c.Request().Header.Get(echo.HeaderContentType)) {
			raw = nil // an image's bytes are not text; its handler reads them
		}
		if err := checkText(c.Request().URL.Query(), raw); err != nil {
			return err
		}
		if err := s.validator.check(c, op); err != nil {
			return err
		}
		var access *auth.Access
		if op.CompanyScoped() && key != nil {
			var err error
			if access, err = s.reach(c, found.Access); err != nil {
				return err
			}
		}
		if err := s.permit(c, op, key, access); err != nil {
			return err
		}
		if op.Capability != "" && access != nil {
			// A paid capability the company does not hold (its trial over)
			// answers 403 CAPABILITY_BLOCKED before any work is done.
			if err := s.grants.Require(c.Request().Context(), access.CompanyID,
				capability.Capability(op.Capability), s.now()); err != nil {
				return err
			}
		}
		if streaming {
			// Read only now: a request refused above never sends its
			// file through the server.
			return s.stream(c, op, next)
		}
		return next(c)
	}
}

// authenticate finds the request's key and, in the same round trip, what
// it may do in the path's company and its rate-limit bucket.
func (s *Server) authenticate(c echo.Context, op *openapi.Operation) (*auth.Found, error) {
	token := auth.ParseBearer(c.Request().Header.Get(echo.HeaderAuthorization))
	if token == "" {
		return nil, apierr.New(apierr.Unauthorized, map[string]any{"reason": "missing or malformed Authorization: Bearer header"})
	}
	// Books are private: no shared cache may keep an answer to a key.
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	// An address that sent unknown keys at speed is not heard, whatever
	// key it sends now: keys cannot be guessed at speed.
	client := clientAddress(c.Request(), s.trustedProxies)
	if wait := s.failures.Blocked(client); wait > 0 {
		return nil, s.authThrottled(wait)
	}
	var company *uuid.UUID
	if op.CompanyScoped() {
		if id, err := uuid.Parse(c.Param("companyId")); err == nil {
			company = &id
		}
	}
	// A request the replica's lease of the key's bucket covers takes no
	// token from the database.
	limit := s.limiter.PerMinute()
	if mcp.Called(c.Request().Context()) {
		// A tool call is part of its /mcp request, whose key probe spent
		// the request's token: one request, counted once.
		limit = 0
	}
	if limit > 0 {
		lkey := string(auth.HashToken(token))
		if r, ok := s.limiter.Spend(lkey, time.Now()); ok {
			c.Set(rateKey, r)
			limit = 0
		} else {
			c.Set(leaseKey, lkey)
		}
	}
	found, err := s.auth.Lookup(c.Request().Context(), token, company, limit, s.limiter.LeaseSize())
	if errors.Is(err, auth.ErrNoKey) {
		wait, ferr := s.failures.Failed(c.Request().Context(), client)
		if ferr != nil {
			return nil, ferr
		}
		if wait > 0 {
			return nil, s.authThrottled(wait)
		}
		return nil, apierr.New(apierr.Unauthorized, map[string]any{"reason": "unknown or revoked API key"})
	}
	if err != nil {
		return nil, err
	}
	key := found.Key
	if key.Mode == auth.Test {
		c.Response().Header().Set("X-Kontera-Mode", "test")
	}
	rid := envelope.RequestID(c.Request().Context())
	setContext(c, func(ctx context.Context) context.Context {
		ctx = auth.WithKey(ctx, key)
		label := key.Label()
		if mcp.Called(ctx) {
			label += " via MCP" // an agent's tool call: the audit trail says so
		}
		return audit.WithActor(ctx, audit.Actor{Type: "api_key", ID: &key.ID, Label: label, UserID: &key.UserID,
			Email: key.UserEmail, RequestID: rid})
	})
	return found, nil
}

// authThrottled is the 429 of an address with too many failed
// authentications.
func (s *Server) authThrottled(wait time.Duration) error {
	s.metrics.RateLimited.Inc()
	secs := int(wait.Seconds())
	return apierr.New(apierr.RateLimited, map[string]any{"reason": "failed_authentications",
		"limit": s.failures.Limit(), "retry_after_seconds": secs}).
		WithHeader("Retry-After", strconv.Itoa(secs))
}

// clientAddress is the address a request came from: the TCP peer, or,
// when the peer is one of the trusted proxies, the nearest address in
// X-Forwarded-For that is not one of them. A client writes the left of
// that header as it likes; only what trusted proxies appended counts.
// Without trusted proxies, behind a proxy every client is the proxy.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	isTrusted := func(s string) bool {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return false
		}
		for _, p := range trusted {
			if p.Contains(a.Unmap()) {
				return true
			}
		}
		return false
	}
	if !isTrusted(host) {
		return host
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if a, err := netip.ParseAddr(hop); err == nil && !isTrusted(hop) {
			return a.Unmap().String()
		}
	}
	return host
}

// takeRate answers what the key's bucket or the replica's lease of it
// says; nothing when limiting is off.
func (s *Server) takeRate(c echo.Context, f *auth.Found) error {
	r, ok := c.Get(rateKey).(ratelimit.Result)
	if b := f.Bucket; b != nil {
		lkey, _ := c.Get(leaseKey).(string)
		r, ok = s.limiter.Taken(lkey, b.Granted, b.Tokens, b.At, time.Now()), true
	}
	if !ok {
		return nil
	}
	h := c.Response().Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(r.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(r.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(r.Reset.Unix(), 10))
	if r.Allowed {
		return nil
	}
	secs := int(r.RetryAfter.Seconds())
	s.metrics.RateLimited.Inc()
	return apierr.New(apierr.RateLimited, map[string]any{"limit": r.Limit, "retry_after_seconds": secs}).
		WithHeader("Retry-After", strconv.Itoa(secs))
}

// readBody reads the body once, so it can be validated and fingerprinted
// for idempotency; the body limit applies while reading.
func (s *Server) readBody(c echo.Context) error {
	req := c.Request()
	if req.Body == nil || req.Body == http.NoBody {
		c.Set(rawBodyKey, []byte(nil))
		return nil
	}
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return he
		}
		return apierr.Validation(apierr.Issue{Field: "body", In: "body", Rule: "parse", Issue: "the body could not be read"})
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	c.Set(rawBodyKey, raw)
	return nil
}

// reach takes the company of the path as the key lookup found it: a
// company the key does not reach answers 404, exactly like one that does
// not exist.
func (s *Server) reach(c echo.Context, access *auth.Access) (*auth.Access, error) {
	if access == nil {
		return nil, apierr.New(apierr.NotFound, map[string]any{"company_id": c.Param("companyId")})
	}
	setContext(c, func(ctx context.Context) context.Context { return auth.WithAccess(ctx, access) })
	return access, nil
}

// permit applies the role rules and, for writes, read-only access, dry run
// and test keys.
func (s *Server) permit(c echo.Context, op *openapi.Operation, key *auth.Key, access *auth.Access) error {
	if key == nil {
		return nil
	}
	if !op.Mutating() {
		if access != nil {
			return access.RequireRole(op.Roles)
		}
		return nil
	}
	switch {
	case access != nil:
		if err := access.RequireWrite(op.Roles); err != nil {
			return err
		}
	case key.ReadOnly:
		return apierr.New(apierr.ConnectionReadOnly, map[string]any{"reason": "the key is read-only"})
	}
	req := c.Request()
	asked := strings.EqualFold(req.URL.Query().Get("dry_run"), "true") || strings.EqualFold(req.Header.Get("X-Dry-Run"), "true")
	dry, err := writeMode(op, key.Mode, asked)
	if err != nil {
		return err
	}
	c.Set(dryRunKey, dry)
	if dry {
		s.metrics.DryRuns.Inc()
	}
	return nil
}

// writeMode decides whether a write runs as a dry run: when asked for, and
// always for a test key. An operation without dry run refuses both, rather
// than committing what the caller meant as a preview.
func writeMode(op *openapi.Operation, mode auth.Mode, asked bool) (dry bool, err error) {
	if asked && !op.DryRun {
		return false, apierr.Validation(apierr.Issue{Field: "dry_run", In: "query", Rule: "x-dry-run", Issue: "this operation has no dry run"})
	}
	if mode == auth.Test {
		if !op.DryRun {
			return false, apierr.New(apierr.TestKeyWriteBlocked, map[string]any{"method": op.Method, "path": op.Path})
		}
		return true, nil
	}
	return asked, nil
}

// validator checks requests against the document.
type validator struct {
	contract *openapi.Contract
	// params is the document as kin-openapi reads it for parameters: said
	// to be 3.0 (see paramsView).
	params *openapi3.T
	opts   *openapi3filter.Options
	bodies *bodies
}

// sharedValidator is the validator of the one document a process serves,
// compiled once: compiling the request bodies' schemas is most of a
// server's start, and every replica or test server in a process reads the
// same compiled schemas, which validation only reads.
var sharedValidator = sync.OnceValues(func() (*validator, error) {
	c, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	return newValidator(c)
})

func newValidator(c *openapi.Contract) (*validator, error) {
	b, err := newBodies(c, openapi.Document)
	if err != nil {
		return nil, fmt.Errorf("openapi: request bodies: %w", err)
	}
	opts := validationOptions()
	opts.ExcludeRequestBody = true // bodies checks them, compiled once
	return &validator{contract: c, params: paramsView(c.Doc), opts: opts, bodies: b}, nil
}

// paramsView is doc for checking parameters. Of a document that says 3.1,
// kin-openapi builds and compiles a JSON Schema validator for every
// parameter of every request (a quarter of a signed download's CPU);
// of one that says 3.0 it walks the schema as it is. Parameters' schemas
// use only keywords both read alike (TestParameterKeywords), and bodies
// are checked by our own schemas, compiled once.
func paramsView(doc *openapi3.T) *openapi3.T {
	v := *doc
	v.OpenAPI = "3.0.3"
	return &v
}

func (v *validator) check(c echo.Context, op *openapi.Operation) error {
	req := c.Request()
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil {
		if ct := req.Header.Get(echo.HeaderContentType); ct != "" || req.ContentLength > 0 {
			mt, _, _ := mime.ParseMediaType(ct)
			if rb.Value.Content.Get(mt) == nil {
				return apierr.New(apierr.UnsupportedMediaType, map[string]any{"content_type": ct, "accepted": contentTypes(rb.Value.Content)})
			}
		}
	}
	// Echo routes on the escaped path when the request has one (a
	// generated client sends bank:<id> as bank%3A<id>) and answers its
	// parameters as sent; the validator checks the values the handler
	// binds, unescaped as the generated binder does.
	params := make(map[string]string, len(c.ParamNames()))
	for i, n := range c.ParamNames() {
		params[n] = c.ParamValues()[i]
		if req.URL.RawPath != "" {
			if s, err := url.PathUnescape(params[n]); err == nil {
				params[n] = s
			}
		}
	}
	// The validator is shown no body: bodies checks it (a JSON body is in
	// memory already), and kin-openapi would read a streamed one whole
	// into memory for its security check.
	bare := *req
	bare.Body = http.NoBody
	in := &openapi3filter.RequestValidationInput{
		Request: &bare, PathParams: params, Options: v.opts,
		Route: &routers.Route{Spec: v.params, Path: op.Path, PathItem: op.Item, Method: op.Method, Operation: op.Op},
	}
	if err := unknownQuery(c, op); err != nil {
		return err
	}
	var all []apierr.Issue
	if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
		all = append(all, validationIssues(err)...)
	}
	raw, _ := c.Get(rawBodyKey).([]byte)
	if err := v.bodies.check(op, raw); err != nil {
		e, _ := apierr.As(err)
		is, _ := e.Details["issues"].([]apierr.Issue)
		all = append(all, is...)
	}
	if len(all) > 0 {
		return apierr.Validation(all...)
	}
	return nil
}

// unknownQuery applies the operation's x-unknown-query-params to the
// query parameters it does not declare: a 400 naming them and the allowed
// ones, or their names in X-Ignored-Query-Params.
func unknownQuery(c echo.Context, op *openapi.Operation) error {
	if op.UnknownQuery == "" {
		return nil
	}
	var allowed []string
	for _, p := range op.Op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			allowed = append(allowed, p.Value.Name)
		}
	}
	var unknown []string
	for name := range c.QueryParams() {
		if !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	sort.Strings(allowed)
	// A dimension filter a report cannot apply would answer unfiltered
	// figures as if filtered: refused, whatever the report's rule.
	var dims []apierr.Issue
	for _, n := range unknown {
		if n == "dim_no" || n == "dim_code" {
			dims = append(dims, apierr.Issue{Field: n, In: "query", Rule: "dimension_filter",
				Issue: "this report takes no dimension filter"})
		}
	}
	if len(dims) > 0 {
		e := apierr.Validation(dims...)
		e.Details["unknown_params"], e.Details["allowed_params"] = unknown, allowed
		return e
	}
	if op.UnknownQuery == "reject" {
		issues := make([]apierr.Issue, len(unknown))
		for i, n := range unknown {
			issues[i] = apierr.Issue{Field: n, In: "query", Rule: "unknown", Issue: "is not a parameter of this report"}
		}
		e := apierr.Validation(issues...)
		e.Details["unknown_params"], e.Details["allowed_params"] = unknown, allowed
		return e
	}
	c.Response().Header().Set("X-Ignored-Query-Params", strings.Join(unknown, ","))
	return nil
}

func contentTypes(content openapi3.Content) []string {
	out := make([]string, 0, len(content))
	for mt := range content {
		out = append(out, mt)
	}
	sort.Strings(out)
	return out
}
