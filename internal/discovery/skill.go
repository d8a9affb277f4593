package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/kontera/kontera/openapi"
)

// Guide is a task guide of the skill: a hand-written walk through one
// task for an agent, references/guide-<task>.md.
type Guide struct {
	File  string // guide-invoice-and-get-paid.md
	Title string // its first heading
	Body  []byte
}

// guideFile is the shape of a guide's file name.
var guideFile = regexp.MustCompile(`^guide-[a-z0-9-]+\.md$`)

// Guides reads the task guides of the skill folder dir (skills.Files'
// kontera-api, or the folder on disk).
func Guides(dir fs.FS) ([]Guide, error) {
	entries, err := fs.ReadDir(dir, "references")
	if err != nil {
		return nil, err
	}
	var out []Guide
	for _, e := range entries {
		if !guideFile.MatchString(e.Name()) {
			continue
		}
		b, err := fs.ReadFile(dir, "references/"+e.Name())
		if err != nil {
			return nil, err
		}
		title, _, _ := strings.Cut(strings.TrimPrefix(string(b), "# "), "\n")
		out = append(out, Guide{File: e.Name(), Title: strings.TrimSpace(title), Body: b})
	}
	return out, nil
}

// operationName is how a guide names an operation: its operationId in
// backticks followed by a space and the method, `createInvoice` (POST …).
var operationName = regexp.MustCompile("`([a-z][A-Za-z]+)` \\((GET|POST|PUT|PATCH|DELETE) ")

// CheckGuides reports each operation a guide names that the document
// does not have: a guide must change when the operations do.
func CheckGuides(c *openapi.Contract, guides []Guide) []string {
	var problems []string
	for _, g := range guides {
		if g.Title == "" || !strings.HasPrefix(string(g.Body), "# ") {
			problems = append(problems, g.File+": starts with no # title")
		}
		for _, m := range operationName.FindAllStringSubmatch(string(g.Body), -1) {
			if o := c.ByID(m[1]); o == nil || o.Method != m[2] {
				problems = append(problems, fmt.Sprintf("%s: names %s (%s), which the document does not have", g.File, m[1], m[2]))
			}
		}
	}
	return problems
}

// Skill generates the skill's files from the document: SKILL.md and a
// reference file per group (tag), keyed by their path in the folder.
// The guides are linked, not generated.
func Skill(c *openapi.Contract, guides []Guide) map[string][]byte {
	byTag, tags := groups(c)
	out := map[string][]byte{}
	var s strings.Builder
	fmt.Fprintf(&s, "---\nname: %s\ndescription: %s\n---\n\n", SkillName, skillDescription)
	fmt.Fprintf(&s, "# %s\n\nAPI version %s, %d operations. Paths are the server's: prefix them with its base URL "+
		"(the one this file was fetched from). Generated from the OpenAPI document (`go run ./cmd/skills`); the task guides "+
		"are written for agents.\n\n", c.Doc.Info.Title, c.Doc.Info.Version, len(c.Operations))
	s.WriteString(c.Doc.Info.Description + "\n\n")
	s.WriteString("## Task guides\n\nStart here for a task: each names the operations in order, with the fields that matter.\n\n")
	for _, g := range guides {
		fmt.Fprintf(&s, "- [%s](references/%s)\n", g.Title, g.File)
	}
	s.WriteString("\n## Answers every operation may give\n\n" +
		"Each reference file lists an operation's own answers; these hold for all and are not repeated there: " +
		"400 VALIDATION_ERROR (details.issues names each field), 401 UNAUTHORIZED (no or an unknown key), " +
		"403 FORBIDDEN or INSUFFICIENT_SCOPE (the key may not), 404 (the company or the record is not the key's), " +
		"409 CONFLICT or IDEMPOTENCY_KEY_REUSE (the same key with another request), 413 and 415 (a body too large or " +
		"of another type), 429 RATE_LIMITED (Retry-After), 500 INTERNAL_ERROR (retry with the same Idempotency-Key). " +
		"Every error is `{\"error\": {code, message, message_en, details, recovery_hint, docs_url, request_id}}`.\n")
	s.WriteString("\n## Reference files\n\n")
	for _, tag := range tags {
		name := tag + ".md"
		fmt.Fprintf(&s, "- [references/%s](references/%s): %d operations. %s\n", name, name, len(byTag[tag]),
			oneLine(tagDescription(c.Doc, tag)))
		out["references/"+name] = []byte(reference(c, tag, byTag[tag], guides))
	}
	out["SKILL.md"] = []byte(s.String())
	return out
}

