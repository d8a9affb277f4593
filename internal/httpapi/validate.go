package httpapi

import (
	"errors"
	"fmt"
	"regexp"
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
		MultiError:              true,
		KeepValidatedValue:      true,
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: schemaOptions(),
	}
}

func schemaOptions() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
		openapi3.WithStringFormatValidator("date", openapi3.NewCallbackValidator(calendarDate)),
	}
}

// calendarDate accepts a calendar-true date (2026-02-30 is not one) that
// the database can hold: year 0000 does not exist in the calendar
// PostgreSQL counts in.
func calendarDate(s string) error {
	d, err := time.Parse(time.DateOnly, s)
	if err == nil && d.Year() < 1 {
		err = errors.New("year 0000 is not a calendar year")
	}
	return err
}

var english = message.NewPrinter(language.English)

// issues turns the validator's error tree into details.issues: one entry
// per problem, with the field as a dotted path.
func issues(err error) []apierr.Issue {
	var out []apierr.Issue
	collect(err, &out)
	return out
}

func collect(err error, out *[]apierr.Issue) {
	// A type switch, not errors.As: a RequestError unwraps to the
	// MultiError inside it, and its parameter would be lost.
	if me, ok := err.(openapi3.MultiError); ok {
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
	requestIssues(re, in, field, out)
}

func requestIssues(re *openapi3filter.RequestError, in, field string, out *[]apierr.Issue) {
	var pe *openapi3filter.ParseError
	switch {
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
		if field == "" {
			field = "body"
		}
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "required", Issue: "is required"})
	case errors.As(re.Err, &pe):
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "parse", Issue: parseMessage(pe)})
	case re.Err != nil && schemaTree(re.Err, in, field, out):
	default:
		reason := re.Reason
		if re.Err != nil {
			reason = re.Err.Error()
		}
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: "invalid", Issue: firstLine(reason)})
	}
}

// schemaTree adds the issues of a schema error or a list of them; false
// when err is neither.
func schemaTree(err error, in, field string, out *[]apierr.Issue) bool {
	if me, ok := err.(openapi3.MultiError); ok {
		found := false
		for _, e := range me {
			found = schemaTree(e, in, field, out) || found
		}
		return found
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		schemaIssues(se, in, field, out)
		return true
	}
	return false
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
		legacyIssue(se, in, path, out)
		return
	}
	for len(ve.Causes) == 1 {
		ve = ve.Causes[0]
	}
	keywordIssues(ve.ErrorKind, in, path, se.SchemaField, out)
}

// keywordIssues adds the issues of one failing keyword of the value at
// path: a required or unknown property names that property; fallback is
// the rule when the keyword cannot be told.
func keywordIssues(k jsonschema.ErrorKind, in, path, fallback string, out *[]apierr.Issue) {
	switch k := k.(type) {
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
		rule := fallback
		if kp := k.KeywordPath(); len(kp) > 0 {
			rule = kp[len(kp)-1]
		}
		if rule == "" {
			rule = "invalid"
		}
		*out = append(*out, apierr.Issue{Field: path, In: in, Rule: rule, Issue: k.LocalizedString(english)})
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

// validationIssues are the issues of the validator's error, at least one.
func validationIssues(err error) []apierr.Issue {
	is := issues(err)
	if len(is) == 0 {
		is = []apierr.Issue{{In: "body", Rule: "invalid", Issue: fmt.Sprint(err)}}
	}
	return is
}

// legacyPropertyReason matches the reasons of kin-openapi's own validator
// (used for schemas without 2020-12 keywords) that name a property.
var legacyPropertyReason = regexp.MustCompile(`^property "([^"]+)" is (missing|unsupported)`)

// legacyIssue maps an error of kin-openapi's own validator.
func legacyIssue(se *openapi3.SchemaError, in, path string, out *[]apierr.Issue) {
	rule := se.SchemaField
	if rule == "" {
		rule = "invalid"
	}
	if m := legacyPropertyReason.FindStringSubmatch(se.Reason); m != nil {
		rule, issue := "required", "is required"
		if m[2] == "unsupported" {
			rule, issue = "additionalProperties", "is not a known field"
		}
		field := path
		if p := se.JSONPointer(); len(p) == 0 || p[len(p)-1] != m[1] {
			field = join(path, []string{m[1]}) // the pointer names the object, not the property
		}
		*out = append(*out, apierr.Issue{Field: field, In: in, Rule: rule, Issue: issue})
		return
	}
	if branch := nonNullBranch(se.Schema); rule == "anyOf" && branch != nil && se.Value != nil {
		// A nullable field ([X, null]) holding a bad X: say what is wrong
		// with it as an X rather than "matches no branch".
		if err := branch.VisitJSON(se.Value, append(schemaOptions(), openapi3.MultiErrors())...); err != nil && schemaTree(err, in, path, out) {
			return
		}
	}
	if se.Schema != nil && se.Schema.Type != nil && se.Schema.Type.Is("null") {
		return // the null branch of a nullable anyOf says nothing useful
	}
	issue := firstLine(se.Reason)
	if rule == "format" && se.Schema != nil {
		issue = formatIssue(se.Schema.Format, issue)
	}
	*out = append(*out, apierr.Issue{Field: path, In: in, Rule: rule, Issue: issue})
}

// formatIssues say in words what a format asks for: kin-openapi's reason
// prints the regular expression it checks with, which tells a caller
// nothing it can act on.
var formatIssues = map[string]string{
	"uuid":      "must be a UUID (RFC 9562), such as 3f2b8c1e-9d4a-4b7e-8c21-5a6f0e9d1b2c",
	"date":      "must be a date, YYYY-MM-DD",
	"date-time": "must be a date and time in RFC 3339, such as 2026-05-12T09:30:00Z",
	"email":     "must be an e-mail address",
	"uri":       "must be an absolute URI",
}

// formatIssue is what a value not of format says; fallback for a format
// the table does not know.
func formatIssue(format, fallback string) string {
	if s, ok := formatIssues[format]; ok {
		return s
	}
	return fallback
}

// nonNullBranch returns X of a nullable anyOf [X, {type: null}], or nil.
func nonNullBranch(s *openapi3.Schema) *openapi3.Schema {
	if s == nil || len(s.AnyOf) != 2 {
		return nil
	}
	for i, b := range s.AnyOf {
		if b.Value != nil && b.Value.Type != nil && b.Value.Type.Is("null") {
			return s.AnyOf[1-i].Value
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
