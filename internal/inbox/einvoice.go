package inbox

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/fx"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
)

// The root namespaces of the e-invoices read field by field.
const (
	nsInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsSvefaktura = "urn:sfti:documents:BasicInvoice:1:0"
)

// maxXML bounds what an e-invoice reader parses.
const maxXML = 10 << 20

// ErrNotEInvoice says the bytes are no e-invoice this package reads.
var ErrNotEInvoice = errors.New("inbox: not a Peppol BIS 3 or Svefaktura document")

// root answers the name and namespace of the document element of b.
func root(b []byte) (xml.Name, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if err != nil {
			return xml.Name{}, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name, nil
		}
	}
}

// IsEInvoice says whether b is a UBL 2.1 invoice or credit note or a
// Svefaktura 1.0 invoice.
func IsEInvoice(b []byte) bool {
	n, err := root(b)
	return err == nil && (n.Space == nsInvoice && n.Local == "Invoice" || n.Space == nsCreditNote && n.Local == "CreditNote" ||
		n.Space == nsSvefaktura && n.Local == "Invoice")
}

// amount is a UBL amount with its currency.
type amount struct {
	Value    string `xml:",chardata"`
	Currency string `xml:"currencyID,attr"`
	// Svefaktura 1.0 (UBL 1.0) names the currency differently.
	Currency10 string `xml:"amountCurrencyID,attr"`
}

// schemed is an identifier with its scheme.
type schemed struct {
	Value  string `xml:",chardata"`
	Scheme string `xml:"schemeID,attr"`
	Name   string `xml:"schemeName,attr"`
}

// ubl is the part of a Peppol BIS 3 invoice or credit note read (names
// are local: the reader does not care which cbc/cac prefix carries them).
type ubl struct {
	XMLName      xml.Name
	ID           string  `xml:"ID"`
	IssueDate    string  `xml:"IssueDate"`
	DueDate      string  `xml:"DueDate"`
	Currency     string  `xml:"DocumentCurrencyCode"`
	SupplierName string  `xml:"AccountingSupplierParty>Party>PartyName>Name"`
	LegalName    string  `xml:"AccountingSupplierParty>Party>PartyLegalEntity>RegistrationName"`
	LegalID      schemed `xml:"AccountingSupplierParty>Party>PartyLegalEntity>CompanyID"`
	TaxSchemes   []struct {
		CompanyID string `xml:"CompanyID"`
		Scheme    string `xml:"TaxScheme>ID"`
	} `xml:"AccountingSupplierParty>Party>PartyTaxScheme"`
	Payments []struct {
		Code      string `xml:"PaymentMeansCode"`
		PaymentID string `xml:"PaymentID"`
		DueDate   string `xml:"PaymentDueDate"`
		Account   string `xml:"PayeeFinancialAccount>ID"`
		Branch    string `xml:"PayeeFinancialAccount>FinancialInstitutionBranch>ID"`
	} `xml:"PaymentMeans"`
	TaxTotals []struct {
		Amount amount `xml:"TaxAmount"`
	} `xml:"TaxTotal"`
	Net     amount `xml:"LegalMonetaryTotal>TaxExclusiveAmount"`
	Gross   amount `xml:"LegalMonetaryTotal>TaxInclusiveAmount"`
	Payable amount `xml:"LegalMonetaryTotal>PayableAmount"`
	Lines   []struct {
		Amount  amount `xml:"LineExtensionAmount"`
		Name    string `xml:"Item>Name"`
		Percent string `xml:"Item>ClassifiedTaxCategory>Percent"`
	} `xml:"InvoiceLine"`
	CreditLines []struct {
		Amount  amount `xml:"LineExtensionAmount"`
		Name    string `xml:"Item>Name"`
		Percent string `xml:"Item>ClassifiedTaxCategory>Percent"`
	} `xml:"CreditNoteLine"`
}

// ReadEInvoice reads a Peppol BIS 3 (UBL 2.1) invoice or credit note, or
// a Svefaktura 1.0 invoice, field by field; a value its check fails (an
// organisation number's Luhn digit, a bankgiro's, an OCR's, a Swedish
// VAT number's) is dropped.
func ReadEInvoice(b []byte) (Reading, error) {
	if len(b) > maxXML {
		return Reading{}, ErrNotEInvoice
	}
	n, err := root(b)
	if err != nil {
		return Reading{}, ErrNotEInvoice
	}
	switch {
	case n.Space == nsInvoice && n.Local == "Invoice", n.Space == nsCreditNote && n.Local == "CreditNote":
		return readUBL(b, n.Local == "CreditNote")
	case n.Space == nsSvefaktura && n.Local == "Invoice":
		return readSvefaktura(b)
	}
	return Reading{}, ErrNotEInvoice
}

