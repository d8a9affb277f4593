package httpapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/kontera/kontera/internal/apierr"
)

// validationOptions are the request validator's settings: every problem at
// once, the validated body kept for the handler, uuid and calendar-true
// date formats (2026-02-30 is not a date). Authentication is ours.
func validationOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		MultiError:         true,
		KeepValidatedValue: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			openapi3.WithStringFormatValidator("date", openapi3.NewCallbackValidator(func(s string) error {
				_, err := time.Parse(time.DateOnly, s)
				return err
			})),
		},
	}
}

var english = message.NewPrinter(language.English)

// issues turns the validator's error tree into details.issues: one entry
// per problem, sorted, with the field as a dotted path.
func issues(err error) []apierr.Issue {
	var out []apierr.Issue
	collect(err, &out)
	slices.SortStableFunc(out, func(a, b apierr.Issue) int {
		return strings.Compare(a.In+"\x00"+a.Field+"\x00"+a.Rule, b.In+"\x00"+b.Field+"\x00"+b.Rule)
	})
	return slices.CompactFunc(out, func(a, b apierr.Issue) bool { return a == b })
}

func collect(err error, out *[]apierr.Issue) {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		for _, e := range me {
			collect(e, out)
		}
		return
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		*out = append(*out, apierr.Issue{In: "body", Rule: "invalid", Issue: err.Error()})
		return
	}
	in, field := "body", ""
	if p := re.Parameter; p != nil {
		in, field = p.In, p.Name
	}
	var pe *openapi3filter.ParseError
	var se *openapi3.SchemaError
	switch {
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
		if field == "" {
			field = "body"
		}
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "required", Issue: "is required"})
	case errors.As(re.Err, &pe):
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "parse", Issue: parseMessage(pe)})
	case errors.As(re.Err, &se):
		schemaIssues(se, in, field, out)
	default:
		reason := re.Reason
		if re.Err != nil {
			reason = re.Err.Error()
		}
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "invalid", Issue: reason})
	}
}

func parseMessage(pe *openapi3filter.ParseError) string {
	if pe.Reason != "" {
		return pe.Reason
	}
	if c := pe.Cause; c != nil {
		return c.Error()
	}
	return "could not be parsed"
}

// schemaIssues walks a schema error down to its leaves.
func schemaIssues(se *openapi3.SchemaError, in, base string, out *[]apierr.Issue) {
	var me openapi3.MultiError
	if se.Origin != nil && errors.As(se.Origin, &me) {
		for _, e := range me {
			var child *openapi3.SchemaError
			if errors.As(e, &child) {
				schemaIssues(child, in, base, out)
			}
		}
		return
	}
	path := join(base, se.JSONPointer())
	var ve *jsonschema.ValidationError
	if !errors.As(se, &ve) {
		*out = append(*out, apierr.Issue{Field: path, In: in, Rule: se.SchemaField, Issue: se.Reason})
		return
	}
	for len(ve.Causes) == 1 {
		ve = ve.Causes[0]
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, apierr.Issue{Field: join(path, []string{m}), In: in, Rule: "required", Issue: "is required"})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, apierr.Issue{Field: join(path, []string{p}), In: in, Rule: "additionalProperties", Issue: "is not a known field"})
		}
	case *kind.Type:
		if slices.Equal(k.Want, []string{"null"}) {
			return // the null branch of a nullable anyOf says nothing useful
		}
		*out = append(*out, apierr.Issue{Field: path, In: in, Rule: "type", Issue: k.LocalizedString(english)})
	default:
		rule := se.SchemaField
		if kp := ve.ErrorKind.KeywordPath(); len(kp) > 0 {
			rule = kp[len(kp)-1]
		}
		if rule == "" {
			rule = "invalid"
		}
		*out = append(*out, apierr.Issue{Field: path, In: in, Rule: rule, Issue: ve.ErrorKind.LocalizedString(english)})
	}
}

func join(base string, parts []string) string {
	all := make([]string, 0, len(parts)+1)
	if base != "" {
		all = append(all, base)
	}
	for _, p := range parts {
		if p != "" {
			all = append(all, p)
		}
	}
	return strings.Join(all, ".")
}

// validationError wraps the validator's error as the catalogue error.
func validationError(err error) *apierr.Error {
	is := issues(err)
	if len(is) == 0 {
		is = []apierr.Issue{{In: "body", Rule: "invalid", Issue: fmt.Sprint(err)}}
	}
	return apierr.Validation(is...)
}
