package sie

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader: whatever the bytes, reading them ends, never panics, and
// every problem names a line of the file.
func FuzzReader(f *testing.F) {
	f.Add([]byte("#FLAGGA 0\n#KSUMMA\n#VER A 1 20250101 \"x \\\" y\"\n{\n\t#TRANS 1910 {1 \"a\"} 1.5\n\t#RTRANS 3000 {} -1.5\n\t#TRANS 3000 {} -1.5\n}\n#KSUMMA 1\n"))
	f.Add([]byte("#IB 0 1910 12.3\r\n#PSALDO 0 202501 3000 {} -5\r\n#VER\r\n{\r\n}\r\n}\r\n{"))
	f.Add([]byte("#OBJEKT 1 \"unterminated\n#TRANS\n\xff\xfe\x86\x84\n"))
	if files, _ := filepath.Glob(filepath.Join(sharedSIE, "*.s[ei]")); len(files) > 0 {
		for _, name := range files[:2] {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b[:min(len(b), 4096)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		enc := Sniff(b)
		lines := bytes.Count(b, []byte{'\n'}) + 1
		r := NewReader(bytes.NewReader(b), enc)
		for n := 0; ; n++ {
			if n > len(b)+10 {
				t.Fatal("the reader does not end")
			}
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if p, ok := AsProblem(err); ok {
				if p.Line < 0 || p.Line > lines {
					t.Fatalf("problem on line %d of %d", p.Line, lines)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			switch rec.Label {
			case "#VER":
				v, _ := ParseVoucher(rec)
				_ = v.Sum()
			case "#IB", "#UB", "#RES", "#PSALDO", "#OIB", "#OUB":
				_, _ = ParseBalance(rec)
			}
		}
	})
}
