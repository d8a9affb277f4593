package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Lint checks a document against the house rules and returns every
// problem found; none means the document may ship.
func Lint(data []byte) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	walk(raw, "#", add)
	if m, ok := raw.(map[string]any); ok {
		consumerRules(m, add)
		feedRules(m, add)
	}

	c, err := Parse(data)
	if err != nil {
		return append(problems, err.Error())
	}
	if c.Doc.Info.Version != APIVersion {
		add("info.version is %q, want the API version %q", c.Doc.Info.Version, APIVersion)
	}
	ids := map[string]string{}
	for _, o := range c.Operations {
		where := o.Method + " " + o.Path
		if o.ID == "" {
			add("%s: no operationId", where)
		} else if prev, dup := ids[o.ID]; dup {
			add("%s: operationId %s is also used by %s", where, o.ID, prev)
		}
		ids[o.ID] = where
		if len(o.Tags) != 1 {
			add("%s: wants exactly one tag (the Go package it lives in)", where)
		}
		if strings.TrimSpace(o.Summary) == "" {
			add("%s: no summary", where)
		}
		for _, s := range o.Scopes {
			if !slices.Contains(enumOf(c, "Scope"), s) {
				add("%s: x-scopes names %q, which the Scope enum does not hold", where, s)
			}
		}
		responses := o.Op.Responses.Map()
		need := func(why string, codes ...string) {
			for _, code := range codes {
				if _, ok := responses[code]; !ok {
					add("%s: %s, so it must document a %s response", where, why, code)
				}
			}
		}
		params := paramRefs(o)
		if !o.Public {
			need("it needs a key", "401", "403", "429", "500")
		}
		if o.CompanyScoped() {
			need("its path names a company", "404")
		}
		if o.Op.RequestBody != nil {
			need("it takes a body", "400", "413", "415")
			if o.Op.RequestBody.Value != nil {
				for mt, m := range o.Op.RequestBody.Value.Content {
					if m.Example == nil && len(m.Examples) == 0 {
						add("%s: body %s has no example", where, mt)
					}
				}
			}
		}
		if len(o.Op.Parameters) > 0 && !o.Public {
			need("it takes parameters", "400")
		}
		if o.Mutating() && !o.Public {
			need("it is a write (a dry_run it cannot honour answers 400)", "400")
		}
		switch o.Key {
		case KeyRequired:
			need("it takes an Idempotency-Key", "409")
			if !params["IdempotencyKeyRequired"] {
				add("%s: x-idempotency-key is required, so it must reference the IdempotencyKeyRequired parameter", where)
			}
		case KeyOptional:
			need("it takes an Idempotency-Key", "409")
			if !params["IdempotencyKey"] {
				add("%s: x-idempotency-key is optional, so it must reference the IdempotencyKey parameter", where)
			}
		case KeyIgnored:
			if params["IdempotencyKey"] || params["IdempotencyKeyRequired"] {
				add("%s: x-idempotency-key is ignored but the operation declares the header", where)
			}
		}
		if o.DryRun != (params["DryRun"] && params["DryRunHeader"]) {
			add("%s: x-dry-run is %v, so it must reference DryRun and DryRunHeader exactly when true", where, o.DryRun)
		}
		if o.DryRun && !o.Mutating() {
			add("%s: only writes have a dry run", where)
		}
		_, declared := o.Op.Extensions["x-replica-read"]
		switch {
		case o.Mutating() && declared:
			add("%s: only reads may be answered by a replica (x-replica-read)", where)
		case !o.Mutating() && !o.Public && !declared:
			add("%s: a keyed read says whether a replica may answer it (x-replica-read: true or false)", where)
		}
		if o.ReplicaRead {
			need("a replica may answer it (a malformed X-Kontera-Consistency-Token answers 400)", "400")
		}
		if o.Mutating() || o.ReplicaRead {
			// The server sets the token on every committed write and on
			// every read the replica answered (internal/httpapi/replica.go).
			for code, r := range responses {
				if strings.HasPrefix(code, "2") && r.Value != nil && r.Value.Headers["X-Kontera-Consistency-Token"] == nil {
					add("%s: response %s carries X-Kontera-Consistency-Token, so it must declare it (components/headers/ConsistencyToken)", where, code)
				}
			}
		}

		if o.Capability != "" {
			if !slices.Contains(enumOf(c, "Capability"), o.Capability) {
				add("%s: x-capability names %q, which the Capability enum does not hold", where, o.Capability)
			}
			if !o.CompanyScoped() {
				add("%s: x-capability gates a company, so its path must name one", where)
			}
		}
		for _, r := range o.Roles {
			if !slices.Contains([]string{"owner", "admin", "member", "viewer"}, r) {
				add("%s: x-roles names unknown role %q", where, r)
			}
		}
		for code, r := range responses {
			if r.Value == nil {
				continue
			}
			for mt, m := range r.Value.Content {
				if strings.HasPrefix(code, "2") && mt == "application/json" && m.Example == nil && len(m.Examples) == 0 {
					add("%s: response %s has no example", where, code)
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func paramRefs(o *Operation) map[string]bool {
	out := map[string]bool{}
	for _, p := range append(o.Item.Parameters, o.Op.Parameters...) {
		if p.Ref != "" {
			out[p.Ref[strings.LastIndex(p.Ref, "/")+1:]] = true
		}
	}
	return out
}

// enumOf returns the string values of the enum schema named name.
func enumOf(c *Contract, name string) []string { return c.Enum(name) }

// Enum returns the string values of the enum schema named name, in the
// document's order; none when there is no such schema.
func (c *Contract) Enum(name string) []string {
	var out []string
	if s := c.Doc.Components.Schemas[name]; s != nil && s.Value != nil {
		for _, v := range s.Value.Enum {
			if str, ok := v.(string); ok {
				out = append(out, str)
			}
		}
	}
	return out
}

// walk applies the schema-level rules everywhere in the document.
func walk(v any, at string, add func(string, ...any)) {
	switch n := v.(type) {
	case map[string]any:
		if at == "#" {
			if s, _ := n["openapi"].(string); !strings.HasPrefix(s, "3.1.") {
				add("openapi is %q: the document must be OpenAPI 3.1.x", s)
			}
		}
		if _, ok := n["nullable"]; ok {
			add("%s: `nullable` is ignored in 3.1; use type [T, \"null\"] or anyOf [X, {type: null}]", at)
		}
		if enum, ok := n["enum"].([]any); ok && slices.Contains(enum, nil) {
			add("%s: null inside an enum; write anyOf [{$ref: the enum}, {type: null}]", at)
		}
		if types, ok := n["type"].([]any); ok {
			nonNull := 0
			for _, t := range types {
				if t != "null" {
					nonNull++
				}
			}
			if nonNull != 1 || len(types) > 2 {
				add("%s: type %v: only [T] or [T, \"null\"] are allowed", at, types)
			}
		}
		for k, child := range n {
			walk(child, at+"/"+k, add)
		}
	case []any:
		for i, child := range n {
			walk(child, fmt.Sprintf("%s/%d", at, i), add)
		}
	}
}

// feedRules holds the event feed to the webhooks: every webhook's payload
// is one of the feed's (FeedEventData.object), so a client generated from
// the document types an event it reads from either.
func feedRules(raw map[string]any, add func(string, ...any)) {
	hooks, _ := raw["webhooks"].(map[string]any)
	if len(hooks) == 0 {
		return
	}
	feed, _ := dig(raw, "components", "schemas", "FeedEventData", "properties", "object", "anyOf").([]any)
	in := map[string]bool{}
	for _, r := range feed {
		if m, ok := r.(map[string]any); ok {
			ref, _ := m["$ref"].(string)
			in[ref] = true
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(hooks)) {
		ref, _ := dig(hooks[typ], "post", "requestBody", "content", "application/json", "schema", "properties", "data",
			"properties", "object", "$ref").(string)
		if ref != "" && !in[ref] {
			add("webhooks.%s: its payload %s is not one of FeedEventData's: the feed carries every event", typ, ref)
		}
	}
}
