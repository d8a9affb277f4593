package envelope

import (
	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
)

// ItemError is why one item of a partial-success batch failed, as an
// error response would say it.
func ItemError(e *apierr.Error) *gen.BulkItemError {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return &gen.BulkItemError{Code: gen.ErrorCode(e.Code), Message: e.Message, MessageEn: e.MessageEn, Details: d}
}

// AllOrNothing refuses all_or_nothing: true on a batch whose items each
// stand on their own (501 NOT_IMPLEMENTED naming the field).
func AllOrNothing(what string) error {
	return apierr.New(apierr.NotImplemented, map[string]any{"field": "all_or_nothing",
		"reason": "all_or_nothing is not implemented: each item is " + what + " on its own"})
}
