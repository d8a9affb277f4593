package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/sie/sietest"
	"github.com/kontera/kontera/internal/sieimport"
)

// A server process killed with SIGKILL in the middle of a SIE import
// loses nothing and doubles nothing: once the lease has run out (moved in
// the database, never slept) another process takes the import over from
// its last committed chunk, and the books come out identical to those of
// an import nobody interrupted.
func TestSieImportSurvivesSIGKILL(t *testing.T) {
	t.Parallel() // each has its own database and processes; they wait on them side by side
	url, d := childDB(t)
	ctx := context.Background()
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 3000, Opening: 250000})

	audits := audit.NewStore(d)
	accounts := chart.NewStore(d, audits)
	periods := fiscal.NewStore(d, audits)
	ops := jobs.NewStore(d)
	journal := ledger.NewStore(d, audits, accounts, periods, func(context.Context, uuid.UUID) (ledger.Company, error) {
		return ledger.Company{EntityType: "aktiebolag"}, nil
	})
	im := sieimport.New(d, ops, journal, accounts, dimensions.NewStore(d, audits, journal.TagUse), periods, audits,
		sieimport.Books{
			OrgNumber:     func(context.Context, uuid.UUID) (string, error) { return "", nil },
			DefaultSeries: func(context.Context, uuid.UUID) (string, error) { return "A", nil },
		})
	var user uuid.UUID
	if err := d.Get(&user, `INSERT INTO users (email) VALUES ('dod@example.se') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	company := func(name string) uuid.UUID {
		var id uuid.UUID
		if err := d.Get(&id, `WITH c AS (INSERT INTO companies (name, entity_type, first_fiscal_year_start,
				first_fiscal_year_end, created_by) VALUES ($1, 'aktiebolag', '2025-01-01', '2025-12-31', $2) RETURNING id),
			s AS (INSERT INTO company_settings (company_id, vat_registered, accounting_method, f_skatt, fiscal_year_start_month)
				SELECT id, false, 'accrual', true, 1 FROM c)
			SELECT id FROM c`, name, user); err != nil {
			t.Fatal(err)
		}
		return id
	}
	start := func(c uuid.UUID) uuid.UUID {
		var id uuid.UUID
		err := d.InTx(audit.WithActor(ctx, audit.System), func(ctx context.Context) error {
			i, _, _, err := im.Start(ctx, c, sieimport.Request{Filename: "bok.se", Body: bytes.NewReader(file),
				File: fileOf(file), Options: sieimport.Options{OnExistingPeriod: "block", UpdateAccountNames: true}})
			id = i.ID
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	killed, calm := company("Kraschen AB"), company("Lugnet AB")

	child := func() *exec.Cmd { return serveChild(t, url, "KONTERA_IMPORT_BATCH=100") }
	imp := start(killed)
	first := child()
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	var next int
	deadline := time.Now().Add(3 * time.Minute) // a bound on a hang, not a timing
	for next < 600 {
		if time.Now().After(deadline) {
			t.Fatalf("the first process got no further than voucher %d", next)
		}
		time.Sleep(5 * time.Millisecond)
		if err := d.Get(&next, `SELECT coalesce((checkpoint->>'next_voucher')::int, 0) FROM sie_imports WHERE id = $1`, imp); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no handing back
		t.Fatal(err)
	}
	_ = first.Wait()
	var state string
	var posted, entries int
	if err := d.QueryRow(`SELECT state, (checkpoint->>'posted')::int,
			(SELECT count(*) FROM journal_entries WHERE import_id = $1 AND source_type = 'import')
		FROM sie_imports WHERE id = $1`, imp).Scan(&state, &posted, &entries); err != nil {
		t.Fatal(err)
	}
	if state != "running" || posted != entries || posted >= 3000 {
		t.Fatalf("after the kill: %s, %d posted by the checkpoint, %d in the books", state, posted, entries)
	}
	t.Logf("killed after %d of 3000 vouchers", posted)
	if _, err := d.Exec(`UPDATE operations SET lease_until = now() WHERE status = 'running'`); err != nil {
		t.Fatal(err)
	}
	reference := start(calm)
	second := child()
	defer func() { _ = second.Process.Kill(); _ = second.Wait() }()
	deadline = time.Now().Add(3 * time.Minute)
	for {
		var done int
		if err := d.Get(&done, `SELECT count(*) FROM sie_imports WHERE id IN ($1, $2) AND state = 'completed'`, imp, reference); err != nil {
			t.Fatal(err)
		}
		if done == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the imports did not complete after the takeover")
		}
		time.Sleep(20 * time.Millisecond)
	}
	books := func(c uuid.UUID) string {
		var out []string
		if err := d.Select(&out, `SELECT e.voucher_series || ' ' || e.voucher_number || ' ' || e.entry_date || ' ' ||
				coalesce(e.source_id, '') || ' ' || e.description || ': ' ||
				string_agg(l.account_number || ' ' || l.debit_amount || ' ' || l.credit_amount || ' ' || l.dimensions::text, ', '
					ORDER BY l.sort_order)
			FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id AND l.journal_entry_id = e.id
			WHERE e.company_id = $1 GROUP BY e.company_id, e.id ORDER BY e.voucher_series, e.voucher_number`, c); err != nil {
			t.Fatal(err)
		}
		var bal []string
		if err := d.Select(&bal, `SELECT account_number || ' ' || month || ' ' || (debit - credit) FROM account_balances
			WHERE company_id = $1 ORDER BY account_number, month`, c); err != nil {
			t.Fatal(err)
		}
		var postings int
		if err := d.Get(&postings, `SELECT count(*) FROM ledger_postings WHERE company_id = $1`, c); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n") + "\n" + strings.Join(bal, "\n") + fmt.Sprintf("\n%d postings", postings)
	}
	a, b := books(killed), books(calm)
	if a != b {
		t.Fatalf("the interrupted import's books differ from the uninterrupted one's:\n%.2000s\n---\n%.2000s", a, b)
	}
	if !strings.Contains(a, "A 3000 ") || !strings.Contains(a, "9002 postings") {
		t.Fatalf("books: %.300s ... %s", a, a[len(a)-200:])
	}
}

// fileOf is the kept file of data.
func fileOf(data []byte) sieimport.File {
	tmp, f, err := sieimport.Spool(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		panic(err)
	}
	_ = tmp.Close()
	_ = os.Remove(tmp.Name())
	return f
}