// decode parses b into v, refusing a DTD (no entity may expand).
func decode(b []byte, v any) error {
	if bytes.Contains(b, []byte("<!DOCTYPE")) || bytes.Contains(b, []byte("<!ENTITY")) {
		return ErrNotEInvoice
	}
	dec := xml.NewDecoder(io.LimitReader(bytes.NewReader(b), maxXML))
	dec.Strict = true
	if err := dec.Decode(v); err != nil {
		return ErrNotEInvoice
	}
	return nil
}

func readUBL(b []byte, credit bool) (Reading, error) {
	var u ubl
	if err := decode(b, &u); err != nil {
		return Reading{}, err
	}
	r := Reading{Format: FormatPeppol, Kind: KindInvoice, InvoiceNumber: textPtr(u.ID, 100), Currency: currency(u.Currency)}
	if credit {
		r.Kind = KindCreditNote
	}
	r.VendorName = textPtr(u.SupplierName, 200)
	if r.VendorName == nil {
		r.VendorName = textPtr(u.LegalName, 200)
	}
	r.InvoiceDate, r.DueDate = day(u.IssueDate), day(u.DueDate)
	r.OrgNumber = orgNumber(u.LegalID.Value, u.LegalID.Scheme)
	var vat candidates
	for _, t := range u.TaxSchemes {
		if strings.EqualFold(strings.TrimSpace(t.Scheme), "VAT") {
			vat.add(vatNumber(t.CompanyID))
		}
	}
	r.VATNumber = vat.value()
	var ocr, bg, pg, iban, due candidates
	for _, p := range u.Payments {
		ocr.add(checkedOCR(p.PaymentID))
		due.add(p.DueDate)
		switch strings.ToUpper(strings.TrimSpace(p.Branch)) {
		case "SE:BANKGIRO":
			bg.add(bankgiro(p.Account))
		case "SE:PLUSGIRO":
			pg.add(plusgiro(p.Account))
		default:
			if identifier.IBAN(p.Account) == nil {
				iban.add(strings.ToUpper(strings.ReplaceAll(p.Account, " ", "")))
			}
		}
	}
	r.OCR, r.Bankgiro, r.Plusgiro, r.IBAN = ocr.value(), bg.value(), pg.value(), iban.value()
	if r.DueDate == nil {
		if d := due.value(); d != nil {
			r.DueDate = day(*d)
		}
	}
	for _, t := range u.TaxTotals {
		if t.Amount.Currency == "" || r.Currency != nil && t.Amount.Currency == *r.Currency {
			r.VAT = amountOf(t.Amount.Value)
			break
		}
	}
	r.Net, r.Total = amountOf(u.Net.Value), amountOf(u.Payable.Value)
	if r.Total == nil {
		r.Total = amountOf(u.Gross.Value)
	}
	for _, l := range append(u.Lines, u.CreditLines...) {
		if a := amountOf(l.Amount.Value); a != nil {
			r.Lines = append(r.Lines, Line{Description: text(l.Name, 1000), Amount: *a, VATRate: fraction(l.Percent)})
		}
	}
	return r, nil
}

// svefaktura is the part of a Svefaktura 1.0 invoice read.
type svefaktura struct {
	XMLName   xml.Name
	ID        string `xml:"ID"`
	IssueDate string `xml:"IssueDate"`
	TypeCode  string `xml:"InvoiceTypeCode"`
	Currency  string `xml:"InvoiceCurrencyCode"`
	Seller    struct {
		IDs        []schemed `xml:"Party>PartyIdentification>ID"`
		Name       string    `xml:"Party>PartyName>Name"`
		TaxSchemes []struct {
			RegistrationName string `xml:"RegistrationName"`
			CompanyID        string `xml:"CompanyID"`
			Scheme           string `xml:"TaxScheme>ID"`
		} `xml:"Party>PartyTaxScheme"`
	} `xml:"SellerParty"`
	Payments []struct {
		DueDate      string  `xml:"DuePaymentDate"`
		Account      schemed `xml:"PayeeFinancialAccount>ID"`
		Instruction  string  `xml:"PayeeFinancialAccount>PaymentInstructionID"`
		Instruction2 string  `xml:"PaymentInstructionID"`
	} `xml:"PaymentMeans"`
	Tax   amount `xml:"TaxTotal>TotalTaxAmount"`
	Net   amount `xml:"LegalTotal>TaxExclusiveTotalAmount"`
	Gross amount `xml:"LegalTotal>TaxInclusiveTotalAmount"`
	Lines []struct {
		Amount      amount `xml:"LineExtensionAmount"`
		Description string `xml:"Item>Description"`
		Percent     string `xml:"Item>TaxCategory>Percent"`
	} `xml:"InvoiceLine"`
}

