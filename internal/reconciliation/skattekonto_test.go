package reconciliation

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestParseStatementBothDialects(t *testing.T) {
	a, err := ParseStatement(readFixture(t, "skattekonto_utf8_comma.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseStatement(readFixture(t, "skattekonto_1252_semicolon.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Encoding != "utf-8" || a.Delimiter != "," || b.Encoding != "windows-1252" || b.Delimiter != ";" {
		t.Fatalf("read as %s/%s and %s/%s", a.Encoding, a.Delimiter, b.Encoding, b.Delimiter)
	}
	if a.Opening == nil || a.Opening.Saldo.String() != "1250.00" || a.Opening.Date.Format("2006-01-02") != "2026-10-01" {
		t.Fatalf("opening %+v", a.Opening)
	}
	if len(a.Rows) != 7 {
		t.Fatalf("%d rows", len(a.Rows))
	}
	// The same rows, whichever order and dialect: lines aside.
	strip := func(s Statement) []StatementRow {
		out := make([]StatementRow, len(s.Rows))
		for i, r := range s.Rows {
			r.Line = 0
			out[i] = r
		}
		return out
	}
	if !reflect.DeepEqual(strip(a), strip(b)) || !reflect.DeepEqual(a.Opening, b.Opening) {
		t.Fatalf("the dialects differ:\n%+v\n%+v", strip(a), strip(b))
	}
	last := a.Rows[len(a.Rows)-1]
	if !last.Upcoming || last.Saldo != nil || last.Amount.String() != "-8500.00" {
		t.Fatalf("the coming debit: %+v", last)
	}
	if r := a.Rows[1]; r.Description != "Debiterad preliminärskatt" || r.Amount.String() != "-8500.00" || r.Saldo.String() != "22750.00" {
		t.Fatalf("row 2: %+v", r)
	}
}

func TestParseStatementRefusals(t *testing.T) {
	for _, c := range []struct {
		name, file   string
		line         int
		column, frag string
	}{
		{"saldo break", "Datum;Text;Belopp;Saldo\n2026-01-01;Ingående saldo;;100,00\n2026-01-12;Inbetalning;50,00;150,00\n2026-01-13;Moms;-20,00;120,00\n",
			4, "Saldo", "plus the amount"},
		{"bad date", "Datum;Text;Belopp;Saldo\n2026-13-01;Inbetalning;50,00;150,00\n", 2, "Datum", "not a date"},
		{"bad amount", "Datum;Text;Belopp;Saldo\n2026-01-01;Inbetalning;5o,00;150,00\n", 2, "Belopp", "not an amount"},
		{"no header", "a;b;c\n1;2;3\n", 1, "", "no header"},
		{"money in without saldo", "Datum;Text;Belopp;Saldo\n2026-01-01;Inbetalning;50,00;\n", 2, "Saldo", "coming debit"},
		{"before opening", "Datum;Text;Belopp;Saldo\n2026-02-01;Ingående saldo;;0\n2026-01-12;Inbetalning;50,00;50,00\n", 3, "Datum", "before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseStatement([]byte(c.file))
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.SkattekontoFileInvalid {
				t.Fatalf("got %v", err)
			}
			if e.Details["line"] != c.line || c.column != "" && e.Details["column"] != c.column ||
				!strings.Contains(e.Details["reason"].(string), c.frag) {
				t.Fatalf("details %v", e.Details)
			}
		})
	}
}
