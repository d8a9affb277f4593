package inbox

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/kontera/kontera/internal/money"
)

// MaxPages is the most pages of a PDF read for text: an invoice longer
// than this is left to a person.
const MaxPages = 10

// maxText bounds the text the label rules read.
const maxText = 200_000

// ErrNoText says a PDF has no text to read (a scan, an image) or could
// not be read at all; the item is kept, its extraction skipped.
var ErrNoText = errors.New("inbox: the PDF has no readable text")

// PDFText answers the text of a PDF line by line, page by page: at most
// MaxPages pages, whatever the reader makes of broken files (a panic is
// ErrNoText).
func PDFText(b []byte) (lines []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			lines, err = nil, fmt.Errorf("%w: %v", ErrNoText, r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoText, err)
	}
	n := r.NumPage()
	if n < 1 || n > MaxPages {
		return nil, fmt.Errorf("%w: %d pages", ErrNoText, n)
	}
	size := 0
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		page, err := p.GetPlainText(nil)
		if err != nil {
			continue
		}
		for _, raw := range strings.Split(page, "\n") {
			line := text(raw, 1000)
			if line == "" {
				continue
			}
			if size += len(line); size > maxText {
				break
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil, ErrNoText
	}
	return lines, nil
}

// ReadPDF reads a PDF's text by the Swedish label rules (ReadText),
// leaving own (the company's own organisation and VAT numbers) out.
func ReadPDF(b []byte, own ...string) (Reading, error) {
	lines, err := PDFText(b)
	if err != nil {
		return Reading{}, err
	}
	return ReadText(lines, own...), nil
}

