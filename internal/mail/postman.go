package mail

import (
	"context"
	"fmt"
	"time"
)

// Retries is the wait before each retry of a temporary failure; after
// the last the e-mail is failed.
var Retries = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}

// lease is how long a claimed e-mail is its worker's: past it, another
// worker takes it over (the first died mid-send).
const lease = 10 * time.Minute

// Attacher answers the files an e-mail carries (an invoice's archived
// PDF), read when it is sent.
type Attacher func(ctx context.Context, e Email) ([]Attachment, error)

// Postman sends the outbox's e-mails through a transport.
type Postman struct {
	store     *Store
	inTx      func(ctx context.Context, fn func(ctx context.Context) error) error
	transport Transport
	from      string
	attach    Attacher
	now       func() time.Time
	failed    func(ctx context.Context, e Email) error
}

// OnFailed has f told, in the transaction that records it, of each e-mail
// whose delivery has ended failed (as it now stands): what the e-mail was
// of announces it.
func (p *Postman) OnFailed(f func(ctx context.Context, e Email) error) { p.failed = f }

// NewPostman returns the outbox's worker. from is the address every
// e-mail is sent from (KONTERA_MAIL_FROM), named as the company.
func NewPostman(s *Store, inTx func(ctx context.Context, fn func(ctx context.Context) error) error, t Transport,
	from string, a Attacher, now func() time.Time) *Postman {
	return &Postman{store: s, inTx: inTx, transport: t, from: from, attach: a, now: now}
}

// Deliver sends every due e-mail, one at a time, and answers how many it
// handed on (sent or dropped). A failure is recorded on its e-mail, to
// be tried again or given up, and the others go on.
func (p *Postman) Deliver(ctx context.Context) (int, error) {
	done := 0
	for {
		var e *Email
		if err := p.inTx(ctx, func(ctx context.Context) error {
			var err error
			e, err = p.store.claim(ctx, lease)
			return err
		}); err != nil || e == nil {
			return done, err
		}
		status, cause, again := p.send(ctx, *e)
		if err := p.inTx(ctx, func(ctx context.Context) error {
			kept, err := p.store.finish(ctx, *e, status, p.transport.Name(), cause, again)
			if err != nil || !kept || status != "failed" || p.failed == nil {
				return err
			}
			ended := *e
			ended.Status, ended.LastError = status, cause
			if name := p.transport.Name(); name != "" {
				ended.Transport = &name
			}
			return p.failed(ctx, ended)
		}); err != nil {
			return done, err
		}
		if status == "sent" || status == "dropped" {
			done++
		}
	}
}

// send hands e to the transport and answers the status it ends in, the
// error to keep and when to try again.
func (p *Postman) send(ctx context.Context, e Email) (status string, cause *string, again time.Duration) {
	files, err := p.attach(ctx, e)
	if err == nil {
		m := Message{MessageID: e.MessageID, FromName: e.FromName, From: p.from, To: []string{e.To}, Cc: e.Cc,
			Bcc: e.Bcc, Subject: e.Subject, Body: e.Body, Date: p.now(), Attachments: files}
		if e.ReplyTo != nil {
			m.ReplyTo = *e.ReplyTo
		}
		var dropped bool
		if dropped, err = p.transport.Send(ctx, m); err == nil {
			if dropped {
				return "dropped", nil, 0
			}
			return "sent", nil, 0
		}
	}
	msg := Describe(err)
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	if !Temporary(err) || e.Attempts > len(Retries) {
		return "failed", &msg, 0
	}
	return "queued", &msg, Retries[e.Attempts-1]
}

// String names an e-mail for the logs.
func (e Email) String() string { return fmt.Sprintf("e-mail %s to %s (%s)", e.ID, e.To, e.Status) }
