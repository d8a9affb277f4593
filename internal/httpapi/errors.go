package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/lib/pq"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/discovery"
	"github.com/kontera/kontera/internal/envelope"
)

type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Code         apierr.Code    `json:"code"`
	Message      string         `json:"message"`
	MessageEn    string         `json:"message_en"`
	Details      map[string]any `json:"details"`
	RecoveryHint string         `json:"recovery_hint,omitempty"`
	DocsURL      string         `json:"docs_url"`
	RequestID    string         `json:"request_id"`
}

// handleError is Echo's error handler: the one place errors become
// responses. Catalogue errors render as they are; Echo's own (unknown
// route, wrong method, body too large, binder failures) map to their codes;
// anything else is an INTERNAL_ERROR, logged and never shown.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := s.toAPIError(err, c)
	rid := envelope.RequestID(c.Request().Context())
	if e.Status >= 500 {
		s.log.Error("request failed", zap.String("request_id", rid), zap.String("code", string(e.Code)),
			zap.String("method", c.Request().Method), zap.String("path", c.Request().URL.Path), zap.Error(err))
	}
	for k, v := range e.Headers {
		c.Response().Header().Set(k, v)
	}
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	body := errorBody{Error: errorFields{Code: e.Code, Message: e.Message, MessageEn: e.MessageEn, Details: details,
		RecoveryHint: e.RecoveryHint, DocsURL: discovery.DocsURL(s.base, e.Code), RequestID: rid}}
	b, mErr := json.Marshal(body)
	if mErr != nil {
		s.log.Error("error envelope", zap.Error(mErr))
		b = []byte(`{"error":{"code":"INTERNAL_ERROR","message":"Ett internt fel uppstod.","message_en":"Internal server error.","details":{},"docs_url":"","request_id":"` + rid + `"}}`)
	}
	_ = c.Blob(e.Status, echo.MIMEApplicationJSON, b)
}

func (s *Server) toAPIError(err error, c echo.Context) *apierr.Error {
	if e, ok := apierr.As(err); ok {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return apierr.New(apierr.NotFound, map[string]any{"method": c.Request().Method, "path": c.Request().URL.Path})
		case http.StatusMethodNotAllowed:
			e := apierr.New(apierr.MethodNotAllowed, map[string]any{"method": c.Request().Method, "path": c.Request().URL.Path})
			if allow := c.Response().Header().Get(echo.HeaderAllow); allow != "" {
				e.Details["allowed_methods"] = allow
			}
			return e
		case http.StatusRequestEntityTooLarge:
			return apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": s.bodyLimit})
		case http.StatusUnsupportedMediaType:
			return apierr.New(apierr.UnsupportedMediaType, nil)
		}
		if he.Code >= 400 && he.Code < 500 {
			// The generated binder refused a value the validator let through.
			return apierr.Validation(apierr.Issue{Field: "", In: "body", Rule: "bind", Issue: httpMessage(he)})
		}
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014" && c.Request().Context().Err() == nil:
			// statement_timeout (KONTERA_STATEMENT_TIMEOUT) cancelled a
			// statement the request was waiting on; the transaction rolled back.
			return apierr.New(apierr.DatabaseTimeout, map[string]any{"reason": "statement_timeout"}).WithHeader("Retry-After", "1")
		case pe.Code == "53300" || pe.Code == "57P03":
			// The database refused a new connection (all its slots taken, or
			// it is starting): a moment's load, not a fault; nothing was written.
			return apierr.New(apierr.DatabaseTimeout, map[string]any{"reason": "database_busy"}).WithHeader("Retry-After", "1")
		}
	}
	return apierr.Wrap(apierr.InternalError, err)
}

func httpMessage(he *echo.HTTPError) string {
	if s, ok := he.Message.(string); ok {
		return s
	}
	return http.StatusText(he.Code)
}
