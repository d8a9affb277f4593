// Package mail sends Kontera's e-mail: an outbox table the requests write
// in their transactions, workers that claim its rows (SKIP LOCKED) after
// the commit, MIME built by github.com/wneessen/go-mail, and transports:
// SMTP, a drop folder of .eml files (stored, not sent), or none.
package mail

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is an e-mail ready to be built.
type Message struct {
	// MessageID is the Message-ID without angle brackets; a retry sends
	// the same one, so a receiver that got the first can tell.
	MessageID   string
	FromName    string
	From        string
	ReplyTo     string
	To          []string
	Cc, Bcc     []string
	Subject     string
	Body        string // plain text
	Date        time.Time
	Attachments []Attachment
}

// Attachment is a file sent with a message.
type Attachment struct {
	Name, ContentType string
	Bytes             []byte
}

// Build makes the MIME message of m. The Bcc recipients are envelope
// recipients only: no header names them.
func Build(m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.FromFormat(m.FromName, m.From); err != nil {
		return nil, fmt.Errorf("mail: From %q: %w", m.From, err)
	}
	if err := msg.To(m.To...); err != nil {
		return nil, fmt.Errorf("mail: To: %w", err)
	}
	if len(m.Cc) > 0 {
		if err := msg.Cc(m.Cc...); err != nil {
			return nil, fmt.Errorf("mail: Cc: %w", err)
		}
	}
	if len(m.Bcc) > 0 {
		if err := msg.Bcc(m.Bcc...); err != nil {
			return nil, fmt.Errorf("mail: Bcc: %w", err)
		}
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, fmt.Errorf("mail: Reply-To: %w", err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDateWithValue(m.Date)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	for _, a := range m.Attachments {
		msg.AttachReadSeeker(a.Name, bytes.NewReader(a.Bytes), gomail.WithFileContentType(gomail.ContentType(a.ContentType)))
	}
	return msg, nil
}

// MessageID makes a Message-ID of id at the domain of the From address.
func MessageID(id, from string) string {
	domain := "kontera.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 && at < len(from)-1 {
		domain = from[at+1:]
	}
	return id + "@" + domain
}
