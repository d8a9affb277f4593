package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Timeout is how long one attempt may take, answer included.
const Timeout = 10 * time.Second

// MaxStored is how much of an answer's body is kept.
const MaxStored = 4 << 10

// UserAgent names the sender.
const UserAgent = "kontera-webhook/1"

// ClientOptions shape the delivery client.
type ClientOptions struct {
	Guard Guard
	// CAFile is a PEM bundle trusted besides the system's
	// (KONTERA_WEBHOOK_CA_FILE): for tests' self-signed receivers.
	CAFile string
	// Resolve, when set, answers the addresses of a host instead of DNS:
	// for tests of rebinding.
	Resolve func(ctx context.Context, host string) ([]string, error)
	// Timeout overrides Timeout (tests).
	Timeout time.Duration
}

// NewClient is the HTTP client deliveries go out on: no proxy, TLS
// verified, redirects never followed, the address dialled checked by the
// guard, one attempt bounded by Timeout, the answer's headers capped.
func NewClient(o ClientOptions) (*http.Client, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("webhooks: CA file: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("webhooks: CA file %s holds no certificate", o.CAFile)
		}
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: o.Guard.Control}
	dial := dialer.DialContext
	if o.Resolve != nil {
		dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			addrs, err := o.Resolve(ctx, host)
			if err != nil || len(addrs) == 0 {
				return nil, fmt.Errorf("webhooks: %s does not resolve", host)
			}
			return dialer.DialContext(ctx, network, net.JoinHostPort(addrs[0], port))
		}
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = Timeout
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{Proxy: nil, DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: roots,
			MinVersion: tls.VersionTLS12}, MaxResponseHeaderBytes: 16 << 10, TLSHandshakeTimeout: 5 * time.Second,
			ResponseHeaderTimeout: timeout, MaxIdleConnsPerHost: 16, MaxIdleConns: 256, IdleConnTimeout: 90 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

// Envelope is the body of a delivery (spec 002 "Delivery envelope").
type Envelope struct {
	ID                 string          `json:"id"`
	Type               string          `json:"type"`
	APIVersion         string          `json:"api_version"`
	Created            int64           `json:"created"`
	Data               EnvelopeData    `json:"data"`
	PreviousAttributes json.RawMessage `json:"previous_attributes"`
}

// EnvelopeData holds the event's payload.
type EnvelopeData struct {
	Object json.RawMessage `json:"object"`
}

// Render is the envelope of delivery id of an event of type typ created
// at created with payload, as API version version writes it: one renderer
// today, the seam for the next version's.
func Render(version, id, typ string, created time.Time, payload json.RawMessage) ([]byte, error) {
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	return json.Marshal(Envelope{ID: id, Type: typ, APIVersion: version, Created: created.Unix(),
		Data: EnvelopeData{Object: payload}, PreviousAttributes: json.RawMessage("null")})
}

// Request is one attempt to make.
type Request struct {
	URL, Secret, ID, Type, APIVersion string
	Body                              []byte
}

// Attempt is what an attempt came to.
type Attempt struct {
	Status int // 0 when no answer came
	Body   *string
	// Error is what the tenant is told when no answer came: one of
	// ConnectionFailed, TLSFailed and TimedOut, never the dial's own
	// words (a refused port and a reset one would tell an attacker which
	// ports are open).
	Error   string
	Blocked bool
	// Cause is the error itself, for the operator's log only.
	Cause error
}

// What a tenant reads of an attempt that got no answer.
const (
	ConnectionFailed = "connection failed"
	TLSFailed        = "TLS handshake failed"
	TimedOut         = "timeout"
)

// failure is what a tenant is told of err, an attempt's error.
func failure(err error) string {
	var ne net.Error
	var alert tls.AlertError
	var record tls.RecordHeaderError
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.Is(err, ErrBlocked):
		return ConnectionFailed
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return TimedOut
	case errors.As(err, &alert), errors.As(err, &record), errors.As(err, &verify), errors.As(err, &unknown),
		errors.As(err, &host), errors.As(err, &invalid), strings.Contains(err.Error(), "tls: "),
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return TLSFailed
	}
	return ConnectionFailed
}

// Send makes one attempt at t: the body signed on exactly its bytes with
// X-Kontera-Signature and the Standard Webhooks headers, and the answer's
// status and (text or JSON only) first MaxStored bytes kept.
func Send(ctx context.Context, c *http.Client, r Request, t time.Time) Attempt {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Attempt{Error: ConnectionFailed, Cause: err}
	}
	standard, err := StandardSignature(r.Secret, r.ID, t, r.Body)
	if err != nil {
		return Attempt{Error: "the webhook's secret cannot be used", Cause: err}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("X-Kontera-Signature", Signature(r.Secret, t, r.Body))
	h.Set("X-Kontera-Event", r.Type)
	h.Set("X-Kontera-Delivery", r.ID)
	h.Set("X-Kontera-Api-Version", r.APIVersion)
	h.Set("X-Request-Id", "whdel_"+r.ID)
	h.Set("webhook-id", r.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(t.Unix(), 10))
	h.Set("webhook-signature", standard)
	res, err := c.Do(req)
	if err != nil {
		return Attempt{Error: failure(err), Blocked: errors.Is(err, ErrBlocked), Cause: err}
	}
	defer res.Body.Close()
	out := Attempt{Status: res.StatusCode}
	kept, err := io.ReadAll(io.LimitReader(res.Body, MaxStored))
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); err == nil && (mt == "text/plain" || mt == "application/json") {
		s := string(bytes.ToValidUTF8(kept, []byte("\uFFFD")))
		out.Body = &s
	}
	return out
}

// text is s cut to n bytes at a rune boundary.
func text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
