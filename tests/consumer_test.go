package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/openapi"
)

// contractTools is scripts/contract with its node_modules: make test
// installs them (npm ci) and sets KONTERA_CONTRACT, and then a missing tool
// fails the test; a plain go test skips it.
func contractTools(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../scripts/contract")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		if os.Getenv("KONTERA_CONTRACT") != "" {
			t.Fatalf("the contract tools are not installed (make contract-tools): %v", err)
		}
		t.Skip("the contract tools are not installed; make test installs them (npm ci in scripts/contract)")
	}
	return dir
}

// run runs a command in dir with env added, failing the test with its
// output when it fails. The bound is generous: compiling a generated
// client of the whole document on a loaded 2-core machine, beside the
// other tests, has taken over three minutes.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// consumer is a client project in a temporary directory: the document as
// the server serves it, and the TypeScript scenario built against the types
// generated from it.
type consumer struct {
	dir, tools string
}

func newConsumer(t *testing.T, e *env) *consumer {
	t.Helper()
	tools := contractTools(t)
	dir := t.TempDir()
	res, err := http.Get(e.srv.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /api/v1/openapi.json: %d %v", res.StatusCode, err)
	}
	// Every flow in consumer/*.ts, compiled together once: the compile is
	// most of the time.
	flows, err := filepath.Glob("consumer/*.ts")
	if err != nil || len(flows) == 0 {
		t.Fatalf("no consumer flows: %v", err)
	}
	files := map[string][]byte{
		"openapi.json": doc,
		"package.json": []byte(`{"private": true, "type": "module"}`),
	}
	names := []string{`"schema.ts"`}
	for _, f := range flows {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(f)] = b
		names = append(names, `"`+filepath.Base(f)+`"`)
	}
	// The generated types are a .ts module, so tsc checks them with the
	// flows while it skips the libraries' own declarations (the MCP SDK's
	// take most of a check otherwise).
	files["tsconfig.json"] = []byte(`{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
			"strict": true, "noUncheckedIndexedAccess": false, "skipLibCheck": true, "esModuleInterop": true, "outDir": "out", "lib": ["ES2022", "DOM"]},
			"files": [` + strings.Join(names, ", ") + `]}`)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	c := &consumer{dir: dir, tools: tools}
	c.node(t, nil, "openapi-typescript/bin/cli.js", "openapi.json", "--output", "schema.ts")
	// One compile both checks and emits: tsc exits non-zero on any type
	// error (it emits anyway), and run fails the test on that.
	c.node(t, nil, "typescript/bin/tsc", "-p", ".")
	return c
}

// node runs a tool of node_modules in the consumer's directory.
func (c *consumer) node(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	return run(t, c.dir, env, "node", append([]string{filepath.Join(c.tools, "node_modules", script)}, args...)...)
}

// scenario runs the compiled scenario against url.
func (c *consumer) scenario(t *testing.T, url, key string) string {
	return c.flow(t, "scenario", url, key)
}

// flow runs the compiled flow name (consumer/<name>.ts) against url.
func (c *consumer) flow(t *testing.T, name, url, key string) string {
	t.Helper()
	return run(t, c.dir, []string{"KONTERA_URL=" + url, "KONTERA_KEY=" + key}, "node", "out/"+name+".js")
}

// TestTypeScriptConsumer: a TypeScript client generated with
// openapi-typescript + openapi-fetch (their defaults) from the served
// document type-checks every flow of consumer/ and runs each against one
// live server; then the first scenario through Prism (built once: the
// compile is most of the time).
func TestTypeScriptConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := newConsumer(t, e)
	out := c.scenario(t, e.srv.URL, e.key("ts@example.se", keySpec{}))
	if !strings.Contains(out, "ok an unbalanced entry is refused") {
		t.Fatalf("the scenario did not finish:\n%s", out)
	}
	for flow, done := range map[string]string{"invoice": "ok the invoice flow", "books": "ok the books flow",
		"history": "ok the history flow", "yearend": "ok the year-end flow", "reconciliation": "ok the reconciliation flow"} {
		if out := c.flow(t, flow, e.srv.URL, e.key(flow+"@example.se", keySpec{})); !strings.Contains(out, done) {
			t.Fatalf("the %s flow did not finish:\n%s", flow, out)
		}
	}
	// Payroll on a server whose clock is 20 May 2026, with that year's
	// month tables loaded as the operator loads them.
	pe := newEnv(t, clock(payrollNow))
	loadTaxTables(t, pe)
	if out := c.flow(t, "payroll", pe.srv.URL, pe.key("payroll@example.se", keySpec{})); !strings.Contains(out, "ok the payroll flow") {
		t.Fatalf("the payroll flow did not finish:\n%s", out)
	}
	// The official MCP client: a key of its own user with one company.
	agent := e.key("mcp@example.se", keySpec{})
	e.company(agent, "Agentbolaget AB")
	contract, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	out = run(t, c.dir, []string{"KONTERA_URL=" + e.srv.URL, "KONTERA_KEY=" + agent,
		"KONTERA_READ_KEY=" + e.key("mcp@example.se", keySpec{scopes: []string{"customers:read"}}),
		"KONTERA_TEST_KEY=" + e.key("mcp@example.se", keySpec{mode: auth.Test}),
		"KONTERA_OPERATIONS=" + fmt.Sprint(len(contract.Operations))}, "node", "out/mcp.js")
	if !strings.Contains(out, "ok the MCP flow") {
		t.Fatalf("the MCP flow did not finish:\n%s", out)
	}
	t.Run("PrismProxy", func(t *testing.T) { prismProxy(t, e, c) })
}

