package ledger_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
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
	runBackfill(t, owner, "00067_voucher_gapless.sql", "-- The backfill.")
	if got := gapless(); got != "A:true B:false LEV1:false" {
		t.Fatalf("gapless after the backfill: %s", got)
	}
	if got := gaps(); got != want {
		t.Fatalf("gaps after the backfill: %s", got)
	}
}

// A window cutting a month sums the days it holds, at either end of the
// month, both ends, or none of its postings.
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
		{"2026-03-09", "2026-03-12", 1}, // four days
		{"2026-03-05", "2026-03-31", 3}, // from the 5th
		{"2026-03-05", "2026-03-25", 2}, // the 5th to the 25th
		{"2026-02-20", "2026-03-20", 3}, // February empty; March to the 20th
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

// The day totals follow every way the general ledger changes: a posting,
// a batch, a storno, a line struck and added, a date corrected; they
// equal the postings summed by day, and a year still pending (after an
// upgrade) is read from the postings themselves and summed by the
// migration's backfill to the same figures.
func TestDayTotalsFollowTheLedger(t *testing.T) {
	app, owner := pgtest.NewPair(t)
	b := newBooksOn(t, app)
	ctx := context.Background()
	var sales []ledger.Entry
	for _, d := range []string{"2026-03-03", "2026-03-10", "2026-03-20", "2026-03-28"} {
		e, err := b.ledger.Post(ctx, b.company, b.sale(d))
		if err != nil {
			t.Fatal(err)
		}
		sales = append(sales, e)
	}
	in := func(fn func(ctx context.Context) error) {
		t.Helper()
		if err := b.inTx(fn); err != nil {
			t.Fatal(err)
		}
	}
	in(func(ctx context.Context) error {
		_, err := b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{b.batchEntry("I", 1, "2026-03-12", "70.50")})
		return err
	})
	in(func(ctx context.Context) error {
		_, err := b.ledger.Reverse(ctx, b.company, sales[1].ID, day("2026-03-25"), false)
		return err
	})
	in(func(ctx context.Context) error { // 2611 250 struck, 2611 200 and 2612 50 added
		var vat uuid.UUID
		for _, l := range sales[2].Lines {
			if l.Account == "2611" {
				vat = l.ID
			}
		}
		_, err := b.ledger.StrikeLines(ctx, b.company, sales[2].ID, []uuid.UUID{vat},
			[]ledger.Line{{Account: "2611", Credit: amount("200")}, {Account: "2612", Credit: amount("50")}})
		return err
	})
	in(func(ctx context.Context) error {
		d := day("2026-04-02")
		_, err := b.ledger.CorrectMetadata(ctx, b.company, sales[3].ID, nil, &d)
		return err
	})
	// The day totals against the postings, day by day.
	differ := func() int {
		t.Helper()
		return b.count(`SELECT count(*) FROM (
			SELECT account_number, day, debit, credit FROM account_day_totals
			WHERE company_id = $1 AND (debit <> 0 OR credit <> 0)
			EXCEPT
			SELECT account_number, entry_date, sum(debit_amount), sum(credit_amount) FROM ledger_postings
			WHERE company_id = $1 AND NOT is_opening GROUP BY 1, 2) x`, b.company) +
			b.count(`SELECT count(*) FROM (
			SELECT account_number, entry_date, sum(debit_amount), sum(credit_amount) FROM ledger_postings
			WHERE company_id = $1 AND NOT is_opening GROUP BY 1, 2
			EXCEPT
			SELECT account_number, day, debit, credit FROM account_day_totals WHERE company_id = $1) x`, b.company)
	}
	if n := differ(); n != 0 {
		t.Fatalf("%d days differ from the postings", n)
	}
	// 3001 over 5-31 March: the sales of the 10th (reversed on the 25th),
	// 20th and the import of the 12th; the 28th moved to April.
	window := func() string {
		t.Helper()
		rows, err := b.ledger.Window(ctx, b.company, day("2026-03-05"), day("2026-03-31"), "1930", "3001", false)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rows)
	}
	want := window()
	if !strings.Contains(want, "3001") {
		t.Fatalf("window: %s", want)
	}
	// Pending, as after an upgrade: read from the postings, the same.
	if _, err := owner.Exec(`INSERT INTO account_day_totals_pending VALUES ($1, $2)`, b.company, b.period.ID); err != nil {
		t.Fatal(err)
	}
	if got := window(); got != want {
		t.Fatalf("pending: %s, want %s", got, want)
	}
	// The migration's backfill sums the year again, as the triggers did.
	for _, q := range []string{`ALTER TABLE account_day_totals DISABLE TRIGGER account_day_totals_derived`,
		`UPDATE account_day_totals SET debit = debit + 1 WHERE company_id = '` + b.company.String() + `'`,
		`ALTER TABLE account_day_totals ENABLE TRIGGER account_day_totals_derived`} {
		if _, err := owner.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	runBackfill(t, owner, "00069_account_day_totals.sql", "-- The backfill, one year per transaction.")
	if n := differ(); n != 0 {
		t.Fatalf("after the backfill %d days differ", n)
	}
	if n := b.count(`SELECT count(*) FROM account_day_totals_pending WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("%d years still pending", n)
	}
	if got := window(); got != want {
		t.Fatalf("after the backfill: %s, want %s", got, want)
	}
}

// runBackfill runs the statements of a migration's Up from the line that
// starts with marker to its Down, as goose runs them: each block between
// its markers, and the plain statements between blocks.
func runBackfill(t *testing.T, owner *store.DB, file, marker string) {
	t.Helper()
	src, err := os.ReadFile("../../db/migrations/" + file)
	if err != nil {
		t.Fatal(err)
	}
	up := string(src)
	from, to := strings.Index(up, marker), strings.Index(up, "-- +goose Down")
	if from < 0 || to < from {
		t.Fatalf("%s: no %q before its Down", file, marker)
	}
	for _, part := range strings.Split(up[from:to], "-- +goose StatementEnd") {
		before, block, ok := strings.Cut(part, "-- +goose StatementBegin")
		stmts := []string{}
		for _, s := range strings.Split(before, ";") {
			lines := []string{}
			for _, l := range strings.Split(s, "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
					lines = append(lines, l)
				}
			}
			if len(lines) > 0 {
				stmts = append(stmts, strings.Join(lines, "\n"))
			}
		}
		if ok {
			stmts = append(stmts, strings.TrimSpace(block))
		}
		for _, stmt := range stmts {
			if _, err := owner.Exec(stmt); err != nil {
				t.Fatalf("%s: %v\n%s", file, err, stmt)
			}
		}
	}
}

// BalancesOn is the opening balance and what moved since, to a day that
// cuts its month. Figures by hand: an opening of 5 000 on 1930 against
// 2081; sales of 1 250 (1 000 + 250 VAT) on 3 and 10 March count to the
// 12th, those of the 20th and 28th do not: 1930 holds 5 000 + 2 500, 2081
// −5 000, 2611 −500, 3001 −2 000; 2440 lies outside the accounts asked.
func TestBalancesOnCutDay(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	opening := ledger.Input{PeriodID: b.period.ID, Date: day("2026-01-01"), Description: "Ingående balans",
		SourceType: ledger.SourceOpeningBalance, Lines: []ledger.Line{
			{Account: "1930", Debit: amount("5000")}, {Account: "2081", Credit: amount("5000")}}}
	if _, err := b.ledger.Post(ctx, b.company, opening); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"2026-03-03", "2026-03-10", "2026-03-20", "2026-03-28"} {
		if _, err := b.ledger.Post(ctx, b.company, b.sale(d)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.ledger.BalancesOn(ctx, b.company, b.period.ID, day("2026-01-01"), day("2026-03-12"), "1930", "3001")
	if err != nil {
		t.Fatal(err)
	}
	want := "[{1930 7500.00} {2081 -5000.00} {2611 -500.00} {3001 -2000.00}]"
	if fmt.Sprint(got) != want {
		t.Fatalf("balances %v, want %s", got, want)
	}
}
