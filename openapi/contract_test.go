package openapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestDocumentHoldsTheHouseRules(t *testing.T) {
	if p := Lint(Document); len(p) > 0 {
		t.Fatalf("lint:\n%s", strings.Join(p, "\n"))
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Doc.Info.Version != APIVersion {
		t.Fatalf("info.version %s", c.Doc.Info.Version)
	}
	if o := c.Route("GET", "/api/v1/companies/:companyId/audit-trail"); o == nil || o.ID != "listAuditEntries" || !o.CompanyScoped() {
		t.Fatalf("route lookup: %+v", o)
	}
	if o := c.ByID("createCompany"); o == nil || !o.DryRun || o.Key != KeyOptional || o.Risk != RiskMedium || !o.Mutating() {
		t.Fatalf("createCompany flags: %+v", o)
	}
	if o := c.ByID("getHealth"); o == nil || !o.Public {
		t.Fatal("health must be public")
	}
}

// kin-openapi's own check of the whole document, examples included,
// which Load leaves out.
func TestDocumentValidatesWithItsExamples(t *testing.T) {
	if err := ValidateExamples(Document); err != nil {
		t.Fatal(err)
	}
	broken := bytes.Replace(Document, []byte(`"vat_sek": 120`), []byte(`"vat_sek": "x"`), 1)
	if bytes.Equal(broken, Document) || ValidateExamples(broken) == nil {
		t.Fatal("a broken example passes")
	}
}

// Every example in the document is valid against its schema.
func TestExamplesMatchSchemas(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	opts := []openapi3.SchemaValidationOption{
		openapi3.MultiErrors(),
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
		openapi3.WithStringFormatValidator("date", openapi3.NewCallbackValidator(func(s string) error {
			_, err := time.Parse(time.DateOnly, s)
			return err
		})),
	}
	check := func(where string, m *openapi3.MediaType) {
		if m == nil || m.Example == nil || m.Schema == nil || m.Schema.Value == nil {
			return
		}
		// Round-trip through JSON so numbers are what a client would send.
		b, _ := json.Marshal(m.Example)
		var v any
		_ = json.Unmarshal(b, &v)
		if err := m.Schema.Value.VisitJSON(v, opts...); err != nil {
			t.Errorf("%s: example does not match its schema: %v", where, err)
		}
	}
	n := 0
	for _, o := range c.Operations {
		if rb := o.Op.RequestBody; rb != nil && rb.Value != nil {
			for mt, m := range rb.Value.Content {
				check(o.ID+" request "+mt, m)
				n++
			}
		}
		for code, r := range o.Op.Responses.Map() {
			for mt, m := range r.Value.Content {
				check(o.ID+" "+code+" "+mt, m)
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no examples checked")
	}
}

func TestLintCatchesEachRule(t *testing.T) {
	doc := func(extra string) []byte {
		return []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},"paths":{},
			"components":{"schemas":{` + extra + `}}}`)
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"3.0":          {[]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"x"},"paths":{}}`), "3.1"},
		"nullable":     {doc(`"A":{"type":"string","nullable":true}`), "nullable"},
		"null in enum": {doc(`"A":{"type":["string","null"],"enum":["a",null]}`), "null inside an enum"},
		"multi type":   {doc(`"A":{"type":["string","number"]}`), "only [T]"},
		"no flags": {[]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},"paths":{"/x":{"get":{
			"operationId":"getX","responses":{"200":{"description":"ok"}}}}}}`), "x-scopes"},
		"unknown capability": {[]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},
			"components":{"schemas":{"Capability":{"type":"string","enum":["payroll"]}}},
			"paths":{"/x":{"get":{"operationId":"getX","tags":["x"],"summary":"x","x-scopes":[],"x-risk":"low",
			"x-idempotent":true,"x-reversible":false,"x-dry-run":false,"x-idempotency-key":"ignored",
			"x-capability":"bank_sync","responses":{"200":{"description":"ok"}}}}}}`), "which the Capability enum does not hold"},
		"payload not in the feed": {[]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},"paths":{},
			"components":{"schemas":{"P":{"type":"object"},"FeedEventData":{"type":"object","properties":{"object":{"anyOf":[]}}}}},
			"webhooks":{"x.happened":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object",
			"properties":{"data":{"type":"object","properties":{"object":{"$ref":"#/components/schemas/P"}}}}}}}},
			"responses":{"200":{"description":"ok"}}}}}}`), "is not one of FeedEventData's"},
		// The consumer rules, each on a write whose body and answer name
		// the schemas Req and Res.
		"request default": {write(`"Req":{"type":"object","properties":{"kind":{"type":"string","default":"a"}}}`),
			"an optional request property has a default"},
		"binary part": {write(`"Req":{"type":"object","properties":{"file":{"type":"string","format":"binary"}}}`),
			"format binary types a file as a string"},
		"empty object": {write(`"Res":{"type":"object","properties":{"details":{"type":"object"}}}`),
			"Record<string, never>"},
		"answer without the request's enum": {write(`"Req":{"type":"object","properties":{"kind":{"type":"string","enum":["a","b"]}}},
			"Res":{"type":"object","properties":{"kind":{"type":"string"}}}`), "the requests' kind is an enum"},
		"closed name without enum": {write(`"Res":{"type":"object","properties":{"actor_type":{"type":["string","null"]}}}`),
			"a actor_type holds one of a known set"},
		"dry run not told apart": {dryRun(`{"$ref":"#/components/schemas/Res"}`), "no answer is the dry run's"},
		"resource without dry_run false": {dryRun(`{"oneOf":[{"$ref":"#/components/schemas/Res"},{"type":"object",
			"properties":{"dry_run":{"type":"boolean","const":true},"preview":{"$ref":"#/components/schemas/Res"}}}]}`),
			"does not declare dry_run false"},
	} {
		p := strings.Join(Lint(c.data), "\n")
		if !strings.Contains(p, c.want) {
			t.Errorf("%s: lint said %q, want a problem about %q", name, p, c.want)
		}
	}
}

// write is a document with one write taking schema Req and answering
// Res, plus schemas.
func write(schemas string) []byte {
	for _, n := range []string{"Req", "Res"} {
		if !strings.Contains(schemas, `"`+n+`"`) {
			schemas += `,"` + n + `":{"type":"object","properties":{"id":{"type":"string"}}}`
		}
	}
	return []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},
		"components":{"schemas":{` + schemas + `}},
		"paths":{"/x":{"post":{"operationId":"postX","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Req"}}}},
		"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Res"}}}}}}}}}`)
}

// dryRun is a document with one write that has a dry run and answers the
// envelope {data: data}.
func dryRun(data string) []byte {
	return []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"` + APIVersion + `"},
		"components":{"schemas":{"Res":{"type":"object","properties":{"id":{"type":"string"}}}}},
		"paths":{"/x":{"post":{"operationId":"postX","x-dry-run":true,
		"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":` + data + `}}}}}}}}}}`)
}
