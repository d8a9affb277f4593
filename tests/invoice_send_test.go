package tests

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/mail"
)

// deliver runs the server's outbox once, answering how many e-mails left.
func (b *partiesBooks) deliver() int {
	b.t.Helper()
	n, err := b.server.DeliverMail(context.Background())
	if err != nil {
		b.t.Fatalf("delivering: %v", err)
	}
	return n
}

// send e-mails invoice id with body.
func (b *partiesBooks) send(id string, body map[string]any) *response {
	b.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return b.write("POST", "invoices/"+id+"/send", body)
}

// email is the invoice's e-mail n (from 0) as GET …/emails shows it.
func (b *partiesBooks) email(id string, n int) map[string]any {
	b.t.Helper()
	list := b.get(b.path("invoices/"+id+"/emails"), b.token).status(b.t, 200).list("data.emails")
	if len(list) <= n {
		b.t.Fatalf("the invoice has %d e-mails, not %d", len(list), n+1)
	}
	return list[n].(map[string]any)
}

// due makes the company's queued e-mails due now, as if their wait had
// passed.
func (b *partiesBooks) due() {
	b.t.Helper()
	if _, err := b.db.Exec(`UPDATE outgoing_emails SET next_attempt_at = now() WHERE company_id = $1 AND status = 'queued'`,
		b.company); err != nil {
		b.t.Fatal(err)
	}
}

// parsed is a received message read with net/mail and mime/multipart.
type parsed struct {
	Header  netmail.Header
	Subject string
	Text    string
	PDF     []byte
	PDFName string
}

func parseMessage(t *testing.T, data string) parsed {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatalf("not a message: %v\n%s", err, data)
	}
	var out parsed
	out.Header = m.Header
	if out.Subject, err = new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		t.Fatalf("Content-Type %q: %v", m.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(p) // multipart decodes quoted-printable; base64 below
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if p.Header.Get("Content-Transfer-Encoding") == "base64" {
			b = decodeBase64(t, b)
		}
		switch {
		case ct == "text/plain":
			out.Text = string(b)
		case ct == "application/pdf":
			out.PDF, out.PDFName = b, p.FileName()
		}
	}
	return out
}

