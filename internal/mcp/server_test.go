package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontera/kontera/openapi"
)

// forwarded is a proxy in front of the MCP server: it appends the
// agent's address to X-Forwarded-For.
type forwarded struct{ next http.RoundTripper }

func (f forwarded) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	return f.next.RoundTrip(r)
}

// The key's probe and a tool call reach the API from the MCP request's
// peer, with what proxies appended, as the /mcp request itself: the
// API's throttles and logs hear the agent, not a made-up address or the
// proxy's.
func TestToolCallsComeFromTheAgent(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []string
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.URL.Path+" "+r.RemoteAddr+" "+r.Header.Get("X-Forwarded-For"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[],"meta":{}}`))
	})
	srv := httptest.NewServer(Handler(c, openapi.Document, api, "test", nil))
	defer srv.Close()
	client := sdk.NewClient(&sdk.Implementation{Name: "kontera-test", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL,
		HTTPClient: &http.Client{Transport: forwarded{next: http.DefaultTransport}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "listCompanies",
		Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The key's probe before each POST, and the call.
	if len(heard) < 2 || !strings.HasPrefix(heard[len(heard)-1], "/api/v1/companies ") {
		t.Fatalf("the API heard %q", heard)
	}
	for _, h := range heard {
		if _, from, _ := strings.Cut(h, " "); !strings.HasPrefix(from, "127.0.0.1:") || !strings.HasSuffix(from, " 203.0.113.7") {
			t.Errorf("%q: not from the agent", h)
		}
	}
}
