// Package skills holds the agent skill Kontera serves at /.well-known/skills/:
// SKILL.md and references/<group>.md are generated from the document
// (go run ./cmd/skills, part of make generate); the task guides,
// references/guide-*.md, are written by hand for agents. The discovery
// package's TestSkillsUpToDate fails when a generated file is outdated,
// missing or orphaned, or when a guide names an operation the document
// does not have.
package skills

import "embed"

// Files is the skill's folder, kontera-api/, as kept in the repository.
//
//go:embed kontera-api
var Files embed.FS

// Name is the skill's name: its folder and the name in the index.
const Name = "kontera-api"
