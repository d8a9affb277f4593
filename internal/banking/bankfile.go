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

// Text decodes a bank file's bytes: a byte-order mark names UTF-8 or
// UTF-16 (either order); without one, valid UTF-8 is read as it is and
// anything else as Windows-1252, what Swedish banks' older exports are.
// It answers the text and the encoding it was read as.
func Text(raw []byte) (string, string, error) {
	var dec transform.Transformer
	name := "utf-8"
	switch {
	case bytes.HasPrefix(raw, []byte{0xEF, 0xBB, 0xBF}):
		if !utf8.Valid(raw[3:]) {
			return "", "utf-8", &TextError{Line: bytes.Count(raw[:3+invalidAt(raw[3:])], []byte{'\n'}) + 1,
				Issue: "the line holds bytes that are not utf-8 text"}
		}
		return checked(string(raw[3:]), "utf-8")
	case bytes.HasPrefix(raw, []byte{0xFF, 0xFE}):
		dec, name = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder(), "utf-16le"
	case bytes.HasPrefix(raw, []byte{0xFE, 0xFF}):
		dec, name = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder(), "utf-16be"
	case utf8.Valid(raw):
		return checked(string(raw), "utf-8")
	default:
		dec, name = charmap.Windows1252.NewDecoder(), "windows-1252"
	}
	out, _, err := transform.Bytes(dec, raw)
	if err != nil {
		return "", name, fmt.Errorf("the file is not %s: %w", name, err)
	}
	return checked(string(out), name)
}

// TextError is a line of a file whose text cannot be kept.
type TextError struct {
	Line  int
	Issue string
}

func (e *TextError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Issue) }

// checked refuses text no column can hold: a NUL, or what the decoder
// could not read (U+FFFD), naming the line.
func checked(text, enc string) (string, string, error) {
	if i := strings.IndexAny(text, "\x00\uFFFD"); i >= 0 {
		issue := "the line holds a NUL character, which no text can hold"
		if text[i] != 0 {
			issue = "the line holds bytes that are not " + enc + " text"
		}
		return "", enc, &TextError{Line: strings.Count(text[:i], "\n") + 1, Issue: issue}
	}
	return text, enc, nil
}

// headerLines is how far into a file its header line is looked for: past
// a preamble of an account line, a period or "sep=;".
const headerLines = 12

// Detect names the format of a bank file's text: camt.053 by its
// namespace, a bank's export by its header's columns, else a generic CSV.
func Detect(text string) string {
	head := text
	if len(head) > 8192 {
		head = head[:8192]
	}
	if strings.Contains(head, "camt.053") && strings.Contains(head, "<Document") {
		return FormatCamt053
	}
	if l, _, ok := findHeader(strings.SplitN(head, "\n", headerLines+1), layouts); ok {
		return l.format
	}
	return FormatGenericCSV
}

// findHeader finds the first of lines that holds the signature of one of
// ls: that layout and the line's index.
func findHeader(lines []string, ls []layout) (layout, int, bool) {
	for i, line := range lines[:min(len(lines), headerLines)] {
		cells := map[string]bool{}
		for _, c := range splitHeader(line) {
			cells[c] = true
		}
		for _, l := range ls {
			if holds(cells, l.signature) {
				return l, i, true
			}
		}
	}
	return layout{}, 0, false
}

func holds(cells map[string]bool, want []string) bool {
	for _, w := range want {
		if !cells[w] {
			return false
		}
	}
	return len(want) > 0
}

// splitHeader splits a header line at whichever of ; , and tab it holds
// most of, folded.
func splitHeader(line string) []string {
	sep := Delimiter(line)
	var out []string
	for _, c := range strings.Split(strings.TrimRight(line, "\r"), string(sep)) {
		out = append(out, store.Fold(strings.Trim(c, `" `)))
	}
	return out
}

// Delimiter is the cell separator of a header line: whichever of ';',
// ',' and tab it holds most of.
func Delimiter(line string) rune {
	best, n := ';', -1
	for _, r := range []rune{';', ',', '\t'} {
		if c := strings.Count(line, string(r)); c > n {
			best, n = r, c
		}
	}
	return best
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
	// Other counts the rows of another currency's balance in a file that
	// holds several (Wise's transfer history): left out.
	Other int
}

