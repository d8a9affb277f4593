package sie

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strconv"
)

// MaxLine is the longest line a reader takes; a longer one is a problem
// in the file, not a reason to hold it all in memory.
const MaxLine = 64 << 10

// Field is one field of a record: a text, or an object list written
// {dim obj dim obj ...}.
type Field struct {
	Text   string
	List   []string
	IsList bool
	quote  bool // written in quotes even when it needs none
}

// Record is one record of a file: its label (upper case, with #), its
// fields, where it starts, and for a #VER the records between its braces.
type Record struct {
	Line   int
	Offset int64
	Label  string
	Fields []Field
	Body   []Record
}

// Text is field i as text, "" when the record has fewer fields or it is
// an object list.
func (r Record) Text(i int) string {
	if i < len(r.Fields) && !r.Fields[i].IsList {
		return r.Fields[i].Text
	}
	return ""
}

// Problem is something wrong in a file, where it is: what an importer
// lists back to the user. It is an error so a reader can return it and
// go on.
type Problem struct {
	Line   int    `json:"line"`
	Record string `json:"record"`
	Issue  string `json:"issue"`
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d %s: %s", p.Line, p.Record, p.Issue) }

// AsProblem reports whether err is a problem in the file rather than a
// failure to read it.
func AsProblem(err error) (*Problem, bool) {
	var p *Problem
	ok := errors.As(err, &p)
	return p, ok
}

// Reader reads a file record by record, a #VER together with its body.
// A problem in the file comes back as a *Problem; the reader has then
// skipped what it could not read and may be asked for the next record.
// io.EOF ends the file, after the checksum's own problems, if any.
type Reader struct {
	src    *bufio.Reader
	enc    Encoding
	line   int
	offset int64 // of the next line

	pending []error // problems found while reading ahead
	held    *raw    // a record read ahead of its time

	sumState int // 0 none, 1 open, 2 closed
	sum      hash.Hash32
	sumWant  uint32
	sumLine  int
	sumOK    bool
	records  int
	eof      bool
}

// raw is one line as tokens: a brace alone, or a record.
type raw struct {
	line   int
	offset int64
	brace  byte // '{' or '}' for a line holding only a brace
	rec    Record
	// sum is the record's contribution to #KSUMMA.
	sum []byte
}

// NewReader reads a file stored in enc from its start.
func NewReader(r io.Reader, enc Encoding) *Reader {
	return &Reader{src: bufio.NewReaderSize(r, 256<<10), enc: enc}
}

// NewReaderAt reads on from a point found earlier: r is positioned at
// offset, the start of line line. The checksum is not verified: that
// needs the whole file.
func NewReaderAt(r io.Reader, enc Encoding, offset int64, line int) *Reader {
	rd := NewReader(r, enc)
	rd.offset, rd.line = offset, line-1
	rd.sumState = -1
	return rd
}

// Line is the number of the next unread line.
func (r *Reader) Line() int {
	if r.held != nil {
		return r.held.line
	}
	return r.line + 1
}

// Encoding is the encoding the reader decodes.
func (r *Reader) Encoding() Encoding { return r.enc }

// Offset is the byte offset of the next unread line.
func (r *Reader) Offset() int64 {
	if r.held != nil {
		return r.held.offset
	}
	return r.offset
}

// Next returns the next record, with a #VER's body.
func (r *Reader) Next() (Record, error) {
	if len(r.pending) > 0 {
		err := r.pending[0]
		r.pending = r.pending[1:]
		return Record{}, err
	}
	for {
		x, err := r.take()
		if err != nil {
			return Record{}, err
		}
		if x.brace != 0 {
			return Record{}, &Problem{Line: x.line, Record: string(x.brace), Issue: "a brace outside a #VER"}
		}
		switch x.rec.Label {
		case "#VER":
			return r.body(x.rec)
		case "#TRANS", "#RTRANS", "#BTRANS":
			return Record{}, &Problem{Line: x.line, Record: x.rec.Label, Issue: "a row outside a #VER's braces"}
		}
		return x.rec, nil
	}
}

// body reads the braces and records of voucher v.
func (r *Reader) body(v Record) (Record, error) {
	open, err := r.take()
	if errors.Is(err, io.EOF) {
		return v, &Problem{Line: v.Line, Record: "#VER", Issue: "the file ends before the voucher's rows"}
	}
	if err != nil {
		return v, err
	}
	if open.brace != '{' {
		r.held = open
		if open.brace == '}' {
			r.held = nil
		}
		return v, &Problem{Line: v.Line, Record: "#VER", Issue: "a #VER must be followed by { on a line of its own"}
	}
	for {
		x, err := r.take()
		if errors.Is(err, io.EOF) {
			return v, &Problem{Line: v.Line, Record: "#VER", Issue: "the file ends inside the voucher: } is missing"}
		}
		if err != nil {
			return v, err
		}
		switch {
		case x.brace == '}':
			return v, nil
		case x.brace == '{':
			return v, &Problem{Line: x.line, Record: "{", Issue: "a second { inside a voucher"}
		case x.rec.Label == "#VER" || x.rec.Label == "#KSUMMA":
			r.held = x
			return v, &Problem{Line: v.Line, Record: "#VER", Issue: "the voucher's } is missing"}
		}
		v.Body = append(v.Body, x.rec)
	}
}

// take returns the next non-blank line as tokens, a problem in a line
// as a *Problem (the line skipped).
func (r *Reader) take() (*raw, error) {
	if r.held != nil {
		x := r.held
		r.held = nil
		return x, nil
	}
	for {
		if r.eof {
			if p := r.finish(); p != nil {
				return nil, p
			}
			return nil, io.EOF
		}
		start := r.offset
		line, err := r.readLine()
		if errors.Is(err, io.EOF) {
			r.eof = true
			if len(line) == 0 {
				continue
			}
		} else if err != nil {
			return nil, err
		}
		r.line++
		if len(line) > MaxLine {
			return nil, &Problem{Line: r.line, Record: label(line), Issue: fmt.Sprintf("a line longer than %d bytes", MaxLine)}
		}
		if bytes.IndexByte(line, 0) >= 0 {
			// No text column holds a NUL, so no field of the line can be
			// kept: the line is a problem, wherever the byte is.
			return nil, &Problem{Line: r.line, Record: label(bytes.ReplaceAll(line, []byte{0}, nil)),
				Issue: "the line holds a NUL byte (0x00), which no text can hold"}
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if len(t) == 1 && (t[0] == '{' || t[0] == '}') {
			return &raw{line: r.line, offset: start, brace: t[0]}, nil
		}
		x, p := r.tokens(t)
		if p != nil {
			return nil, p
		}
		x.line, x.offset = r.line, start
		x.rec.Line, x.rec.Offset = r.line, start
		if err := r.check(x); err != nil {
			return nil, err
		}
		return x, nil
	}
}

// readLine returns the next line without its end (LF, CR LF), however
// long; the caller refuses one past MaxLine.
func (r *Reader) readLine() ([]byte, error) {
	b, err := r.src.ReadSlice('\n')
	var long []byte
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(long) <= MaxLine {
			long = append(long, b...)
		}
		r.offset += int64(len(b))
		b, err = r.src.ReadSlice('\n')
	}
	r.offset += int64(len(b))
	if long != nil {
		if len(long) <= MaxLine {
			long = append(long, b...)
		}
		b = long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, err
}

// label is the first word of a line, for naming it in a problem.
func label(line []byte) string {
	t := bytes.TrimSpace(line)
	if i := bytes.IndexAny(t, " \t"); i >= 0 {
		t = t[:i]
	}
	if len(t) > 20 {
		t = t[:20]
	}
	return string(bytes.ToUpper(t))
}

// tokens splits a record line into its label and fields.
func (r *Reader) tokens(t []byte) (*raw, *Problem) {
	x := &raw{}
	i := 0
	for i < len(t) && !blank(t[i]) {
		i++
	}
	lab := t[:i]
	x.rec.Label = string(bytes.ToUpper(lab))
	if lab[0] != '#' {
		return nil, &Problem{Line: r.line, Record: label(t), Issue: "a record must start with a label such as #VER"}
	}
	unclosed := func() *Problem {
		return &Problem{Line: r.line, Record: x.rec.Label, Issue: "a quoted field without its closing quote"}
	}
	sum := append([]byte(nil), x.rec.Label...)
	for {
		for i < len(t) && blank(t[i]) {
			i++
		}
		if i >= len(t) {
			break
		}
		if t[i] == '{' {
			j := i + 1
			var list []string
			for {
				for j < len(t) && blank(t[j]) {
					j++
				}
				if j >= len(t) {
					return nil, &Problem{Line: r.line, Record: x.rec.Label, Issue: "an object list without its closing }"}
				}
				if t[j] == '}' {
					j++
					break
				}
				tok, n, ok := word(t[j:], true)
				if !ok {
					return nil, unclosed()
				}
				j += n
				sum = r.sumField(sum, tok)
				list = append(list, decode(r.enc, tok))
			}
			if list == nil {
				list = []string{}
			}
			x.rec.Fields = append(x.rec.Fields, Field{List: list, IsList: true})
			i = j
			continue
		}
		tok, n, ok := word(t[i:], false)
		if !ok {
			return nil, unclosed()
		}
		i += n
		sum = r.sumField(sum, tok)
		x.rec.Fields = append(x.rec.Fields, Field{Text: decode(r.enc, tok)})
	}
	x.sum = sum
	return x, nil
}

func blank(c byte) bool { return c == ' ' || c == '\t' }

// word reads one field at the start of t: quoted, with \" for a quote,
// or bare up to a blank (and, inside an object list, up to its }). It
// returns the field's characters, the bytes consumed, and false for a
// quote never closed.
func word(t []byte, inList bool) ([]byte, int, bool) {
	if t[0] != '"' {
		j := 0
		for j < len(t) && !blank(t[j]) && !(inList && t[j] == '}') {
			j++
		}
		return t[:j], j, true
	}
	var out []byte
	for j := 1; j < len(t); j++ {
		switch {
		case t[j] == '\\' && j+1 < len(t) && t[j+1] == '"':
			out = append(out, '"')
			j++
		case t[j] == '"':
			if out == nil {
				out = []byte{}
			}
			return out, j + 1, true
		default:
			out = append(out, t[j])
		}
	}
	return nil, len(t), false
}

// sumField adds a field's characters, as CP437 bytes, to a record's
// checksum input.
func (r *Reader) sumField(sum, tok []byte) []byte {
	if r.enc == CP437 {
		return append(sum, tok...)
	}
	return appendCP437(sum, decode(r.enc, tok))
}

// check keeps the checksum: #KSUMMA with no value right after #FLAGGA
// opens it, every record after adds to it, #KSUMMA with a value closes it.
func (r *Reader) check(x *raw) error {
	r.records++
	if x.rec.Label == "#KSUMMA" {
		switch {
		case len(x.rec.Fields) == 0 && r.sumState == 0 && r.records <= 2:
			r.sumState, r.sum = 1, crc32.NewIEEE()
		case len(x.rec.Fields) == 0:
			return &Problem{Line: x.line, Record: "#KSUMMA", Issue: "an opening #KSUMMA must come right after #FLAGGA"}
		case r.sumState == 1:
			n, err := strconv.ParseUint(x.rec.Text(0), 10, 32)
			if err != nil {
				return &Problem{Line: x.line, Record: "#KSUMMA", Issue: "the checksum must be an unsigned 32-bit number"}
			}
			r.sumState, r.sumWant, r.sumLine = 2, uint32(n), x.line
		case r.sumState == 0:
			return &Problem{Line: x.line, Record: "#KSUMMA", Issue: "a closing #KSUMMA without the opening one after #FLAGGA"}
		}
		return nil
	}
	switch r.sumState {
	case 1:
		_, _ = r.sum.Write(x.sum)
	case 2:
		r.sumState = 3
		return &Problem{Line: x.line, Record: x.rec.Label, Issue: "a record after the closing #KSUMMA"}
	}
	return nil
}

// finish is the checksum's verdict at the end of the file.
func (r *Reader) finish() *Problem {
	switch r.sumState {
	case 1:
		r.sumState = 3
		return &Problem{Line: r.line, Record: "#KSUMMA", Issue: "the file is truncated: #KSUMMA was opened but the closing checksum is missing"}
	case 2:
		r.sumState = 3
		if got := r.sum.Sum32(); got != r.sumWant {
			return &Problem{Line: r.sumLine, Record: "#KSUMMA", Issue: fmt.Sprintf("checksum mismatch: the file says %d, its records give %d", r.sumWant, got)}
		}
		r.sumOK = true
	}
	return nil
}

// Checksummed reports whether the file carried a checksum that matched;
// known once the reader reached io.EOF.
func (r *Reader) Checksummed() bool { return r.sumOK }
