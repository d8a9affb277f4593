// Package sie reads and writes SIE 4 files, the Swedish exchange format
// for bookkeeping (SIE-gruppen, "SIE filformat, utgåva 4B"): a streaming
// reader that keeps line numbers and byte offsets, the file's checksum
// (#KSUMMA), the encodings real files come in, and a CP437 writer. It
// knows the format only; what a file means for a company's books is the
// importer's business.
package sie

import (
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/unicode/norm"
)

// Encoding is how a file's text is stored.
type Encoding string

// The encodings a SIE file is found in. The format says CP437 (#FORMAT
// PC8), but programs write UTF-8 and Windows-1252 too while still saying
// PC8, so a reader sniffs instead of trusting the label.
const (
	CP437   Encoding = "cp437"
	UTF8    Encoding = "utf8"
	Windows Encoding = "windows-1252"
)

// Sniffer decides a file's encoding from its bytes, written to it in any
// pieces: valid UTF-8 with at least one non-ASCII character is UTF-8;
// otherwise the Swedish letters decide between CP437 (0x86 å, 0x84 ä,
// 0x94 ö, 0x8F Å, 0x8E Ä, 0x99 Ö) and Windows-1252 (0xE5, 0xE4, 0xF6,
// 0xC5, 0xC4, 0xD6), CP437 when they tie.
type Sniffer struct {
	pending  []byte // an incomplete UTF-8 sequence at the end of the last piece
	invalid  bool
	nonASCII bool
	cp437    int
	latin    int
}

// Write takes the next piece of the file; it never fails.
func (s *Sniffer) Write(p []byte) (int, error) {
	for _, b := range p {
		switch b {
		case 0x86, 0x84, 0x94, 0x8F, 0x8E, 0x99:
			s.cp437++
		case 0xE5, 0xE4, 0xF6, 0xC5, 0xC4, 0xD6:
			s.latin++
		}
	}
	if s.invalid {
		return len(p), nil
	}
	buf := p
	if len(s.pending) > 0 {
		buf = append(s.pending, p...)
		s.pending = nil
	}
	i := 0
	for i < len(buf) {
		b := buf[i]
		if b < utf8.RuneSelf {
			i++
			continue
		}
		s.nonASCII = true
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(buf[i:]) {
				// Cut between two pieces: decide with the next one.
				s.pending = append([]byte(nil), buf[i:]...)
				return len(p), nil
			}
			s.invalid = true
			return len(p), nil
		}
		i += size
	}
	return len(p), nil
}

// Encoding is the verdict on everything written so far.
func (s *Sniffer) Encoding() Encoding {
	if s.nonASCII && !s.invalid && len(s.pending) == 0 {
		return UTF8
	}
	if s.latin > s.cp437 {
		return Windows
	}
	return CP437
}

// Sniff is the verdict on a whole file held in memory.
func Sniff(b []byte) Encoding {
	var s Sniffer
	_, _ = s.Write(b)
	return s.Encoding()
}

// decode turns the bytes of one field into text.
func decode(e Encoding, b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || e == UTF8 {
		return string(b)
	}
	m := charmap.CodePage437
	if e == Windows {
		m = charmap.Windows1252
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = m.DecodeByte(c)
	}
	return string(r)
}

// appendCP437 appends s in CP437, each character CP437 lacks replaced by
// its letter without accents (ł and the like, which have none, by "?").
// It is both how the writer stores text and the bytes #KSUMMA is
// computed over.
func appendCP437(dst []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			dst = append(dst, byte(r))
			continue
		}
		if b, ok := charmap.CodePage437.EncodeRune(r); ok {
			dst = append(dst, b)
			continue
		}
		dst = append(dst, transliterate(r)...)
	}
	return dst
}

// transliterate gives the CP437 bytes of a character CP437 does not
// have: its decomposition without combining marks, else "?".
func transliterate(r rune) []byte {
	var out []byte
	for _, d := range norm.NFD.String(string(r)) {
		if d < utf8.RuneSelf {
			out = append(out, byte(d))
		} else if b, ok := charmap.CodePage437.EncodeRune(d); ok {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return []byte{'?'}
	}
	return out
}
