package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontera/kontera/openapi"
)

// via marks a request the MCP server makes for a tool call.
type via struct{}

// Called reports whether the request of ctx is a tool call's: its audit
// rows say so.
func Called(ctx context.Context) bool { return ctx.Value(via{}) != nil }

// peer carries the MCP request's TCP peer to its tool calls, which the
// API then hears from the agent's address (its throttles, its logs), not
// from a made-up one.
type peer struct{}

// Resource is a text the server offers as an MCP resource: read, when
// asked, from the API's own path. A task guide is a prompt too (Prompt
// its name): the guide, asked to be followed.
type Resource struct {
	URI, Name, Title, Description, MIMEType, Path string
	Prompt                                        string
}

// Handler answers MCP over streamable HTTP, stateless (no session to
// keep, so any replica answers any request; a GET is 405, as the
// transport allows). api is the server the tool calls go through: the
// caller's Authorization header goes with each. A request without a key
// the API takes is answered as the API answers it (401, 429). The tools
// are made from the document on the first request, not at start: most
// servers never meet an agent.
func Handler(c *openapi.Contract, raw []byte, api http.Handler, version string, resources []Resource) http.Handler {
	serve := sync.OnceValues(func() (http.Handler, error) { return build(c, raw, api, version, resources) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), peer{}, r.RemoteAddr))
		if r.Method == http.MethodPost {
			// The key first, as the API takes it: an unknown one never
			// reaches a tool, and each attempt counts against its address.
			probe := httptest.NewRequest(http.MethodGet, "/api/v1/api-key", nil).WithContext(r.Context())
			probe.Header.Set("Authorization", r.Header.Get("Authorization"))
			probe.Header["X-Forwarded-For"] = r.Header.Values("X-Forwarded-For")
			probe.RemoteAddr = r.RemoteAddr
			rec := httptest.NewRecorder()
			api.ServeHTTP(rec, probe)
			if rec.Code != http.StatusOK {
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
		}
		h, err := serve()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// build makes the MCP server: its tools, resources and prompts.
func build(c *openapi.Contract, raw []byte, api http.Handler, version string, resources []Resource) (http.Handler, error) {
	tools, err := Tools(c, raw)
	if err != nil {
		return nil, err
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "kontera", Title: "Kontera", Version: version}, &sdk.ServerOptions{
		Instructions: "Kontera keeps the books of Swedish companies (Bokföringslagen): a tool per API operation, named by its " +
			"operationId. Most tools take companyId: listCompanies finds it. Writes take dry_run to preview " +
			"and an idempotency_key that makes a retry safe (made and returned in _meta when left out). Read the resource " +
			"llms.txt first, and a task guide (a prompt too) for a task.",
	})
	for _, t := range tools {
		server.AddTool(t.def, t.call(api))
	}
	for _, r := range resources {
		server.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
			MIMEType: r.MIMEType}, read(api, r))
		if r.Prompt != "" {
			server.AddPrompt(&sdk.Prompt{Name: r.Prompt, Title: r.Title, Description: r.Description}, prompt(api, r))
		}
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

// call makes the tool's request through api and answers its response:
// the envelope as structured content (and as text), an error's with
// IsError; the status and the Idempotency-Key used in _meta.
func (t *tool) call(api http.Handler) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return refused("the arguments are not a JSON object: " + err.Error()), nil
			}
		}
		hreq, key, err := t.request(ctx, args)
		if err != nil {
			return refused(err.Error()), nil
		}
		if addr, ok := ctx.Value(peer{}).(string); ok {
			hreq.RemoteAddr = addr
		}
		if req.Extra != nil {
			hreq.Header.Set("Authorization", req.Extra.Header.Get("Authorization"))
			hreq.Header.Set("User-Agent", req.Extra.Header.Get("User-Agent"))
			// What trusted proxies appended tells the API the agent's
			// address, as it does for the /mcp request itself.
			for _, h := range []string{"X-Request-Id", "X-Forwarded-For"} {
				if v := req.Extra.Header.Values(h); len(v) > 0 {
					hreq.Header[h] = v
				}
			}
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, hreq)
		return answer(rec, key), nil
	}
}