// ReadCSV reads a CSV bank file's text in format (a bank's layout, or
// generic_csv, whose columns are sniffed from the header): a row per
// booked transaction in currency unless the file names one, each with an
// external id made of the format, account, date, amount, text and its
// number among rows alike that day, so overlapping exports dedupe. Rows
// that cannot be read are all named (ErrRows); then nothing is answered.
func ReadCSV(text, format, account, currency string) (CSVFile, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	start, l, err := headerOf(lines, format)
	if err != nil {
		return CSVFile{}, err
	}
	r := csv.NewReader(strings.NewReader(strings.Join(lines[start:], "\n")))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord, r.TrimLeadingSpace = Delimiter(lines[start]), true, -1, true
	records, err := r.ReadAll()
	if err != nil {
		return CSVFile{}, fmt.Errorf("the CSV cannot be read: %w", err)
	}
	cols := map[string]int{}
	for i, c := range records[0] {
		if name := store.Fold(strings.Trim(c, `" `)); name != "" {
			if _, ok := cols[name]; !ok {
				cols[name] = i
			}
		}
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
	if dateCol < 0 || amountCol < 0 && l.entry == nil {
		return CSVFile{}, fmt.Errorf("the header names no date or amount column (%s)", strings.Join(records[0], ", "))
	}
	textCol, curCol, refCol, nameCol, idCol := find(l.text), find(l.currency), find(l.reference), find(l.name), find(l.id)
	statusCol := find(l.status)
	out := CSVFile{Format: l.format}
	var bad []RowError
	seen := map[string]int{}
	for n, rec := range records[1:] {
		row := start + n + 2 // the line in the file, the header being start+1
		cell := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		day, amountText := cell(dateCol), cell(amountCol)
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		if l.pending != "" && store.Fold(day) == l.pending ||
			statusCol >= 0 && store.Fold(cell(statusCol)) != l.done {
			out.Pending++
			continue
		}
		if day == "" && (amountText == "" || l.entry != nil) {
			continue // a summary row without a date
		}
		date, err := ParseDay(day)
		if err != nil {
			bad = append(bad, RowError{Row: row, Issue: "the date " + quote(day) + " is not a date"})
			continue
		}
		rowCurrency := currency
		if c := strings.ToUpper(cell(curCol)); c != "" {
			rowCurrency = c
		}
		if l.entry != nil {
			var ok bool
			if amountText, rowCurrency, ok = l.entry(func(name string) string { return cell(find(name)) }, currency); !ok {
				out.Other++
				continue
			}
		}
		amount, err := ParseAmount(amountText)
		if err != nil {
			bad = append(bad, RowError{Row: row, Issue: "the amount " + quote(amountText) + " is not an amount"})
			continue
		}
		in := Ingested{Date: date, Amount: amount, Currency: rowCurrency}
		if t := cell(textCol); t != "" {
			in.Description = &t
		}
		if ref := cell(refCol); ref != "" {
			in.Reference = &ref
		}
		if nm := cell(nameCol); nm != "" {
			in.MerchantName = &nm
		}
		// The bank's own id where the file has one, else what the row
		// says; either numbered among its like, so a row repeated that
		// day is a row of its own and an overlapping export dedupes.
		key := l.format + "|" + cell(idCol)
		if cell(idCol) == "" {
			key = strings.Join([]string{l.format, account, dayText(date), amount.String(), cell(textCol)}, "|")
		}
		seen[key]++
		if id := cell(idCol); id != "" && seen[key] == 1 {
			in.ExternalID = l.format + ":" + id
		} else {
			in.ExternalID = "csv:" + counted(key, seen[key])
		}
		out.Rows = append(out.Rows, in)
	}
	if len(bad) > 0 {
		return CSVFile{}, &ErrRows{Rows: bad}
	}
	return out, nil
}

// headerOf finds the header line of a file in format: the line with its
// signature, or for generic_csv the first with a date and an amount
// column.
func headerOf(lines []string, format string) (int, layout, error) {
	if format == FormatGenericCSV {
		for i, line := range lines[:min(len(lines), headerLines)] {
			cells := map[string]bool{}
			for _, c := range splitHeader(line) {
				cells[c] = true
			}
			if anyOf(cells, generic.date) && anyOf(cells, generic.amount) {
				return i, generic, nil
			}
		}
		for i, line := range lines { // no known names: the first line that is not empty
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "*") {
				return i, generic, nil
			}
		}
		return 0, generic, errors.New("the file has no header line")
	}
	var ls []layout
	for _, l := range layouts {
		if l.format == format {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return 0, layout{}, fmt.Errorf("format %q is not read here", format)
	}
	l, i, ok := findHeader(lines, ls)
	if !ok {
		return 0, layout{}, fmt.Errorf("no header line of the %s layout (columns %s) in the first %d lines",
			format, strings.Join(ls[0].signature, ", "), headerLines)
	}
	return i, l, nil
}

func anyOf(cells map[string]bool, names string) bool {
	for _, n := range strings.Split(names, "|") {
		if cells[n] {
			return true
		}
	}
	return false
}

// counted is the id of the n-th row alike in key: a row repeated in one
// day is a row of its own, and the same rows read again get the same ids.
func counted(key string, n int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", key, n)))
	return hex.EncodeToString(h[:16])
}

func dayText(d time.Time) string { return d.Format(time.DateOnly) }

func quote(s string) string { return `"` + s + `"` }

// ParseDay reads the dates bank exports write: 2026-03-05, 2026/03/05,
// 20260305, 2026.03.05, Wise's 05-03-2026, 05.03.2026, and a timestamp's
// day (Wise's history: 2026-03-05 14:20:05). A day-first date with
// slashes is left unread: which of day and month comes first is not known.
func ParseDay(s string) (time.Time, error) {
	if len(s) > 10 && (s[10] == ' ' || s[10] == 'T') {
		s = s[:10]
	}
	for _, f := range []string{time.DateOnly, "2006/01/02", "20060102", "2006.01.02", "02-01-2006", "02.01.2006"} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: %q", s)
}

// amountSpaces drops what banks put between thousands and reads a
// typographic minus as one; built once, as a file has many amounts.
var amountSpaces = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "'", "", "\u2212", "-")

// ParseAmount reads an amount as banks export it: a decimal comma or
// point, spaces or points between thousands, a minus in front or a
// trailing one ("1 234,50-"), a currency after it ("-192,75 kr").
func ParseAmount(s string) (money.Amount, error) {
	s = amountSpaces.Replace(strings.TrimSpace(s))
	// ICA Banken writes "-192,75 kr"; others name the currency after.
	s = strings.TrimRightFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
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

// invalidAt is where b stops being UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
