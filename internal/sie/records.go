package sie

import (
	"strconv"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// RowKind tells a voucher's rows apart: kept, added afterwards (#RTRANS)
// or struck out afterwards (#BTRANS).
type RowKind int

// The kinds of a voucher row.
const (
	Kept RowKind = iota
	Added
	Struck
)

// Object is one tag of a row or balance: a dimension number and an
// object code.
type Object struct {
	Dim  string
	Code string
}

// Row is one row of a voucher.
type Row struct {
	Line     int
	Kind     RowKind
	Account  string
	Objects  []Object
	Amount   money.Amount
	Date     *time.Time // transdat; nil = the voucher's date
	Text     string
	Quantity string
	Sign     string
}

// Voucher is a #VER with its rows. An #RTRANS row stands for the #TRANS
// twin that follows it, which is not repeated here.
type Voucher struct {
	Line    int
	Offset  int64
	Series  string
	Number  string
	Date    time.Time
	Text    string
	RegDate *time.Time
	Sign    string
	Rows    []Row
}

// Untitled is the text a verifikat booked from a #VER without one
// carries (a verifikat needs a text); a writer gives such a verifikat no
// text again.
func Untitled(series, number string) string {
	return "Verifikat " + strings.TrimSpace(series+" "+number) + " (SIE-import)"
}

// Sum is the total of the rows that count (kept and added): zero for a
// balanced voucher.
func (v Voucher) Sum() money.Amount {
	var s money.Amount
	for _, r := range v.Rows {
		if r.Kind != Struck {
			s = s.Add(r.Amount)
		}
	}
	return s
}

// ParseVoucher reads a #VER record and its body. It returns every
// problem it finds in it; a voucher with problems is not to be booked.
func ParseVoucher(rec Record) (Voucher, []Problem) {
	var probs []Problem
	bad := func(line int, record, issue string) {
		probs = append(probs, Problem{Line: line, Record: record, Issue: issue})
	}
	v := Voucher{Line: rec.Line, Offset: rec.Offset, Series: rec.Text(0), Number: rec.Text(1), Text: rec.Text(3), Sign: rec.Text(5)}
	if len(rec.Fields) < 3 {
		bad(rec.Line, "#VER", "a #VER needs series, number and date")
	} else if d, ok := Date(rec.Text(2)); ok {
		v.Date = d
	} else {
		bad(rec.Line, "#VER", "the voucher date "+strconv.Quote(rec.Text(2))+" is not a date YYYYMMDD")
	}
	if s := rec.Text(4); s != "" {
		if d, ok := Date(s); ok {
			v.RegDate = &d
		} else {
			bad(rec.Line, "#VER", "the registration date "+strconv.Quote(s)+" is not a date YYYYMMDD")
		}
	}
	skipTwin := false
	var last Row
	for _, b := range rec.Body {
		var kind RowKind
		switch b.Label {
		case "#TRANS":
			kind = Kept
		case "#RTRANS":
			kind = Added
		case "#BTRANS":
			kind = Struck
		default:
			// Unknown labels inside a voucher are ignored as anywhere.
			skipTwin = false
			continue
		}
		row, p := parseRow(b, kind)
		if p != nil {
			probs = append(probs, *p)
			skipTwin = false
			continue
		}
		if skipTwin && kind == Kept && sameRow(row, last) {
			skipTwin = false
			continue
		}
		skipTwin = kind == Added
		last = row
		v.Rows = append(v.Rows, row)
	}
	if len(probs) == 0 {
		if s := v.Sum(); !s.IsZero() {
			bad(rec.Line, "#VER", "the voucher's rows sum to "+s.String()+", not 0")
		}
	}
	return v, probs
}

// sameRow reports whether a #TRANS is the twin of the #RTRANS before it.
func sameRow(a, b Row) bool {
	if a.Account != b.Account || a.Amount.Cmp(b.Amount) != 0 || len(a.Objects) != len(b.Objects) {
		return false
	}
	for i := range a.Objects {
		if a.Objects[i] != b.Objects[i] {
			return false
		}
	}
	return true
}

// parseRow reads one #TRANS, #RTRANS or #BTRANS: account {objects}
// amount [transdate] [transtext] [quantity] [sign].
func parseRow(b Record, kind RowKind) (Row, *Problem) {
	bad := func(issue string) (Row, *Problem) {
		return Row{}, &Problem{Line: b.Line, Record: b.Label, Issue: issue}
	}
	if len(b.Fields) < 3 {
		return bad("a row needs account, object list and amount")
	}
	r := Row{Line: b.Line, Kind: kind, Account: b.Text(0), Text: b.Text(4), Quantity: b.Text(5), Sign: b.Text(6)}
	if !digits(r.Account) {
		return bad("the account " + strconv.Quote(r.Account) + " is not a number")
	}
	objs, ok := objects(b.Fields[1])
	if !ok {
		return bad("the object list must hold pairs of dimension number and object code")
	}
	r.Objects = objs
	a, ok := Amount(b.Text(2))
	if !ok {
		return bad("the amount " + strconv.Quote(b.Text(2)) + " is not an amount with at most two decimals")
	}
	r.Amount = a
	if s := b.Text(3); s != "" {
		d, ok := Date(s)
		if !ok {
			return bad("the transaction date " + strconv.Quote(s) + " is not a date YYYYMMDD")
		}
		r.Date = &d
	}
	return r, nil
}

// objects reads an object list field; a text field in its place (some
// writers leave the braces out when there are none) must be empty.
func objects(f Field) ([]Object, bool) {
	if !f.IsList {
		return nil, f.Text == ""
	}
	if len(f.List)%2 != 0 {
		return nil, false
	}
	var out []Object
	for i := 0; i < len(f.List); i += 2 {
		if !digits(f.List[i]) || f.List[i+1] == "" {
			return nil, false
		}
		out = append(out, Object{Dim: trimZeros(f.List[i]), Code: f.List[i+1]})
	}
	return out, true
}

// trimZeros writes a dimension number the one way: "06" is 6.
func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

// Balance is an #IB, #UB, #RES or #PSALDO record: year 0 is the file's
// current year, -1 the one before; Period (YYYYMM) only for #PSALDO.
type Balance struct {
	Line    int
	Label   string
	Year    int
	Period  string
	Account string
	Objects []Object
	Amount  money.Amount
}

// ParseBalance reads #IB, #UB, #RES (year account amount) and #PSALDO,
// #OIB, #OUB (with period and/or objects).
func ParseBalance(rec Record) (Balance, *Problem) {
	bad := func(issue string) (Balance, *Problem) {
		return Balance{}, &Problem{Line: rec.Line, Record: rec.Label, Issue: issue}
	}
	b := Balance{Line: rec.Line, Label: rec.Label}
	y, err := strconv.Atoi(rec.Text(0))
	if err != nil || y > 0 || y < -99 {
		return bad("the year number " + strconv.Quote(rec.Text(0)) + " must be 0, -1, -2 ...")
	}
	b.Year = y
	i := 1
	if rec.Label == "#PSALDO" || rec.Label == "#PBUDGET" {
		p := rec.Text(1)
		if len(p) != 6 || !digits(p) {
			return bad("the period " + strconv.Quote(p) + " is not a month YYYYMM")
		}
		b.Period = p
		i = 2
	}
	b.Account = rec.Text(i)
	if !digits(b.Account) {
		return bad("the account " + strconv.Quote(b.Account) + " is not a number")
	}
	i++
	if rec.Label == "#PSALDO" || rec.Label == "#PBUDGET" || rec.Label == "#OIB" || rec.Label == "#OUB" {
		if i >= len(rec.Fields) {
			return bad("the object list is missing")
		}
		objs, ok := objects(rec.Fields[i])
		if !ok {
			return bad("the object list must hold pairs of dimension number and object code")
		}
		b.Objects = objs
		i++
	}
	a, ok := Amount(rec.Text(i))
	if !ok {
		return bad("the balance " + strconv.Quote(rec.Text(i)) + " is not an amount with at most two decimals")
	}
	b.Amount = a
	return b, nil
}

// Amount reads an amount as SIE writes it: an optional minus, digits,
// and at most two decimals after a point ("500", "-3142.1", "12.50").
func Amount(s string) (money.Amount, bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	decimals := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			decimals++
		}
	}
	if i != len(s) || intDigits+decimals == 0 || decimals > 2 || intDigits > money.MaxDigits-2 {
		return money.Amount{}, false
	}
	a, err := money.Parse(s)
	return a, err == nil
}

// Date reads a date YYYYMMDD.
func Date(s string) (time.Time, bool) {
	if len(s) != 8 || !digits(s) {
		return time.Time{}, false
	}
	d, err := time.Parse("20060102", s)
	return d, err == nil
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
