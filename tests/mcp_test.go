package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/openapi"
)

// bearer adds the key to every request of the MCP client.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// mcpSession connects the official Go SDK's client to the server's /mcp
// with key.
func mcpSession(t *testing.T, e *env, key string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "kontera-test", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key, next: http.DefaultTransport}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call calls a tool and answers its result, with the structured content
// as a JSON response to read.
func call(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, *response) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	r := &response{Body: b}
	_ = json.Unmarshal(b, &r.JSON)
	return res, r
}

// The MCP server with the official Go client: every operation a tool,
// annotated from its flags; a read, a dry run, a write retried with the
// key the server made, a scope refusal and a test key's forced dry run,
// each with the REST API's answer as structured content, and audit rows
// that say MCP.
func TestMCPGoClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("agent@example.se", keySpec{})
	company := e.company(key, "Agentbolaget AB").String()
	s := mcpSession(t, e, key)

	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	if len(tools.Tools) != len(c.Operations) {
		t.Errorf("%d tools for %d operations", len(tools.Tools), len(c.Operations))
	}
	for _, o := range c.Operations {
		tl := byName[o.ID]
		if tl == nil {
			t.Errorf("no tool %s", o.ID)
			continue
		}
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint == o.Mutating() {
			t.Errorf("%s: annotations %+v", o.ID, tl.Annotations)
		}
		props := tl.InputSchema.(map[string]any)["properties"].(map[string]any)
		if _, ok := props["dry_run"]; ok != o.DryRun {
			t.Errorf("%s: dry_run argument %v, x-dry-run %v", o.ID, ok, o.DryRun)
		}
		if _, ok := props["idempotency_key"]; ok != (o.Mutating() && o.Key != openapi.KeyIgnored) {
			t.Errorf("%s: idempotency_key argument %v", o.ID, ok)
		}
		// A high-risk write an agent cannot preview is one it can retry.
		if _, ok := props["idempotency_key"]; o.Risk == openapi.RiskHigh && o.Mutating() && !o.DryRun && !ok {
			t.Errorf("%s: high risk without a dry run, and no idempotency key", o.ID)
		}
	}
	if a := byName["commitJournalEntry"].Annotations; a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("commitJournalEntry is high-risk: %+v", a)
	}
	if !strings.Contains(byName["createInvoice"].Description, "Use") && len(byName["createInvoice"].Description) < 200 {
		t.Errorf("createInvoice's description: %q", byName["createInvoice"].Description)
	}

	// A read.
	res, r := call(t, s, "listAccounts", map[string]any{"companyId": company, "class": "3"})
	if res.IsError || len(r.list("data.accounts")) == 0 || res.Meta["kontera/status"] != 200.0 {
		t.Fatalf("listAccounts: %v %s", res.Meta, r.Body)
	}

	// A dry run stores nothing.
	anna := map[string]any{"name": "Anna Svensson", "customer_type": "individual"}
	res, r = call(t, s, "createCustomer", map[string]any{"companyId": company, "dry_run": true, "body": anna})
	if res.IsError || r.at("data.dry_run") != true || r.str("data.preview.name") != "Anna Svensson" ||
		e.count(`SELECT count(*) FROM customers`) != 0 {
		t.Fatalf("dry run: %s", r.Body)
	}

	// A write: the key the server made, sent again, answers the same.
	res, r = call(t, s, "createCustomer", map[string]any{"companyId": company, "body": anna})
	made, _ := res.Meta["kontera/idempotency_key"].(string)
	if res.IsError || res.Meta["kontera/status"] != 201.0 || made == "" || r.str("data.id") == "" {
		t.Fatalf("write: %v %s", res.Meta, r.Body)
	}
	again, r2 := call(t, s, "createCustomer", map[string]any{"companyId": company, "body": anna, "idempotency_key": made})
	if again.IsError || r2.str("data.id") != r.str("data.id") || e.count(`SELECT count(*) FROM customers`) != 1 {
		t.Fatalf("retry with %s: %s, first %s", made, r2.Body, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM audit_entries WHERE actor_label LIKE '% via MCP'`); n == 0 {
		t.Error("no audit row says MCP")
	}

	// An error carries the catalogue's code, hint and page.
	res, r = call(t, s, "getCustomer", map[string]any{"companyId": company, "customerId": "00000000-0000-4000-8000-000000000000"})
	if !res.IsError || r.str("error.code") != "CUSTOMER_NOT_FOUND" || r.str("error.recovery_hint") == "" ||
		!strings.Contains(r.str("error.docs_url"), "CUSTOMER_NOT_FOUND") {
		t.Fatalf("not found: %s", r.Body)
	}

	// A key without the scope is refused as the API refuses it.
	reader := mcpSession(t, e, e.key("agent@example.se", keySpec{scopes: []string{"customers:read"}}))
	res, r = call(t, reader, "createCustomer", map[string]any{"companyId": company, "body": anna})
	if !res.IsError || r.str("error.code") != "INSUFFICIENT_SCOPE" {
		t.Fatalf("scope: %s", r.Body)
	}

	// A test key's write is a dry run, whatever it asks.
	test := mcpSession(t, e, e.key("agent@example.se", keySpec{mode: auth.Test}))
	res, r = call(t, test, "createCustomer", map[string]any{"companyId": company, "body": map[string]any{"name": "Test AB",
		"customer_type": "swedish_business"}})
	if res.IsError || r.at("data.dry_run") != true || e.count(`SELECT count(*) FROM customers`) != 1 {
		t.Fatalf("test key: %s", r.Body)
	}

	// Arguments that make no request never reach the API.
	if res, _ := call(t, s, "getCustomer", map[string]any{"companyId": company}); !res.IsError {
		t.Fatal("a missing path parameter was called")
	}

	// Resources: llms.txt read through the server.
	text, err := s.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "kontera:llms.txt"})
	if err != nil || len(text.Contents) != 1 || !strings.Contains(text.Contents[0].Text, "Kontera") {
		t.Fatalf("llms.txt: %v %v", text, err)
	}

	// The task guides: resources and prompts.
	prompts, err := s.ListPrompts(context.Background(), nil)
	if err != nil || len(prompts.Prompts) < 6 {
		t.Fatalf("prompts: %v %v", prompts, err)
	}
	p, err := s.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "guide-invoice-and-get-paid"})
	if err != nil || len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.(*sdk.TextContent).Text, "`createInvoice`") {
		t.Fatalf("the invoicing guide as a prompt: %v %v", p, err)
	}

	// No key, no MCP.
	resp, err := http.Post(e.srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without a key: %d", resp.StatusCode)
	}
}

// A tool call is one request of the key's rate limit, as the REST call
// it stands for: the /mcp request's key probe spends the token and the
// call inside it none. At four a minute, the session's initialize and
// initialized notification and two calls fit; counted twice, the second
// call would be refused.
func TestMCPToolCallCountsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, rateLimit(4))
	key := e.key("agent@example.se", keySpec{})
	s := mcpSession(t, e, key)
	for i := range 2 {
		res, r := call(t, s, "listCompanies", map[string]any{})
		if res.IsError {
			t.Fatalf("call %d refused: %s", i+1, r.Body)
		}
	}
}
