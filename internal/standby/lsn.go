package standby

import (
	"fmt"
	"strconv"
	"strings"
)

// LSN is a position in the primary's write-ahead log, as PostgreSQL writes
// it ("16/B374D848": the high and low 32 bits in hexadecimal). A commit is
// visible on a replica once the replica has replayed past its position.
type LSN uint64

// ParseLSN reads a position as PostgreSQL writes it.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("%q is not a WAL position such as 16/B374D848", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a WAL position such as 16/B374D848", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a WAL position such as 16/B374D848", s)
	}
	return LSN(h<<32 | l), nil
}

// String writes the position as PostgreSQL does.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

// Scan reads a pg_lsn column.
func (l *LSN) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("standby: a pg_lsn from %T", src)
	}
	p, err := ParseLSN(s)
	*l = p
	return err
}
