package reconciliation

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/money"
)

// SkattekontoAccount is the ledger account of the tax account (BAS 1630
// Avräkning för skatter och avgifter).
const SkattekontoAccount = "1630"

// MaxStatement is the largest skattekonto file taken.
const MaxStatement = 10 << 20

// Statement is a skattekonto file as read: its opening saldo, if it
// states one, and its rows oldest first.
type Statement struct {
	Encoding  string
	Delimiter string
	Opening   *Opening
	Rows      []StatementRow
}

// Opening is the saldo the account held when the statement starts (its
// "Ingående saldo" row), on that row's day.
type Opening struct {
	Date  time.Time
	Saldo money.Amount
}

// StatementRow is one transaction of the statement. Saldo is the account
// after it; an upcoming row (a coming debit, not yet drawn) has none and
// does not move the saldo.
type StatementRow struct {
	Line        int
	Date        time.Time
	Description string
	Amount      money.Amount
	Saldo       *money.Amount
	Upcoming    bool
}

// The columns a statement is read by, each under the names Skatteverket
// and the programs exporting its account use (folded).
var statementColumns = []struct {
	key     string
	aliases []string
}{
	{"date", []string{"datum", "transaktionsdatum", "bokföringsdatum", "bokföringsdag", "date"}},
	{"text", []string{"text", "specifikation", "transaktionstext", "beskrivning", "description"}},
	{"amount", []string{"belopp", "amount"}},
	{"saldo", []string{"saldo", "balance"}},
}

// columnName is what the file of the README calls a column, for errors.
var columnName = map[string]string{"date": "Datum", "text": "Text", "amount": "Belopp", "saldo": "Saldo"}