// groups are the operations by tag, and the tags in the document's order.
func groups(c *openapi.Contract) (map[string][]*openapi.Operation, []string) {
	byTag := map[string][]*openapi.Operation{}
	for _, o := range c.Operations {
		tag := "other"
		if len(o.Tags) > 0 {
			tag = o.Tags[0]
		}
		byTag[tag] = append(byTag[tag], o)
	}
	return byTag, tagOrder(c.Doc, byTag)
}

// standardParams are described once, in SKILL.md's preamble (the
// document's info), not under every operation.
var standardParams = map[string]bool{"companyId": true, "Idempotency-Key": true, "dry_run": true, "X-Dry-Run": true}

func reference(c *openapi.Contract, tag string, ops []*openapi.Operation, guides []Guide) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", tag, tagDescription(c.Doc, tag))
	var used []string
	for _, g := range guides {
		for _, o := range ops {
			if bytes.Contains(g.Body, []byte("`"+o.ID+"` (")) {
				used = append(used, fmt.Sprintf("[%s](%s)", g.Title, g.File))
				break
			}
		}
	}
	if len(used) > 0 {
		fmt.Fprintf(&b, "\nTask guides with these operations: %s.\n", strings.Join(used, ", "))
	}
	for _, o := range ops {
		fmt.Fprintf(&b, "\n## %s\n\n`%s %s` — %s\n\n", o.ID, o.Method, o.Path, o.Summary)
		if o.Description != "" {
			b.WriteString(o.Description + "\n\n")
		}
		fmt.Fprintf(&b, "Flags: %s.\n", flags(o))
		var params []string
		for _, p := range append(append(openapi3.Parameters{}, o.Item.Parameters...), o.Op.Parameters...) {
			if p.Value == nil || standardParams[p.Value.Name] {
				continue
			}
			req := ""
			if p.Value.Required {
				req = ", required"
			}
			params = append(params, fmt.Sprintf("- `%s` (%s%s): %s", p.Value.Name, p.Value.In, req, oneLine(p.Value.Description)))
		}
		if len(params) > 0 {
			b.WriteString("\nParameters:\n\n" + strings.Join(params, "\n") + "\n")
		}
		if rb := o.Op.RequestBody; rb != nil && rb.Value != nil {
			for _, mt := range slices.Sorted(maps.Keys(rb.Value.Content)) {
				m := rb.Value.Content[mt]
				fmt.Fprintf(&b, "\nBody (%s, %s):\n\n%s", mt, schemaName(m.Schema), fields(m.Schema))
				if ex := example(m); ex != "" && mt == "application/json" {
					fmt.Fprintf(&b, "\nExample request:\n\n```json\n%s\n```\n", ex)
				}
			}
		}
		var codes []string
		for code, r := range o.Op.Responses.Map() {
			// The answers every operation may give are in SKILL.md.
			if r.Ref == "" || strings.HasPrefix(code, "2") {
				codes = append(codes, code)
			}
		}
		sort.Strings(codes)
		b.WriteString("\nAnswers:\n\n")
		shown := false
		for _, code := range codes {
			r := o.Op.Responses.Value(code)
			desc := ""
			if r.Value != nil && r.Value.Description != nil {
				desc = oneLine(*r.Value.Description)
			}
			fmt.Fprintf(&b, "- %s: %s\n", code, desc)
			if m := r.Value.Content.Get("application/json"); !shown && strings.HasPrefix(code, "2") && m != nil {
				if ex := example(m); ex != "" {
					fmt.Fprintf(&b, "\n  Example answer (%s):\n\n```json\n%s\n```\n\n", code, ex)
					shown = true
				}
			}
		}
	}
	return b.String()
}

