// Command skills writes the agent skill's generated files from the
// OpenAPI document: skills/kontera-api/SKILL.md and a reference file per
// group (references/<tag>.md), linking the hand-written task guides
// (references/guide-*.md), and removes a generated file no group makes
// any more. make generate runs it; the discovery package's
// TestSkillsUpToDate fails when it has not been run.
//
//	go run ./cmd/skills [skills/kontera-api]
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontera/kontera/internal/discovery"
	"github.com/kontera/kontera/openapi"
)

func main() {
	dir := filepath.Join("skills", "kontera-api")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := write(dir); err != nil {
		fmt.Fprintln(os.Stderr, "skills:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := openapi.ValidateExamples(openapi.Document); err != nil {
		return err
	}
	c, err := openapi.Load()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		return err
	}
	guides, err := discovery.Guides(os.DirFS(dir))
	if err != nil {
		return err
	}
	if p := discovery.CheckGuides(c, guides); len(p) > 0 {
		return fmt.Errorf("the task guides:\n%s", strings.Join(p, "\n"))
	}
	files := discovery.Skill(c, guides)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	// A group the document no longer has leaves no file behind.
	entries, err := os.ReadDir(filepath.Join(dir, "references"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := "references/" + e.Name()
		if files[name] == nil && !strings.HasPrefix(e.Name(), "guide-") {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}
