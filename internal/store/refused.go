package store

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
)

// Refused turns a refusal of the database's own rules (the
// triggers name the catalogue code first in their message, and may give
// the details as JSON in DETAIL) into that catalogue error; anything else
// passes on.
func Refused(err error) error {
	var pe *pq.Error
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	code, msg, found := strings.Cut(pe.Message, ": ")
	if !found {
		return err
	}
	if _, ok := apierr.Lookup(apierr.Code(code)); !ok {
		return err
	}
	details := map[string]any{}
	if pe.Detail != "" {
		_ = json.Unmarshal([]byte(pe.Detail), &details)
	}
	if apierr.Code(code) == apierr.ValidationError {
		field, _ := details["field"].(string)
		return apierr.Validation(apierr.Issue{Field: field, In: "body", Rule: "books", Issue: msg})
	}
	if _, ok := details["reason"]; !ok {
		details["reason"] = msg
	}
	return apierr.New(apierr.Code(code), details)
}
