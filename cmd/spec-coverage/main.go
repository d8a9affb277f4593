// Command spec-coverage measures how much of the product the OpenAPI
// document covers: every method and path the spec's endpoint document
// names (its tables, and the paths it names only by name), each marked as
// present in openapi/openapi.json or missing, with the count "N of M".
// It never fails the build; it shows the way.
//
//	go run ./cmd/spec-coverage [-spec ../shared/spec] [-doc openapi/openapi.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	specDir := flag.String("spec", "../shared/spec", "the directory of the spec documents")
	docPath := flag.String("doc", "openapi/openapi.json", "the OpenAPI document")
	flag.Parse()
	files, _ := filepath.Glob(filepath.Join(*specDir, "001_*"))
	if len(files) == 0 {
		fmt.Printf("spec-coverage: no endpoint document (001_*) under %s; nothing to measure\n", *specDir)
		return
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		fail(err)
	}
	raw, err := os.ReadFile(*docPath)
	if err != nil {
		fail(err)
	}
	have, err := documented(raw)
	if err != nil {
		fail(err)
	}
	report(os.Stdout, Named(string(text)), have)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "spec-coverage:", err)
	os.Exit(2)
}

// Endpoint is a method and a path, the path in full (/api/v1/...).
type Endpoint struct{ Method, Path string }

func (e Endpoint) String() string { return e.Method + " " + e.Path }

// key compares paths whatever their parameters are called: the spec
// writes {id} where the document names {customerId}.
func (e Endpoint) key() string { return e.Method + " " + param.ReplaceAllString(e.Path, "{}") }

var (
	param   = regexp.MustCompile(`\{[^}]*\}`)
	methods = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (\S+)`)
	bare    = regexp.MustCompile(`^(/\S+)`)
	// prose finds a method and a full path anywhere in a sentence.
	prose = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/(?:api/v1|companies)/[^\s,;:*)]+)`)
	// mirror is the spec's way of naming the supplier operations.
	mirror = regexp.MustCompile(`Same six operations as customers under (/companies/\S+)`)
)

// full writes a path of the spec in full. "..." and a path that is not
// rooted at /api, /companies or a public file stand under base.
func full(p, base string) string {
	p = strings.TrimRight(p, ",;.)")
	switch {
	case strings.HasPrefix(p, "..."):
		return base + strings.TrimPrefix(p, "...")
	case strings.HasPrefix(p, "/api/"), strings.HasPrefix(p, "/.well-known/"), strings.HasPrefix(p, "/llms.txt"),
		strings.HasPrefix(p, "/docs/"):
		return p
	case strings.HasPrefix(p, "/companies"):
		return "/api/v1" + p
	}
	return "/api/v1/companies/{companyId}" + p
}

// Named lists the endpoints the spec names, in its order, once each:
// table rows that start with a method and path (a bare /reports/... row is
// a GET), the list after "Paths named only by name:", and a method with a
// full path (/api/v1/... or /companies/...) anywhere in the prose.
func Named(text string) []Endpoint {
	var out []Endpoint
	seen := map[string]bool{}
	add := func(e Endpoint) {
		if !seen[e.key()] {
			seen[e.key()] = true
			out = append(out, e)
		}
	}
	company := "/api/v1/companies/{companyId}"
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| ") {
			cell := strings.TrimSpace(strings.Split(line, "|")[1])
			method := ""
			for _, item := range strings.Split(cell, ", ") {
				item = strings.TrimSpace(item)
				if m := methods.FindStringSubmatch(item); m != nil {
					method = m[1]
					add(Endpoint{method, full(m[2], company)})
				} else if m := bare.FindStringSubmatch(item); m != nil && strings.Contains(m[1], "/") {
					if method == "" {
						method = "GET" // the report tables name paths only
					}
					add(Endpoint{method, full(m[1], company)})
				}
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Paths named only by name:"); ok {
			base := company
			for _, item := range strings.Split(rest, ", ") {
				item = strings.TrimSpace(item)
				m := methods.FindStringSubmatch(item)
				if m == nil {
					continue
				}
				if after := strings.TrimSpace(item[len(m[0]):]); after != "" && after[0] != '(' {
					continue // prose about a path the spec does not name
				}
				p := full(m[2], base)
				if !strings.HasPrefix(m[2], "...") {
					base = p // "..." continues the last path named in full
				}
				add(Endpoint{m[1], p})
			}
			continue
		}
		for _, m := range prose.FindAllStringSubmatch(line, -1) {
			add(Endpoint{m[1], full(m[2], company)})
		}
		if m := mirror.FindStringSubmatch(line); m != nil {
			to := full(m[1], company)
			for _, e := range append([]Endpoint(nil), out...) {
				if rest, ok := strings.CutPrefix(e.Path, company+"/customers"); ok {
					add(Endpoint{e.Method, to + rest})
				}
			}
		}
	}
	return out
}

// documented reads the method and path of every operation of the
// document, by key.
func documented(raw []byte) (map[string]Endpoint, error) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	have := map[string]Endpoint{}
	for p, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" || m == "summary" || m == "description" {
				continue
			}
			e := Endpoint{strings.ToUpper(m), p}
			have[e.key()] = e
		}
	}
	return have, nil
}

// report lists each endpoint the spec names as had or missing, then the
// document's endpoints beyond the spec (Kontera's extensions), and sums up.
func report(w io.Writer, named []Endpoint, have map[string]Endpoint) {
	var missing []Endpoint
	spec := map[string]bool{}
	for _, e := range named {
		spec[e.key()] = true
		mark := "have"
		if _, ok := have[e.key()]; !ok {
			mark, missing = "MISSING", append(missing, e)
		}
		fmt.Fprintf(w, "%-8s %s\n", mark, e)
	}
	var extra []Endpoint
	for k, e := range have {
		if !spec[k] {
			extra = append(extra, e)
		}
	}
	sort.Slice(extra, func(i, j int) bool {
		return extra[i].Path < extra[j].Path || extra[i].Path == extra[j].Path && extra[i].Method < extra[j].Method
	})
	for _, e := range extra {
		fmt.Fprintf(w, "%-8s %s\n", "extends", e)
	}
	groups := map[string]int{}
	for _, e := range missing {
		g := strings.TrimPrefix(strings.TrimPrefix(e.Path, "/api/v1/companies/{companyId}/"), "/api/v1/")
		g, _, _ = strings.Cut(g, "/")
		groups[g]++
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Slice(names, func(i, j int) bool {
		return groups[names[i]] > groups[names[j]] || groups[names[i]] == groups[names[j]] && names[i] < names[j]
	})
	fmt.Fprintf(w, "\n%d of %d endpoints the spec names are in the document; %d more are Kontera's extensions.\n",
		len(named)-len(missing), len(named), len(extra))
	if len(names) > 0 {
		fmt.Fprint(w, "Missing, by group:")
		for _, g := range names {
			fmt.Fprintf(w, " %s %d;", g, groups[g])
		}
		fmt.Fprintln(w)
	}
}
