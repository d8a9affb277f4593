package openapi

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Risk is an operation's x-risk.
type Risk string

// The risk levels of the spec.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// KeyPolicy is an operation's x-idempotency-key: whether the
// Idempotency-Key header is mandatory, honoured when sent, or ignored.
type KeyPolicy string

// The idempotency-key policies.
const (
	KeyRequired KeyPolicy = "required"
	KeyOptional KeyPolicy = "optional"
	KeyIgnored  KeyPolicy = "ignored"
)

// Operation is one operation of the document with the flags the server
// enforces. Nothing else in the code lists these flags.
type Operation struct {
	ID          string
	Method      string
	Path        string // as written in the document: /api/v1/companies/{companyId}
	Tags        []string
	Summary     string
	Description string
	Public      bool     // security: [] — no key needed
	Scopes      []string // x-scopes: every one is required
	Risk        Risk
	Idempotent  bool
	Reversible  bool
	DryRun      bool
	Key         KeyPolicy
	Roles       []string // x-roles: the company roles allowed; empty = any member
	Capability  string   // x-capability: the paid capability the company must hold; "" = none
	// UnknownQuery is x-unknown-query-params: what a query parameter the
	// operation does not declare gets. "reject" answers 400, "report"
	// names it in X-Ignored-Query-Params, "" (absent) ignores it.
	UnknownQuery string
	// ReplicaRead is x-replica-read: a read a streaming replica of the
	// database may answer (see internal/standby). Only keyed GETs carry it.
	ReplicaRead bool
	Item        *openapi3.PathItem
	Op          *openapi3.Operation
}

// Mutating reports whether the operation changes state (any method but
// GET and HEAD).
func (o *Operation) Mutating() bool { return o.Method != "GET" && o.Method != "HEAD" }

// CompanyScoped reports whether the path names a company.
func (o *Operation) CompanyScoped() bool { return strings.Contains(o.Path, "{companyId}") }

// EchoPath is the path in Echo's router syntax (:param).
func (o *Operation) EchoPath() string { return pathParam.ReplaceAllString(o.Path, ":$1") }

var pathParam = regexp.MustCompile(`\{([^}/]+)\}`)

// Contract is the loaded document and its operations.
type Contract struct {
	Doc        *openapi3.T
	Operations []*Operation // sorted by path, then method
	byRoute    map[string]*Operation
}

// Load parses and validates Document, once a process: it refuses anything
// but OpenAPI 3.1 and operations without their flags. The document is
// embedded and never changes, so every server of the process (a replica,
// every test's) shares the Contract, which nobody changes.
func Load() (*Contract, error) { return loaded() }

var loaded = sync.OnceValues(func() (*Contract, error) { return Parse(Document) })

// Parse loads a document from data. Its examples are not checked against
// their schemas here: that took two seconds of CPU at every start of a
// server (and of every test binary); ValidateExamples does it, in the
// package's tests and make generate.
func Parse(data []byte) (*Contract, error) {
	doc, err := load(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	c := &Contract{Doc: doc, byRoute: map[string]*Operation{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o, err := newOperation(doc, path, method, item, op)
			if err != nil {
				return nil, err
			}
			c.Operations = append(c.Operations, o)
			c.byRoute[method+" "+o.EchoPath()] = o
		}
	}
	sort.Slice(c.Operations, func(i, j int) bool {
		a, b := c.Operations[i], c.Operations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	return c, nil
}

// Route returns the operation Echo routed a request to, by method and
// Echo path template; nil when the document has none.
func (c *Contract) Route(method, echoPath string) *Operation {
	return c.byRoute[method+" "+echoPath]
}

// ByID returns the operation with operationId id, or nil.
func (c *Contract) ByID(id string) *Operation {
	for _, o := range c.Operations {
		if o.ID == id {
			return o
		}
	}
	return nil
}

func newOperation(doc *openapi3.T, path, method string, item *openapi3.PathItem, op *openapi3.Operation) (*Operation, error) {
	o := &Operation{ID: op.OperationID, Method: method, Path: path, Tags: op.Tags, Summary: op.Summary,
		Description: op.Description, Item: item, Op: op}
	where := method + " " + path
	sec := doc.Security
	if op.Security != nil {
		sec = *op.Security
	}
	o.Public = len(sec) == 0
	var err error
	if o.Scopes, err = stringList(op.Extensions, "x-scopes", where); err != nil {
		return nil, err
	}
	if o.Roles, err = optionalStringList(op.Extensions, "x-roles", where); err != nil {
		return nil, err
	}
	if v, ok := op.Extensions["x-capability"]; ok {
		if o.Capability, _ = v.(string); o.Capability == "" {
			return nil, fmt.Errorf("openapi: %s: x-capability must name a capability", where)
		}
	}
	if _, ok := op.Extensions["x-unknown-query-params"]; ok {
		if o.UnknownQuery, err = stringFlag(op.Extensions, "x-unknown-query-params", where, "reject", "report"); err != nil {
			return nil, err
		}
	}
	if v, ok := op.Extensions["x-replica-read"]; ok {
		if o.ReplicaRead, ok = v.(bool); !ok {
			return nil, fmt.Errorf("openapi: %s: x-replica-read must be true or false", where)
		}
	}
	risk, err := stringFlag(op.Extensions, "x-risk", where, "low", "medium", "high")
	if err != nil {
		return nil, err
	}
	o.Risk = Risk(risk)
	key, err := stringFlag(op.Extensions, "x-idempotency-key", where, "required", "optional", "ignored")
	if err != nil {
		return nil, err
	}
	o.Key = KeyPolicy(key)
	for name, dst := range map[string]*bool{"x-idempotent": &o.Idempotent, "x-reversible": &o.Reversible, "x-dry-run": &o.DryRun} {
		v, ok := op.Extensions[name].(bool)
		if !ok {
			return nil, fmt.Errorf("openapi: %s: %s must be true or false", where, name)
		}
		*dst = v
	}
	return o, nil
}

func stringFlag(ext map[string]any, name, where string, allowed ...string) (string, error) {
	s, _ := ext[name].(string)
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fmt.Errorf("openapi: %s: %s must be one of %s", where, name, strings.Join(allowed, ", "))
}

func stringList(ext map[string]any, name, where string) ([]string, error) {
	if _, ok := ext[name]; !ok {
		return nil, fmt.Errorf("openapi: %s: %s is missing", where, name)
	}
	return optionalStringList(ext, name, where)
}

func optionalStringList(ext map[string]any, name, where string) ([]string, error) {
	raw, ok := ext[name]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("openapi: %s: %s must be a list of strings", where, name)
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("openapi: %s: %s must be a list of strings", where, name)
		}
		out = append(out, s)
	}
	return out, nil
}

// load reads an OpenAPI 3.1 document from data.
func load(data []byte) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		return nil, fmt.Errorf("openapi: document is %s, want 3.1.x", doc.OpenAPI)
	}
	return doc, nil
}

// ValidateExamples checks every example of the document in data against
// its schema, as well as what Parse checks.
func ValidateExamples(data []byte) error {
	doc, err := load(data)
	if err != nil {
		return err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return fmt.Errorf("openapi: %w", err)
	}
	return nil
}