// request builds the HTTP request a call's arguments stand for, and the
// Idempotency-Key it carries ("" for none).
func (t *tool) request(ctx context.Context, args map[string]any) (*http.Request, string, error) {
	path := t.op.Path
	for _, p := range t.path {
		v, ok := args[p]
		if !ok {
			return nil, "", fmt.Errorf("%s is required", p)
		}
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(fmt.Sprint(v)), 1)
	}
	q := url.Values{}
	for _, p := range t.query {
		switch v := args[p].(type) {
		case nil:
		case []any:
			for _, x := range v {
				q.Add(p, text(x))
			}
		default:
			q.Set(p, text(v))
		}
	}
	if dry, _ := args[argDryRun].(bool); dry {
		q.Set(argDryRun, "true")
	}
	var body io.Reader
	contentType := ""
	switch {
	case t.body == "application/json" && args[argBody] != nil:
		b, _ := json.Marshal(args[argBody])
		body, contentType = bytes.NewReader(b), "application/json"
	case t.body == "multipart/form-data" && args[argBody] != nil:
		b, ct, err := form(args[argBody])
		if err != nil {
			return nil, "", err
		}
		body, contentType = bytes.NewReader(b), ct
	case t.body != "" && args[argBodyBase64] != nil:
		s, _ := args[argBodyBase64].(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, "", fmt.Errorf("body_base64 is not base64: %v", err)
		}
		contentType, _ = args[argContentType].(string)
		if contentType == "" {
			contentType = t.body
		}
		body = bytes.NewReader(b)
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	hreq := httptest.NewRequest(t.op.Method, target, body).WithContext(context.WithValue(ctx, via{}, true))
	if contentType != "" {
		hreq.Header.Set("Content-Type", contentType)
	}
	key := ""
	if t.op.Mutating() && t.op.Key != openapi.KeyIgnored {
		key, _ = args[argIdempotencyKey].(string)
		if key == "" {
			key = uuid.NewString()
		}
		hreq.Header.Set("Idempotency-Key", key)
	}
	return hreq, key, nil
}

// form is a multipart body of the fields of v, a file part from each
// {filename, content_type, content_base64}.
func form(v any) ([]byte, string, error) {
	fields, _ := v.(map[string]any)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if f, ok := fields[k].(map[string]any); ok && f["content_base64"] != nil {
			s, _ := f["content_base64"].(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, "", fmt.Errorf("%s.content_base64 is not base64: %v", k, err)
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, k, text(f["filename"])))
			ct := text(f["content_type"])
			if ct == "" {
				ct = "application/octet-stream"
			}
			h.Set("Content-Type", ct)
			part, err := w.CreatePart(h)
			if err != nil {
				return nil, "", err
			}
			_, _ = part.Write(b)
			continue
		}
		if err := w.WriteField(k, text(fields[k])); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// text is a query or form value as the API reads it.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// answer is a response as a tool's result.
func answer(rec *httptest.ResponseRecorder, key string) *sdk.CallToolResult {
	meta := sdk.Meta{"kontera/status": rec.Code}
	if key != "" {
		meta["kontera/idempotency_key"] = key
	}
	if id := rec.Header().Get("X-Request-Id"); id != "" {
		meta["kontera/request_id"] = id
	}
	res := &sdk.CallToolResult{Meta: meta, IsError: rec.Code >= 400}
	ct := rec.Header().Get("Content-Type")
	body := rec.Body.Bytes()
	switch {
	case rec.Code == http.StatusNoContent || len(body) == 0:
		res.Content = []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%d %s", rec.Code, http.StatusText(rec.Code))}}
	case strings.HasPrefix(ct, "application/json"):
		var envelope map[string]any
		if json.Unmarshal(body, &envelope) == nil {
			res.StructuredContent = envelope
		}
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(body)}}
	case strings.HasPrefix(ct, "text/"):
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(body)}}
	default:
		name := ""
		if _, params, err := mime.ParseMediaType(rec.Header().Get("Content-Disposition")); err == nil {
			name = params["filename"]
		}
		res.Content = []sdk.Content{
			&sdk.TextContent{Text: fmt.Sprintf("%d: %d bytes of %s %s", rec.Code, len(body), ct, name)},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "kontera:response/" + name, MIMEType: ct, Blob: body}},
		}
	}
	return res
}

// refused is a call that never became a request: its arguments do not
// make one.
func refused(why string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "VALIDATION_ERROR: " + why}},
		StructuredContent: map[string]any{"error": map[string]any{"code": "VALIDATION_ERROR", "message_en": why,
			"recovery_hint": "Call the tool with the arguments its inputSchema names."}}}
}

// read answers a resource from the API's own path.
func read(api http.Handler, r Resource) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.Path, nil).WithContext(ctx))
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("%s answered %d", r.Path, rec.Code)
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.URI, MIMEType: r.MIMEType,
			Text: rec.Body.String()}}}, nil
	}
}

// prompt answers a task guide as the user's request to follow it.
func prompt(api http.Handler, r Resource) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text, err := read(api, r)(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &sdk.GetPromptResult{Description: r.Description, Messages: []*sdk.PromptMessage{{Role: "user",
			Content: &sdk.TextContent{Text: "Do this task with Kontera's tools, as this guide says; ask for what it needs " +
				"that you do not know, and preview a write with dry_run before you make it.\n\n" + text.Contents[0].Text}}}}, nil
	}
}
