package vat

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
	"golang.org/x/text/encoding/charmap"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// Sale is one invoice or credit note of the EU sales list
// (periodisk sammanställning).
type Sale struct {
	InvoiceID    uuid.UUID
	CustomerID   uuid.UUID
	CustomerName string
	// VATNumber is the buyer's VAT number with its country prefix.
	VATNumber *string
	// Kind is goods, triangulation or services.
	Kind   string
	Amount money.Amount
	// Unvalidated: the sale was invoiced under reverse charge with the
	// buyer's VAT number not validated in VIES (the seller's risk).
	Unvalidated bool
}

// The kinds of sale the list reports.
const (
	Goods         = "goods"
	Triangulation = "triangulation"
	Services      = "services"
)

// euPrefixes are the VAT number prefixes of the EU states other than
// Sweden (Greece writes EL; XI is Northern Ireland, for goods).
var euPrefixes = map[string]bool{"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true,
	"EE": true, "EL": true, "ES": true, "FI": true, "FR": true, "HR": true, "HU": true, "IE": true, "IT": true, "LT": true,
	"LU": true, "LV": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SI": true, "SK": true, "XI": true}

// ListRow is a buyer's line of the list: the values in whole kronor, each
// truncated toward zero.
type ListRow struct {
	VATNumber                        string
	CustomerIDs                      []uuid.UUID
	CustomerName                     string
	Goods, Triangulation, Services   int64
	HasGoods, HasTriang, HasServices bool
	Invoices                         int
}

// ListError is a sale the list cannot report: its buyer has no usable VAT
// number.
type ListError struct {
	CustomerID   uuid.UUID
	CustomerName string
	InvoiceIDs   []uuid.UUID
	Code, Issue  string
}

// List is the EU sales list of a period.
type List struct {
	Rows   []ListRow
	Errors []ListError
	// Warnings are sales the list reports that want a look before it is
	// filed: a buyer's VAT number not validated in VIES.
	Warnings []ListError
	// Totals are the rows summed, per kind, in whole kronor.
	Goods, Triangulation, Services int64
}

// normalVAT writes a VAT number as the list takes it: upper case, no
// spaces, dots or dashes.
func normalVAT(v string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-':
			return -1
		}
		return r
	}, strings.ToUpper(strings.TrimSpace(v)))
}

// Compile sums the sales per buyer VAT number. A sale whose buyer has no
// VAT number, a Swedish one, or one of no other EU state is an error.
func Compile(sales []Sale) List {
	type acc struct {
		row                    ListRow
		goods, triang, service money.Amount
	}
	rows := map[string]*acc{}
	errs, warns := map[uuid.UUID]*ListError{}, map[uuid.UUID]*ListError{}
	var order []string
	var errOrder, warnOrder []uuid.UUID
	for _, s := range sales {
		v := ""
		if s.VATNumber != nil {
			v = normalVAT(*s.VATNumber)
		}
		code, issue := "", ""
		switch {
		case v == "":
			code, issue = "BUYER_VAT_NUMBER_MISSING", "the buyer has no VAT number"
		case len(v) < 4 || !euPrefixes[v[:2]]:
			code, issue = "BUYER_VAT_NUMBER_NOT_EU", "the buyer's VAT number is not of another EU state"
		}
		if code != "" {
			e := errs[s.CustomerID]
			if e == nil {
				e = &ListError{CustomerID: s.CustomerID, CustomerName: s.CustomerName, Code: code, Issue: issue}
				errs[s.CustomerID] = e
				errOrder = append(errOrder, s.CustomerID)
			}
			e.InvoiceIDs = append(e.InvoiceIDs, s.InvoiceID)
			continue
		}
		if s.Unvalidated {
			w := warns[s.CustomerID]
			if w == nil {
				w = &ListError{CustomerID: s.CustomerID, CustomerName: s.CustomerName, Code: "BUYER_VAT_NUMBER_NOT_VALIDATED",
					Issue: "invoiced under reverse charge with the buyer's VAT number not validated in VIES: the seller answers for it"}
				warns[s.CustomerID] = w
				warnOrder = append(warnOrder, s.CustomerID)
			}
			w.InvoiceIDs = append(w.InvoiceIDs, s.InvoiceID)
		}
		a := rows[v]
		if a == nil {
			a = &acc{row: ListRow{VATNumber: v, CustomerName: s.CustomerName}}
			rows[v] = a
			order = append(order, v)
		}
		if len(a.row.CustomerIDs) == 0 || a.row.CustomerIDs[len(a.row.CustomerIDs)-1] != s.CustomerID {
			a.row.CustomerIDs = append(a.row.CustomerIDs, s.CustomerID)
		}
		a.row.Invoices++
		switch s.Kind {
		case Goods:
			a.goods, a.row.HasGoods = a.goods.Add(s.Amount), true
		case Triangulation:
			a.triang, a.row.HasTriang = a.triang.Add(s.Amount), true
		default:
			a.service, a.row.HasServices = a.service.Add(s.Amount), true
		}
	}
	sort.Strings(order)
	var out List
	for _, v := range order {
		a := rows[v]
		a.row.Goods, a.row.Triangulation, a.row.Services = a.goods.Kronor(), a.triang.Kronor(), a.service.Kronor()
		out.Goods, out.Triangulation, out.Services = out.Goods+a.row.Goods, out.Triangulation+a.row.Triangulation,
			out.Services+a.row.Services
		out.Rows = append(out.Rows, a.row)
	}
	for _, id := range errOrder {
		out.Errors = append(out.Errors, *errs[id])
	}
	for _, id := range warnOrder {
		out.Warnings = append(out.Warnings, *warns[id])
	}
	return out
}

