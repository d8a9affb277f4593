package openapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// The consumer rules keep the document compiling in the clients our users
// generate with each tool's defaults (openapi-typescript + openapi-fetch,
// oapi-codegen): what a generator reads into a shape that does not fit the
// wire is refused here, with the reason. OPENAPI-STYLE.md explains each.

// openEnumNames are property names whose request side is an enum but
// whose answers may hold any value: a line or a bank row in any ISO 4217
// currency (an SIE file's, a bank's), a transaction filed under a company's
// own template or a bulk booking.
var openEnumNames = map[string]string{
	"currency": "ISO 4217 codes beyond the ones Kontera invoices in",
	"category": "a company's own template names",
}

// closedName is the shape of a property name that always holds one of a
// known set: what kind, how, in which state.
var closedName = regexp.MustCompile(`(^status|_status|_type|_method)$`)

// openClosedNames are names of that shape that are open after all.
var openClosedNames = map[string]string{
	"mime_type": "any media type a file was read as",
	"work_type": "Skatteverket's arbetstyp, free text as a request gives it",
	"sie_type":  "an SIE file's #SIETYP as the file writes it",
}

// consumerRules applies the consumer rules to the document raw.
func consumerRules(raw map[string]any, add func(string, ...any)) {
	schemas, _ := dig(raw, "components", "schemas").(map[string]any)
	reach := func(root any) map[string]bool {
		seen := map[string]bool{}
		var walk func(any)
		walk = func(v any) {
			switch n := v.(type) {
			case map[string]any:
				if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/schemas/") {
					name := strings.TrimPrefix(ref, "#/components/schemas/")
					if !seen[name] {
						seen[name] = true
						walk(schemas[name])
					}
				}
				for k, c := range n {
					if k != "example" && k != "examples" {
						walk(c)
					}
				}
			case []any:
				for _, c := range n {
					walk(c)
				}
			}
		}
		walk(root)
		return seen
	}
	var requests, responses []any
	paths, _ := raw["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, o := range ops {
			op, _ := o.(map[string]any)
			if op == nil || op["responses"] == nil {
				continue
			}
			if rb := op["requestBody"]; rb != nil {
				requests = append(requests, rb)
				binaryParts(rb, fmt.Sprintf("%s %s requestBody", strings.ToUpper(m), p), add)
			}
			responses = append(responses, op["responses"])
		}
	}
	for name, s := range schemas {
		if strings.HasSuffix(name, "Payload") { // webhook and feed payloads are answers too
			responses = append(responses, s)
		}
	}
	inRequests, inResponses := reach(requests), reach(responses)
	for _, rb := range requests {
		inline := map[string]any{"requestBody": rb}
		requestDefaults(inline, "requestBody", add)
	}
	names := slices.Sorted(maps.Keys(inRequests))
	for _, name := range names {
		requestDefaults(schemas[name], "#/components/schemas/"+name, add)
		binaryParts(schemas[name], "#/components/schemas/"+name, add)
	}
	emptyObjects(raw, "#", add)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, o := range ops {
			if op, _ := o.(map[string]any); op != nil && op["x-dry-run"] == true {
				dryRunAnswers(schemas, op, fmt.Sprintf("%s %s", strings.ToUpper(m), p), add)
			}
		}
	}

	// Names that are enums in a request are enums in the answers too.
	enumNames := map[string]bool{}
	for _, name := range names {
		for k, v := range properties(schemas[name]) {
			if hasEnum(schemas, v) {
				enumNames[k] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(inResponses)) {
		for k, v := range properties(schemas[name]) {
			if !isString(schemas, v) || hasEnum(schemas, v) || isFormatted(schemas, v) {
				continue
			}
			switch {
			case enumNames[k] && openEnumNames[k] == "":
				add("#/components/schemas/%s/properties/%s: the requests' %s is an enum, so the answers' must carry it too (a generated client then types it)", name, k, k)
			case closedName.MatchString(k) && openClosedNames[k] == "":
				add("#/components/schemas/%s/properties/%s: a %s holds one of a known set: give it its enum", name, k, k)
			}
		}
	}
}

// requestDefaults: an optional property of a request with a default.
// openapi-typescript (defaultNonNullable, its default) makes a property
// with a default required in a component schema, since an answer always
// has it; a request may leave it out. The default goes in the description.
func requestDefaults(v any, at string, add func(string, ...any)) {
	switch n := v.(type) {
	case map[string]any:
		required, _ := n["required"].([]any)
		props, _ := n["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			p, _ := props[k].(map[string]any)
			if _, ok := p["default"]; ok && !slices.Contains(required, any(k)) {
				add("%s/properties/%s: an optional request property has a default, which generated clients read as always present; say it in the description", at, k)
			}
		}
		for k, c := range n {
			if k != "example" && k != "examples" {
				requestDefaults(c, at+"/"+k, add)
			}
		}
	case []any:
		for i, c := range n {
			requestDefaults(c, fmt.Sprintf("%s/%d", at, i), add)
		}
	}
}

// dryRunAnswers: a write with a dry run answers either its own answer or
// {dry_run: true, preview}, and a client tells them apart with one check
// (if (data.dry_run)): the dry run's members say dry_run true, every
// other member declares dry_run false; or one shape answers both and
// carries dry_run as a boolean. A 204 has nothing to tell.
func dryRunAnswers(schemas map[string]any, op map[string]any, at string, add func(string, ...any)) {
	responses, _ := op["responses"].(map[string]any)
	var members []map[string]any
	for code, r := range responses {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		env := resolve(schemas, dig(r, "content", "application/json", "schema"))
		data := resolve(schemas, dig(env, "properties", "data"))
		if data == nil {
			continue
		}
		if list, ok := data["oneOf"].([]any); ok {
			for _, m := range list {
				members = append(members, resolve(schemas, m))
			}
		} else {
			members = append(members, data)
		}
	}
	flag := func(m map[string]any) (declared bool, value any) {
		props := map[string]any{}
		parts, _ := m["allOf"].([]any)
		for _, part := range append(parts, m) {
			for k, v := range properties(resolve(schemas, part)) {
				props[k] = v
			}
		}
		v, ok := props["dry_run"]
		if !ok {
			return false, nil
		}
		return true, resolve(schemas, v)["const"]
	}
	dry, plain := 0, 0
	for _, m := range members {
		declared, value := flag(m)
		switch {
		case value == true:
			dry++
		case declared && value == nil && len(members) == 1:
			return // one shape for both, with dry_run a boolean
		case value == false:
		default:
			plain++
		}
	}
	if len(members) == 0 {
		return
	}
	if dry == 0 {
		add("%s: x-dry-run, but no answer is the dry run's ({dry_run: true, preview})", at)
	}
	if plain > 0 {
		add("%s: an answer beside the dry run's does not declare dry_run false (NotDryRun), so a client cannot tell them apart with one check", at)
	}
}

// binaryParts: a file in a request written the OpenAPI 3.0 way
// (type string, format binary), which clients type as a string, so a
// Blob or FormData does not fit. In 3.1 a file has no type and says its
// contentMediaType.
func binaryParts(v any, at string, add func(string, ...any)) {
	switch n := v.(type) {
	case map[string]any:
		if n["format"] == "binary" {
			add("%s: format binary types a file as a string; write {contentMediaType: …} without a type", at)
		}
		for k, c := range n {
			binaryParts(c, at+"/"+k, add)
		}
	case []any:
		for i, c := range n {
			binaryParts(c, fmt.Sprintf("%s/%d", at, i), add)
		}
	}
}

// emptyObjects: an object schema with no keys known nor allowed types as
// Record<string, never>, into which nothing the server sends fits.
func emptyObjects(v any, at string, add func(string, ...any)) {
	switch n := v.(type) {
	case map[string]any:
		if t := n["type"]; t == "object" || fmt.Sprint(t) == "[object null]" {
			open := false
			for _, k := range []string{"properties", "additionalProperties", "patternProperties", "oneOf", "anyOf", "allOf", "$ref", "const", "enum"} {
				if _, ok := n[k]; ok {
					open = true
				}
			}
			if !open && !strings.HasPrefix(at, "#/paths//api/v1/openapi.json/") {
				add("%s: an object with no properties types as Record<string, never>; name its keys (or additionalProperties)", at)
			}
		}
		for k, c := range n {
			if k != "example" && k != "examples" {
				emptyObjects(c, at+"/"+k, add)
			}
		}
	case []any:
		for i, c := range n {
			emptyObjects(c, fmt.Sprintf("%s/%d", at, i), add)
		}
	}
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func properties(s any) map[string]any {
	p, _ := dig(s, "properties").(map[string]any)
	return p
}

// resolve follows $ref to the schema it names.
func resolve(schemas map[string]any, v any) map[string]any {
	for i := 0; i < 20; i++ {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		v = schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	}
	return nil
}

// nonNull are the members of s's anyOf/oneOf that are not {type: null},
// or s itself.
func nonNull(schemas map[string]any, s map[string]any) []map[string]any {
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			var out []map[string]any
			for _, m := range list {
				if r := resolve(schemas, m); r != nil && r["type"] != "null" {
					out = append(out, r)
				}
			}
			return out
		}
	}
	return []map[string]any{s}
}

func hasEnum(schemas map[string]any, v any) bool {
	for _, s := range nonNull(schemas, resolve(schemas, v)) {
		if s["enum"] != nil || s["const"] != nil {
			return true
		}
		if items := s["items"]; items != nil && hasEnum(schemas, items) {
			return true
		}
	}
	return false
}

func isString(schemas map[string]any, v any) bool {
	for _, s := range nonNull(schemas, resolve(schemas, v)) {
		switch t := s["type"].(type) {
		case string:
			return t == "string"
		case []any:
			return slices.Contains(t, any("string"))
		}
	}
	return false
}

func isFormatted(schemas map[string]any, v any) bool {
	for _, s := range nonNull(schemas, resolve(schemas, v)) {
		if s["format"] != nil || s["pattern"] != nil {
			return true
		}
	}
	return false
}
