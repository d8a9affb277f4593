// Package inbox is the invoice inbox: documents that came in (uploaded,
// e-mailed to the company's address) waiting to become supplier invoices
// or underlag, each read for what it says (an e-invoice field by field,
// a PDF by its Swedish labels) before any transaction opens.
package inbox

import (
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// The kinds a document reads as.
const (
	KindInvoice    = "invoice"
	KindCreditNote = "credit_note"
	KindReceipt    = "receipt"
	KindUnknown    = "unknown"
)

// The formats a document was read from.
const (
	FormatPeppol     = "peppol_bis3"
	FormatSvefaktura = "svefaktura"
	FormatPDF        = "pdf_text"
)

// Reading is what a document was read to say; a field nothing read, or
// that two places of it read differently, is nil.
type Reading struct {
	Format        string        `json:"format"`
	Kind          string        `json:"kind"`
	VendorName    *string       `json:"vendor_name"`
	OrgNumber     *string       `json:"org_number"`
	VATNumber     *string       `json:"vat_number"`
	Bankgiro      *string       `json:"bankgiro"`
	Plusgiro      *string       `json:"plusgiro"`
	IBAN          *string       `json:"iban"`
	OCR           *string       `json:"ocr"`
	InvoiceNumber *string       `json:"invoice_number"`
	InvoiceDate   *Day          `json:"invoice_date"`
	DueDate       *Day          `json:"due_date"`
	Currency      *string       `json:"currency"`
	Total         *money.Amount `json:"total"`
	VAT           *money.Amount `json:"vat_amount"`
	Net           *money.Amount `json:"net_amount"`
	Lines         []Line        `json:"lines"`
}

// Line is one line of an e-invoice: what it is, its amount excluding VAT
// and the VAT rate as a fraction.
type Line struct {
	Description string        `json:"description"`
	Amount      money.Amount  `json:"amount"`
	VATRate     *money.Amount `json:"vat_rate"`
}

// Day is a date that marshals as YYYY-MM-DD.
type Day struct{ time.Time }

// MarshalJSON writes the day.
func (d Day) MarshalJSON() ([]byte, error) { return []byte(`"` + d.Format(time.DateOnly) + `"`), nil }

// UnmarshalJSON reads a day.
func (d *Day) UnmarshalJSON(b []byte) error {
	t, err := time.Parse(`"`+time.DateOnly+`"`, string(b))
	d.Time = t
	return err
}

// candidates collects what places of a document say of one field: one
// value when they agree, none when they rival.
type candidates struct {
	seen  []string
	rival bool
}

func (c *candidates) add(v string) {
	if v == "" || c.rival {
		return
	}
	for _, s := range c.seen {
		if s == v {
			return
		}
	}
	c.seen = append(c.seen, v)
	c.rival = len(c.seen) > 1
}

// value is the one value, or nil.
func (c *candidates) value() *string {
	if c.rival || len(c.seen) != 1 {
		return nil
	}
	v := c.seen[0]
	return &v
}

// text is s trimmed and its inner runs of space made one, cut to n
// runes.
func text(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
	}
	return s
}

// textPtr is text(s, n), nil when empty.
func textPtr(s string, n int) *string {
	if t := text(s, n); t != "" {
		return &t
	}
	return nil
}

// Empty says the reading found nothing worth keeping.
func (r Reading) Empty() bool {
	return r.VendorName == nil && r.OrgNumber == nil && r.VATNumber == nil && r.Bankgiro == nil && r.OCR == nil &&
		r.InvoiceNumber == nil && r.InvoiceDate == nil && r.DueDate == nil && r.Total == nil
}
