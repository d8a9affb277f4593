package httpapi

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kontera/kontera/internal/apierr"
)

// checkText refuses text PostgreSQL cannot store or that would be altered
// silently on the way: NUL characters anywhere (query or body) and a body
// that is not UTF-8. Without this, such input would fail deep in a query
// as a 500, or be stored with replacement characters.
func checkText(query url.Values, body []byte) error {
	var issues []apierr.Issue
	names := make([]string, 0, len(query))
	for name := range query {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range query[name] {
			if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
				issues = append(issues, apierr.Issue{Field: name, In: "query", Rule: "characters", Issue: "must be UTF-8 text without NUL characters"})
				break
			}
		}
	}
	if len(body) > 0 {
		if !utf8.Valid(body) {
			issues = append(issues, apierr.Issue{Field: "body", In: "body", Rule: "encoding", Issue: "the body must be UTF-8"})
		} else if bytes.Contains(body, []byte(`\u0000`)) {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) == nil {
				for _, path := range nulPaths(v, "") {
					issues = append(issues, apierr.Issue{Field: path, In: "body", Rule: "characters", Issue: "must not contain NUL characters"})
				}
			}
		}
	}
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

// binaryBody reports whether a body of contentType is bytes, not text:
// an image or application/octet-stream.
func binaryBody(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return strings.HasPrefix(mt, "image/") || mt == "application/octet-stream"
}

// nulPaths lists the dotted paths of the strings (values and keys) in v
// that hold a NUL character.
func nulPaths(v any, at string) []string {
	var out []string
	switch n := v.(type) {
	case string:
		if strings.ContainsRune(n, 0) {
			out = append(out, at)
		}
	case map[string]any:
		for k, child := range n {
			p := join(at, []string{k})
			if strings.ContainsRune(k, 0) {
				out = append(out, p)
				continue
			}
			out = append(out, nulPaths(child, p)...)
		}
	case []any:
		for i, child := range n {
			out = append(out, nulPaths(child, join(at, []string{strconv.Itoa(i)}))...)
		}
	}
	return out
}