// Filer is who files the list: the company's VAT number and its contact
// for tax matters.
type Filer struct {
	VATNumber, Name, Phone, Email string
}

// Missing names the filer details the file needs and lacks.
func (f Filer) Missing() []string {
	var out []string
	for _, m := range []struct{ field, v string }{{"vat_number", f.VATNumber}, {"tax_contact_name", f.Name},
		{"tax_contact_phone", f.Phone}} {
		if strings.TrimSpace(m.v) == "" {
			out = append(out, m.field)
		}
	}
	return out
}

// PeriodCode is the period as the file names it: YYMM for a month, YY-Q
// for a quarter.
func PeriodCode(p Period) string {
	if p.Type == Quarterly {
		return fmt.Sprintf("%02d-%d", p.Year%100, p.Number)
	}
	return fmt.Sprintf("%02d%02d", p.Year%100, p.Number)
}

// cut keeps at most n characters of s.
func cut(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// CSV writes the list as Skatteverket's file (SKV574008): the header
// line, the filer's line, one line per buyer; ISO-8859-1, CRLF. A kind
// the buyer bought none of is left empty. Refused while the list has
// errors (PS_REPORT_CSV_BLOCKED_BY_ERRORS) or the filer lacks details
// (PS_REPORT_MISSING_FILER_INFO).
func CSV(f Filer, p Period, l List) ([]byte, error) {
	if m := f.Missing(); len(m) > 0 {
		return nil, apierr.New(apierr.PSReportMissingFilerInfo, map[string]any{"missing": m})
	}
	if len(l.Errors) > 0 {
		errs := make([]map[string]any, len(l.Errors))
		for i, e := range l.Errors {
			errs[i] = map[string]any{"customer_id": e.CustomerID, "code": e.Code, "issue": e.Issue, "invoice_ids": e.InvoiceIDs}
		}
		return nil, apierr.New(apierr.PSReportCSVBlockedByErrors, map[string]any{"errors": errs})
	}
	value := func(has bool, v int64) string {
		if !has {
			return ""
		}
		return fmt.Sprint(v)
	}
	var b strings.Builder
	b.WriteString("SKV574008;\r\n")
	fmt.Fprintf(&b, "%s;%s;%s;%s;%s\r\n", normalVAT(f.VATNumber), PeriodCode(p), cut(f.Name, 35), cut(f.Phone, 17),
		strings.TrimSpace(f.Email))
	for _, r := range l.Rows {
		fmt.Fprintf(&b, "%s;%s;%s;%s;\r\n", r.VATNumber, value(r.HasGoods, r.Goods), value(r.HasTriang, r.Triangulation),
			value(r.HasServices, r.Services))
	}
	return Latin1(b.String()), nil
}

// Latin1 encodes s as ISO-8859-1, the encoding Skatteverket's files take:
// a character Latin-1 lacks (a name in another script) becomes a question
// mark rather than refusing the file.
func Latin1(s string) []byte {
	b, _ := charmap.ISO8859_1.NewEncoder().Bytes([]byte(strings.Map(func(r rune) rune {
		if r > 0xff {
			return '?'
		}
		return r
	}, s)))
	return b
}
