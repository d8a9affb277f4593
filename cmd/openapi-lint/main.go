// Command openapi-lint checks openapi/openapi.json against the house rules
// that kin-openapi's own validation does not cover: OpenAPI 3.1 only, no
// `nullable`, no null inside an enum, type arrays only [T] or [T, "null"],
// every operation with its operationId, tags, summary and x- flags, and
// the responses the middleware can produce documented where it can
// produce them.
//
//	go run ./cmd/openapi-lint [openapi/openapi.json]
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/kontera/kontera/openapi"
)

func main() {
	path := "openapi/openapi.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	problems := openapi.Lint(data)
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "%s: %s\n", path, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "%d problem(s)\n", len(problems))
		os.Exit(1)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	_ = json.Unmarshal(data, &doc)
	n := 0
	for _, item := range doc.Paths {
		n += len(item)
	}
	fmt.Printf("%s: OpenAPI 3.1, %d paths, %d operations, house rules hold\n", path, len(doc.Paths), n)
}