// fields lists a body's fields, required first, each with its type and
// the first sentence of its description.
func fields(s *openapi3.SchemaRef) string {
	if s == nil || s.Value == nil {
		return ""
	}
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	for _, part := range append([]*openapi3.SchemaRef{s}, s.Value.AllOf...) {
		if part.Value == nil {
			continue
		}
		for k, v := range part.Value.Properties {
			props[k] = v
		}
		for _, r := range part.Value.Required {
			required[r] = true
		}
	}
	names := slices.Sorted(maps.Keys(props))
	sort.SliceStable(names, func(i, j int) bool { return required[names[i]] && !required[names[j]] })
	var b strings.Builder
	for _, n := range names {
		p := props[n]
		req := ""
		if required[n] {
			req = ", required"
		}
		desc := ""
		if p.Value != nil {
			desc = firstSentence(p.Value.Description)
		}
		fmt.Fprintf(&b, "- `%s` (%s%s)", n, typeName(p), req)
		if desc != "" {
			b.WriteString(": " + desc)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// typeName is a field's type in a word: its schema's name, or its type
// with its enum.
func typeName(s *openapi3.SchemaRef) string {
	if s.Ref != "" {
		return schemaName(s)
	}
	v := s.Value
	if v == nil {
		return "any"
	}
	for _, alt := range append(v.AnyOf, v.OneOf...) {
		if alt.Value != nil && alt.Value.Type != nil && alt.Value.Type.Is("null") {
			continue
		}
		return typeName(alt) + " or null"
	}
	t := "any"
	if v.Type != nil {
		t = strings.Join(v.Type.Slice(), " or ")
	}
	if t == "array" && v.Items != nil {
		t = "array of " + typeName(v.Items)
	}
	if len(v.Enum) > 0 {
		var e []string
		for _, x := range v.Enum {
			e = append(e, fmt.Sprint(x))
		}
		t += ": " + strings.Join(e, ", ")
	}
	if v.Format != "" {
		t += ", " + v.Format
	}
	return t
}

// example is a media type's example as indented JSON, long ones cut.
func example(m *openapi3.MediaType) string {
	if m == nil || m.Example == nil {
		return ""
	}
	b, err := json.MarshalIndent(m.Example, "", "  ")
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 40 {
		lines = append(lines[:40], "…")
	}
	return strings.Join(lines, "\n")
}

func firstSentence(s string) string {
	s = oneLine(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// Stale reports how the skill folder dir differs from what the document
// makes of it: a generated file outdated or missing, a file nothing makes
// (orphaned), a guide naming an operation the document lacks. None means
// the served skill is the document's.
func Stale(c *openapi.Contract, dir fs.FS) []string {
	guides, err := Guides(dir)
	if err != nil {
		return []string{err.Error()}
	}
	problems := CheckGuides(c, guides)
	files := Skill(c, guides)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b, err := fs.ReadFile(dir, name)
		switch {
		case err != nil:
			problems = append(problems, name+": missing")
		case !bytes.Equal(b, files[name]):
			problems = append(problems, name+": outdated")
		}
	}
	_ = fs.WalkDir(dir, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if files[path] == nil && !(strings.HasPrefix(path, "references/") && guideFile.MatchString(strings.TrimPrefix(path, "references/"))) {
			problems = append(problems, path+": orphaned (nothing generates it, and it is no guide-*.md)")
		}
		return nil
	})
	return problems
}
