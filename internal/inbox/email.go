package inbox

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/encoding/htmlindex"
)

// MaxMessage is the largest e-mail the inbound route takes: 25 MiB.
const MaxMessage = 25 << 20

// maxParts bounds the MIME parts of a message read, and maxDepth how
// deep multiparts nest.
const (
	maxParts = 50
	maxDepth = 8
	maxBody  = 100_000
)

// Message is an e-mail as the inbox keeps it: who sent it, when, what it
// said, and its attachments.
type Message struct {
	ID       string
	From     string
	Subject  string
	Date     *time.Time
	BodyText string
	Parts    []Attachment
}

// Attachment is a file an e-mail carried.
type Attachment struct {
	Name string
	Type string // as the message declared it
	Data []byte
}

// ErrMessage says the bytes are no readable RFC 5322 message.
var ErrMessage = errors.New("inbox: not a readable e-mail message")

// words decodes RFC 2047 words in any charset x/text knows.
var words = mime.WordDecoder{CharsetReader: charsetReader}

func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, fmt.Errorf("inbox: charset %q: %w", charset, err)
	}
	return enc.NewDecoder().Reader(input), nil
}

// decodeHeader is a header's text with its encoded words decoded (as
// sent, when they cannot be).
func decodeHeader(s string) string {
	if d, err := words.DecodeHeader(s); err == nil {
		return d
	}
	return s
}

// ParseMessage reads a raw RFC 5322 message: its headers (encoded words
// in any charset), its plain text, and every attachment, walking nested
// multiparts and undoing base64 and quoted-printable.
func ParseMessage(raw []byte) (Message, error) {
	if len(raw) > MaxMessage {
		return Message{}, ErrMessage
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrMessage, err)
	}
	out := Message{ID: strings.Trim(strings.TrimSpace(m.Header.Get("Message-Id")), "<>"),
		Subject: text(decodeHeader(m.Header.Get("Subject")), 500)}
	if from, err := m.Header.AddressList("From"); err == nil && len(from) > 0 {
		out.From = from[0].Address
		if from[0].Name != "" {
			out.From = from[0].Name + " <" + from[0].Address + ">"
		}
	} else {
		out.From = text(decodeHeader(m.Header.Get("From")), 300)
	}
	if d, err := m.Header.Date(); err == nil {
		out.Date = &d
	}
	w := walker{msg: &out}
	if err := w.part(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), "", m.Body, 0); err != nil {
		return out, err
	}
	out.BodyText = text(out.BodyText, maxBody)
	return out, nil
}

type walker struct {
	msg   *Message
	parts int
}

// part reads one MIME entity: a multipart's parts in turn, text/plain
// (not an attachment) into the body, anything else with a name or of a
// file's type as an attachment.
func (w *walker) part(contentType, encoding, disposition string, body io.Reader, depth int) error {
	if w.parts++; w.parts > maxParts || depth > maxDepth {
		return nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, params = "text/plain", map[string]string{}
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return nil // a broken tail: what was read stands
			}
			if err := w.part(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(decoded(encoding, body), MaxMessage))
	if err != nil {
		return nil
	}
	disp, dparams, _ := mime.ParseMediaType(disposition)
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	name = path.Base(strings.ReplaceAll(decodeHeader(name), "\\", "/"))
	if name == "." || name == "/" {
		name = ""
	}
	if mt == "text/plain" && disp != "attachment" && name == "" {
		if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
			if r, err := charsetReader(cs, bytes.NewReader(data)); err == nil {
				if d, err := io.ReadAll(r); err == nil {
					data = d
				}
			}
		}
		if w.msg.BodyText != "" {
			w.msg.BodyText += "\n"
		}
		w.msg.BodyText += strings.ToValidUTF8(string(data), "\uFFFD")
		return nil
	}
	if mt == "text/html" && name == "" {
		return nil // the HTML twin of the text
	}
	if name == "" {
		name = "bilaga"
	}
	w.msg.Parts = append(w.msg.Parts, Attachment{Name: text(name, 255), Type: mt, Data: data})
	return nil
}

// decoded undoes a part's transfer encoding.
func decoded(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &spaceless{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// spaceless drops the line breaks and blanks base64 bodies are wrapped
// with.
type spaceless struct{ r io.Reader }

func (s *spaceless) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	j := 0
	for _, c := range p[:n] {
		if c != '\r' && c != '\n' && c != ' ' && c != '\t' {
			p[j] = c
			j++
		}
	}
	if j == 0 && n > 0 && err == nil {
		return s.Read(p)
	}
	return j, err
}

// SignatureTolerance is how old a signed inbound message may be.
const SignatureTolerance = 5 * time.Minute

// ErrSignature says an inbound message's signature is missing, wrong or
// stale.
var ErrSignature = errors.New("inbox: bad or stale signature")

// Sign is the X-Kontera-Signature header of body sent for company at t:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.company.body">.
func Sign(secret []byte, company string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, company, body))
}

func mac(secret []byte, ts, company string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(ts + "." + company + "."))
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks header against body sent for company, as of now: a
// signature of this secret, at most SignatureTolerance old (or ahead).
func Verify(secret []byte, header, company string, body []byte, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, f := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		switch {
		case !ok:
		case k == "t":
			ts = v
		case k == "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > SignatureTolerance || d < -SignatureTolerance {
		return ErrSignature
	}
	want := mac(secret, ts, company, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrSignature
}
