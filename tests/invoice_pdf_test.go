package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pdfText runs pdftotext -layout on b. Without poppler-utils the test
// skips, and fails under CI (make test installs it).
func pdfText(t *testing.T, b []byte) string {
	t.Helper()
	return string(poppler(t, b, "pdftotext", "-layout", "-", "-"))
}

// poppler runs a poppler-utils tool on b (read from stdin as "-").
func poppler(t *testing.T, b []byte, tool string, args ...string) []byte {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: make test installs poppler-utils", tool)
		}
		t.Skipf("%s not installed (Debian poppler-utils); make test installs it", tool)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out
}

// archive runs the server's archiving of issued invoices' PDFs, answering
// how many it archived.
func (b *partiesBooks) archive() int {
	b.t.Helper()
	n, failed, err := b.server.ArchiveInvoices(context.Background())
	if err != nil || len(failed) > 0 {
		b.t.Fatalf("archiving: %v %v", err, failed)
	}
	return n
}

// pdf fetches an invoice's PDF, checking its headers.
func (b *partiesBooks) pdf(id, filename string) []byte {
	b.t.Helper()
	r := b.get(b.path("invoices/"+id+"/pdf"), b.token).status(b.t, 200)
	if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
		b.t.Fatalf("Content-Type %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename=`+filename {
		b.t.Errorf("Content-Disposition %q, want the file name %s", cd, filename)
	}
	if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		b.t.Fatal("not a PDF")
	}
	return r.Body
}

// A draft renders with UTKAST and no number under a draft's file name;
// issued, the invoice is archived as a system document that is underlag
// of its verifikat, and GET serves those very bytes. The text carries
// what the customer needs: number, amount, OCR, address, due date, and
// the company's identity at the foot.
func TestInvoicePDF(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	b := newPartiesBooks(t, clock(func() time.Time { return now }))
	b.write("PATCH", "settings", map[string]any{"invoice_prefix": "2026-", "next_invoice_number": 42, "invoice_show_ocr": true,
		"bankgiro": "5050-1055", "invoice_primary_color": "#1A5FB4", "registered_office": "Stockholm",
		"address_line1": "Sveavägen 1", "postal_code": "111 57", "city": "Stockholm"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Åkesson & Söner AB", "customer_type": "swedish_business",
		"address_line1": "Kungsgatan 3", "postal_code": "411 01", "city": "Göteborg"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")

	draft := pdfText(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf"))
	if !strings.Contains(draft, "UTKAST") || strings.Contains(draft, "2026-42") {
		t.Errorf("a draft says UTKAST and has no number:\n%s", draft)
	}

	b.markSent(id).status(t, 200)
	issued := b.pdf(id, "faktura-2026-42.pdf") // rendered: not archived yet
	if n := b.archive(); n != 1 {
		t.Fatalf("%d archived, want 1", n)
	}
	if n := b.archive(); n != 0 {
		t.Fatalf("archived again: %d", n)
	}
	served := b.pdf(id, "faktura-2026-42.pdf")
	if !bytes.Equal(issued, served) {
		t.Error("the archived PDF differs from the one rendered before it was archived")
	}
	sum := sha256.Sum256(served)
	var doc struct {
		SHA, Source, Name string
		Linked            bool
	}
	if err := b.db.QueryRow(`SELECT d.sha256_hash, d.upload_source, d.file_name, d.journal_entry_id = i.journal_entry_id
		FROM invoice_archive a JOIN documents d ON d.company_id = a.company_id AND d.id = a.document_id
		JOIN invoices i ON i.company_id = a.company_id AND i.id = a.invoice_id
		WHERE a.company_id = $1 AND a.invoice_id = $2`, b.company, id).Scan(&doc.SHA, &doc.Source, &doc.Name, &doc.Linked); err != nil {
		t.Fatal(err)
	}
	if doc.SHA != hex.EncodeToString(sum[:]) || doc.Source != "system" || doc.Name != "faktura-2026-42.pdf" || !doc.Linked {
		t.Errorf("archived as %+v", doc)
	}
	text := pdfText(t, served)
	// OCR of 2026-42: the digits 202642, length digit 8, Luhn.
	for _, want := range []string{"Faktura", "2026-42", "12 500,00 kr", "Åkesson & Söner AB", "411 01 Göteborg", "Förfallodatum",
		"2026-03-31", "5050-1055", "Godkänd för F-skatt", "Styrelsens säte: Stockholm", "Sida 1 av 1", ocrOf("202642")} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, text)
		}
	}
	// The archive is kept as written.
	for _, q := range []string{
		`UPDATE invoice_archive SET document_id = NULL, archived_at = NULL WHERE company_id = $1`,
		`UPDATE invoice_archive SET last_error = 'x' WHERE company_id = $1`,
		`DELETE FROM invoice_archive WHERE company_id = $1`,
		`TRUNCATE invoice_archive`,
	} {
		refusedByTheBooks(t, b.db, "the server's role", q, b.company)
	}

	// Another company's invoice is not found.
	other := newPartiesBooks(t)
	other.get(other.path("invoices/"+id+"/pdf"), other.token).errorCode(t, 404, "INVOICE_NOT_FOUND")
}

// ocrOf is an OCR reference of digits: a length digit, then a Luhn digit.
func ocrOf(digits string) string {
	withLength := digits + string(rune('0'+(len(digits)+2)%10))
	return withLength + luhnDigit(withLength)
}

// heldBy answers the verifikat an invoice's archived PDF is underlag of,
// "" while none (the invoice holds it).
func (b *partiesBooks) heldBy(id string) string {
	b.t.Helper()
	var entry *string
	if err := b.db.QueryRow(`SELECT d.journal_entry_id::text FROM invoice_archive a
		JOIN documents d ON d.company_id = a.company_id AND d.id = a.document_id
		WHERE a.company_id = $1 AND a.invoice_id = $2`, b.company, id).Scan(&entry); err != nil {
		b.t.Fatal(err)
	}
	if entry == nil {
		return ""
	}
	return *entry
}

