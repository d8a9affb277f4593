package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/standby"
	"github.com/kontera/kontera/internal/store"
)

// tokenHeader carries a position in the primary's write-ahead log: on a
// write's answer, its commit's; on a read, the position to read at least
// as far as (see internal/standby).
const tokenHeader = "X-Kontera-Consistency-Token"

// replicaRead sends a read the document marks x-replica-read to the read
// replica, when there is one and it holds what the read must see (see
// standby.Route). Whatever goes wrong there, the primary answers: the
// read runs again on the primary when the replica's run ends in an error
// before anything was sent, a refusal included, so a replica behind
// never answers 404 for what a client was told exists.
func (s *Server) replicaRead(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := operationOf(c)
		if op == nil || !op.ReplicaRead {
			return next(c)
		}
		req := c.Request()
		ctx := req.Context()
		var token *standby.LSN
		if h := req.Header.Get(tokenHeader); h != "" {
			// Refused with a replica or without: a client's mistake shows
			// the same wherever it runs.
			t, err := standby.ParseLSN(h)
			if err != nil {
				return apierr.Validation(apierr.Issue{Field: tokenHeader, In: "header", Rule: "format",
					Issue: "must be a consistency token as an answer gave it, such as 16/B374D848"})
			}
			token = &t
		}
		if s.standby == nil {
			return next(c)
		}
		r := s.standby.Route(ctx, keyID(ctx), token)
		if r.Token {
			s.metrics.ReplicaWaits.Observe(r.Waited.Seconds())
		}
		if !r.Replica {
			s.metrics.Reads.WithLabelValues("primary", r.Reason).Inc()
			return next(c)
		}
		res := c.Response()
		if r.At != 0 {
			res.Header().Set(tokenHeader, r.At.String())
		}
		c.SetRequest(req.WithContext(store.OnReader(ctx)))
		err := next(c)
		if err == nil || res.Committed || ctx.Err() != nil {
			s.metrics.Reads.WithLabelValues("replica", r.Reason).Inc()
			return err
		}
		why := standby.Refused
		var ae *apierr.Error
		if !errors.Is(err, store.ErrBehind) && (!errors.As(err, &ae) || ae.Status >= http.StatusInternalServerError) {
			why = standby.Failed
			s.log.Warn("read replica failed a read: the primary answers it", zap.String("operation", op.ID), zap.Error(err))
			s.standby.Recheck()
		}
		s.metrics.Reads.WithLabelValues("primary", why).Inc()
		res.Header().Del(tokenHeader)
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

// committed sets a write's answer's consistency token: the primary's
// position once the write committed. It costs one statement, and only
// where there is a replica; a failure leaves the answer without it.
func (s *Server) committed(ctx context.Context, h http.Header) {
	if s.standby == nil {
		return
	}
	lsn, err := s.standby.Committed(ctx, keyID(ctx))
	if err != nil {
		if ctx.Err() == nil { // else the client is gone, and the answer with it
			s.log.Warn("reading the position of a commit", zap.Error(err))
		}
		return
	}
	h.Set(tokenHeader, lsn.String())
}

// keyID is the id of the request's key, or uuid.Nil.
func keyID(ctx context.Context) uuid.UUID {
	if k := auth.KeyFrom(ctx); k != nil {
		return k.ID
	}
	return uuid.Nil
}