var (
	// amountPattern is an amount with öre: 1 234,50, 1234.50, 1.234,50;
	// a minus as - or U+2212.
	amountPattern = regexp.MustCompile(`[-−]?\d{1,3}(?:[ \x{00a0}\x{202f}.]\d{3})+,\d{2}\b|[-−]?\d+[.,]\d{2}\b`)
	datePattern   = regexp.MustCompile(`\b(\d{4})[-./](\d{2})[-./](\d{2})\b`)
	orgPattern    = regexp.MustCompile(`\b(?:16)?\d{6}-\d{4}\b`)
	orgDigits     = regexp.MustCompile(`\b(?:16)?\d{6}-?\d{4}\b`)
	vatPattern    = regexp.MustCompile(`\bSE ?\d{6}-?\d{4} ?01\b`)
	bgPattern     = regexp.MustCompile(`\b\d{3,4}-\d{4}\b`)
	pgPattern     = regexp.MustCompile(`\b\d{1,7}-\d\b`)
	digitsRun     = regexp.MustCompile(`\b\d[\d ]{0,30}\d\b`)
	numberToken   = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9/_-]{0,49}`)
)

// label is a rule: lines holding one of its words carry the value.
type label struct{ words, not []string }

func (l label) on(lower string) bool {
	for _, n := range l.not {
		if strings.Contains(lower, n) {
			return false
		}
	}
	for _, w := range l.words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

var (
	totalLabel   = label{words: []string{"att betala", "summa att betala", "totalt att betala", "belopp att betala", "totalbelopp"}, not: []string{"senast", "förfallo"}}
	vatLabel     = label{words: []string{"moms"}, not: []string{"exkl", "inkl", "reg", "nr", "nummer", "sats", "underlag", "fri"}}
	netLabel     = label{words: []string{"exkl. moms", "exkl moms", "exklusive moms", "netto", "summa exkl"}}
	dueLabel     = label{words: []string{"förfallodatum", "förfallodag", "förfaller", "betala senast", "betalas senast"}}
	dateLabel    = label{words: []string{"fakturadatum"}}
	numberLabel  = label{words: []string{"fakturanummer", "fakturanr", "faktura nr", "fakturanr."}}
	ocrLabel     = label{words: []string{"ocr"}}
	bgLabel      = label{words: []string{"bankgiro", "bg-nr", "bg nr", "bg:"}}
	pgLabel      = label{words: []string{"plusgiro", "pg-nr", "pg nr", "pg:"}}
	orgLabel     = label{words: []string{"org.nr", "org nr", "orgnr", "organisationsnummer", "org. nr"}}
	skipForName  = label{words: []string{"faktura", "kvitto", "kreditnota", "sida", "page", "datum", "nummer", "att betala", "ocr"}}
	creditWords  = label{words: []string{"kreditfaktura", "kreditnota", "credit note"}}
	receiptWords = label{words: []string{"kvitto", "receipt"}}
	invoiceWords = label{words: []string{"faktura", "invoice"}}
)

// after is the text of line after the label's first word in it (the
// whole line when the word is not found).
func after(line string, l label) string {
	lower := strings.ToLower(line)
	if len(lower) != len(line) {
		// A letter whose lower case is of another length (İ, ẞ): the
		// offsets of the lowered text are not the line's, so read that.
		line = lower
	}
	for _, w := range l.words {
		if i := strings.Index(lower, w); i >= 0 {
			return line[i+len(w):]
		}
	}
	return line
}

// swedishAmount reads one of amountPattern's matches.
func swedishAmount(s string) *money.Amount {
	s = strings.NewReplacer("\u2212", "-", " ", "", "\u00a0", "", "\u202f", "").Replace(s)
	if strings.Contains(s, ",") {
		s = strings.ReplaceAll(s, ".", "")
		s = strings.Replace(s, ",", ".", 1)
	}
	return amountOf(s)
}

// lastAmount is the last amount of s.
func lastAmount(s string) *money.Amount {
	all := amountPattern.FindAllString(s, -1)
	if len(all) == 0 {
		return nil
	}
	return swedishAmount(all[len(all)-1])
}

// firstDate is the first date of s.
func firstDate(s string) *Day {
	m := datePattern.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	return day(m[1] + "-" + m[2] + "-" + m[3])
}

// ReadText applies the Swedish label rules to a document's lines: the
// amount to pay ("Att betala"), the VAT ("Moms"), the net, the due date
// ("Förfallodatum"), the invoice date and number, the OCR reference, the
// bankgiro and plusgiro numbers, the seller's organisation and VAT
// numbers (own, the company's own, left out). A value whose check fails
// is dropped; two different values of one field leave it nil.
func ReadText(lines []string, own ...string) Reading {
	r := Reading{Format: FormatPDF, Kind: KindUnknown}
	skip := map[string]bool{}
	for _, o := range own {
		skip[o] = true
	}
	var total, vat, net, due, date, number, ocr, bg, pg, orgLabelled, orgAny, vatNo, cur candidates
	nextOf := func(i int) string {
		if i+1 < len(lines) {
			return lines[i+1]
		}
		return ""
	}
	for i, line := range lines {
		lower := strings.ToLower(line)
		switch {
		case r.Kind == KindUnknown && creditWords.on(lower):
			r.Kind = KindCreditNote
		case r.Kind == KindUnknown && receiptWords.on(lower):
			r.Kind = KindReceipt
		case r.Kind == KindUnknown && invoiceWords.on(lower):
			r.Kind = KindInvoice
		}
		if r.VendorName == nil && i < 5 && !skipForName.on(lower) && strings.IndexFunc(line, isLetter) >= 0 &&
			amountPattern.FindString(line) == "" && datePattern.FindString(line) == "" {
			r.VendorName = textPtr(line, 200)
		}
		amountAt := func(l label, c *candidates) {
			if !l.on(lower) {
				return
			}
			a := lastAmount(after(line, l))
			if a == nil && amountPattern.FindString(nextOf(i)) != "" && !l.on(strings.ToLower(nextOf(i))) {
				a = lastAmount(nextOf(i))
			}
			if a != nil {
				c.add(a.String())
			}
		}
		amountAt(totalLabel, &total)
		amountAt(vatLabel, &vat)
		amountAt(netLabel, &net)
		dateAt := func(l label, c *candidates) {
			if !l.on(lower) {
				return
			}
			d := firstDate(after(line, l))
			if d == nil {
				d = firstDate(nextOf(i))
			}
			if d != nil {
				c.add(d.Format("2006-01-02"))
			}
		}
		dateAt(dueLabel, &due)
		dateAt(dateLabel, &date)
		if numberLabel.on(lower) {
			rest := strings.TrimLeft(after(line, numberLabel), " :.#")
			if t := numberToken.FindString(rest); t != "" {
				number.add(t)
			}
		}
		if ocrLabel.on(lower) {
			for _, d := range digitsRun.FindAllString(after(line, ocrLabel), -1) {
				ocr.add(checkedOCR(d))
			}
		}
		if bgLabel.on(lower) {
			for _, d := range bgPattern.FindAllString(after(line, bgLabel), -1) {
				bg.add(bankgiro(d))
			}
		}
		if pgLabel.on(lower) {
			for _, d := range pgPattern.FindAllString(after(line, pgLabel), -1) {
				pg.add(plusgiro(d))
			}
		}
		for _, m := range vatPattern.FindAllString(line, -1) {
			if v := vatNumber(strings.ReplaceAll(strings.ReplaceAll(m, " ", ""), "-", "")); v != "" && !skip[v] {
				vatNo.add(v)
			}
		}
		// An organisation number labelled as one, else one written as
		// one (NNNNNN-NNNN): ten bare digits are as often an OCR.
		if orgLabel.on(lower) {
			for _, m := range orgDigits.FindAllString(after(line, orgLabel), -1) {
				if v := orgNumber(m, ""); v != nil && !skip[*v] {
					orgLabelled.add(*v)
				}
			}
		}
		for _, m := range orgPattern.FindAllString(line, -1) {
			if v := orgNumber(m, ""); v != nil && !skip[*v] {
				orgAny.add(*v)
			}
		}
		if totalLabel.on(lower) {
			for _, c := range []string{"SEK", "EUR", "USD", "GBP", "NOK", "DKK", "CHF"} {
				if strings.Contains(line, c) {
					cur.add(c)
				}
			}
			if strings.Contains(lower, " kr") || strings.HasSuffix(lower, "kr") {
				cur.add("SEK")
			}
		}
	}
	r.Total, r.VAT, r.Net = parsed(total), parsed(vat), parsed(net)
	if d := due.value(); d != nil {
		r.DueDate = day(*d)
	}
	if d := date.value(); d != nil {
		r.InvoiceDate = day(*d)
	}
	r.InvoiceNumber, r.OCR, r.Bankgiro, r.Plusgiro, r.VATNumber = number.value(), ocr.value(), bg.value(), pg.value(), vatNo.value()
	r.OrgNumber = orgLabelled.value()
	if len(orgLabelled.seen) == 0 {
		r.OrgNumber = orgAny.value()
	}
	if c := cur.value(); c != nil {
		r.Currency = c
	} else if r.Total != nil && !cur.rival {
		sek := "SEK"
		r.Currency = &sek
	}
	return r
}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune("åäöÅÄÖéÉüÜ", r)
}

// parsed is the one amount c holds, or nil.
func parsed(c candidates) *money.Amount {
	v := c.value()
	if v == nil {
		return nil
	}
	return amountOf(*v)
}
