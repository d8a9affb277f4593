package payroll

import (
	"strings"
	"testing"
)

func TestParseTaxTablesFixture(t *testing.T) {
	tt := fixtureTables(t)
	if tt.Rows() != 34 || len(tt.Tables()) != 14 || len(tt.SHA256) != 64 || tt.Year != 2026 {
		t.Fatalf("%d rows, tables %v, sha %q", tt.Rows(), tt.Tables(), tt.SHA256)
	}
	cases := []struct {
		table, column int
		income, want  int64
	}{
		{30, 1, 34338, 6359}, {30, 1, 28224, 4986}, {30, 1, 24516, 4117},
		{30, 1, 34401, 6587}, {30, 2, 34401, 10053}, {30, 6, 80000, 10053}, // columns that run together
		{30, 1, 80001, 26400}, {30, 6, 1000000, 290000}, // % rows: of the whole income, öre dropped
		{30, 1, 0, 0}, {30, 2, 1, 0}, {31, 3, 80000, 2000},
	}
	for _, c := range cases {
		got, ok := tt.Withhold(c.table, c.column, c.income)
		if !ok || got.Kronor != c.want {
			t.Errorf("table %d column %d on %d: %d (%v), want %d", c.table, c.column, c.income, got.Kronor, ok, c.want)
		}
	}
	if _, ok := tt.Withhold(28, 1, 30000); ok {
		t.Error("a table the file lacks answered")
	}
	if _, ok := tt.Withhold(30, 7, 30000); ok {
		t.Error("column 7 answered")
	}
}

func TestParseTaxTablesRefusals(t *testing.T) {
	good := "30B30      1  80000 1000 1000 1000 1000 1000 1000\n30%30  80001          33   30   31   30   32   29\n"
	if _, err := ParseTaxTables([]byte(good), 2026, ""); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"two-week":  "14B30      1  80000 1000 1000 1000 1000 1000 1000\n",
		"kind":      "30X30      1  80000 1000 1000 1000 1000 1000 1000\n",
		"table":     "30B43      1  80000 1000 1000 1000 1000 1000 1000\n",
		"long":      "30B30      1  80000 1000 1000 1000 1000 1000 1000 9\n",
		"gap":       "30B30      1  70000 1000 1000 1000 1000 1000 1000\n30%30  80001          33   30   31   30   32   29\n",
		"no top":    "30B30      1  80000 1000 1000 1000 1000 1000 1000\n",
		"two tops":  "30%30      1          33   30   31   30   32   29\n30%30  80001          33   30   31   30   32   29\n",
		"letters":   "30B30      1  8000A 1000 1000 1000 1000 1000 1000\n",
		"percent":   "30B30      1  80000 1000 1000 1000 1000 1000 1000\n30%30  80001         133   30   31   30   32   29\n",
		"empty":     "\n\n",
		"backwards": "30B30      1      0 1000 1000 1000 1000 1000 1000\n",
	}
	for name, raw := range cases {
		if _, err := ParseTaxTables([]byte(raw), 2026, ""); err == nil {
			t.Errorf("%s: read", name)
		} else if name == "two-week" && !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