// ParseStatement reads a skattekonto file: UTF-8 or Windows-1252, ';',
// ',' or tab between cells (as bank files are read), a header naming Datum (or Transaktionsdatum), Text
// (or Specifikation), Belopp and Saldo within its first twelve lines,
// amounts as "-1 234,00" (no-break spaces and U+2212 read too), an
// "Ingående saldo" row, rows newest or oldest first. A row without a
// saldo, or whose text says "kommande", is an upcoming debit. Each saldo
// must be the one before plus the row's amount. Anything else is
// SKATTEKONTO_FILE_INVALID naming the line and column.
func ParseStatement(raw []byte) (Statement, error) {
	text, enc, err := banking.Text(raw)
	var te *banking.TextError
	if errors.As(err, &te) {
		// Text no column can hold (a NUL, bytes of no encoding read):
		// unreadable, as a bank file's.
		return Statement{}, apierr.New(apierr.BankFileUnreadable, map[string]any{"reason": te.Error(), "field": "file",
			"line": te.Line})
	}
	if err != nil {
		return Statement{}, invalidFile(0, "", err.Error())
	}
	lines := strings.Split(text, "\n")
	head, cols, sep := -1, map[string]int{}, ';'
	for i := 0; i < min(len(lines), 12) && head < 0; i++ {
		sep = banking.Delimiter(lines[i])
		found := map[string]int{}
		for j, cell := range strings.Split(strings.TrimRight(lines[i], "\r"), string(sep)) {
			cell = strings.ToLower(strings.Trim(strings.TrimSpace(strings.TrimPrefix(cell, "\ufeff")), `"`))
			for _, c := range statementColumns {
				if _, dup := found[c.key]; !dup && slices.Contains(c.aliases, cell) {
					found[c.key] = j
				}
			}
		}
		if len(found) == len(statementColumns) {
			head, cols = i, found
		}
	}
	if head < 0 {
		return Statement{}, invalidFile(1, "", "no header line naming Datum, Text, Belopp and Saldo in the first 12 lines")
	}
	st := Statement{Encoding: enc, Delimiter: string(sep)}
	r := csv.NewReader(strings.NewReader(strings.Join(lines[head+1:], "\n")))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes, r.TrimLeadingSpace = sep, -1, true, true
	var rows []StatementRow
	var openings []StatementRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		line += head + 1
		if err != nil {
			return st, invalidFile(line, "", err.Error())
		}
		cell := func(key string) string {
			if i := cols[key]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if strings.Join(rec, "") == "" {
			continue
		}
		row := StatementRow{Line: line, Description: cell("text")}
		if row.Date, err = banking.ParseDay(cell("date")); err != nil {
			return st, invalidFile(line, "date", err.Error())
		}
		if s := cell("saldo"); s != "" {
			a, err := banking.ParseAmount(s)
			if err != nil || a.OverMax() {
				return st, invalidFile(line, "saldo", fmt.Sprintf("not an amount: %q", s))
			}
			row.Saldo = &a
		}
		folded := strings.ToLower(row.Description)
		if strings.HasPrefix(folded, "ingående saldo") || strings.HasPrefix(folded, "utgående saldo") {
			if row.Saldo == nil {
				return st, invalidFile(line, "saldo", row.Description+" without a saldo")
			}
			if strings.HasPrefix(folded, "ingående") {
				openings = append(openings, row)
			} else {
				row.Upcoming = true // a check, not a movement: marked and dropped below
				row.Description = ""
				rows = append(rows, row)
			}
			continue
		}
		if row.Description == "" {
			return st, invalidFile(line, "text", "the row has no text")
		}
		a, err := banking.ParseAmount(cell("amount"))
		if err != nil || a.OverMax() {
			return st, invalidFile(line, "amount", fmt.Sprintf("not an amount: %q", cell("amount")))
		}
		row.Amount = a
		row.Upcoming = row.Saldo == nil || strings.Contains(folded, "kommande")
		if row.Upcoming && row.Amount.Sign() > 0 {
			return st, invalidFile(line, "saldo", "a row without a saldo is a coming debit, but this one is money in")
		}
		rows = append(rows, row)
	}
	if len(openings) > 1 {
		return st, invalidFile(openings[1].Line, "text", "a second Ingående saldo row")
	}
	// Newest first (as the account is shown) is turned oldest first.
	if first, last := firstDated(rows, openings, false), firstDated(rows, openings, true); first.After(last) {
		slices.Reverse(rows)
	}
	if len(openings) == 1 {
		o := openings[0]
		st.Opening = &Opening{Date: o.Date, Saldo: *o.Saldo}
	}
	var saldo *money.Amount
	if st.Opening != nil {
		s := st.Opening.Saldo
		saldo = &s
	}
	for _, row := range rows {
		if row.Description == "" { // an Utgående saldo row
			if saldo != nil && row.Saldo.Cmp(*saldo) != 0 {
				return st, invalidFile(row.Line, "saldo", fmt.Sprintf("Utgående saldo %s, the rows make %s", row.Saldo, saldo))
			}
			continue
		}
		if st.Opening != nil && row.Date.Before(st.Opening.Date) {
			return st, invalidFile(row.Line, "date", "the row is dated before the Ingående saldo")
		}
		if row.Upcoming {
			st.Rows = append(st.Rows, row)
			continue
		}
		if saldo == nil {
			s := row.Saldo.Sub(row.Amount)
			saldo = &s
			st.Opening = &Opening{Date: row.Date, Saldo: s}
		}
		want := saldo.Add(row.Amount)
		if row.Saldo.Cmp(want) != 0 {
			return st, invalidFile(row.Line, "saldo", fmt.Sprintf("saldo %s, but the saldo before (%s) plus the amount (%s) is %s",
				row.Saldo, saldo, row.Amount, want))
		}
		saldo = &want
		st.Rows = append(st.Rows, row)
	}
	if len(st.Rows) == 0 && st.Opening == nil {
		return st, invalidFile(head+2, "", "the file holds no rows")
	}
	return st, nil
}

// firstDated is the date of the first (or last) dated row of the file,
// in file order.
func firstDated(rows, openings []StatementRow, last bool) time.Time {
	all := append(slices.Clone(rows), openings...)
	slices.SortStableFunc(all, func(a, b StatementRow) int { return a.Line - b.Line })
	if len(all) == 0 {
		return time.Time{}
	}
	if last {
		return all[len(all)-1].Date
	}
	return all[0].Date
}

func invalidFile(line int, column, reason string) error {
	d := map[string]any{"reason": reason, "field": "file"}
	if line > 0 {
		d["line"] = line
	}
	if column != "" {
		d["column"] = columnName[column]
	}
	return apierr.New(apierr.SkattekontoFileInvalid, d)
}