// An invoice e-mailed through a mail server that wants STARTTLS and AUTH
// PLAIN: To the customer, Cc the customer's, the settings' and the
// request's, Bcc as envelope recipients only, Reply-To the company, From
// the server's address named as the company, the subject RFC 2047
// encoded, the archived PDF attached. It is issued once: sending again
// is 409.
func TestInvoiceSendSMTP(t *testing.T) {
	t.Parallel()
	smtp := newSMTPServer(t)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	b := newPartiesBooks(t, clock(func() time.Time { return now }), mailVia(mail.SMTP{Host: "127.0.0.1", Port: smtp.port(),
		Username: "kontera", Password: "hemligt", RootCAs: smtp.roots, Timeout: 5 * time.Second}))
	b.write("PATCH", "settings", map[string]any{"invoice_email_cc_addresses": []string{"bokforing@handelsbolaget.se"},
		"invoice_email_reply_to": "svar@handelsbolaget.se", "invoice_show_ocr": true}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Åkesson & Söner AB", "customer_type": "swedish_business",
		"email": "ekonomi@akesson.se", "invoice_email_cc_addresses": []string{"inkop@akesson.se"},
		"invoice_email_bcc_addresses": []string{"arkiv@akesson.se"}}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")

	r := b.send(id, map[string]any{"additional_cc": []string{"projekt@akesson.se"}, "additional_bcc": []string{"revisor@example.se"}}).status(t, 200)
	if r.str("data.status") != "sent" || r.str("data.sent_to") != "ekonomi@akesson.se" || r.at("data.message_id") != nil ||
		r.str("data.email.status") != "queued" || r.str("data.journal_entry_id") == "" ||
		!slices.Equal(strs(r.list("data.cc_addresses")), []string{"inkop@akesson.se", "bokforing@handelsbolaget.se", "projekt@akesson.se"}) {
		t.Fatalf("sent: %s", r.Body)
	}
	if strings.Contains(string(r.Body), "revisor@example.se") || strings.Contains(string(r.Body), "arkiv@akesson.se") {
		t.Error("a Bcc recipient is echoed")
	}
	number := r.str("data.invoice_number")
	b.send(id, map[string]any{}).errorCode(t, 409, "INVOICE_ALREADY_SENT")

	if n := b.deliver(); n != 1 {
		t.Fatalf("%d e-mails left, want 1", n)
	}
	got := smtp.messages()
	if len(got) != 1 || !got[0].TLS || got[0].From != mailFrom {
		t.Fatalf("received %+v", got)
	}
	want := []string{"ekonomi@akesson.se", "inkop@akesson.se", "bokforing@handelsbolaget.se", "projekt@akesson.se",
		"arkiv@akesson.se", "revisor@example.se"}
	if !sameSet(got[0].To, want) {
		t.Errorf("envelope recipients %v, want %v", got[0].To, want)
	}
	if smtp.auth[0] != "kontera:hemligt" {
		t.Errorf("AUTH PLAIN as %q", smtp.auth)
	}
	m := parseMessage(t, got[0].Data)
	from, _ := netmail.ParseAddress(m.Header.Get("From"))
	if from == nil || from.Name != "Handelsbolaget AB" || from.Address != mailFrom {
		t.Errorf("From %q", m.Header.Get("From"))
	}
	if m.Header.Get("Bcc") != "" || strings.Contains(got[0].Data, "revisor@example.se") {
		t.Error("the message names a Bcc recipient")
	}
	if to := m.Header.Get("To"); !strings.Contains(to, "ekonomi@akesson.se") {
		t.Errorf("To %q", to)
	}
	if cc, _ := m.Header.AddressList("Cc"); len(cc) != 3 {
		t.Errorf("Cc %v", cc)
	}
	if rt := m.Header.Get("Reply-To"); !strings.Contains(rt, "svar@handelsbolaget.se") {
		t.Errorf("Reply-To %q", rt)
	}
	if !strings.Contains(m.Header.Get("Subject"), "=?") || m.Subject != "Faktura "+number+" från Handelsbolaget AB" {
		t.Errorf("Subject %q (%q)", m.Header.Get("Subject"), m.Subject)
	}
	if !strings.Contains(m.Text, "12 500,00 kr") || !strings.Contains(m.Text, "2026-03-31") {
		t.Errorf("the text lacks the amount or due date:\n%s", m.Text)
	}
	archived := b.pdf(id, "faktura-"+number+".pdf")
	if sha256.Sum256(m.PDF) != sha256.Sum256(archived) || m.PDFName != "faktura-"+number+".pdf" {
		t.Errorf("the attachment (%s, %d bytes) is not the archived PDF", m.PDFName, len(m.PDF))
	}
	var doc string
	if err := b.db.QueryRow(`SELECT d.sha256_hash FROM invoice_archive a JOIN documents d
		ON d.company_id = a.company_id AND d.id = a.document_id WHERE a.invoice_id = $1`, id).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(m.PDF); doc != hexOf(sum[:]) {
		t.Error("the archive's sha256 differs from the attachment's")
	}
	e := b.email(id, 0)
	if e["status"] != "sent" || e["transport"] != "smtp" || e["attempts"] != 1.0 ||
		"<"+e["message_id"].(string)+">" != m.Header.Get("Message-Id") {
		t.Errorf("e-mail %v (Message-Id %q)", e, m.Header.Get("Message-Id"))
	}
}

