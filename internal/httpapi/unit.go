package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/idempotency"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/openapi"
)

// beforeWork runs an operation's outside work (see Server.outside)
// before unitOfWork opens its transaction; a dry run does none, but for
// the reads a preview needs (Server.outsideDry).
func (s *Server) beforeWork(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := operationOf(c)
		if op == nil || s.outside[op.ID] == nil {
			return next(c)
		}
		if dry, _ := c.Get(dryRunKey).(bool); dry && !s.outsideDry[op.ID] {
			return next(c)
		}
		raw, _ := c.Get(rawBodyKey).([]byte)
		setContext(c, func(ctx context.Context) context.Context { return s.outside[op.ID](ctx, op.ID, raw, c.Param) })
		return next(c)
	}
}

// unitOfWork runs every write in one transaction: the handler's changes,
// their audit rows and events, and the idempotency record commit together
// or not at all. The response is held back until the commit succeeded, so
// a client never sees a success that did not stick. A dry run takes the
// same path and rolls back at the end.
//
// With an Idempotency-Key, a transaction-scoped advisory lock on the key
// makes a concurrent duplicate a 409 CONFLICT; a finished duplicate replays
// the stored response. Outcomes below 500 are stored: a success with its
// transaction, in the one statement of append-only rows before COMMIT; a
// 4xx after the whole transaction rolled back, so the books stay as they
// were without a savepoint on every write. A 5xx is not stored, so the
// retry can succeed. Dry runs are never stored. A write that closes the
// unit (store.Closing) runs in that last statement too; the response is
// written with the values it returned.
func (s *Server) unitOfWork(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := operationOf(c)
		if op == nil || !op.Mutating() {
			return next(c)
		}
		req := c.Request()
		ctx := req.Context()
		dry, _ := c.Get(dryRunKey).(bool)
		key := auth.KeyFrom(ctx)

		var idemKey *uuid.UUID
		if op.Key != openapi.KeyIgnored && key != nil {
			if h := req.Header.Get("Idempotency-Key"); h != "" {
				k, err := uuid.Parse(h)
				if err != nil {
					return apierr.Validation(apierr.Issue{Field: "Idempotency-Key", In: "header", Rule: "format", Issue: "must be a UUID"})
				}
				idemKey = &k
			}
		}

		tx, err := s.db.BeginTxx(ctx, nil)
		if err != nil {
			return err
		}
		done := false
		defer func() {
			if !done {
				_ = tx.Rollback()
			}
		}()

		var hash []byte
		if idemKey != nil {
			locked, rec, err := idempotency.Claim(ctx, tx, key.ID, *idemKey)
			if err != nil {
				return err
			}
			if !locked {
				return apierr.New(apierr.Conflict, map[string]any{"reason": "in_progress", "key": idemKey.String()}).
					WithHeader("Retry-After", "1")
			}
			raw, _ := c.Get(rawBodyKey).([]byte)
			hash = idempotency.Hash(req.Method, req.URL.Path, req.URL.Query(), raw, dry)
			switch idempotency.Decide(rec, hash) {
			case idempotency.Replay:
				if s.sealedReplies[op.ID] {
					if rec.Body, err = s.box.Open(rec.Body, idempotency.ReplyContext(key.ID, *idemKey)); err != nil {
						return err
					}
				}
				h := c.Response().Header()
				h.Set(echo.HeaderContentType, rec.ContentType)
				h.Set("Idempotent-Replayed", "true")
				s.metrics.Replayed.Inc()
				if rec.Status < 400 {
					// The claim's transaction goes first: reading the
					// position takes a connection of the pool, which a
					// request holding one must never wait for. Now is
					// past the original's commit.
					done = true
					_ = tx.Rollback()
					s.committed(ctx, h)
				}
				return c.Blob(rec.Status, rec.ContentType, rec.Body)
			case idempotency.Reuse:
				return apierr.New(apierr.IdempotencyKeyReuse, map[string]any{"key": idemKey.String()})
			}
		}

		res := c.Response()
		rec := &recorder{header: http.Header{}}
		orig := res.Writer
		res.Writer = rec
		unit := &store.Unit{Tx: tx, DryRun: dry}
		c.SetRequest(req.WithContext(store.WithUnit(ctx, unit)))
		func() {
			defer func() { res.Writer = orig }()
			if herr := next(c); herr != nil {
				c.Error(herr)
			}
		}()

		status := rec.status
		if status == 0 {
			status = http.StatusNoContent // the handler wrote nothing
		}
		record := idempotency.Record{Hash: hash, Status: status, ContentType: rec.header.Get(echo.HeaderContentType), Body: rec.body.Bytes()}
		if idemKey != nil && s.sealedReplies[op.ID] {
			record.Body = s.box.Seal(record.Body, idempotency.ReplyContext(key.ID, *idemKey))
		}
		switch {
		case dry && status < 400:
			// A dry run writes its waiting rows too, so it fails where
			// the write would, and then leaves nothing.
			if err = unit.Flush(ctx); err == nil {
				err = tx.Rollback()
			}
		case dry || status >= 500:
			err = tx.Rollback()
		case status >= 400:
			// A refusal leaves the books as they were: the whole
			// transaction goes, and its outcome is stored on its own.
			err = tx.Rollback()
			if err == nil {
				// What the refusal itself records (a blocked deletion's
				// audit row) is written after all.
				err = s.db.AppendAll(ctx, unit.Kept())
			}
			if err == nil && idemKey != nil {
				err = idempotency.Save(ctx, s.db, key.ID, *idemKey, record)
			}
		default:
			if idemKey != nil {
				err = idempotency.Save(store.WithUnit(ctx, unit), s.db, key.ID, *idemKey, record)
			}
			if err == nil {
				err = unit.Commit(ctx)
			}
		}
		done = true
		if err != nil {
			// Nothing stuck: discard what the handler wrote and say so.
			_ = tx.Rollback() // a failed flush left the transaction open
			res.Committed, res.Status, res.Size = false, 0, 0
			return err
		}
		for k, v := range rec.header {
			orig.Header()[k] = v
		}
		if !dry && status < 400 {
			s.committed(ctx, orig.Header())
		}
		body := unit.Fill(rec.body.Bytes())
		if dry {
			orig.Header().Set("X-Dry-Run", "true")
			if status < 300 {
				if wrapped, ok := dryRunAnswer(body); ok {
					body, status = wrapped, http.StatusOK
				}
			}
		}
		orig.WriteHeader(status)
		_, err = orig.Write(body)
		if !dry && status < 400 {
			unit.Committed(context.WithoutCancel(ctx))
		}
		return err
	}
}

// recorder holds a response back until the transaction has committed.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// dryRunAnswer is a dry run's answer as every dry run gives it: data
// {dry_run: true, preview: what the write would have answered}, so a
// client tells it from the write's own answer with one check. A handler
// that answers a dry run its own way (data with dry_run already: a
// preview of another shape, or one shape for both) is left as it is, as
// is an answer that is not an envelope.
func dryRunAnswer(body []byte) ([]byte, bool) {
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return nil, false
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(env["data"], &data) != nil || data == nil {
		return nil, false
	}
	if _, ok := data["dry_run"]; ok {
		return nil, false
	}
	env["data"] = append(append([]byte(`{"dry_run":true,"preview":`), env["data"]...), '}')
	out, err := json.Marshal(env)
	return out, err == nil
}
