package httpapi

import (
	"context"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/openapi"
)

// safeRequestID is what an incoming X-Request-Id must look like to be
// echoed: short, and nothing that could forge a log line.
var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID gives every request an id, echoing a safe incoming one, and
// stamps the headers every response carries.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		rid := req.Header.Get(echo.HeaderXRequestID)
		if !safeRequestID.MatchString(rid) {
			rid = "req_" + strings.ReplaceAll(uuid.NewString(), "-", "")
		}
		h := c.Response().Header()
		h.Set(echo.HeaderXRequestID, rid)
		h.Set("X-Kontera-Api-Version", openapi.APIVersion)
		h.Set("X-Content-Type-Options", "nosniff")
		ctx := envelope.WithRequestID(req.Context(), rid)
		ctx = envelope.WithAccept(ctx, req.Header.Get(echo.HeaderAccept))
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

// accessLog writes one line per request, after the response.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		ctx := c.Request().Context()
		operation := "unmatched"
		if op, _ := c.Get(opKey).(*openapi.Operation); op != nil {
			operation = op.ID
		}
		took := time.Since(start)
		s.metrics.Observe(operation, c.Response().Status, took)
		fields := []zap.Field{
			zap.String("request_id", envelope.RequestID(ctx)),
			zap.String("operation", operation),
			zap.String("method", c.Request().Method),
			zap.String("path", c.Request().URL.Path),
			zap.String("route", c.Path()),
			zap.Int("status", c.Response().Status),
			zap.Int64("bytes", c.Response().Size),
			zap.Duration("duration", took),
		}
		if k := auth.KeyFrom(ctx); k != nil {
			fields = append(fields, zap.String("key_id", k.ID.String()))
		}
		if a := auth.AccessFrom(ctx); a != nil {
			fields = append(fields, zap.String("company_id", a.CompanyID.String()))
		}
		s.log.Info("request", fields...)
		return nil
	}
}

// recover turns a panic into an INTERNAL_ERROR, logged with its stack and
// the request id; the client sees no internals.
func (s *Server) recover(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.log.Error("panic", zap.String("request_id", envelope.RequestID(c.Request().Context())),
				zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			err = apierr.New(apierr.InternalError, nil)
		}()
		return next(c)
	}
}

// Keys of what guard leaves on the Echo context for the unit of work.
const (
	opKey      = "op"
	rawBodyKey = "raw_body"
	dryRunKey  = "dry_run"
	rateKey    = "rate"  // a ratelimit.Result spent from the replica's lease
	leaseKey   = "lease" // the key's lease name, when the request takes from the bucket
)

// operationOf returns the operation the request was routed to, or nil.
func operationOf(c echo.Context) *openapi.Operation {
	op, _ := c.Get(opKey).(*openapi.Operation)
	return op
}

func setContext(c echo.Context, f func(ctx context.Context) context.Context) {
	c.SetRequest(c.Request().WithContext(f(c.Request().Context())))
}