// A 450 and a 421 wait and are tried again with the same Message-ID; a
// 550 fails the e-mail, keeping the reply, until it is retried by hand,
// and announces invoice.email_failed with the e-mail as it ended.
func TestInvoiceSendRetries(t *testing.T) {
	t.Parallel()
	smtp := newSMTPServer(t)
	h := newHookBooks(t, 0, clock(func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }),
		mailVia(mail.SMTP{Host: "127.0.0.1", Port: smtp.port(), RootCAs: smtp.roots, Timeout: 5 * time.Second}))
	b := &partiesBooks{env: h.env, token: h.token, company: h.company}
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business",
		"email": "ekonomi@kund.se"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	email := b.send(id, nil).status(t, 200).str("data.email.id")

	smtp.answer("450 4.2.1 mailbox busy", "421 4.3.0 shutting down")
	for i, code := range []string{"450", "421"} {
		if i > 0 {
			b.due()
		}
		if b.deliver() != 0 {
			t.Fatalf("%s: sent", code)
		}
		e := b.email(id, 0)
		if e["status"] != "queued" || !strings.Contains(e["last_error"].(string), code) || e["attempts"] != float64(i+1) ||
			e["message_id"] != nil || e["next_attempt_at"] == nil {
			t.Fatalf("after %s: %v", code, e)
		}
	}
	if b.deliver() != 0 {
		t.Fatal("tried again before its time")
	}
	b.due()
	if b.deliver() != 1 || b.email(id, 0)["status"] != "sent" || b.email(id, 0)["attempts"] != 3.0 {
		t.Fatalf("third attempt: %v", b.email(id, 0))
	}
	b.write("POST", "invoices/"+id+"/emails/"+email+"/retry", nil).errorCode(t, 409, "INVOICE_EMAIL_NOT_FAILED")

	other := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	second := b.send(other, nil).status(t, 200).str("data.email.id")
	smtp.answer("550 5.1.1 no such user")
	b.deliver()
	e := b.email(other, 0)
	if e["status"] != "failed" || !strings.Contains(e["last_error"].(string), "550") {
		t.Fatalf("after 550: %v", e)
	}
	failed := h.fedOf("invoice.email_failed", 1)
	if o := failed[0]["data"].(map[string]any)["object"].(map[string]any); o["invoice_id"] != other ||
		o["email"].(map[string]any)["id"] != second || o["email"].(map[string]any)["status"] != "failed" ||
		!strings.Contains(o["email"].(map[string]any)["last_error"].(string), "550") {
		t.Fatalf("invoice.email_failed: %v", o)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE type = 'invoice.email_failed'`); n != 1 {
		t.Fatalf("%d invoice.email_failed events: the retried 4xx were announced too", n)
	}
	b.write("POST", "invoices/"+other+"/emails/"+email+"/retry", nil).errorCode(t, 404, "INVOICE_EMAIL_NOT_FOUND")
	if r := b.write("POST", "invoices/"+other+"/emails/"+second+"/retry", nil).status(t, 200); r.str("data.status") != "queued" {
		t.Fatalf("retried: %s", r.Body)
	}
	if b.deliver() != 1 || len(smtp.messages()) != 2 {
		t.Fatal("the retried e-mail was not sent")
	}
}

// Without a mail server the e-mail is written to the drop folder as an
// .eml, status dropped, and the send says so; with e-mail off sending is
// 503 and nothing changes. A dry run, a customer without an address and
// a member's own recipients change nothing either.
func TestInvoiceSendDropOffAndRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }),
		mailVia(mail.Drop{Dir: dir}))
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business",
		"email": "ekonomi@kund.se", "language": "en"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")

	dry := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/send?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if dry.str("data.preview.email.status") != "queued" || b.count(`SELECT count(*) FROM outgoing_emails`) != 0 ||
		b.get(b.path("invoices/"+id), b.token).str("data.status") != "draft" {
		t.Fatalf("a dry run left a trace: %s", dry.Body)
	}
	r := b.send(id, nil).status(t, 200)
	if !hasWarning(r, "MAIL_NOT_CONFIGURED") {
		t.Errorf("no MAIL_NOT_CONFIGURED warning: %s", r.Body)
	}
	if b.deliver() != 1 || b.email(id, 0)["status"] != "dropped" || b.email(id, 0)["transport"] != "drop" {
		t.Fatalf("dropped: %v", b.email(id, 0))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d .eml files", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	m := parseMessage(t, string(raw))
	if !strings.HasPrefix(m.Subject, "Invoice ") || len(m.PDF) == 0 || !strings.HasPrefix(m.Text, "Hello Kund") {
		t.Errorf("the .eml: %q, %d PDF bytes, %q", m.Subject, len(m.PDF), m.Text)
	}

	mute := b.createCustomer(map[string]any{"name": "Utan Post AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	quiet := b.createInvoice(consulting(mute, nil)).status(t, 201).str("data.id")
	b.send(quiet, nil).errorCode(t, 400, "INVOICE_SEND_NO_CUSTOMER_EMAIL")
	again := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	b.member(b.company, "medarbetare@example.se", "member", false)
	member := b.key("medarbetare@example.se", keySpec{})
	b.do(req{Method: "POST", Path: b.path("invoices/" + again + "/send"), Token: member,
		Body: map[string]any{"additional_bcc": []string{"x@example.se"}}, Header: map[string]string{"Idempotency-Key": newKey()}}).
		errorCode(t, 403, "FORBIDDEN")
	b.send(again, map[string]any{"additional_cc": []string{"inte en adress"}}).errorCode(t, 400, "VALIDATION_ERROR")
	for _, inv := range []string{quiet, again} {
		if b.get(b.path("invoices/"+inv), b.token).str("data.status") != "draft" {
			t.Error("a refused send changed the invoice")
		}
	}
	if b.count(`SELECT count(*) FROM outgoing_emails`) != 1 {
		t.Error("a refused send queued an e-mail")
	}

	off := newPartiesBooks(t, mailVia(nil))
	c := off.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business", "email": "a@kund.se"}).
		status(t, 201).str("data.id")
	inv := off.createInvoice(consulting(c, nil)).status(t, 201).str("data.id")
	off.send(inv, nil).errorCode(t, 503, "INVOICE_SEND_EMAIL_NOT_CONFIGURED")
	if off.get(off.path("invoices/"+inv), off.token).str("data.status") != "draft" {
		t.Error("e-mail off, the invoice was issued all the same")
	}
}

func strs(list []any) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i], _ = v.(string)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func decodeBase64(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(b)), ""))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
