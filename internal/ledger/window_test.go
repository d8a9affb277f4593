package ledger_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/pgtest"
)

// The compliance check reads the numbers of only the series the ledger
// does not know to be gapless; what it finds must not change for it.
func TestGapsReadOnlyTheSeriesThatMayHaveOne(t *testing.T) {
	app, owner := pgtest.NewPair(t)
	b := newBooksOn(t, app)
	ctx := context.Background()
	for range 2 { // A 1, A 2 by the single path
		if _, err := b.ledger.Post(ctx, b.company, b.sale("2026-01-10")); err != nil {
			t.Fatal(err)
		}
	}
	batch := func(entries ...ledger.BatchEntry) {
		t.Helper()
		if err := b.inTx(func(ctx context.Context) error {
			_, err := b.ledger.PostBatch(ctx, b.company, entries)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	batch(b.batchEntry("LEV1", 7, "2026-02-01", "10"), b.batchEntry("LEV1", 9, "2026-02-03", "20"),
		b.batchEntry("B", 1, "2026-02-01", "1"), b.batchEntry("B", 2, "2026-02-01", "2"), b.batchEntry("B", 3, "2026-02-01", "3"))
	gapless := func() string {
		t.Helper()
		var rows []struct {
			Series  string `db:"voucher_series"`
			Gapless *bool  `db:"gapless"`
		}
		if err := b.db.Select(&rows, `SELECT voucher_series, gapless FROM voucher_sequences WHERE company_id = $1
			ORDER BY voucher_series`, b.company); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			v := "null"
			if r.Gapless != nil {
				v = fmt.Sprint(*r.Gapless)
			}
			out = append(out, r.Series+":"+v)
		}
		return strings.Join(out, " ")
	}
	gaps := func() string {
		t.Helper()
		list, err := b.ledger.Gaps(ctx, b.company, b.period.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range list {
			out = append(out, fmt.Sprintf("%s%d", g.Series, g.Number))
		}
		return strings.Join(out, " ")
	}
	if got := gapless(); got != "A:true B:true LEV1:false" {
		t.Fatalf("gapless after the first import: %s", got)
	}
	if got := gaps(); got != "LEV11 LEV12 LEV13 LEV14 LEV15 LEV16 LEV18" {
		t.Fatalf("gaps: %s", got)
	}
	// B 5 leaves B 4 out: B is no longer gapless, and stays so.
	batch(b.batchEntry("B", 5, "2026-03-01", "5"))
	if _, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-10")); err != nil { // A 3
		t.Fatal(err)
	}
	if got := gapless(); got != "A:true B:false LEV1:false" {
		t.Fatalf("gapless after B 5: %s", got)
	}
	want := "B4 LEV11 LEV12 LEV13 LEV14 LEV15 LEV16 LEV18"
	if got := gaps(); got != want {
		t.Fatalf("gaps: %s", got)
	}

	// Series from before migration 00067 are not known (NULL): read, and
	// counted by the migration's backfill.
	for _, q := range []string{`ALTER TABLE voucher_sequences DISABLE TRIGGER voucher_sequences_derived`,
		`UPDATE voucher_sequences SET gapless = NULL`,
		`ALTER TABLE voucher_sequences ENABLE TRIGGER voucher_sequences_derived`} {
		if _, err := owner.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if got := gaps(); got != want {
		t.Fatalf("gaps, nothing known: %s", got)
	}
	src, err := os.ReadFile("../../db/migrations/00067_voucher_gapless.sql")
	if err != nil {
		t.Fatal(err)
	}
	up := string(src)
	up = up[strings.Index(up, "-- The backfill."):strings.Index(up, "-- +goose Down")]
	// The backfill's statements as goose runs them: each block between
	// its markers, then the plain statement after them.
	for _, stmt := range strings.Split(up, "-- +goose StatementEnd") {
		if _, body, ok := strings.Cut(stmt, "-- +goose StatementBegin"); ok {
			stmt = body
		}
		if stmt = strings.TrimSpace(stmt); stmt == "" {
			continue
		}
		if _, err := owner.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	if got := gapless(); got != "A:true B:false LEV1:false" {
		t.Fatalf("gapless after the backfill: %s", got)
	}
	if got := gaps(); got != want {
		t.Fatalf("gaps after the backfill: %s", got)
	}
}

// A window cutting a month reads whichever side of the cut is shorter;
// the sums are the same either way.
func TestWindowCuttingMonths(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	for _, d := range []string{"2026-03-03", "2026-03-10", "2026-03-20", "2026-03-28"} {
		if _, err := b.ledger.Post(ctx, b.company, b.sale(d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		from, to string
		sales    int // of 1 000 on 3001, 1 250 on 1930
	}{
		{"2026-03-09", "2026-03-12", 1}, // four days: read themselves
		{"2026-03-05", "2026-03-31", 3}, // 27 days: the month less 1-4 March
		{"2026-03-05", "2026-03-25", 2}, // the month less 1-4 and 26-31 March
		{"2026-02-20", "2026-03-20", 3}, // February empty; March less 21-31
		{"2026-03-01", "2026-03-31", 4}, // whole
		{"2026-03-04", "2026-03-09", 0},
	} {
		rows, err := b.ledger.Window(ctx, b.company, day(c.from), day(c.to), "1930", "3001", false)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows {
			got[r.Account] = r.Debit.Sub(r.Credit).String()
		}
		want := map[string]string{}
		if c.sales > 0 {
			want["1930"] = fmt.Sprintf("%d.00", 1250*c.sales)
			want["3001"] = fmt.Sprintf("%d.00", -1000*c.sales)
			want["2611"] = fmt.Sprintf("%d.00", -250*c.sales)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s..%s: %v, want %v", c.from, c.to, got, want)
		}
	}
}