// prism starts Stoplight Prism's validating proxy for doc (in the
// consumer's directory) in front of upstream; violations are errors.
func (c *consumer) prism(t *testing.T, doc, upstream string) (string, *lockedBuffer) {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	log := &lockedBuffer{}
	cmd := exec.CommandContext(ctx, "node", filepath.Join(c.tools, "node_modules/@stoplight/prism-cli/dist/index.js"),
		"proxy", doc, upstream, "--errors", "--host", "127.0.0.1", "--port", fmt.Sprint(port))
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.dir, log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	// Ready when prism says it listens on its port: a connection alone
	// may reach another test's server that took the port meanwhile. Node
	// starting on a busy machine (make test runs its parts side by side)
	// may take a while; this bounds a hang, it does not time prism.
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(log.String(), "is listening on "+url) {
		select {
		case <-exited:
			t.Fatalf("prism stopped before it listened:\n%s", log.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism did not start:\n%s", log.String())
		}
	}
	return url, log
}

// prismProxy runs the scenario through Stoplight Prism's validating
// proxy in front of the server: any request or response that breaks the
// document fails it.
func prismProxy(t *testing.T, e *env, c *consumer) {
	url, log := c.prism(t, "openapi.json", breaker(t, e.srv.URL))
	key := e.key("prism@example.se", keySpec{})
	out := c.scenario(t, url, key)
	if !strings.Contains(out, "ok an unbalanced entry is refused") {
		t.Fatalf("the scenario did not finish:\n%s\nprism:\n%s", out, log.String())
	}
	if l := strings.ToLower(log.String()); strings.Contains(l, "violation") {
		t.Fatalf("prism reports violations:\n%s", log.String())
	}
	// The proxy does check requests: one the document refuses stops there.
	bad, _ := http.NewRequest("POST", url+"/api/v1/companies", strings.NewReader(`{"entity_type":"aktiebolag"}`))
	bad.Header.Set("Authorization", "Bearer "+key)
	bad.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(bad)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 422 || !bytes.Contains(body, []byte("prism")) {
		t.Fatalf("prism let an invalid request through: %d %s", res.StatusCode, body)
	}

	// And responses: an answer that breaks the document (here the new
	// company's id dropped on the way back, by a proxy behind prism) is a
	// violation, and prism answers 500 naming it.
	mangled, _ := http.NewRequest("POST", url+"/api/v1/companies", strings.NewReader(`{"name":"Trasig AB","entity_type":"aktiebolag","vat_registered":false,"f_skatt":true}`))
	mangled.Header.Set("Authorization", "Bearer "+key)
	mangled.Header.Set("Content-Type", "application/json")
	mangled.Header.Set(breakAnswer, "1")
	res, err = http.DefaultClient.Do(mangled)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 500 || !bytes.Contains(body, []byte("VIOLATIONS")) || !bytes.Contains(body, []byte("'id'")) {
		t.Fatalf("prism let an answer that breaks the document through: %d %s\nprism:\n%s", res.StatusCode, body, log.String())
	}
}

// breakAnswer is the request header on which breaker drops data.id from
// the server's answer.
const breakAnswer = "X-Test-Break-Answer"

// breaker stands between prism and the server: a request carrying
// breakAnswer gets the server's answer without data.id, an answer that
// breaks the document; every other passes untouched.
func breaker(t *testing.T, upstream string) string {
	target, err := neturl.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(res *http.Response) error {
		if res.Request.Header.Get(breakAnswer) == "" {
			return nil
		}
		var answer map[string]map[string]any
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return err
		}
		delete(answer["data"], "id")
		raw, _ = json.Marshal(answer)
		res.Body = io.NopCloser(bytes.NewReader(raw))
		res.ContentLength = int64(len(raw))
		res.Header.Set("Content-Length", fmt.Sprint(len(raw)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestGoConsumer: a Go client generated with oapi-codegen from the served
// document (with consumer/consumer-codegen.yaml) compiles with the flows
// of consumer/*.go.txt (the scenario and the whole invoice flow) and runs
// them against the live server.
func TestGoConsumer(t *testing.T) {
	t.Parallel()
	contractTools(t) // same gate as the other consumers: make test runs it
	e := newEnv(t)
	res, err := http.Get(e.srv.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// Inside the module, so the client builds with its dependencies
	// (oapi-codegen's runtime, uuid) from go.mod.
	dir, err := os.MkdirTemp("consumer", "goclient-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The flows are .go.txt so that the module's own build and vet skip
	// them: they compile only beside the client generated here.
	files := map[string][]byte{"openapi.json": doc}
	flows, err := filepath.Glob("consumer/*.go.txt")
	if err != nil || len(flows) == 0 {
		t.Fatalf("no Go consumer flows: %v", err)
	}
	for _, f := range flows {
		if files[strings.TrimSuffix(filepath.Base(f), ".txt")], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ".", nil, "go", "tool", "oapi-codegen", "-config", "consumer/consumer-codegen.yaml",
		"-o", filepath.Join(dir, "client.gen.go"), filepath.Join(dir, "openapi.json"))
	out := run(t, ".", []string{"KONTERA_URL=" + e.srv.URL, "KONTERA_KEY=" + e.key("go@example.se", keySpec{})},
		"go", "run", "./"+dir)
	if !strings.Contains(out, "ok an unbalanced entry is refused") || !strings.Contains(out, "ok the invoice flow") {
		t.Fatalf("the Go flows did not finish:\n%s", out)
	}
}

// TestLintersCatchViolations: the house ruleset and Redocly fail a
// document that breaks them, so their passing in make lint means
// something.
func TestLintersCatchViolations(t *testing.T) {
	t.Parallel()
	tools := contractTools(t)
	raw, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// Only the paths the violations are planted in: the linters' time grows
	// with the document, and the rest of it is linted clean by make lint.
	all := doc["paths"].(map[string]any)
	paths := map[string]any{}
	for _, p := range []string{"/api/v1/companies", "/api/v1/companies/{companyId}/settings",
		"/api/v1/companies/{companyId}/customers", "/api/v1/companies/{companyId}/suppliers",
		"/api/v1/companies/{companyId}/dimensions"} {
		paths[p] = all[p]
	}
	doc["paths"] = paths
	op := func(path, method string) map[string]any { return paths[path].(map[string]any)[method].(map[string]any) }
	delete(op("/api/v1/companies", "get"), "summary")
	delete(op("/api/v1/companies/{companyId}/settings", "get"), "operationId")
	delete(op("/api/v1/companies/{companyId}/settings", "patch"), "tags")
	op("/api/v1/companies", "post")["x-risk"] = "extreme"
	delete(op("/api/v1/companies/{companyId}/customers", "get"), "x-dry-run")
	op("/api/v1/companies/{companyId}/suppliers", "get")["responses"].(map[string]any)["404"] = map[string]any{"description": "Not here."}
	list := op("/api/v1/companies/{companyId}/dimensions", "get")
	list["parameters"] = []any{map[string]any{"name": "companyId", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
	// A reference to nothing, which Redocly must refuse.
	op("/api/v1/companies/{companyId}/customers", "post")["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"] =
		map[string]any{"$ref": "#/components/schemas/NoSuchSchema"}
	bad, _ := json.Marshal(doc)
	file := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	lint := func(args ...string) string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("%s passed a broken document:\n%s", filepath.Base(args[0]), out)
		}
		return string(out)
	}
	out := lint(filepath.Join(tools, "node_modules/.bin/spectral"), "lint", "--fail-severity=error",
		"-r", filepath.Join(tools, "spectral.yaml"), file)
	errors := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[1] == "error" {
			errors[f[2]+" "+f[len(f)-1]] = true
		}
	}
	for _, want := range []string{
		"kontera-operation-summary paths./api/v1/companies.get",
		"kontera-operation-summary paths./api/v1/companies/{companyId}/settings.get",
		"kontera-operation-summary paths./api/v1/companies/{companyId}/settings.patch",
		"kontera-operation-flags paths./api/v1/companies.post.x-risk",
		"kontera-operation-flags paths./api/v1/companies/{companyId}/customers.get",
		"kontera-error-response-envelope paths./api/v1/companies/{companyId}/suppliers.get.responses[404]",
		"kontera-company-path-parameter paths./api/v1/companies/{companyId}/dimensions.get.parameters",
	} {
		if !errors[want] {
			t.Errorf("spectral did not report %s:\n%s", want, out)
		}
	}
	out = lint(filepath.Join(tools, "node_modules/.bin/redocly"), "lint", "--config", filepath.Join(tools, "redocly.yaml"), file)
	if !strings.Contains(out, "no-unresolved-refs") || !strings.Contains(out, "operation-summary") {
		t.Errorf("redocly did not report the dangling reference:\n%s", out)
	}
}
