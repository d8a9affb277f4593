package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kontera/kontera/openapi"
)

func TestLlmsTxtAndSkillsFromTheDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := e.get("/llms.txt", "").status(t, 200)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("content type %q", r.Header.Get("Content-Type"))
	}
	txt := string(r.Body)
	for _, o := range c.Operations {
		if !strings.Contains(txt, "`"+o.Method+" "+o.Path+"`") || !strings.Contains(txt, o.ID) {
			t.Errorf("llms.txt lacks %s %s (%s)", o.Method, o.Path, o.ID)
		}
	}
	for _, want := range []string{"# Kontera API", "2026-05-12", base + "/api/v1/openapi.json", base + "/.well-known/skills/index.json", "Idempotency-Key"} {
		if !strings.Contains(txt, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}

	idx := e.get("/.well-known/skills/index.json", "").status(t, 200)
	var index struct {
		Skills []struct {
			Name  string   `json:"name"`
			Files []string `json:"files"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(idx.Body, &index); err != nil || len(index.Skills) != 1 || index.Skills[0].Name != "kontera-api" {
		t.Fatalf("index: %s", idx.Body)
	}
	all := ""
	for _, f := range index.Skills[0].Files {
		r := e.get("/.well-known/skills/kontera-api/"+f, "").status(t, 200)
		all += string(r.Body)
	}
	if !strings.HasPrefix(string(e.get("/.well-known/skills/kontera-api/SKILL.md", "").Body), "---\nname: kontera-api\n") {
		t.Error("SKILL.md lacks its front matter")
	}
	for _, o := range c.Operations {
		if !strings.Contains(all, "## "+o.ID) {
			t.Errorf("the skill's references lack %s", o.ID)
		}
	}
	e.get("/.well-known/skills/kontera-api/references/nope.md", "").errorCode(t, 404, "NOT_FOUND")
}

func TestErrorReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(req{Method: "GET", Path: "/docs/api/errors", Header: map[string]string{"Accept": "application/json"}}).status(t, 200)
	codes := r.list("data.errors")
	if len(codes) < 100 {
		t.Fatalf("%d codes in the catalogue", len(codes))
	}
	r = e.do(req{Method: "GET", Path: "/docs/api/errors/PERIOD_LOCKED", Header: map[string]string{"Accept": "application/json"}}).status(t, 200)
	if r.at("data.status") != float64(400) || r.str("data.docs_url") != base+"/docs/api/errors/PERIOD_LOCKED" || r.str("data.recovery_hint") == "" {
		t.Fatalf("entry: %s", r.Body)
	}
	html := e.do(req{Method: "GET", Path: "/docs/api/errors", Header: map[string]string{"Accept": "text/html"}}).status(t, 200)
	if !strings.HasPrefix(html.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(html.Body), "IDEMPOTENCY_KEY_REUSE") {
		t.Fatal("HTML catalogue")
	}
	one := e.get("/docs/api/errors/RATE_LIMITED", "").status(t, 200)
	if !strings.Contains(string(one.Body), "<h1>RATE_LIMITED</h1>") || !strings.Contains(string(one.Body), "För många anrop") {
		t.Fatalf("HTML entry: %s", one.Body)
	}
	e.get("/docs/api/errors/NO_SUCH_CODE", "").errorCode(t, 404, "NOT_FOUND")
	// Every error's docs_url resolves.
	r = e.get("/api/v1/api-key", "")
	e.get(strings.TrimPrefix(r.str("error.docs_url"), base), "").status(t, 200)
}
