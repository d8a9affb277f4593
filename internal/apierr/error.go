// Package apierr is the one error catalogue of the API: every code the
// server can answer with, its HTTP status, its Swedish and English message
// and its recovery hint. Handlers return *Error values; the HTTP layer
// renders them as the error envelope.
package apierr

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Error is a catalogue error with code-specific details. It is what domain
// code returns when a request cannot be carried out.
type Error struct {
	Entry
	// Details is code-specific; the envelope always renders it as an object.
	Details map[string]any
	// Headers are extra response headers (Retry-After, Allow, ...).
	Headers map[string]string
	cause   error
}

// New returns the catalogue error of code with details (which may be nil).
// An unknown code is a programming error and panics, so a typo cannot reach
// a client.
func New(code Code, details map[string]any) *Error {
	e, ok := byCode[code]
	if !ok {
		panic(fmt.Sprintf("apierr: code %q is not in the catalogue", code))
	}
	return &Error{Entry: e, Details: details}
}

// Wrap returns the catalogue error of code that keeps cause for logs. The
// cause is never shown to the client.
func Wrap(code Code, cause error) *Error {
	e := New(code, nil)
	e.cause = cause
	return e
}

// WithHeader returns e with a response header added.
func (e *Error) WithHeader(name, value string) *Error {
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers[name] = value
	return e
}

// WithField answers err naming the request field it came from
// (details.field), when it is a catalogue error that names none yet: a
// resource looked up by an id the request gave, not found. Any other
// error is answered as it is.
func WithField(err error, field string) error {
	e, ok := As(err)
	if !ok || e.Details["field"] != nil {
		return err
	}
	details := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		details[k] = v
	}
	details["field"] = field
	out := *e
	out.Details = details
	return &out
}

func (e *Error) Error() string {
	if e.cause != nil {
		return string(e.Code) + ": " + e.cause.Error()
	}
	return string(e.Code) + ": " + e.MessageEn
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// Issue is one field-level problem of a VALIDATION_ERROR, in the shape the
// peer service uses: which field, where it was (body, query, path, header),
// which rule it broke and what is wrong.
type Issue struct {
	Field string `json:"field"`
	In    string `json:"in"`
	Rule  string `json:"rule"`
	Issue string `json:"issue"`
}

// Validation returns a VALIDATION_ERROR listing issues under
// details.issues, sorted by where, field and rule, duplicates dropped;
// when they are all of one field, details.field names it too (as the
// peer service answers a malformed period_id).
func Validation(issues ...Issue) *Error {
	sorted := slices.Clone(issues)
	slices.SortStableFunc(sorted, func(a, b Issue) int {
		return cmp.Or(strings.Compare(a.In, b.In), strings.Compare(a.Field, b.Field), strings.Compare(a.Rule, b.Rule))
	})
	sorted = slices.Compact(sorted)
	details := map[string]any{"issues": sorted}
	if len(sorted) > 0 && sorted[0].Field != "" && sorted[0].Field == sorted[len(sorted)-1].Field {
		details["field"] = sorted[0].Field
	}
	return New(ValidationError, details)
}

// Field returns a VALIDATION_ERROR for one field of the request body.
func Field(field, rule, issue string) *Error {
	return Validation(Issue{Field: field, In: "body", Rule: rule, Issue: issue})
}

// As reports whether err is (or wraps) an *Error and returns it.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Is reports whether err is a catalogue error with the given code.
func Is(err error, code Code) bool {
	e, ok := As(err)
	return ok && e.Code == code
}

// PartError is the refusal of part Index of a request that names several
// (the invoices one payment settles, the items of a batch): the caller
// answers it in the code and field of that part.
type PartError struct {
	Index int
	Err   error
}

func (e *PartError) Error() string { return fmt.Sprintf("part %d: %v", e.Index, e.Err) }

// Unwrap answers the refusal itself.
func (e *PartError) Unwrap() error { return e.Err }

// Part answers err as the refusal of part i.
func Part(i int, err error) *PartError { return &PartError{Index: i, Err: err} }
