package tests

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/sie/sietest"
)

// yearFigures are a year's trial balance per account: opening, net
// movement and closing, as text to the öre.
func (b *ledgerBooks) yearFigures(t *testing.T, period string) map[string][3]float64 {
	t.Helper()
	r := b.get(b.base+"/reports/trial-balance?period_id="+period, b.token).status(t, 200)
	out := map[string][3]float64{}
	for _, row := range r.list("data.rows") {
		m := row.(map[string]any)
		f := [3]float64{m["opening_balance"].(float64), round2(m["period_debit"].(float64) - m["period_credit"].(float64)),
			m["closing_balance"].(float64)}
		if f != [3]float64{} {
			out[m["account"].(string)] = f
		}
	}
	return out
}

func round2(f float64) float64 {
	if f < 0 {
		return -round2(-f)
	}
	return float64(int64(f*100+0.5)) / 100
}

// voucherNumbers are a #VER line's number field, for comparing files
// whose vouchers were renumbered.
var voucherNumbers = regexp.MustCompile(`(?m)^(#VER \S+) \d+ `)

// Undo restores the year as it was before the import, the opening
// balance too: the trial balance and the export equal those before it;
// import, undo and import again equal one import (the vouchers numbered
// after the ones the undone import took). A failed import wrote nothing:
// an identical retry starts anew; the undo answers 202 at once.
func TestSieImportUndoRestoresTheYear(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, clock(func() time.Time { return now }))
	b, one := ledgerOn(t, e), ledgerOn(t, e)
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 25, Opening: 75000, Split: true})

	beforeFigures, beforeFile := b.yearFigures(t, b.period), withoutGen(b.exportSie(t, b.period, ""))
	started := b.importSie(t, "bok.se", file, "").status(t, 202)
	if op, _ := b.imported(t, started); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	undo := act2(b, started.str("data.import_id"), "undo").status(t, 202)
	if done := b.operation(t, undo.str("data.operation_id")); done.str("data.status") != "succeeded" {
		t.Fatal(done.Body)
	}
	if got := b.yearFigures(t, b.period); !reflect.DeepEqual(got, beforeFigures) {
		t.Fatalf("after import and undo the trial balance is %v, was %v", got, beforeFigures)
	}
	if got := withoutGen(b.exportSie(t, b.period, "")); got != beforeFile {
		t.Fatalf("after import and undo the export is\n%s\nwas\n%s", got, beforeFile)
	}

	again := b.importSie(t, "bok.se", file, "").status(t, 202)
	if op, _ := b.imported(t, again); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	if op, _ := one.imported(t, one.importSie(t, "bok.se", file, "").status(t, 202)); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	want, got := one.yearFigures(t, one.period), b.yearFigures(t, b.period)
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("import, undo, import: %v\none import: %v", got, want)
	}
	wantFile := voucherNumbers.ReplaceAllString(withoutGen(one.exportSie(t, one.period, "")), "$1 N ")
	gotFile := voucherNumbers.ReplaceAllString(withoutGen(b.exportSie(t, b.period, "")), "$1 N ")
	if gotFile != wantFile || !strings.Contains(wantFile, "#IB 0 1930 75000.00") {
		t.Fatalf("import, undo, import exports\n%s\none import exports\n%s", gotFile, wantFile)
	}

	// A refused file wrote nothing: the same file again is a new import,
	// refused again; a completed import still answers its own retry.
	bad := []byte("#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n#VER A 1 20250105\n{\n#TRANS 1930 {} 1\n#TRANS 3001 {} -2\n}\n")
	one = ledgerOn(t, e)
	first := one.importSie(t, "fel.se", bad, "").status(t, 202)
	if op, _ := one.imported(t, first); op.str("data.status") != "failed" {
		t.Fatal(op.Body)
	}
	retry := one.importSie(t, "fel.se", bad, "").status(t, 202)
	if retry.str("data.import_id") == first.str("data.import_id") {
		t.Fatalf("a failed import answered its retry: %s", retry.Body)
	}
	if op, imp := one.imported(t, retry); op.str("data.status") != "failed" || imp.str("data.state") != "failed" {
		t.Fatalf("retry: %s\n%s", op.Body, imp.Body)
	}
}
