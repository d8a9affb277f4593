package sie

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedSIE is where the real files from other programs are; tests that
// need them skip without.
const sharedSIE = "../../../shared/data/sie"

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedSIE, name))
	if err != nil {
		t.Skipf("the shared SIE files are not here (%v): skipped", err)
	}
	return b
}

// tally reads a whole file and counts what a line scan would.
type tally struct {
	vouchers, trans, rtrans, btrans, objekt, dims int
	problems                                      []Problem
	labels                                        map[string]int
}

func read(t *testing.T, b []byte) tally {
	t.Helper()
	r := NewReader(strings.NewReader(string(b)), Sniff(b))
	out := tally{labels: map[string]int{}}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if p, ok := AsProblem(err); ok {
			out.problems = append(out.problems, *p)
			if rec.Label != "#VER" {
				continue
			}
		} else if err != nil {
			t.Fatal(err)
		}
		out.labels[rec.Label]++
		if rec.Label != "#VER" {
			continue
		}
		out.vouchers++
		for _, b := range rec.Body {
			switch b.Label {
			case "#TRANS":
				out.trans++
			case "#RTRANS":
				out.rtrans++
			case "#BTRANS":
				out.btrans++
			}
		}
		if _, probs := ParseVoucher(rec); len(probs) > 0 {
			out.problems = append(out.problems, probs...)
		}
	}
}

func TestSharedFilesCount(t *testing.T) {
	for _, c := range []struct {
		file                                          string
		vouchers, trans, rtrans, btrans, dims, objekt int
	}{
		{"avendo-5.10_sie4.SE", 20, 76, 1, 1, 2, 8},
		{"avendo-5.20_transaktioner_ovnbolag.se", 163, 671, 0, 0, 3, 14},
		{"edison-ekonomi-byra-4.9G_typ4.se", 81, 287, 0, 0, 2, 6},
		{"es-kassasystem-7_transaktioner_per_z-rapport.se", 10, 83, 0, 0, 1, 0},
		{"fortnox-bokforing-2.0.0_Sie4.si", 165, 869, 0, 0, 2, 3},
		{"specter-3.61_SIE_exempelfil.se", 26, 148, 0, 0, 0, 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			b := sample(t, c.file)
			if e := Sniff(b); e != CP437 {
				t.Errorf("encoding %s, want cp437", e)
			}
			got := read(t, b)
			if len(got.problems) > 0 {
				t.Fatalf("problems: %v", got.problems)
			}
			if got.vouchers != c.vouchers || got.trans != c.trans || got.rtrans != c.rtrans || got.btrans != c.btrans {
				t.Errorf("vouchers %d trans %d rtrans %d btrans %d, want %d %d %d %d", got.vouchers, got.trans, got.rtrans, got.btrans,
					c.vouchers, c.trans, c.rtrans, c.btrans)
			}
			if got.labels["#DIM"]+got.labels["#UNDERDIM"] != c.dims || got.labels["#OBJEKT"] != c.objekt {
				t.Errorf("dims %d objekt %d, want %d %d", got.labels["#DIM"], got.labels["#OBJEKT"], c.dims, c.objekt)
			}
		})
	}
}
