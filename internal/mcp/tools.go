// Package mcp serves the API to agents over the Model Context Protocol
// (streamable HTTP, POST /mcp): a tool per operation of the document,
// generated from it, each call made as the HTTP request it stands for
// through the whole server, so keys, scopes, roles, test keys, rate
// limits, dry runs, idempotency and audit hold exactly as they do for the
// REST API. The discovery texts are its resources.
package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontera/kontera/openapi"
)

// The names a tool's arguments take beside the operation's parameters.
const (
	argBody           = "body"
	argBodyBase64     = "body_base64"
	argContentType    = "content_type"
	argDryRun         = "dry_run"
	argIdempotencyKey = "idempotency_key"
)

// tool is one operation as a tool: what tools/list shows and what a call
// needs to make its request.
type tool struct {
	def   *sdk.Tool
	op    *openapi.Operation
	path  []string // path parameters, in order
	query []string // query parameters but dry_run
	body  string   // the request body's media type, "" for none
}

// Tools makes a tool of every operation of the document raw (the served
// bytes) described by c, sorted by name.
func Tools(c *openapi.Contract, raw []byte) ([]*tool, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas    map[string]any `json:"schemas"`
			Parameters map[string]any `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var out []*tool
	for _, o := range c.Operations {
		var op struct {
			Parameters  []map[string]any `json:"parameters"`
			RequestBody *struct {
				Required bool                      `json:"required"`
				Content  map[string]map[string]any `json:"content"`
			} `json:"requestBody"`
		}
		if err := json.Unmarshal(doc.Paths[o.Path][strings.ToLower(o.Method)], &op); err != nil {
			return nil, fmt.Errorf("mcp: %s: %w", o.ID, err)
		}
		t := &tool{op: o}
		props := map[string]any{}
		var required []string
		var params []map[string]any
		if item := doc.Paths[o.Path]["parameters"]; item != nil {
			_ = json.Unmarshal(item, &params)
		}
		for _, p := range append(params, op.Parameters...) {
			if ref, ok := p["$ref"].(string); ok {
				p, _ = doc.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
			}
			name, _ := p["name"].(string)
			desc, _ := p["description"].(string)
			schema, _ := p["schema"].(map[string]any)
			prop := map[string]any{}
			for k, v := range schema {
				prop[k] = v
			}
			if desc != "" {
				prop["description"] = desc
			}
			switch p["in"] {
			case "path":
				t.path = append(t.path, name)
				props[name] = prop
				required = append(required, name)
			case "query":
				if name == argDryRun {
					continue // below, as a boolean
				}
				t.query = append(t.query, name)
				props[name] = prop
				if r, _ := p["required"].(bool); r {
					required = append(required, name)
				}
			}
		}
		if o.DryRun {
			props[argDryRun] = map[string]any{"type": "boolean",
				"description": "Preview the write without storing anything: the answer is data {dry_run: true, preview}."}
		}
		if o.Mutating() && o.Key != openapi.KeyIgnored {
			props[argIdempotencyKey] = map[string]any{"type": "string", "format": "uuid",
				"description": "Makes a retry safe: the same key and arguments answer the first call's answer again. " +
					"Left out, one is made and returned in the result's _meta (kontera/idempotency_key): send it with a retry."}
		}
		if rb := op.RequestBody; rb != nil {
			switch {
			case rb.Content["application/json"] != nil:
				t.body = "application/json"
				props[argBody] = rb.Content["application/json"]["schema"]
				if rb.Required {
					required = append(required, argBody)
				}
			case rb.Content["multipart/form-data"] != nil:
				t.body = "multipart/form-data"
				props[argBody] = formSchema(rb.Content["multipart/form-data"]["schema"], doc.Components.Schemas)
				if rb.Required {
					required = append(required, argBody)
				}
			default:
				for mt := range rb.Content {
					t.body = mt
				}
				props[argBodyBase64] = map[string]any{"type": "string", "contentEncoding": "base64",
					"description": "The request body's bytes, base64."}
				props[argContentType] = map[string]any{"type": "string",
					"description": "Their media type (" + t.body + "): sent as Content-Type."}
				required = append(required, argBodyBase64)
			}
		}
		sort.Strings(required)
		input := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			input["required"] = required
		}
		if defs := closure(input, doc.Components.Schemas); len(defs) > 0 {
			input["$defs"] = defs
		}
		t.def = &sdk.Tool{Name: o.ID, Title: o.Summary, Description: description(o), InputSchema: jsonSchema(input),
			Annotations: annotations(o)}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out, nil
}

// description is what an agent reads to choose the tool: the summary, the
// operation's own text (when to use it, when not, its pitfalls) and its
// flags in words.
func description(o *openapi.Operation) string {
	var b strings.Builder
	b.WriteString(o.Summary)
	b.WriteString(" (")
	b.WriteString(o.Method + " " + o.Path)
	b.WriteString(")")
	if d := strings.TrimSpace(o.Op.Description); d != "" {
		b.WriteString("\n\n")
		b.WriteString(d)
	}
	var flags []string
	if len(o.Scopes) > 0 {
		flags = append(flags, "scopes "+strings.Join(o.Scopes, ", "))
	}
	if o.Mutating() {
		flags = append(flags, "risk "+string(o.Risk))
		if o.DryRun {
			flags = append(flags, "dry_run previews it")
		}
		if o.Reversible {
			flags = append(flags, "reversible")
		}
	}
	if len(flags) > 0 {
		b.WriteString("\n\n")
		b.WriteString(strings.Join(flags, "; "))
		b.WriteString(".")
	}
	return b.String()
}

// annotations are the hints a client shows before a call: reads are
// read-only; a write is destructive when its risk is high (it posts to
// the books or cannot be taken back), idempotent when the document says
// so.
func annotations(o *openapi.Operation) *sdk.ToolAnnotations {
	closed := false
	a := &sdk.ToolAnnotations{Title: o.Summary, OpenWorldHint: &closed}
	if !o.Mutating() {
		a.ReadOnlyHint = true
		a.IdempotentHint = true
		return a
	}
	destructive := o.Risk == openapi.RiskHigh || o.Method == "DELETE"
	a.DestructiveHint = &destructive
	a.IdempotentHint = o.Idempotent
	return a
}

// formSchema is a multipart body's schema with its file parts as an
// object a JSON call can carry: the file's name, type and bytes.
func formSchema(s any, schemas map[string]any) any {
	m, _ := s.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		m, _ = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	props := map[string]any{}
	src, _ := m["properties"].(map[string]any)
	for k, v := range src {
		p, _ := v.(map[string]any)
		if _, file := p["contentMediaType"]; file && p["type"] == nil {
			v = map[string]any{"type": "object", "required": []any{"filename", "content_base64"},
				"description": p["description"],
				"properties": map[string]any{
					"filename":       map[string]any{"type": "string"},
					"content_type":   map[string]any{"type": "string"},
					"content_base64": map[string]any{"type": "string", "contentEncoding": "base64"}}}
		}
		props[k] = v
	}
	out["properties"] = props
	return out
}

// closure rewrites the document's schema references in v to $defs and
// answers the definitions v reaches, themselves rewritten.
func closure(v any, schemas map[string]any) map[string]any {
	defs := map[string]any{}
	var walk func(any) any
	walk = func(v any) any {
		switch n := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(n))
			for k, c := range n {
				switch {
				case k == "$ref":
					ref, _ := c.(string)
					name := strings.TrimPrefix(ref, "#/components/schemas/")
					out[k] = "#/$defs/" + name
					if _, seen := defs[name]; !seen {
						defs[name] = nil // taken, against cycles
						defs[name] = walk(schemas[name])
					}
				case k == "example" || k == "discriminator" || strings.HasPrefix(k, "x-"):
					// OpenAPI's, not JSON Schema's
				default:
					out[k] = walk(c)
				}
			}
			return out
		case []any:
			out := make([]any, len(n))
			for i, c := range n {
				out[i] = walk(c)
			}
			return out
		}
		return v
	}
	props := v.(map[string]any)["properties"].(map[string]any)
	for k, p := range props {
		props[k] = walk(p)
	}
	return defs
}

// jsonSchema is s as the bytes a client receives.
func jsonSchema(s map[string]any) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
