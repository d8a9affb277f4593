package banking

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// The bank-file formats read so far: camt.053, a CSV whose columns are
// sniffed from its header, and the Swedish banks' export layouts whose
// headers are public (../shared/data/bank/README.md).
const (
	FormatCamt053       = "camt053"
	FormatGenericCSV    = "generic_csv"
	FormatSwedbank      = "swedbank"
	FormatNordea        = "nordea"
	FormatSEB           = "seb"
	FormatHandelsbanken = "handelsbanken"
)

// Text decodes a bank file's bytes: a byte-order mark names UTF-8 or
// UTF-16 (either order); without one, valid UTF-8 is read as it is and
// anything else as Windows-1252, what Swedish banks' older exports are.
// It answers the text and the encoding it was read as.
func Text(raw []byte) (string, string, error) {
	var dec transform.Transformer
	name := "utf-8"
	switch {
	case bytes.HasPrefix(raw, []byte{0xEF, 0xBB, 0xBF}):
		return string(raw[3:]), "utf-8", nil
	case bytes.HasPrefix(raw, []byte{0xFF, 0xFE}):
		dec, name = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder(), "utf-16le"
	case bytes.HasPrefix(raw, []byte{0xFE, 0xFF}):
		dec, name = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder(), "utf-16be"
	case utf8.Valid(raw):
		return string(raw), "utf-8", nil
	default:
		dec, name = charmap.Windows1252.NewDecoder(), "windows-1252"
	}
	out, _, err := transform.Bytes(dec, raw)
	if err != nil {
		return "", name, fmt.Errorf("the file is not %s: %w", name, err)
	}
	return string(out), name, nil
}

// layout is where a CSV dialect keeps what a transaction needs.
type layout struct {
	format string
	// header is the first columns of its header line, as the bank writes
	// them (compared folded).
	header                                        []string
	date, amount, text, currency, reference, name string
	// pending is a date cell that marks a row not yet booked.
	pending string
}

var layouts = []layout{
	{format: FormatSwedbank, header: []string{"radnummer", "clearingnummer", "kontonummer", "produkt", "valuta"},
		date: "bokföringsdag", amount: "belopp", text: "beskrivning", currency: "valuta", reference: "referens"},
	{format: FormatNordea, header: []string{"bokföringsdag", "belopp", "avsändare", "mottagare", "namn"},
		date: "bokföringsdag", amount: "belopp", text: "rubrik|ytterligare detaljer", currency: "valuta",
		reference: "meddelande", name: "namn", pending: "reserverat"},
	{format: FormatSEB, header: []string{"bokföringsdatum", "valutadatum", "verifikationsnummer", "text/mottagare"},
		date: "bokföringsdatum", amount: "belopp", text: "text/mottagare", reference: "verifikationsnummer"},
	{format: FormatHandelsbanken, header: []string{"reskontradatum", "transaktionsdatum", "text", "belopp"},
		date: "reskontradatum", amount: "belopp", text: "text"},
}

// generic is the columns a generic CSV's header may name.
var generic = layout{format: FormatGenericCSV,
	date:   "datum|date|bokföringsdag|bokföringsdatum|transaktionsdag|transaktionsdatum|booking date",
	amount: "belopp|amount|summa", text: "text|beskrivning|description|rubrik|meddelande|specifikation",
	currency: "valuta|currency", reference: "referens|reference|ocr", name: "namn|name|mottagare|motpart|counterparty"}

// Detect names the format of a bank file's text: camt.053 by its
// namespace, a bank's export by its header, else a generic CSV.
func Detect(text string) string {
	head := text
	if len(head) > 4096 {
		head = head[:4096]
	}
	if strings.Contains(head, "camt.053") && strings.Contains(head, "<Document") {
		return FormatCamt053
	}
	lines := strings.SplitN(head, "\n", 3)
	if len(lines) > 2 {
		lines = lines[:2] // a preamble may come first
	}
	for _, line := range lines {
		cells := splitHeader(line)
		for _, l := range layouts {
			if hasPrefix(cells, l.header) {
				return l.format
			}
		}
	}
	return FormatGenericCSV
}

// splitHeader splits a header line at whichever of ; , and tab it holds
// most of, folded.
func splitHeader(line string) []string {
	sep := delimiter(line)
	var out []string
	for _, c := range strings.Split(strings.TrimRight(line, "\r"), string(sep)) {
		out = append(out, store.Fold(strings.Trim(c, `" `)))
	}
	return out
}

func delimiter(line string) rune {
	best, n := ';', -1
	for _, r := range []rune{';', ',', '\t'} {
		if c := strings.Count(line, string(r)); c > n {
			best, n = r, c
		}
	}
	return best
}

func hasPrefix(cells, want []string) bool {
	if len(cells) < len(want) {
		return false
	}
	for i, w := range want {
		if cells[i] != w {
			return false
		}
	}
	return true
}

// RowError is a row of a bank file that cannot be read, and why.
type RowError struct {
	Row   int // from 1, as a spreadsheet numbers lines
	Issue string
}

// ErrRows is what ReadCSV answers when rows cannot be read: each is in Rows.
type ErrRows struct{ Rows []RowError }

func (e *ErrRows) Error() string {
	return fmt.Sprintf("%d rows cannot be read, the first row %d: %s", len(e.Rows), e.Rows[0].Row, e.Rows[0].Issue)
}

