package discovery

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kontera/kontera/openapi"
	"github.com/kontera/kontera/skills"
)

// The skill served is the one the document makes: run go run ./cmd/skills
// (make generate) after changing an operation.
func TestSkillsUpToDate(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := fs.Sub(skills.Files, skills.Name)
	if err != nil {
		t.Fatal(err)
	}
	if p := Stale(c, dir); len(p) > 0 {
		t.Fatalf("the skill is stale; run go run ./cmd/skills:\n%s", strings.Join(p, "\n"))
	}
	guides, _ := Guides(dir)
	if len(guides) < 6 {
		t.Fatalf("%d task guides", len(guides))
	}
}

// The check fails on an operation changed without regenerating, a file
// missing, one left over, and a guide naming an operation that is gone.
func TestStaleCatchesEachCase(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := fs.Sub(skills.Files, skills.Name)
	copyOf := func() fstest.MapFS {
		m := fstest.MapFS{}
		_ = fs.WalkDir(dir, ".", func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, _ := fs.ReadFile(dir, p)
				m[p] = &fstest.MapFile{Data: b}
			}
			return err
		})
		return m
	}
	changed, err := openapi.Parse(bytes.Replace(openapi.Document, []byte(`"summary": "Create a customer"`),
		[]byte(`"summary": "Register a customer"`), 1))
	if err != nil {
		t.Fatal(err)
	}
	missing := copyOf()
	delete(missing, "references/ledger.md")
	orphan := copyOf()
	orphan["references/old.md"] = &fstest.MapFile{Data: []byte("# old\n")}
	guide := copyOf()
	guide["references/guide-x.md"] = &fstest.MapFile{Data: []byte("# X\n\n1. `createWidget` (POST …/widgets).\n")}
	for name, c := range map[string]struct {
		contract *openapi.Contract
		dir      fs.FS
		want     string
	}{
		"operation changed": {changed, dir, "references/parties.md: outdated"},
		"file missing":      {c, missing, "references/ledger.md: missing"},
		"file orphaned":     {c, orphan, "references/old.md: orphaned"},
		"guide stale":       {c, guide, "createWidget"},
	} {
		if p := strings.Join(Stale(c.contract, c.dir), "\n"); !strings.Contains(p, c.want) {
			t.Errorf("%s: %q, want %q", name, p, c.want)
		}
	}
}