// Under kontantmetoden an issued invoice has no verifikat: its archived
// PDF waits with the invoice and becomes underlag of the payment's
// verifikat, its first. A credit note is archived as a Kreditfaktura
// citing the invoice it credits.
func TestInvoicePDFHeldUntilFirstVerifikat(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings/tax-profile", map[string]any{"accounting_method": "cash"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.issued(customer, nil)
	if b.archive() != 1 || b.heldBy(id) != "" {
		t.Fatal("archived and held by the invoice: no verifikat yet")
	}
	paid := b.markPaid(id, map[string]any{"payment_date": "2026-03-05"}).status(t, 200).str("data.journal_entry_id")
	if b.archive(); b.heldBy(id) != paid {
		t.Fatalf("the PDF is underlag of %q, want the payment's verifikat %s", b.heldBy(id), paid)
	}

	other := b.issued(customer, nil)
	number := b.get(b.path("invoices/"+other), b.token).str("data.invoice_number")
	note := b.credit(other, map[string]any{}).status(t, 200)
	b.archive()
	text := pdfText(t, b.pdf(note.str("data.id"), "faktura-"+note.str("data.invoice_number")+".pdf"))
	for _, want := range []string{"Kreditfaktura", "Krediterar faktura", number, "-12 500,00 kr"} {
		if !strings.Contains(text, want) {
			t.Errorf("the credit note lacks %q:\n%s", want, text)
		}
	}
}

// A ROT invoice prints the block Skatteverket's rules ask for: labour
// with VAT 12 500, the deduction 3 750, the buyer's personnummer in full,
// the property; Att betala is 17 500 − 3 750 = 13 750. Colours are
// #RRGGBB or refused, naming the field.
func TestInvoicePDFROTAndSettings(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	b.write("PATCH", "settings", map[string]any{"invoice_primary_color": "red"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "settings", map[string]any{"invoice_accent_color": "#12345"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "settings", map[string]any{"invoice_font_family": "Times-Roman"}).status(t, 200)
	id := b.createInvoice(renovation(b.rotCustomer(), nil)).status(t, 201).str("data.id")
	text := pdfText(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf"))
	for _, want := range []string{"Skattereduktion för ROT-arbete", "12 500,00 kr", "3 750,00 kr", "13 750,00 kr",
		"811218-9876", "UPPSALA KUNGSÄNGEN 1:2", "Arbetade timmar: 40"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ROT invoice lacks %q:\n%s", want, text)
		}
	}
}

// logoPNG is a w×h PNG of one colour.
func logoPNG(t *testing.T, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The logo is told by its bytes, at most 512 KB; it is printed at the
// top left of page 1, under the band of invoice_primary_color, which
// page 1 rendered at 50 dpi shows.
func TestInvoiceLogo(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC) }))
	put := func(body []byte, contentType string) *response {
		return b.do(req{Method: "PUT", Path: b.path("settings/invoice-logo"), Token: b.token, Body: body,
			Header: map[string]string{"Content-Type": contentType, "Idempotency-Key": newKey()}})
	}
	put([]byte("not an image at all"), "image/png").errorCode(t, 400, "VALIDATION_ERROR")
	put(bytes.Repeat([]byte{0x89}, 600*1024), "image/png").errorCode(t, 400, "VALIDATION_ERROR")
	green := color.RGBA{0x00, 0xa0, 0x00, 0xff}
	r := put(logoPNG(t, 300, 100, green), "image/jpeg").status(t, 200) // the bytes decide, not the header
	if r.str("data.mime_type") != "image/png" || r.at("data.width") != 300.0 || r.at("data.height") != 100.0 {
		t.Fatalf("logo: %s", r.Body)
	}
	b.write("PATCH", "settings", map[string]any{"invoice_primary_color": "#C01C28"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, nil)).status(t, 201).str("data.id")
	// pdftoppm writes PNG to files only: the page goes to a folder of the test's.
	root := filepath.Join(t.TempDir(), "page")
	poppler(t, b.pdf(id, "faktura-utkast-"+id[:8]+".pdf"), "pdftoppm", "-r", "50", "-png", "-f", "1", "-l", "1", "-singlefile", "-", root)
	page, err := os.ReadFile(root + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(page))
	if err != nil || format != "png" {
		t.Fatalf("page 1 is not a PNG: %v %s", err, format)
	}
	near := func(at image.Point, want color.RGBA) bool {
		r, g, bl, _ := img.At(at.X, at.Y).RGBA()
		d := func(a uint32, b uint8) int { return max(int(a>>8)-int(b), int(b)-int(a>>8)) }
		return d(r, want.R) < 24 && d(g, want.G) < 24 && d(bl, want.B) < 24
	}
	// At 50 dpi the page is 413 px wide; the band is the top 24 pt (17 px),
	// the logo 180 pt wide (125 px) from the 48 pt margin (33 px) below it.
	if !near(image.Pt(200, 6), color.RGBA{0xc0, 0x1c, 0x28, 0xff}) {
		t.Errorf("the band is %v, not the primary colour", img.At(200, 6))
	}
	if !near(image.Pt(60, 45), green) {
		t.Errorf("no logo at the top left: %v", img.At(60, 45))
	}
	if !b.write("DELETE", "settings/invoice-logo", nil).status(t, 200).at("data.deleted").(bool) ||
		b.write("DELETE", "settings/invoice-logo", nil).status(t, 200).at("data.deleted").(bool) {
		t.Error("deleted once, then there is nothing to delete")
	}
}
