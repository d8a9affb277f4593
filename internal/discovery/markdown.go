package discovery

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/kontera/kontera/openapi"
	"github.com/kontera/kontera/skills"
)

// SkillName is the one agent skill this server publishes.
const SkillName = skills.Name

// texts are the discovery documents, rendered once at start-up from the
// contract: nothing here is a second, hand-kept list of operations.
type texts struct {
	llms       []byte
	skill      []byte
	references map[string][]byte // file name (tag.md) -> Markdown
	index      []string          // files of the skill, relative to its folder
}

func render(c *openapi.Contract, base string) *texts {
	t := &texts{references: map[string][]byte{}}
	byTag, tags := groups(c)
	dir, err := fs.Sub(skills.Files, skills.Name)
	if err != nil {
		panic(err) // the embedded folder is there or the build is broken
	}
	guides, _ := Guides(dir)

	var l strings.Builder
	fmt.Fprintf(&l, "# %s\n\n> %s API version %s.\n\n", c.Doc.Info.Title, c.Doc.Info.Summary, c.Doc.Info.Version)
	l.WriteString(c.Doc.Info.Description + "\n\n")
	fmt.Fprintf(&l, "## Quickstart\n\n"+
		"1. Get a key: an operator runs `kontera keys create --email you@example.se` and hands you the printed `key` "+
		"(`kontera_sk_…` live, `kontera_sk_test_…` test: every write of a test key is a dry run).\n"+
		"2. `curl -H \"Authorization: Bearer $KEY\" %s/api/v1/api-key` shows what the key may do.\n"+
		"3. `curl -H \"Authorization: Bearer $KEY\" %s/api/v1/companies` lists your companies; use `id` as `companyId`.\n"+
		"4. Preview any write with `?dry_run=true`; send an `Idempotency-Key: <uuid>` with writes so a retry never acts twice.\n\n", base, base)
	fmt.Fprintf(&l, "## Resources\n\n"+
		"- OpenAPI 3.1 document: %[1]s/api/v1/openapi.json\n"+
		"- Agent skills: %[1]s/.well-known/skills/index.json\n"+
		"- Health: %[1]s/api/v1/health\n"+
		"- Error reference: %[1]s/docs/api/errors\n\n", base)
	fmt.Fprintf(&l, "## MCP\n\n"+
		"The same API as Model Context Protocol tools, for agents: streamable HTTP at %[1]s/mcp with the same "+
		"`Authorization: Bearer <key>` (its scopes, roles, test mode, rate limit and audit, the rows labelled \"via MCP\"). "+
		"A tool per operation, named by its operationId (`createInvoice`); its arguments are the path and query parameters "+
		"(`companyId`), `body` (the JSON body; a file part as `{filename, content_type, content_base64}`), `dry_run` and "+
		"`idempotency_key` (left out, one is made and returned in the result's `_meta`: send it with a retry). The result's "+
		"structured content is the REST answer's envelope; an error's carries its code, `recovery_hint` and `docs_url`. "+
		"Resources: this file, the skills, the OpenAPI document. A client configuration:\n\n"+
		"```json\n{\"mcpServers\": {\"kontera\": {\"type\": \"http\", \"url\": \"%[1]s/mcp\", "+
		"\"headers\": {\"Authorization\": \"Bearer kontera_sk_…\"}}}}\n```\n\n", base)
	l.WriteString("## Task guides\n\nHow to do a task, step by step, with the operations in order:\n\n")
	for _, g := range guides {
		fmt.Fprintf(&l, "- [%s](%s/.well-known/skills/%s/references/%s)\n", g.Title, base, SkillName, g.File)
	}
	l.WriteString("\n")
	l.WriteString("## Operations\n\nEach line: method and path — summary. Flags: scopes, risk, idempotent, reversible, dry run, Idempotency-Key.\n")
	for _, tag := range tags {
		fmt.Fprintf(&l, "\n### %s\n\n", tag)
		if d := tagDescription(c.Doc, tag); d != "" {
			l.WriteString(d + "\n\n")
		}
		for _, o := range byTag[tag] {
			fmt.Fprintf(&l, "- `%s %s` — %s (`%s`; %s)\n", o.Method, o.Path, o.Summary, o.ID, flags(o))
		}
	}
	l.WriteString("\n## Versioning\n\nThe URL carries the major version (/api/v1/). Response shapes follow the dated version in `meta.api_version`; " +
		"changes after it are additive. A request header to select another version is reserved and not read today.\n")
	t.llms = []byte(l.String())

	// The skill is served as kept in the repository (skills.Files),
	// generated from this document: TestSkillsUpToDate holds it so.
	t.skill, _ = fs.ReadFile(dir, "SKILL.md")
	t.index = []string{"SKILL.md"}
	entries, _ := fs.ReadDir(dir, "references")
	for _, e := range entries {
		b, _ := fs.ReadFile(dir, "references/"+e.Name())
		t.references[e.Name()] = b
		t.index = append(t.index, "references/"+e.Name())
	}
	return t
}

const skillDescription = "Keep the books of Swedish companies (bokföring, fakturering, moms) through the Kontera REST API."

func flags(o *openapi.Operation) string {
	scopes := "no scope"
	switch {
	case o.Public:
		scopes = "public, no key"
	case len(o.Scopes) > 0:
		scopes = "scopes " + strings.Join(o.Scopes, ", ")
	}
	parts := []string{scopes, "risk " + string(o.Risk), yesNo(o.Idempotent, "idempotent"), yesNo(o.Reversible, "reversible"),
		yesNo(o.DryRun, "dry run"), "Idempotency-Key " + string(o.Key)}
	if len(o.Roles) > 0 {
		parts = append(parts, "roles "+strings.Join(o.Roles, ", "))
	}
	if o.Capability != "" {
		parts = append(parts, "paid capability "+o.Capability)
	}
	return strings.Join(parts, "; ")
}

func yesNo(b bool, what string) string {
	if b {
		return what
	}
	return "not " + what
}

func tagOrder(doc *openapi3.T, byTag map[string][]*openapi.Operation) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range doc.Tags {
		if len(byTag[t.Name]) > 0 {
			out = append(out, t.Name)
			seen[t.Name] = true
		}
	}
	var rest []string
	for t := range byTag {
		if !seen[t] {
			rest = append(rest, t)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func tagDescription(doc *openapi3.T, tag string) string {
	if t := doc.Tags.Get(tag); t != nil {
		return t.Description
	}
	return ""
}

func schemaName(s *openapi3.SchemaRef) string {
	if s == nil {
		return ""
	}
	if s.Ref != "" {
		return s.Ref[strings.LastIndex(s.Ref, "/")+1:]
	}
	return "inline schema"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