func readSvefaktura(b []byte) (Reading, error) {
	var s svefaktura
	if err := decode(b, &s); err != nil {
		return Reading{}, err
	}
	r := Reading{Format: FormatSvefaktura, Kind: KindInvoice, InvoiceNumber: textPtr(s.ID, 100), Currency: currency(s.Currency)}
	if strings.TrimSpace(s.TypeCode) == "381" {
		r.Kind = KindCreditNote
	}
	r.VendorName = textPtr(s.Seller.Name, 200)
	r.InvoiceDate = day(s.IssueDate)
	var org, vat candidates
	for _, id := range s.Seller.IDs {
		if v := orgNumber(id.Value, ""); v != nil {
			org.add(*v)
		}
	}
	for _, t := range s.Seller.TaxSchemes {
		switch strings.ToUpper(strings.TrimSpace(t.Scheme)) {
		case "VAT":
			vat.add(vatNumber(t.CompanyID))
		case "SWT":
			if v := orgNumber(t.CompanyID, ""); v != nil {
				org.add(*v)
			}
			if r.VendorName == nil {
				r.VendorName = textPtr(t.RegistrationName, 200)
			}
		}
	}
	r.OrgNumber, r.VATNumber = org.value(), vat.value()
	var ocr, bg, pg, iban, due candidates
	for _, p := range s.Payments {
		due.add(p.DueDate)
		ocr.add(checkedOCR(p.Instruction))
		ocr.add(checkedOCR(p.Instruction2))
		switch strings.ToUpper(strings.TrimSpace(p.Account.Name)) {
		case "BGNR":
			bg.add(bankgiro(p.Account.Value))
		case "PGNR":
			pg.add(plusgiro(p.Account.Value))
		case "IBAN":
			if identifier.IBAN(p.Account.Value) == nil {
				iban.add(strings.ToUpper(strings.ReplaceAll(p.Account.Value, " ", "")))
			}
		}
	}
	r.OCR, r.Bankgiro, r.Plusgiro, r.IBAN = ocr.value(), bg.value(), pg.value(), iban.value()
	if d := due.value(); d != nil {
		r.DueDate = day(*d)
	}
	r.VAT, r.Net, r.Total = amountOf(s.Tax.Value), amountOf(s.Net.Value), amountOf(s.Gross.Value)
	for _, l := range s.Lines {
		if a := amountOf(l.Amount.Value); a != nil {
			r.Lines = append(r.Lines, Line{Description: text(l.Description, 1000), Amount: *a, VATRate: fraction(l.Percent)})
		}
	}
	return r, nil
}

// day reads a YYYY-MM-DD date.
func day(s string) *Day {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
	if err != nil || t.Year() < 1900 || t.Year() > 2200 {
		return nil
	}
	return &Day{t}
}

// amountOf reads an amount of at most two decimals.
func amountOf(s string) *money.Amount {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	a, err := money.Parse(s)
	if err != nil || a.OverMax() {
		return nil
	}
	return &a
}

// fraction reads a VAT percentage (25) as the fraction the API takes
// (0.25): one of 0, 6, 12 and 25.
func fraction(pct string) *money.Amount {
	a := amountOf(pct)
	if a == nil {
		return nil
	}
	for _, p := range []int64{0, 6, 12, 25} {
		if a.Cmp(money.Öre(p*100)) == 0 {
			f := money.Öre(p)
			return &f
		}
	}
	return nil
}

// currency is a currency code the books take, or nil.
func currency(s string) *string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s != "SEK" && !fx.Known(s) {
		return nil
	}
	return &s
}

// orgNumber is a Swedish organisation number whose check digit holds
// (scheme 0007 or none), as NNNNNN-NNNN, or nil.
func orgNumber(s, scheme string) *string {
	if scheme != "" && scheme != "0007" {
		return nil
	}
	v, err := identifier.OrgNumber(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &v
}

// vatNumber is a VAT number: a Swedish one only when its check holds.
func vatNumber(s string) string {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	if strings.HasPrefix(s, "SE") {
		if _, err := identifier.VATNumber(s); err != nil {
			return ""
		}
	}
	if len(s) < 4 || len(s) > 20 {
		return ""
	}
	return s
}

// bankgiro is a bankgiro number whose check digit holds, as NNN-NNNN or
// NNNN-NNNN, or "".
func bankgiro(s string) string {
	d := strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s))
	if identifier.Bankgiro(d) != nil {
		return ""
	}
	return d[:len(d)-4] + "-" + d[len(d)-4:]
}

// plusgiro is a plusgiro number whose check digit holds, as N-N, or "".
func plusgiro(s string) string {
	d := strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s))
	if identifier.Plusgiro(d) != nil {
		return ""
	}
	return d[:len(d)-1] + "-" + d[len(d)-1:]
}

// checkedOCR is an OCR reference whose Luhn digit holds, or "".
func checkedOCR(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if !identifier.ValidOCR(s, false) {
		return ""
	}
	return s
}
