package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Transport hands built messages on.
type Transport interface {
	// Send delivers m; Dropped is true when it was only stored.
	Send(ctx context.Context, m Message) (dropped bool, err error)
	// Name is the transport as KONTERA_MAIL_TRANSPORT names it.
	Name() string
}

// SMTP sends through a mail server, with STARTTLS required unless TLS
// says otherwise.
type SMTP struct {
	Host               string
	Port               int
	Username, Password string
	// TLS is "starttls" (the default: required), "tls" (implicit, port
	// 465) or "none" (a relay on the same host only).
	TLS     string
	Timeout time.Duration
	// RootCAs, when set, are the authorities the server's certificate is
	// checked against instead of the system's.
	RootCAs *x509.CertPool
}

// Name is "smtp".
func (SMTP) Name() string { return "smtp" }

// Send delivers m through the server.
func (s SMTP) Send(ctx context.Context, m Message) (bool, error) {
	msg, err := Build(m)
	if err != nil {
		return false, Permanent(err)
	}
	opts := []gomail.Option{gomail.WithPort(s.Port), gomail.WithTimeout(s.timeout()),
		gomail.WithTLSConfig(&tls.Config{ServerName: s.Host, RootCAs: s.RootCAs, MinVersion: tls.VersionTLS12})}
	switch s.TLS {
	case "tls":
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(s.Username),
			gomail.WithPassword(s.Password))
	}
	c, err := gomail.NewClient(s.Host, opts...)
	if err != nil {
		return false, Permanent(err)
	}
	return false, c.DialAndSendWithContext(ctx, msg)
}

func (s SMTP) timeout() time.Duration {
	if s.Timeout <= 0 {
		return 30 * time.Second
	}
	return s.Timeout
}

// Drop writes each message as an .eml file to Dir: stored, not sent. It
// is the default where no mail server is configured, so nothing is lost
// and nothing pretends to be delivered.
type Drop struct{ Dir string }

// Name is "drop".
func (Drop) Name() string { return "drop" }

// Send writes m to Dir as <Message-ID>.eml.
func (d Drop) Send(_ context.Context, m Message) (bool, error) {
	msg, err := Build(m)
	if err != nil {
		return true, Permanent(err)
	}
	if err := os.MkdirAll(d.Dir, 0o750); err != nil {
		return true, err
	}
	tmp, err := os.CreateTemp(d.Dir, ".mail-*")
	if err != nil {
		return true, err
	}
	defer os.Remove(tmp.Name())
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		return true, err
	}
	if err := tmp.Close(); err != nil {
		return true, err
	}
	return true, os.Rename(tmp.Name(), filepath.Join(d.Dir, m.MessageID+".eml"))
}

// permanent marks an error that trying again will not cure.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent marks err as one that trying again will not cure.
func Permanent(err error) error { return permanent{err} }

// Temporary reports whether a send that failed with err may succeed when
// tried again: an SMTP 4xx reply, a timeout, a connection refused or cut.
// A 5xx reply, or a message that cannot be built, is final.
func Temporary(err error) bool {
	if err == nil || errors.As(err, new(permanent)) {
		return false
	}
	return replyCode(err) < 500
}

// replyCode is the SMTP reply code err carries, 0 when none.
func replyCode(err error) int {
	var se *gomail.SendError
	if errors.As(err, &se) && se.ErrorCode() != 0 {
		return se.ErrorCode()
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// Describe is err as the outbox keeps it: the server's reply when there
// is one.
func Describe(err error) string {
	if code := replyCode(err); code != 0 && !strings.Contains(err.Error(), fmt.Sprint(code)) {
		return fmt.Sprintf("%d %s", code, err.Error())
	}
	return err.Error()
}
