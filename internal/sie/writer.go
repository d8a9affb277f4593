package sie

import (
	"bufio"
	"errors"
	"hash"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// Bare is a field written as it is (a number, a date, an account): quoted
// only if it is empty or holds a blank, a quote or a brace.
func Bare(s string) Field { return Field{Text: s} }

// Quoted is a text field, always written in quotes.
func Quoted(s string) Field { return Field{Text: s, quote: true} }

// Objects is an object list from dimension numbers and codes.
func Objects(objs []Object) Field {
	list := make([]string, 0, 2*len(objs))
	for _, o := range objs {
		list = append(list, o.Dim, o.Code)
	}
	return Field{List: list, IsList: true}
}

// AmountField is an amount with its two decimals.
func AmountField(a money.Amount) Field { return Field{Text: a.String()} }

// DateField is a date YYYYMMDD.
func DateField(d time.Time) Field { return Field{Text: d.Format("20060102")} }

// IntField is a whole number.
func IntField(n int) Field { return Field{Text: strconv.Itoa(n)} }

// Writer writes a SIE file: CP437 (or UTF-8 when asked), CR LF line
// ends, text quoted with \" for a quote, control characters left out,
// and, when opened with Checksum, the #KSUMMA pair around the records.
type Writer struct {
	w       *bufio.Writer
	enc     Encoding
	sum     hash.Hash32
	line    []byte
	sumIn   []byte
	inBody  bool
	written int64
	err     error
}

// NewWriter writes to w in enc (CP437 unless UTF8).
func NewWriter(w io.Writer, enc Encoding) *Writer {
	if enc != UTF8 {
		enc = CP437
	}
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), enc: enc}
}

// Checksum writes the opening #KSUMMA; Close then writes the closing one
// over every record in between. It belongs right after #FLAGGA.
func (w *Writer) Checksum() error {
	if w.sum != nil {
		return errors.New("sie: the checksum is already open")
	}
	w.raw([]byte("#KSUMMA\r\n"))
	w.sum = crc32.NewIEEE()
	return w.err
}

// Record writes one record.
func (w *Writer) Record(label string, fields ...Field) error {
	w.line = w.line[:0]
	w.sumIn = append(w.sumIn[:0], label...)
	if w.inBody {
		w.line = append(w.line, '\t')
	}
	w.line = append(w.line, label...)
	for _, f := range fields {
		w.line = append(w.line, ' ')
		if f.IsList {
			w.line = append(w.line, '{')
			for i, s := range f.List {
				if i > 0 {
					w.line = append(w.line, ' ')
				}
				w.field(s, false)
			}
			w.line = append(w.line, '}')
			continue
		}
		w.field(f.Text, f.quote)
	}
	w.line = append(w.line, '\r', '\n')
	if w.sum != nil {
		_, _ = w.sum.Write(w.sumIn)
	}
	w.raw(w.line)
	return w.err
}

// field appends one field to the line and its characters to the
// checksum input.
func (w *Writer) field(s string, quote bool) {
	s = clean(s)
	if !quote && (s == "" || strings.ContainsAny(s, " \t\"{}")) {
		quote = true
	}
	w.sumIn = appendCP437(w.sumIn, s)
	if quote {
		w.line = append(w.line, '"')
	}
	start := len(w.line)
	if w.enc == UTF8 {
		w.line = append(w.line, s...)
	} else {
		w.line = appendCP437(w.line, s)
	}
	if quote {
		if strings.IndexByte(s, '"') >= 0 {
			escaped := strings.ReplaceAll(string(w.line[start:]), `"`, `\"`)
			w.line = append(w.line[:start], escaped...)
		}
		w.line = append(w.line, '"')
	}
}

// clean leaves out control characters, which SIE text may not hold, and
// turns a trailing backslash into a slash so it cannot escape the
// closing quote.
func clean(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] < 32 || s[i] == 127 {
			ok = false
			break
		}
	}
	if !ok {
		s = strings.Map(func(r rune) rune {
			if r < 32 || r == 127 {
				return -1
			}
			return r
		}, s)
	}
	if strings.HasSuffix(s, `\`) {
		s = strings.TrimRight(s, `\`) + "/"
	}
	return s
}

// Begin opens a voucher's body after its #VER.
func (w *Writer) Begin() error {
	w.raw([]byte("{\r\n"))
	w.inBody = true
	return w.err
}

// End closes a voucher's body.
func (w *Writer) End() error {
	w.inBody = false
	w.raw([]byte("}\r\n"))
	return w.err
}

func (w *Writer) raw(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.written += int64(n)
	w.err = err
}

// Flush hands what is buffered to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// Close writes the closing #KSUMMA when the checksum was opened, and
// flushes.
func (w *Writer) Close() error {
	if w.sum != nil {
		w.raw([]byte("#KSUMMA " + strconv.FormatUint(uint64(w.sum.Sum32()), 10) + "\r\n"))
		w.sum = nil
	}
	return w.Flush()
}

// Written is the number of bytes written so far, buffered ones included.
func (w *Writer) Written() int64 { return w.written }
