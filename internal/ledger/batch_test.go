package ledger_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// inTx runs fn in one unit of work that commits when fn returns nil.
func (b *books) inTx(fn func(ctx context.Context) error) error {
	return b.db.InTx(context.Background(), fn)
}

func (b *books) batchEntry(series string, number int, date string, amt string) ledger.BatchEntry {
	src := "sie:" + series
	return ledger.BatchEntry{Number: number, Input: ledger.Input{PeriodID: b.period.ID, Date: day(date),
		Description: "Import " + date, Series: series, SourceType: "import", SourceID: &src,
		Lines: []ledger.Line{{Account: "1930", Debit: amount(amt)}, {Account: "3001", Credit: amount(amt)}}}}
}

func (b *books) count(q string, args ...any) int {
	b.t.Helper()
	var n int
	if err := b.db.Get(&n, q, args...); err != nil {
		b.t.Fatal(err)
	}
	return n
}

func TestPostBatchKeepsTheFilesNumbersAndNumbersTheRest(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	if _, err := b.ledger.Post(ctx, b.company, b.sale("2026-01-10")); err != nil { // A 1
		t.Fatal(err)
	}
	var posted []ledger.Entry
	err := b.inTx(func(ctx context.Context) error {
		a2 := b.batchEntry("A", 0, "2026-02-01", "100")
		a2.SourceType = "system" // not an import: numbered after the last, gapless
		var err error
		posted, err = b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{
			b.batchEntry("LEV1", 7, "2026-02-01", "10.50"),
			b.batchEntry("LEV1", 9, "2026-02-03", "20"), // a gap the file has: kept
			a2,
			b.batchEntry("A", 0, "2026-03-01", "300"),
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range posted {
		got = append(got, e.Voucher())
	}
	if posted[0].Number != 7 || posted[1].Number != 9 || posted[2].Number != 2 || posted[3].Number != 3 {
		t.Fatalf("numbers %v", got)
	}
	// Derived tables as the single path keeps them: 1930 has 1250 (A 1) +
	// 10.50 + 20 + 100 + 300 = 1680.50 debit across February and March.
	var debit string
	if err := b.db.Get(&debit, `SELECT sum(debit)::text FROM account_balances WHERE company_id = $1 AND account_number = '1930'`,
		b.company); err != nil || debit != "1680.50" {
		t.Fatalf("1930 debit %s %v", debit, err)
	}
	if n := b.count(`SELECT count(*) FROM ledger_postings WHERE company_id = $1`, b.company); n != 3+8 {
		t.Fatalf("postings %d", n)
	}
	if n := b.count(`SELECT last_number FROM voucher_sequences WHERE company_id = $1 AND voucher_series = 'LEV1'`, b.company); n != 9 {
		t.Fatalf("LEV1 last %d", n)
	}
	if n := b.count(`SELECT last_number FROM voucher_sequences WHERE company_id = $1 AND voucher_series = 'A'`, b.company); n != 3 {
		t.Fatalf("A last %d", n)
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'journal_entry.committed'`, b.company); n != 5 {
		t.Fatalf("events %d", n)
	}
	// The next single posting follows the batch.
	e, err := b.ledger.Post(ctx, b.company, b.sale("2026-04-01"))
	if err != nil || e.Number != 4 {
		t.Fatalf("next A %d %v", e.Number, err)
	}
	// A number at or below the series' last is refused, and so is a gap
	// outside an import.
	for name, be := range map[string]ledger.BatchEntry{
		"below the last": b.batchEntry("LEV1", 8, "2026-02-01", "1"),
		"a gap": func() ledger.BatchEntry {
			x := b.batchEntry("A", 9, "2026-02-01", "1")
			x.SourceType = "system"
			return x
		}(),
	} {
		err := b.inTx(func(ctx context.Context) error {
			_, err := b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{be})
			return err
		})
		if err == nil {
			t.Errorf("%s: posted", name)
		}
	}
}

func TestPostBatchStornos(t *testing.T) {
	b := newBooks(t)
	var orig []ledger.Entry
	if err := b.inTx(func(ctx context.Context) (err error) {
		orig, err = b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{
			b.batchEntry("B", 1, "2026-02-01", "10"), b.batchEntry("B", 2, "2026-02-02", "20")})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	storno := func(e ledger.Entry, mirror bool) ledger.BatchEntry {
		lines := make([]ledger.Line, len(e.Lines))
		for i, l := range e.Lines {
			lines[i] = ledger.Line{Account: l.Account, Debit: l.Credit, Credit: l.Debit}
		}
		if !mirror {
			lines[0].Account, lines[1].Account = "1910", "3001"
		}
		id := e.ID
		return ledger.BatchEntry{Input: ledger.Input{PeriodID: e.PeriodID, Date: e.Date, Description: "Storno",
			Series: "B", SourceType: ledger.SourceStorno, ReversesID: &id, ChainDepth: 1, Lines: lines}}
	}
	err := b.inTx(func(ctx context.Context) error {
		_, err := b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{storno(orig[0], false)})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "exactly the lines") {
		t.Fatalf("a storno of other lines: %v", err)
	}
	var stornos []ledger.Entry
	if err := b.inTx(func(ctx context.Context) (err error) {
		stornos, err = b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{storno(orig[0], true), storno(orig[1], true)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if stornos[0].Number != 3 || stornos[1].Number != 4 {
		t.Fatalf("storno numbers %d %d", stornos[0].Number, stornos[1].Number)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND reversed_by_id IS NOT NULL`, b.company); n != 2 {
		t.Fatalf("%d originals marked reversed", n)
	}
	if n := b.count(`SELECT count(*) FROM account_balances WHERE company_id = $1 AND (debit <> credit)`, b.company); n != 0 {
		t.Fatalf("%d balances not back to zero", n)
	}
	err = b.inTx(func(ctx context.Context) error {
		_, err := b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{storno(orig[0], true)})
		return err
	})
	if !apierr.Is(err, apierr.EntryAlreadyReversed) && (err == nil || !strings.Contains(err.Error(), "one_storno")) {
		t.Fatalf("a second storno: %v", err)
	}
}

func TestPostBatchIntoALockedPeriod(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	if _, err := b.ledger.LockPeriod(ctx, b.company, b.period.ID, false); err != nil {
		t.Fatal(err)
	}
	err := b.inTx(func(ctx context.Context) error {
		_, err := b.ledger.PostBatch(ctx, b.company, []ledger.BatchEntry{b.batchEntry("A", 1, "2026-02-01", "1")})
		return err
	})
	if !apierr.Is(err, apierr.PeriodLocked) {
		t.Fatalf("into a locked period: %v", err)
	}
}

// The database refuses what PostBatch would never send: a raw multi-row
// INSERT as the application role of entries born posted that do not
// balance, repeat a number, go into a locked period, or leave a gap.
func TestRawBornEntriesAreChecked(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	raw := func(entries string, lines string) error {
		return b.inTx(func(ctx context.Context) error {
			q := store.UnitFrom(ctx).Tx
			if _, err := q.ExecContext(ctx, `INSERT INTO journal_entries (company_id, id, fiscal_period_id, voucher_series,
				voucher_number, entry_date, description, status, source_type, posted_at)
				SELECT $1, x.id::uuid, $2, x.series, x.n, x.d::date, 'Rå', 'posted', x.src, now()
				FROM (VALUES `+entries+`) AS x (id, series, n, d, src)`, b.company, b.period.ID); err != nil {
				return err
			}
			if lines == "" {
				return nil
			}
			_, err := q.ExecContext(ctx, `INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number,
				debit_amount, credit_amount)
				SELECT $1, x.e::uuid, x.o, x.a, x.d, x.c FROM (VALUES `+lines+`) AS x (e, o, a, d, c)`, b.company)
			return err
		})
	}
	e1, e2 := uuid.NewString(), uuid.NewString()
	two := `('` + e1 + `', 'A', 1, '2026-02-01', 'import'), ('` + e2 + `', 'A', 2, '2026-02-02', 'import')`
	balanced := `('` + e1 + `', 0, '1930', 100, 0), ('` + e1 + `', 1, '3001', 0, 100), ('` + e2 + `', 0, '1930', 5, 0), ('` + e2 + `', 1, '3001', 0, 5)`
	unbalanced := `('` + e1 + `', 0, '1930', 100, 0), ('` + e1 + `', 1, '3001', 0, 100), ('` + e2 + `', 0, '1930', 5, 0), ('` + e2 + `', 1, '3001', 0, 4)`
	for name, c := range map[string]struct{ entries, lines, want string }{
		"unbalanced":      {two, unbalanced, "NOT_BALANCED"},
		"without lines":   {two, "", "NOT_BALANCED"},
		"duplicate":       {`('` + e1 + `', 'A', 1, '2026-02-01', 'import'), ('` + e2 + `', 'A', 1, '2026-02-02', 'import')`, "", "journal_entries_voucher"},
		"gap, not import": {`('` + e1 + `', 'A', 1, '2026-02-01', 'system'), ('` + e2 + `', 'A', 3, '2026-02-02', 'system')`, "", "gapless"},
		"outside period":  {`('` + e1 + `', 'A', 1, '2025-12-31', 'import')`, "", "OUTSIDE_FISCAL_PERIOD"},
	} {
		if err := raw(c.entries, c.lines); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", name, err, c.want)
		}
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("%d entries written", n)
	}
	if err := raw(two, balanced); err != nil {
		t.Fatalf("balanced raw entries: %v", err)
	}
	// Lines added afterwards to a posted entry without a rättelse.
	err := raw(`('`+uuid.NewString()+`', 'A', 3, '2026-02-03', 'import')`, `('`+e1+`', 5, '1930', 1, 0), ('`+e1+`', 6, '3001', 0, 1)`)
	if err == nil || !strings.Contains(err.Error(), "only by a logged rättelse") {
		t.Fatalf("lines added later: %v", err)
	}
	if _, err := b.ledger.LockPeriod(ctx, b.company, b.period.ID, false); err != nil {
		t.Fatal(err)
	}
	e3 := uuid.NewString()
	if err := raw(`('`+e3+`', 'A', 3, '2026-02-03', 'import')`, `('`+e3+`', 0, '1930', 1, 0), ('`+e3+`', 1, '3001', 0, 1)`); !apierr.Is(store.Refused(err), apierr.PeriodLocked) {
		t.Fatalf("into a locked period: %v", err)
	}
}
