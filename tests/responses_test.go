package tests

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontera/kontera/openapi"
)

// responseSchemas compiles each response body's schema once, for every
// test server: kin-openapi compiles a 3.1 document's schema anew on every
// validation, which was a quarter of the black-box tests' CPU. kin-openapi
// still checks the status and the headers; the body is checked here.
var responseSchemas = struct {
	sync.Mutex
	comp *jsonschema.Compiler
	err  error
	by   map[string]*jsonschema.Schema
}{by: map[string]*jsonschema.Schema{}}

// docURL names the served document as a schema resource.
const docURL = "kontera:openapi.json"

func pointerToken(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// responseBody checks the body of a status answer to route against the
// document: its content type must be one the response declares, and a
// JSON body must match that content's schema.
func responseBody(route *routers.Route, status int, contentType string, body []byte) error {
	key, ref := responseKey(route.Operation.Responses, status)
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("status %d is not declared", status)
	}
	if len(ref.Value.Content) == 0 {
		return nil // kin-openapi holds a body to a response without content
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("content type %q: %v", contentType, err)
	}
	media := ref.Value.Content.Get(contentType) // a declared type may carry its charset
	if media == nil {
		media = ref.Value.Content.Get(mt)
	}
	if media == nil {
		return fmt.Errorf("content type %q is not declared for %d", mt, status)
	}
	if media.Schema == nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	base := "#/paths/" + pointerToken(route.Path) + "/" + strings.ToLower(route.Method) + "/responses/" + pointerToken(key)
	if ref.Ref != "" {
		base = ref.Ref
	}
	s, err := compiledSchema(base + "/content/" + pointerToken(mt) + "/schema")
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %v", err)
	}
	return s.Validate(v)
}

// responseKey finds the response of status as OpenAPI does: the code,
// then its range (2XX), then default; with the key it is listed under.
func responseKey(rs *openapi3.Responses, status int) (string, *openapi3.ResponseRef) {
	for _, k := range []string{strconv.Itoa(status), strconv.Itoa(status/100) + "XX", "default"} {
		if r := rs.Value(k); r != nil {
			return k, r
		}
	}
	return "", nil
}

func compiledSchema(ptr string) (*jsonschema.Schema, error) {
	responseSchemas.Lock()
	defer responseSchemas.Unlock()
	if s, ok := responseSchemas.by[ptr]; ok {
		return s, nil
	}
	if responseSchemas.comp == nil && responseSchemas.err == nil {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapi.Document))
		if err == nil {
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			c.AssertFormat()
			if err = c.AddResource(docURL, doc); err == nil {
				responseSchemas.comp = c
			}
		}
		responseSchemas.err = err
	}
	if responseSchemas.err != nil {
		return nil, responseSchemas.err
	}
	s, err := responseSchemas.comp.Compile(docURL + ptr)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", ptr, err)
	}
	responseSchemas.by[ptr] = s
	return s, nil
}

// The check itself: an answer the document does not allow is caught, by
// its body, its content type or its status.
func TestResponseBodyCheckCatches(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	router, err := routerOf(c.Doc)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "/api/v1/health", nil)
	route, _, err := router.FindRoute(req)
	if err != nil {
		t.Fatal(err)
	}
	good := `{"data":{"api_version":"2026-05-12","service":"kontera","status":"ok","timestamp":"2026-11-28T19:51:41Z"},
		"meta":{"api_version":"2026-05-12","request_id":"req_ef23e71de2a04d0c985f6f642639c091"}}`
	if err := responseBody(route, 200, "application/json", []byte(good)); err != nil {
		t.Fatalf("a good answer: %v", err)
	}
	for name, c := range map[string]struct {
		status      int
		contentType string
		body        string
	}{
		"a field of the wrong type": {200, "application/json", strings.Replace(good, `"status":"ok"`, `"status":5`, 1)},
		"no data":                   {200, "application/json", `{"meta":{"api_version":"2026-05-12","request_id":"req_1"}}`},
		"another content type":      {200, "text/plain", good},
		"a status not declared":     {418, "application/json", good},
		"not JSON":                  {200, "application/json", `{"data":`},
	} {
		if err := responseBody(route, c.status, c.contentType, []byte(c.body)); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
}
