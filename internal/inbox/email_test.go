package inbox

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// Mail builds a raw e-mail with a text part and attachments, as a mail
// provider posts it.
type Mail struct {
	ID, From, Subject, Body string
	Files                   []Attachment
}

// Bytes is the message in RFC 5322, its parts base64.
func (m Mail) Bytes() []byte {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	p, _ := w.CreatePart(h)
	fmt.Fprint(p, strings.ReplaceAll(m.Body, "ö", "=C3=B6"))
	for _, f := range m.Files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", f.Type)
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-Disposition", `attachment; filename="`+f.Name+`"`)
		p, _ := w.CreatePart(h)
		enc := base64.StdEncoding.EncodeToString(f.Data)
		for len(enc) > 76 {
			fmt.Fprint(p, enc[:76]+"\r\n")
			enc = enc[76:]
		}
		fmt.Fprint(p, enc+"\r\n")
	}
	w.Close()
	var out bytes.Buffer
	fmt.Fprintf(&out, "From: %s\r\nTo: inkorg@kontera.test\r\nSubject: %s\r\nDate: Mon, 02 Mar 2026 08:15:00 +0100\r\n", m.From, m.Subject)
	if m.ID != "" {
		fmt.Fprintf(&out, "Message-ID: <%s>\r\n", m.ID)
	}
	fmt.Fprintf(&out, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", w.Boundary())
	out.Write(body.Bytes())
	return out.Bytes()
}

func TestParseMessage(t *testing.T) {
	pdfBytes := textPDF(t, swedishInvoice...)
	raw := Mail{ID: "88123@kontorsgrossisten.se", From: `"Kontorsgrossisten AB" <faktura@kontorsgrossisten.se>`,
		Subject: "=?ISO-8859-1?Q?Faktura_f=F6r_mars?=", Body: "Hej! Här kommer fakturan för mars.",
		Files: []Attachment{{Name: "faktura.pdf", Type: "application/pdf", Data: pdfBytes},
			{Name: "=?UTF-8?Q?bil=C3=A4ga.exe?=", Type: "application/octet-stream", Data: []byte("MZ\x90\x00binary")}}}.Bytes()
	m, err := ParseMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "88123@kontorsgrossisten.se" || m.Subject != "Faktura för mars" || m.From != "Kontorsgrossisten AB <faktura@kontorsgrossisten.se>" ||
		!strings.Contains(m.BodyText, "fakturan för mars") || m.Date == nil || len(m.Parts) != 2 {
		t.Fatalf("message: %+v", m)
	}
	if !bytes.Equal(m.Parts[0].Data, pdfBytes) || m.Parts[1].Name != "biläga.exe" {
		t.Fatalf("parts: %q %d bytes", m.Parts[1].Name, len(m.Parts[0].Data))
	}
	if _, err := ParseMessage([]byte("not a message")); err == nil {
		t.Fatal("garbage parsed")
	}
}

func TestSignature(t *testing.T) {
	secret, body, company := []byte("hemligt"), []byte("From: a@b\r\n\r\nhej"), "0b6f3c2a-5d4e-4f1a-9b8c-7d6e5f4a3b2c"
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	h := Sign(secret, company, body, now)
	if err := Verify(secret, h, company, body, now.Add(4*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		h, company string
		body       []byte
		at         time.Time
	}{"stale": {h, company, body, now.Add(6 * time.Minute)}, "another company": {h, "x", body, now},
		"another body": {h, company, []byte("x"), now}, "missing": {"", company, body, now},
		"another key": {Sign([]byte("annat"), company, body, now), company, body, now}} {
		if err := Verify(secret, c.h, c.company, c.body, c.at); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The readers never panic, whatever bytes they are given; make test runs
// the seeds, go test -fuzz runs them further.
func FuzzReadText(f *testing.F) {
	f.Add(strings.Join(swedishInvoice, "\n"))
	f.Add("Att betala 1.234,50\nMoms −250,00\nOCR 12345 67897\nBankgiro 5050-1055")
	f.Fuzz(func(t *testing.T, s string) {
		r := ReadText(strings.Split(s, "\n"))
		if r.Total != nil && r.Total.OverMax() {
			t.Fatal("an amount past the bound")
		}
	})
}

func FuzzReadEInvoice(f *testing.F) {
	f.Add([]byte(svefakturaSample))
	f.Add(swedishUBL(f))
	f.Add([]byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadEInvoice(b)
	})
}

func FuzzPDFText(f *testing.F) {
	f.Add(textPDF(f, swedishInvoice[:3]...))
	f.Add([]byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = PDFText(b)
	})
}

func FuzzParseMessage(f *testing.F) {
	f.Add(Mail{ID: "1@x", From: "a@b.se", Subject: "=?ISO-8859-1?Q?f=F6r?=", Body: "hej",
		Files: []Attachment{{Name: "a.xml", Type: "application/xml", Data: []byte(svefakturaSample)}}}.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseMessage(b)
	})
}