// CSVFile is what a CSV bank file holds.
type CSVFile struct {
	Format string
	Rows   []Ingested
	// Pending counts the rows the bank has not booked yet (reserved):
	// left out.
	Pending int
}

// ReadCSV reads a CSV bank file's text in format (a bank's layout, or
// generic_csv, whose columns are sniffed from the header): a row per
// booked transaction in currency unless the file names one, each with an
// external id made of the format, account, date, amount, text and its
// number among rows alike that day, so overlapping exports dedupe. Rows
// that cannot be read are all named (ErrRows); then nothing is answered.
func ReadCSV(text, format, account, currency string) (CSVFile, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	start := 0
	// Swedbank's first line is a preamble: "* Transaktioner Period …".
	for start < len(lines) && (strings.TrimSpace(lines[start]) == "" || strings.HasPrefix(strings.TrimSpace(lines[start]), "*")) {
		start++
	}
	if start >= len(lines) {
		return CSVFile{}, errors.New("the file has no header line")
	}
	l, ok := layoutOf(format)
	if !ok {
		return CSVFile{}, fmt.Errorf("format %q is not read here", format)
	}
	r := csv.NewReader(strings.NewReader(strings.Join(lines[start:], "\n")))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord, r.TrimLeadingSpace = delimiter(lines[start]), true, -1, true
	records, err := r.ReadAll()
	if err != nil {
		return CSVFile{}, fmt.Errorf("the CSV cannot be read: %w", err)
	}
	cols := map[string]int{}
	for i, c := range records[0] {
		cols[store.Fold(strings.Trim(c, `" `))] = i
	}
	find := func(names string) int {
		for _, n := range strings.Split(names, "|") {
			if i, ok := cols[n]; ok && n != "" {
				return i
			}
		}
		return -1
	}
	dateCol, amountCol := find(l.date), find(l.amount)
	if dateCol < 0 || amountCol < 0 {
		return CSVFile{}, fmt.Errorf("the header names no date or amount column (%s)", strings.Join(records[0], ", "))
	}
	textCol, curCol, refCol, nameCol := find(l.text), find(l.currency), find(l.reference), find(l.name)
	out := CSVFile{Format: l.format}
	var bad []RowError
	seen := map[string]int{}
	cell := func(rec []string, i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	for n, rec := range records[1:] {
		row := start + n + 2 // the line in the file, the header being start+1
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		day := cell(rec, dateCol)
		if l.pending != "" && store.Fold(day) == l.pending {
			out.Pending++
			continue
		}
		date, err := parseDay(day)
		if err != nil {
			bad = append(bad, RowError{Row: row, Issue: "the date " + quote(day) + " is not a date"})
			continue
		}
		amount, err := ParseAmount(cell(rec, amountCol))
		if err != nil {
			bad = append(bad, RowError{Row: row, Issue: "the amount " + quote(cell(rec, amountCol)) + " is not an amount"})
			continue
		}
		in := Ingested{Date: date, Amount: amount, Currency: currency}
		if c := strings.ToUpper(cell(rec, curCol)); c != "" {
			in.Currency = c
		}
		if t := cell(rec, textCol); t != "" {
			in.Description = &t
		}
		if ref := cell(rec, refCol); ref != "" {
			in.Reference = &ref
		}
		if nm := cell(rec, nameCol); nm != "" {
			in.MerchantName = &nm
		}
		key := strings.Join([]string{l.format, account, dayText(date), amount.String(), cell(rec, textCol)}, "|")
		seen[key]++
		h := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", key, seen[key])))
		in.ExternalID = "csv:" + hex.EncodeToString(h[:16])
		out.Rows = append(out.Rows, in)
	}
	if len(bad) > 0 {
		return CSVFile{}, &ErrRows{Rows: bad}
	}
	return out, nil
}

func layoutOf(format string) (layout, bool) {
	if format == FormatGenericCSV {
		return generic, true
	}
	for _, l := range layouts {
		if l.format == format {
			return l, true
		}
	}
	return layout{}, false
}

func dayText(d time.Time) string { return d.Format(time.DateOnly) }

func quote(s string) string { return `"` + s + `"` }

// parseDay reads the dates Swedish exports write: 2026-03-05, 2026/03/05,
// 20260305.
func parseDay(s string) (time.Time, error) {
	for _, f := range []string{time.DateOnly, "2006/01/02", "20060102", "2006.01.02"} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: %q", s)
}

// ParseAmount reads an amount as banks export it: a decimal comma or
// point, spaces or points between thousands, a minus in front or a
// trailing one ("1 234,50-").
func ParseAmount(s string) (money.Amount, error) {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "'", "").Replace(strings.TrimSpace(s))
	neg := false
	if strings.HasSuffix(s, "-") {
		neg, s = true, strings.TrimSuffix(s, "-")
	}
	comma, dot := strings.LastIndex(s, ","), strings.LastIndex(s, ".")
	switch {
	case comma >= 0 && dot >= 0 && comma > dot: // 1.234,50
		s = strings.ReplaceAll(s[:comma], ".", "") + "." + s[comma+1:]
	case comma >= 0 && dot >= 0: // 1,234.50
		s = strings.ReplaceAll(s[:dot], ",", "") + s[dot:]
	case comma >= 0:
		s = strings.Replace(s, ",", ".", 1)
	}
	a, err := money.Parse(s)
	if err != nil {
		return a, err
	}
	if neg {
		a = a.Neg()
	}
	return a, nil
}
