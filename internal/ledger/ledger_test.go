package ledger_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/openapi"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// books is one company with its chart and a 2026 period, on a fresh
// database.
type books struct {
	t       *testing.T
	db      *store.DB
	ledger  *ledger.Store
	company uuid.UUID
	period  fiscal.Period
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func newBooks(t *testing.T) *books {
	t.Helper()
	return newBooksOn(t, pgtest.New(t))
}

// newBooksOn is newBooks on a database of the caller's.
func newBooksOn(t *testing.T, db *store.DB) *books {
	t.Helper()
	ctx := context.Background()
	var company uuid.UUID
	if err := db.Get(&company, `WITH u AS (INSERT INTO users (email) VALUES ('o@example.se') RETURNING id),
		c AS (INSERT INTO companies (name, entity_type, first_fiscal_year_start, first_fiscal_year_end, created_by)
			SELECT 'Bok AB', 'aktiebolag', '2026-01-01', '2026-12-31', id FROM u RETURNING id),
		s AS (INSERT INTO company_settings (company_id, vat_registered, accounting_method, f_skatt, fiscal_year_start_month)
			SELECT id, false, 'accrual', true, 1 FROM c)
		SELECT id FROM c`); err != nil {
		t.Fatal(err)
	}
	audits := audit.NewStore(db)
	accounts := chart.NewStore(db, audits)
	periods := fiscal.NewStore(db, audits)
	if _, err := accounts.Seed(ctx, company, "aktiebolag"); err != nil {
		t.Fatal(err)
	}
	p, _, err := periods.Open(ctx, company, "Räkenskapsår 2026", fiscal.Span{Start: day("2026-01-01"), End: day("2026-12-31")})
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.NewStore(db, audits, accounts, periods, func(ctx context.Context, c uuid.UUID) (ledger.Company, error) {
		var out ledger.Company
		err := db.Q(ctx).QueryRowxContext(ctx, `SELECT bookkeeping_locked_through FROM company_settings
			WHERE company_id = $1`, c).Scan(&out.LockedThrough)
		out.EntityType = "aktiebolag"
		return out, err
	})
	return &books{t: t, db: db, ledger: l, company: company, period: p}
}

func amount(s string) money.Amount { return money.MustParse(s) }

// sale is a simple balanced entry: a cash sale of 1250 with 25 % VAT.
func (b *books) sale(date string) ledger.Input {
	return ledger.Input{PeriodID: b.period.ID, Date: day(date), Description: "Kontantförsäljning",
		Lines: []ledger.Line{
			{Account: "1930", Debit: amount("1250")},
			{Account: "3001", Credit: amount("1000")},
			{Account: "2611", Credit: amount("250")},
		}}
}

func (b *books) exec(q string, args ...any) error {
	_, err := b.db.ExecContext(context.Background(), q, args...)
	return err
}

func TestPostNumbersAndProjects(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		e, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-15"))
		if err != nil {
			t.Fatal(err)
		}
		if e.Number != i || e.Status != ledger.Posted || e.Series != "A" {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
	var n int
	if err := b.db.Get(&n, `SELECT count(*) FROM ledger_postings WHERE company_id = $1`, b.company); err != nil || n != 9 {
		t.Fatalf("postings %d %v", n, err)
	}
	var debit, credit string
	if err := b.db.QueryRowx(`SELECT debit::text, credit::text FROM account_balances
		WHERE company_id = $1 AND account_number = '1930' AND month = '2026-03-01'`, b.company).Scan(&debit, &credit); err != nil {
		t.Fatal(err)
	}
	if debit != "3750.00" || credit != "0.00" {
		t.Fatalf("1930 balance %s/%s", debit, credit)
	}
}

func TestDatabaseRefusesChangesToPostedEntries(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	e, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-15"))
	if err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]string{
		"line amount":       `UPDATE journal_lines SET debit_amount = 1 WHERE company_id = $1 AND journal_entry_id = $2 AND account_number = '1930'`,
		"line account":      `UPDATE journal_lines SET account_number = '1910' WHERE company_id = $1 AND journal_entry_id = $2`,
		"line delete":       `DELETE FROM journal_lines WHERE company_id = $1 AND journal_entry_id = $2`,
		"line insert":       `INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount) VALUES ($1, $2, 9, '1930', 1)`,
		"entry description": `UPDATE journal_entries SET description = 'Ändrad' WHERE company_id = $1 AND id = $2`,
		"entry date":        `UPDATE journal_entries SET entry_date = '2026-03-16' WHERE company_id = $1 AND id = $2`,
		"entry number":      `UPDATE journal_entries SET voucher_number = 7 WHERE company_id = $1 AND id = $2`,
		"entry back":        `UPDATE journal_entries SET status = 'draft', voucher_number = 0, posted_at = NULL WHERE company_id = $1 AND id = $2`,
		"entry delete":      `DELETE FROM journal_entries WHERE company_id = $1 AND id = $2`,
	} {
		if err := b.exec(q, b.company, e.ID); err == nil {
			t.Errorf("%s: the database allowed it", name)
		}
	}
	// A posted entry cannot be born, and an unbalanced draft cannot be
	// posted even by hand.
	if err := b.exec(`INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date, description, status,
		voucher_number, posted_at) VALUES ($1, $2, '2026-03-01', 'x', 'posted', 9, now())`, b.company, b.period.ID); err == nil {
		t.Error("a posted entry was inserted")
	}
	err = b.db.InTx(ctx, func(ctx context.Context) error {
		q := b.db.Q(ctx)
		var id uuid.UUID
		if err := q.QueryRowxContext(ctx, `INSERT INTO journal_entries (company_id, fiscal_period_id, entry_date,
			description) VALUES ($1, $2, '2026-03-01', 'Obalans') RETURNING id`, b.company, b.period.ID).Scan(&id); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO journal_lines (company_id, journal_entry_id, sort_order,
			account_number, debit_amount) VALUES ($1, $2, 0, '1930', 100)`, b.company, id); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, `UPDATE journal_entries SET status = 'posted' WHERE company_id = $1 AND id = $2`,
			b.company, id)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "JOURNAL_ENTRY_NOT_BALANCED") {
		t.Fatalf("unbalanced posting by hand: %v", err)
	}
	// Nothing of it stuck, and the voucher number it took is free again.
	next, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-16"))
	if err != nil || next.Number != 2 {
		t.Fatalf("next entry %d %v", next.Number, err)
	}
}

func TestRulesRefuseBadEntries(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	cases := map[string]struct {
		mutate func(*ledger.Input)
		code   apierr.Code
	}{
		"unbalanced": {func(in *ledger.Input) { in.Lines[0].Debit = amount("1249.99") }, apierr.JournalEntryNotBalanced},
		"negative":   {func(in *ledger.Input) { in.Lines[1].Credit = amount("-1000") }, apierr.JournalLineNegativeAmount},
		"both sides": {func(in *ledger.Input) { in.Lines[1].Debit = amount("1") }, apierr.JournalLineBothSidesNonzero},
		"outside":    {func(in *ledger.Input) { in.Date = day("2027-01-01") }, apierr.EntryDateOutsideFiscalPeriod},
		"unknown":    {func(in *ledger.Input) { in.Lines[0].Account = "1999" }, apierr.AccountsNotInChart},
		"engine":     {func(in *ledger.Input) { in.SourceType = "year_end" }, apierr.ValidationError},
		"no period":  {func(in *ledger.Input) { in.PeriodID = uuid.New() }, apierr.PeriodNotFound},
	}
	for name, c := range cases {
		in := b.sale("2026-03-15")
		c.mutate(&in)
		_, err := b.ledger.CreateDraft(ctx, b.company, in)
		if !apierr.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// A BAS account missing from the chart is added on first use.
	in := b.sale("2026-03-15")
	in.Lines[0].Account = "1630"
	if _, err := b.ledger.Post(ctx, b.company, in); err != nil {
		t.Fatalf("BAS account not added: %v", err)
	}
	// The company lock date refuses postings on or before it.
	if err := b.exec(`UPDATE company_settings SET bookkeeping_locked_through = '2026-03-31' WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-31")); !apierr.Is(err, apierr.PeriodLocked) {
		t.Fatalf("lock date: %v", err)
	}
	if _, err := b.ledger.Post(ctx, b.company, b.sale("2026-04-01")); err != nil {
		t.Fatalf("after the lock date: %v", err)
	}
}

// Fifty commits on one company at once take the numbers 1..50, each once.
func TestConcurrentCommitsAreGapless(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := b.ledger.Post(ctx, b.company, b.sale("2026-05-05"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	if err := b.db.Select(&got, `SELECT voucher_number FROM journal_entries WHERE company_id = $1 ORDER BY 1`, b.company); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("numbers %v", got)
		}
	}
	if len(got) != n {
		t.Fatalf("%d entries", len(got))
	}
}

// A commit that fails after taking its number hands the number back.
func TestFailedCommitConsumesNoNumber(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := b.db.InTx(ctx, func(ctx context.Context) error {
		e, err := b.ledger.Post(ctx, b.company, b.sale("2026-06-01"))
		if err != nil || e.Number != 1 {
			t.Fatalf("inside: %d %v", e.Number, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	e, err := b.ledger.Post(ctx, b.company, b.sale("2026-06-01"))
	if err != nil || e.Number != 1 {
		t.Fatalf("after the rollback: %d %v", e.Number, err)
	}
}

func TestRattelseMovesTheGeneralLedger(t *testing.T) {
	b := newBooks(t)
	ctx := context.Background()
	e, err := b.ledger.Post(ctx, b.company, b.sale("2026-03-15"))
	if err != nil {
		t.Fatal(err)
	}
	desc, d := "Kontantförsäljning 15 mars", day("2026-04-02")
	var m ledger.MetadataChange
	err = b.db.InTx(ctx, func(ctx context.Context) error {
		var err error
		m, err = b.ledger.CorrectMetadata(ctx, b.company, e.ID, &desc, &d)
		return err
	})
	if err != nil || m.Log == nil {
		t.Fatalf("rättelse: %v", err)
	}
	var months []string
	if err := b.db.Select(&months, `SELECT month::text FROM account_balances WHERE company_id = $1 AND account_number = '1930'
		AND debit <> 0 ORDER BY 1`, b.company); err != nil {
		t.Fatal(err)
	}
	if len(months) != 1 || months[0] != "2026-04-01" {
		t.Fatalf("1930 booked in months %v", months)
	}
}

// The document's ClientSourceType enum is the list the ledger accepts from
// clients.
func TestClientSourcesMatchDocument(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range c.Doc.Components.Schemas["ClientSourceType"].Value.Enum {
		enum = append(enum, v.(string))
	}
	sort.Strings(enum)
	if got := ledger.ClientSources(); !slices.Equal(enum, got) {
		t.Fatalf("document %v, ledger %v", enum, got)
	}
}

// The document's SourceType enum, what a verifikat read says created it,
// is every source type the ledger posts: the clients' and the engines'.
func TestSourceTypesMatchDocument(t *testing.T) {
	c, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	enum := c.Enum("SourceType")
	sort.Strings(enum)
	all := append(ledger.ClientSources(), ledger.EngineSources()...)
	sort.Strings(all)
	if !slices.Equal(enum, all) {
		t.Fatalf("document %v, ledger %v", enum, all)
	}
}
