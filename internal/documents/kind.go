package documents

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

// Allowed are the types an upload may have (001 Documents): PDF, the
// photo formats, Word, Excel and PowerPoint (legacy and OOXML),
// OpenDocument text, spreadsheet and presentation, RTF and CSV.
var Allowed = []string{
	"application/pdf", "image/jpeg", "image/png", "image/webp", "image/heic", "image/heif",
	"application/msword", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"application/vnd.ms-powerpoint", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
	"application/vnd.oasis.opendocument.presentation", "application/rtf", "text/rtf", "text/csv",
}

// UnsupportedError says a file's bytes are none of Allowed, and what they
// are.
type UnsupportedError struct{ Detected string }

func (e *UnsupportedError) Error() string {
	return "documents: a file of type " + e.Detected + " is not taken"
}

// sniffLen is what net/http's sniffer reads.
const sniffLen = 512

// Detect answers the type of the file at path from its bytes, never from
// a name or a client's Content-Type: one of Allowed, or an
// *UnsupportedError naming what was found. Bytes that a browser would
// sniff as HTML are refused whatever else they also are (a PDF that is
// also a page is a polyglot). Text that reads as rows of two or more
// steady columns separated by semicolons, commas or tabs is text/csv:
// Swedish exports separate with semicolons, which the detector alone does
// not know.
func Detect(path string) (string, error) {
	m, err := mimetype.DetectFile(path)
	if err != nil {
		return "", err
	}
	head, err := readHead(path)
	if err != nil {
		return "", err
	}
	if base(http.DetectContentType(head)) == "text/html" {
		return "", &UnsupportedError{Detected: "text/html"}
	}
	if base(m.String()) == "text/plain" {
		ok, err := isCSV(path)
		if err != nil {
			return "", err
		}
		if ok {
			return "text/csv", nil
		}
	}
	for _, a := range Allowed {
		if m.Is(a) {
			return base(m.String()), nil
		}
	}
	return "", &UnsupportedError{Detected: base(m.String())}
}

// base is a media type without its parameters.
func base(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return strings.TrimSpace(strings.SplitN(t, ";", 2)[0])
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// csvRows is how many rows isCSV reads before it believes the columns,
// and csvHead the most bytes it reads for them: a file of one long line
// costs no more than a short one.
const (
	csvRows = 50
	csvHead = 64 << 10
)

// isCSV reports whether the text file at path begins with at least two
// rows of the same number (two or more) of fields under one of the
// separators.
func isCSV(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	head := make([]byte, csvHead+1)
	n, err := io.ReadFull(f, head)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head = head[:n]
	if n > csvHead {
		// Only whole rows: the last one read may go on past the head.
		cut := bytes.LastIndexByte(head[:csvHead], '\n')
		if cut < 0 {
			return false, nil
		}
		head = head[:cut+1]
	}
	for _, sep := range []rune{';', ',', '\t'} {
		r := csv.NewReader(bytes.NewReader(head))
		r.Comma = sep
		rows, fields := 0, 0
		for rows < csvRows {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil { // ragged rows or a stray quote: not this separator
				rows = 0
				break
			}
			fields = len(rec)
			rows++
		}
		if rows >= 2 && fields >= 2 {
			return true, nil
		}
	}
	return false, nil
}
