package httpapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/inbox"
)

// inboundMessage is a raw e-mail read whole: it is at most
// inbox.MaxMessage bytes, and nothing is kept of it but what the inbox
// wrote to the blob store.
type inboundMessage struct{ sum [32]byte }

func (m inboundMessage) Fields() map[string]any                 { return nil }
func (m inboundMessage) Fingerprint() []byte                    { return m.sum[:] }
func (m inboundMessage) Done(ctx context.Context, _ bool) error { return nil }
func (m inboundMessage) Close() error                           { return nil }

// inboundEmail is the streamed reader of POST /inbound/email: a route
// that does not exist without a secret (404); a message signed with it
// for the company of company_id within five minutes (else 401), at most
// 25 MiB (413); its attachments taken in (kept, typed, read) before the
// transaction.
func inboundEmail(secret []byte, companies *company.Store, receiver inbox.Receiver, now func() time.Time) streamReader {
	return func(ctx context.Context, r *http.Request) (streamed, context.Context, error) {
		if len(secret) == 0 {
			return nil, ctx, apierr.New(apierr.NotFound, map[string]any{"reason": "inbound_email_not_configured"})
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, inbox.MaxMessage+1))
		if err != nil {
			return nil, ctx, apierr.Validation(apierr.Issue{Field: "body", In: "body", Rule: "parse", Issue: "the body could not be read"})
		}
		if len(body) > inbox.MaxMessage {
			return nil, ctx, apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": inbox.MaxMessage})
		}
		company := r.URL.Query().Get("company_id")
		if err := inbox.Verify(secret, r.Header.Get("X-Kontera-Signature"), company, body, now()); err != nil {
			return nil, ctx, apierr.New(apierr.Unauthorized, map[string]any{"reason": "bad_signature",
				"header": "X-Kontera-Signature"})
		}
		id, err := uuid.Parse(company)
		if err != nil {
			return nil, ctx, apierr.Validation(apierr.Issue{Field: "company_id", In: "query", Rule: "format", Issue: "must be a UUID"})
		}
		found, own, err := companies.Numbers(ctx, id)
		if err != nil {
			return nil, ctx, err
		}
		if !found {
			return nil, ctx, apierr.New(apierr.NotFound, map[string]any{"company_id": id})
		}
		msg, err := inbox.ParseMessage(body)
		if err != nil {
			return nil, ctx, apierr.Validation(apierr.Issue{Field: "body", In: "body", Rule: "rfc5322", Issue: "not a readable e-mail message"})
		}
		a := inbox.Arrival{Source: "email", Message: &msg}
		for _, part := range msg.Parts {
			f, err := receiver.File(ctx, id, part, own)
			if errors.Is(err, inbox.ErrStore) {
				return nil, ctx, apierr.Wrap(apierr.DocStoreUnavailable, err)
			}
			if err != nil {
				return nil, ctx, err
			}
			a.Files = append(a.Files, f)
		}
		return inboundMessage{sum: sha256.Sum256(body)}, inbox.WithArrival(ctx, a), nil
	}
}

// readUpload is the outside work of an upload that will wait in the
// inbox (from email or api, underlag of nothing): what it says is read
// before the transaction.
func readUpload(companies *company.Store) func(ctx context.Context, company uuid.UUID) context.Context {
	return func(ctx context.Context, company uuid.UUID) context.Context {
		u := documents.Uploaded(ctx)
		if u == nil || u.File == nil {
			return ctx
		}
		source := u.Text["upload_source"]
		if source == "" {
			source = "api"
		}
		if source != "email" && source != "api" || u.Text["journal_entry_id"] != "" || u.Text["supersedes_id"] != "" {
			return ctx
		}
		data, err := readSpooled(u.File.Path)
		if err != nil {
			return ctx // not read: the item is kept, its extraction skipped
		}
		_, own, _ := companies.Numbers(ctx, company)
		f := inbox.File{Name: u.Name, Mime: u.MimeType}
		f.Reading, f.Skipped = inbox.Read(u.MimeType, data, own...)
		return inbox.WithArrival(ctx, inbox.Arrival{Source: source, Files: []inbox.File{f}})
	}
}

// readSpooled reads a spooled upload (at most documents.MaxBytes).
func readSpooled(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, documents.MaxBytes+1))
}
