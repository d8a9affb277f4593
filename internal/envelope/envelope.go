// Package envelope builds the meta block of the success envelope
// {data, meta} and carries the request id it reports.
package envelope

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/openapi"
)

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id of ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Meta returns the meta block of a success response.
func Meta(ctx context.Context) gen.Meta {
	return gen.Meta{RequestId: RequestID(ctx), ApiVersion: openapi.APIVersion}
}

// Page returns the meta block of one page of a list: next is the cursor
// of the next page, "" on the last page (rendered as null).
func Page(ctx context.Context, next string) gen.Meta {
	m := Meta(ctx)
	if next == "" {
		m.NextCursor = nullable.NewNullNullable[string]()
	} else {
		m.NextCursor = nullable.NewNullableWithValue(next)
	}
	return m
}

type acceptKey struct{}

// WithAccept returns ctx carrying the request's Accept header, for the few
// operations that answer HTML or JSON as asked.
func WithAccept(ctx context.Context, accept string) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

// WantsJSON reports whether the request asked for JSON (Accept names
// application/json); browsers, which ask for text/html, get HTML.
func WantsJSON(ctx context.Context) bool {
	accept, _ := ctx.Value(acceptKey{}).(string)
	return strings.Contains(accept, "application/json")
}

// Nullable is p as a nullable JSON field: null when p is nil.
func Nullable[T any](p *T) nullable.Nullable[T] {
	if p == nil {
		return nullable.NewNullNullable[T]()
	}
	return nullable.NewNullableWithValue(*p)
}

// NullableEnum is the text p as a nullable field of the document's enum
// type T: null when p is nil.
func NullableEnum[T ~string](p *string) nullable.Nullable[T] {
	if p == nil {
		return nullable.NewNullNullable[T]()
	}
	return nullable.NewNullableWithValue(T(*p))
}

// NullableTime is the instant t in UTC as a nullable JSON field: null
// when t is nil.
func NullableTime(t *time.Time) nullable.Nullable[time.Time] {
	if t == nil {
		return nullable.NewNullNullable[time.Time]()
	}
	return nullable.NewNullableWithValue(t.UTC())
}

// NullableDate is the calendar date d as a nullable JSON field: null when
// d is nil.
func NullableDate(d *time.Time) nullable.Nullable[openapi_types.Date] {
	if d == nil {
		return nullable.NewNullNullable[openapi_types.Date]()
	}
	return nullable.NewNullableWithValue(openapi_types.Date{Time: *d})
}

// Optional is the value of an optional nullable request field, nil when
// it is absent or null.
func Optional[T any](n nullable.Nullable[T]) *T {
	if !n.IsSpecified() || n.IsNull() {
		return nil
	}
	v := n.MustGet()
	return &v
}

// OptionalOr is the value of an optional nullable request field, def
// when it is absent or null.
func OptionalOr[T any](n nullable.Nullable[T], def T) T {
	if v := Optional(n); v != nil {
		return *v
	}
	return def
}

// WithAudit returns m pointing at the verifikat a write posted: its
// number, its URL and when it became immutable.
func WithAudit(m gen.Meta, voucher int, url string, immutableAt *time.Time) gen.Meta {
	a := gen.MetaAudit{VoucherNumber: &voucher, VoucherUrl: &url}
	if immutableAt != nil {
		t := immutableAt.UTC()
		a.ImmutableAt = &t
	}
	m.Audit = &a
	return m
}

// Text is an optional request text trimmed of surrounding space, nil
// when it is absent or blank: a name of spaces is no name.
func Text(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

// WithWarning returns m carrying one more warning. Warnings never fail a
// request; they tell the caller something worth knowing about it.
func WithWarning(m gen.Meta, code, sv, en string) gen.Meta {
	var ws []gen.Warning
	if m.Warnings != nil {
		ws = *m.Warnings
	}
	ws = append(ws, gen.Warning{Code: code, Message: sv, MessageEn: en})
	m.Warnings = &ws
	return m
}

// WithAdvice is WithWarning with what to do about it (remediation).
func WithAdvice(m gen.Meta, code, sv, en, remediation string) gen.Meta {
	m = WithWarning(m, code, sv, en)
	ws := *m.Warnings
	w := &ws[len(ws)-1]
	w.Remediation = &struct {
		Args        *map[string]interface{} `json:"args,omitempty"`
		Description string                  `json:"description"`
		Resource    *string                 `json:"resource,omitempty"`
		Tool        *string                 `json:"tool,omitempty"`
	}{Description: remediation}
	return m
}

// Reshape turns an answer into its preview twin (the same fields, id and
// timestamps nullable) through JSON, so the two cannot drift apart.
func Reshape[T any](v any) T {
	var out T
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		panic("envelope: preview shape: " + err.Error())
	}
	return out
}
