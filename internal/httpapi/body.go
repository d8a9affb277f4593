package httpapi

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/openapi"
)

// bodies validates JSON request bodies against the document with one
// JSON Schema 2020-12 validator per operation, compiled at start.
// kin-openapi compiles the schema anew for every request (a third of the
// CPU of a write, measured), so bodies are checked here and kin-openapi
// checks the rest of the request.
type bodies struct {
	byOp map[*openapi.Operation]*jsonschema.Schema
	// forms are the schemas of streamed multipart bodies (see streamed).
	forms map[*openapi.Operation]*jsonschema.Schema
}

// docURL names the document as a schema resource; schemas inside it are
// compiled by JSON pointer, and their $refs to #/components resolve
// against it.
const docURL = "kontera:openapi.json"

func newBodies(c *openapi.Contract, raw []byte) (*bodies, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	comp.RegisterFormat(&jsonschema.Format{Name: "date", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		return calendarDate(s)
	}})
	if err := comp.AddResource(docURL, doc); err != nil {
		return nil, err
	}
	b := &bodies{byOp: map[*openapi.Operation]*jsonschema.Schema{}, forms: map[*openapi.Operation]*jsonschema.Schema{}}
	for _, op := range c.Operations {
		rb := op.Op.RequestBody
		if rb == nil || rb.Value == nil {
			continue
		}
		for mt, into := range map[string]map[*openapi.Operation]*jsonschema.Schema{"application/json": b.byOp, "multipart/form-data": b.forms} {
			if rb.Value.Content.Get(mt) == nil {
				continue
			}
			ptr := "#/paths/" + escape(op.Path) + "/" + strings.ToLower(op.Method) + "/requestBody/content/" + escape(mt) + "/schema"
			s, err := comp.Compile(docURL + ptr)
			if err != nil {
				return nil, fmt.Errorf("request body of %s %s: %w", op.Method, op.Path, err)
			}
			into[op] = s
		}
	}
	return b, nil
}

// escape writes a path as a JSON pointer token.
func escape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// check validates the raw JSON body of a request to op: nothing to check
// for an operation without a JSON body; an absent body where one is
// required, unparseable JSON or a schema violation is VALIDATION_ERROR
// with every issue.
func (b *bodies) check(op *openapi.Operation, raw []byte) error {
	s := b.byOp[op]
	if s == nil {
		return nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		if op.Op.RequestBody.Value.Required {
			return apierr.Validation(apierr.Issue{Field: "body", In: "body", Rule: "required", Issue: "is required"})
		}
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return apierr.Validation(apierr.Issue{Field: "body", In: "body", Rule: "parse", Issue: "is not valid JSON: " + firstLine(err.Error())})
	}
	return validate(s, v)
}

// checkForm validates the fields of a streamed multipart body of op (the
// file part standing as its name).
func (b *bodies) checkForm(op *openapi.Operation, fields map[string]any) error {
	s := b.forms[op]
	if s == nil {
		return nil
	}
	return validate(s, fields)
}

// validate checks v against s: a schema violation is VALIDATION_ERROR
// with every issue.
func validate(s *jsonschema.Schema, v any) error {
	if err := s.Validate(v); err != nil {
		var issues []apierr.Issue
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			leafIssues(ve, &issues)
		}
		if len(issues) == 0 {
			issues = append(issues, apierr.Issue{Field: "body", In: "body", Rule: "invalid", Issue: firstLine(err.Error())})
		}
		return apierr.Validation(issues...)
	}
	return nil
}

// leafIssues turns the validator's error tree into details.issues: one
// per failing keyword at the leaves, named by the dotted path of the value.
func leafIssues(ve *jsonschema.ValidationError, out *[]apierr.Issue) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			leafIssues(c, out)
		}
		return
	}
	keywordIssues(ve.ErrorKind, "body", strings.Join(ve.InstanceLocation, "."), "invalid", out)
}
