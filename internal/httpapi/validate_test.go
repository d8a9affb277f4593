package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kontera/kontera/openapi"
)

// Parameters are checked against a 3.0 view of the document (paramsView):
// every keyword of their schemas must be one kin-openapi's 3.0 walk and
// JSON Schema 2020 read alike, and every type a single type.
func TestParameterKeywords(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	resolve := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		for m != nil && m["$ref"] != nil {
			var at any = doc
			for _, p := range strings.Split(strings.TrimPrefix(m["$ref"].(string), "#/"), "/") {
				at = at.(map[string]any)[p]
			}
			m, _ = at.(map[string]any)
		}
		return m
	}
	same := map[string]bool{"type": true, "format": true, "maxLength": true, "minLength": true, "default": true,
		"minimum": true, "maximum": true, "pattern": true, "enum": true, "description": true, "items": true,
		"maxItems": true, "minItems": true, "example": true, "examples": true}
	var check func(where string, s map[string]any)
	check = func(where string, s map[string]any) {
		if s == nil {
			t.Errorf("%s: no schema", where)
			return
		}
		for k, v := range s {
			if !same[k] {
				t.Errorf("%s: keyword %q is read differently by 3.0 and 3.1 validators", where, k)
			}
			if k == "type" {
				if _, ok := v.(string); !ok {
					t.Errorf("%s: type %v is not one type", where, v)
				}
			}
		}
		if items, ok := s["items"]; ok {
			check(where+".items", resolve(items))
		}
	}
	n := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			var params []any
			if method == "parameters" {
				params, _ = op.([]any)
			} else if o, ok := op.(map[string]any); ok {
				params, _ = o["parameters"].([]any)
			}
			for _, p := range params {
				pm := resolve(p)
				check(method+" "+path+" "+pm["name"].(string), resolve(pm["schema"]))
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d parameters found", n)
	}
}
