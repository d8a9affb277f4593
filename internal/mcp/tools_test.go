package mcp

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/kontera/kontera/openapi"
)

// Every operation is a tool whose input schema stands alone: each
// reference names one of its own $defs, none the document's components,
// and nothing OpenAPI-only is left in it.
func TestToolsStandAlone(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := Tools(c, openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(c.Operations) {
		t.Fatalf("%d tools for %d operations", len(tools), len(c.Operations))
	}
	ref := regexp.MustCompile(`"\$ref":"#/\$defs/([^"]+)"`)
	for _, tl := range tools {
		raw := string(tl.def.InputSchema.(json.RawMessage))
		var s struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("%s: %v", tl.def.Name, err)
		}
		for _, m := range ref.FindAllStringSubmatch(raw, -1) {
			if s.Defs[m[1]] == nil {
				t.Errorf("%s: $ref to %s, not among its $defs", tl.def.Name, m[1])
			}
		}
		for _, bad := range []string{"#/components/", `"discriminator"`, `"x-`, `"example":`} {
			if strings.Contains(raw, bad) {
				t.Errorf("%s: the input schema holds %s", tl.def.Name, bad)
			}
		}
	}
}

// A write's annotations follow its flags: high risk is destructive, a
// read is read-only and idempotent.
func TestAnnotations(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][3]bool{ // read-only, destructive, idempotent
		"getTrialBalance":    {true, false, true},
		"commitJournalEntry": {false, true, c.ByID("commitJournalEntry").Idempotent},
		"createCustomer":     {false, c.ByID("createCustomer").Risk == openapi.RiskHigh, c.ByID("createCustomer").Idempotent},
	} {
		a := annotations(c.ByID(id))
		if a.ReadOnlyHint != want[0] || (a.DestructiveHint != nil && *a.DestructiveHint) != want[1] || a.IdempotentHint != want[2] {
			t.Errorf("%s: %+v", id, a)
		}
	}
}

// Values go into the query and a form as the API reads them.
func TestText(t *testing.T) {
	for v, want := range map[any]string{nil: "", "3": "3", 3.0: "3", 12.5: "12.5", true: "true"} {
		if got := text(v); got != want {
			t.Errorf("%v: %q", v, got)
		}
	}
}
