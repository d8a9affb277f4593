package httpapi

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/kontera/kontera/openapi"
)

// streamed is a request body its operation reads as a stream rather than
// into memory (a document upload): the global body limit and the raw-body
// capture do not apply to it.
type streamed interface {
	// Fields is the body as the document's schema checks it.
	Fields() map[string]any
	// Fingerprint stands for the body in the idempotency key's hash.
	Fingerprint() []byte
	// Done is told, once the request is answered, whether its unit of
	// work committed.
	Done(ctx context.Context, committed bool) error
	// Close releases what reading the body kept (a temporary file).
	Close() error
}

// streamReader reads the body of r for its operation, after the request
// passed every other check, and answers it with the context the handler
// then gets.
type streamReader func(ctx context.Context, r *http.Request) (streamed, context.Context, error)

// streams reports whether op reads its body as a stream: the body limit
// middleware skips it.
func (s *Server) streams(c echo.Context) bool {
	op := s.contract.Route(c.Request().Method, c.Path())
	return op != nil && s.streamed[op.ID] != nil
}

// stream reads a streamed body and checks its fields against the
// document, then runs the rest of the chain; the body's fingerprint
// stands in for the raw body (idempotency, outside work).
func (s *Server) stream(c echo.Context, op *openapi.Operation, next echo.HandlerFunc) error {
	req := c.Request()
	body, ctx, err := s.streamed[op.ID](req.Context(), req)
	if err != nil {
		return err
	}
	defer body.Close()
	if err := s.validator.bodies.checkForm(op, body.Fields()); err != nil {
		return err
	}
	// The handler gets what was read through ctx; the request it sees is
	// read through already, and may be asked for its reader anew.
	done := req.WithContext(ctx)
	done.Body, done.MultipartForm = http.NoBody, nil
	c.SetRequest(done)
	c.Set(rawBodyKey, body.Fingerprint())
	herr := next(c)
	committed := herr == nil && c.Response().Status < 400
	if err := body.Done(c.Request().Context(), committed); err != nil {
		s.log.Error("after a streamed write", zap.String("operation", op.ID), zap.Error(err))
	}
	return herr
}
