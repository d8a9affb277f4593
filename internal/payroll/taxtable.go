package payroll

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The general tables Skatteverket publishes each year (SKV 434) run from
// table 29 to 42; columns 1 to 6 stand for the kinds of income the
// employee's skattebesked names.
const (
	MinTable   = 29
	MaxTable   = 42
	MinColumn  = 1
	MaxColumn  = 6
	lineLength = 49
)

// TaxRow is one line of a month table: the tax on a monthly income from
// From to To kronor (To 0: no upper bound, the top row), in kronor per
// column, or in percent of the whole income when Percent is set.
type TaxRow struct {
	Table   int
	Percent bool
	From    int64
	To      int64
	Columns [MaxColumn]int64
}

// TaxTables are one year's month tables as Skatteverket published them:
// the file's rows by table, and the file's SHA-256 and source, so a
// payslip can say which publication its tax came from.
type TaxTables struct {
	Year   int
	SHA256 string
	Source string
	tables map[int][]TaxRow
}

// ParseTaxTables reads Skatteverket's month tables in the fixed-width
// text form of its open data (allmanna-tabeller-manad.txt, described in
// "Postbeskrivning allmänna tabeller"). Each line has 49 characters:
//
//	1–2   period: 30 for the month tables (14, the two-week tables, is refused)
//	3     B: the columns are kronor; %: percent of the whole income
//	4–5   table number, 29–42
//	6–12  income from, kronor
//	13–19 income to, kronor; blank on a table's top row
//	20–49 columns 1–6, five characters each
//
// The columns are cut by position, never split on blanks: wide values
// run together ("65871005310053"). Every table must cover every income
// from 1 krona up without a gap and end in an open top row.
func ParseTaxTables(raw []byte, year int, source string) (*TaxTables, error) {
	sum := sha256.Sum256(raw)
	t := &TaxTables{Year: year, SHA256: hex.EncodeToString(sum[:]), Source: source, tables: map[int][]TaxRow{}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		r, err := parseTaxRow(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		t.tables[r.Table] = append(t.tables[r.Table], r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.tables) == 0 {
		return nil, fmt.Errorf("no table rows")
	}
	for no, rows := range t.tables {
		sort.Slice(rows, func(i, j int) bool { return rows[i].From < rows[j].From })
		if err := covers(no, rows); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func parseTaxRow(line string) (TaxRow, error) {
	if len(line) < lineLength {
		// Trailing blanks of a row whose last column is empty may be cut.
		line += strings.Repeat(" ", lineLength-len(line))
	}
	if len(line) != lineLength {
		return TaxRow{}, fmt.Errorf("%d characters, not %d", len(line), lineLength)
	}
	var r TaxRow
	switch line[:2] {
	case "30":
	case "14":
		return r, fmt.Errorf("a two-week table row (%q): load the month tables (allmanna-tabeller-manad.txt)", line[:5])
	default:
		return r, fmt.Errorf("period %q is not the month tables' 30", line[:2])
	}
	switch line[2] {
	case 'B':
	case '%':
		r.Percent = true
	default:
		return r, fmt.Errorf("kind %q is neither B nor %%", line[2:3])
	}
	var err error
	no, err := number(line[3:5], "table", false)
	if err != nil {
		return r, err
	}
	if no < MinTable || no > MaxTable {
		return r, fmt.Errorf("table %d is outside %d–%d", no, MinTable, MaxTable)
	}
	r.Table = int(no)
	if r.From, err = number(line[5:12], "income from", false); err != nil {
		return r, err
	}
	if r.To, err = number(line[12:19], "income to", true); err != nil {
		return r, err
	}
	if strings.TrimSpace(line[12:19]) != "" && r.To < r.From {
		return r, fmt.Errorf("income to %d is below income from %d", r.To, r.From)
	}
	for c := 0; c < MaxColumn; c++ {
		at := 19 + 5*c
		if r.Columns[c], err = number(line[at:at+5], "column "+strconv.Itoa(c+1), true); err != nil {
			return r, err
		}
		if r.Percent && r.Columns[c] > 100 {
			return r, fmt.Errorf("column %d: %d percent", c+1, r.Columns[c])
		}
	}
	return r, nil
}

// number reads a right-aligned field of digits; blank reads as 0 where
// blank may be.
func number(field, name string, blank bool) (int64, error) {
	s := strings.TrimSpace(field)
	if s == "" {
		if blank {
			return 0, nil
		}
		return 0, fmt.Errorf("%s is blank", name)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s %q is not a whole number of kronor", name, field)
	}
	return v, nil
}

// covers checks that a table's rows, sorted, run from 1 krona up without
// gap or overlap and end in one open top row.
func covers(no int, rows []TaxRow) error {
	next := rows[0].From
	if next > 1 {
		return fmt.Errorf("table %d: the first row starts at %d kronor, not 1", no, next)
	}
	for i, r := range rows {
		if r.From != next {
			return fmt.Errorf("table %d: a row starts at %d kronor, expected %d", no, r.From, next)
		}
		if r.To == 0 {
			if i != len(rows)-1 {
				return fmt.Errorf("table %d: an open row at %d kronor before the last", no, r.From)
			}
			return nil
		}
		next = r.To + 1
	}
	return fmt.Errorf("table %d: no open top row after %d kronor", no, next-1)
}

// Tables lists the table numbers the file holds.
func (t *TaxTables) Tables() []int {
	out := make([]int, 0, len(t.tables))
	for no := range t.tables {
		out = append(out, no)
	}
	sort.Ints(out)
	return out
}

// Rows counts the file's rows.
func (t *TaxTables) Rows() int {
	n := 0
	for _, rows := range t.tables {
		n += len(rows)
	}
	return n
}

// TableTax is the withholding a month table gives, and the row it came
// from.
type TableTax struct {
	Kronor int64
	Row    TaxRow
}

// Withhold answers the tax on a month's taxable income in whole kronor
// by table and column (SFL 11 kap. 8 §, SKV 434): a B row's kronor, or a
// % row's percent of the whole income with the öre dropped. Nothing is
// withheld on no income. ok is false when the file has no such table.
func (t *TaxTables) Withhold(table, column int, income int64) (TableTax, bool) {
	rows, found := t.tables[table]
	if !found || column < MinColumn || column > MaxColumn {
		return TableTax{}, false
	}
	if income <= 0 {
		return TableTax{}, true
	}
	i := sort.Search(len(rows), func(i int) bool { return rows[i].To == 0 || rows[i].To >= income })
	if i == len(rows) || rows[i].From > income {
		return TableTax{}, true // below the first row: nothing
	}
	r := rows[i]
	v := r.Columns[column-1]
	if r.Percent {
		v = income * v / 100
	}
	return TableTax{Kronor: v, Row: r}, true
}
