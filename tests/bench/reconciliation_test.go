package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/reconciliation"
	"github.com/kontera/kontera/internal/reconciliation/synth"
	"github.com/kontera/kontera/internal/store"
)

// TestBenchReconciliation times the bank run over 50,000 bank rows and
// 50,000 verifikat on 1930 (exact, shifted, many-to-one, one-to-many,
// 2 % noise: synth), from the request to its commit with every link
// written, beside a plain SQL join of the same tables on (amount, date)
// fetched to the client in the same run; and the links' precision and
// recall against the data's truth. KONTERA_BENCH_RECON_ROWS changes the
// size.
func TestBenchReconciliation(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d, func(c *httpapi.Config) {
		c.Now = func() time.Time { return time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC) }
	})
	b := newCompany(a, "Avstämning AB")
	cash := str(a.must("POST", "/api/v1/companies/"+b.id+"/cash-accounts", map[string]any{"name": "Företagskonto",
		"currency": "SEK"}, 201), "data", "cash_account_id")
	n := envInt("KONTERA_BENCH_RECON_ROWS", 50000)
	s := synth.Generate(n, 11)
	start := time.Now()
	loadRows(t, owner, b, cash, s)
	loadEntries(t, d, b, s)
	settle(t, owner)
	fmt.Printf("\nReconciliation bench: %d bank rows, %d verifikat on 1930 loaded in %.1f s\n", len(s.Rows), len(s.Items),
		time.Since(start).Seconds())

	// The baseline: bank rows joined to 1930's lines on amount and day,
	// every pair fetched; the median of three.
	var joins []float64
	pairs := 0
	for range 3 {
		start := time.Now()
		rows, err := d.Query(`SELECT t.id, p.journal_entry_id FROM bank_transactions t
			JOIN ledger_postings p ON p.company_id = t.company_id AND p.fiscal_period_id = $2 AND p.account_number = '1930'
				AND p.entry_date = t.date AND p.debit_amount - p.credit_amount = t.amount
			WHERE t.company_id = $1 AND t.cash_account_id = $3`, b.id, b.period, cash)
		if err != nil {
			t.Fatal(err)
		}
		pairs = 0
		for rows.Next() {
			var x, y uuid.UUID
			if err := rows.Scan(&x, &y); err != nil {
				t.Fatal(err)
			}
			pairs++
		}
		rows.Close()
		joins = append(joins, time.Since(start).Seconds())
	}
	slices.Sort(joins)
	join := joins[1]

	profile := statementProfile(t, "the bank run")
	stopCPU := cpuProfile(t, "reconciliation-run")
	start = time.Now()
	out := a.must("POST", "/api/v1/companies/"+b.id+"/reconciliation/bank/run", map[string]any{"date_from": "2026-01-01",
		"date_to": "2026-12-31", "confidence_threshold": 0.75}, 200)
	run := time.Since(start).Seconds()
	stopCPU()
	if profile != nil {
		profile()
	}
	data := out["data"].(map[string]any)

	var sets []struct {
		Rows    pq.StringArray `db:"rows"`
		Entries pq.StringArray `db:"entries"`
	}
	if err := d.Select(&sets, `SELECT array_agg(DISTINCT external_id::text) AS rows, array_agg(DISTINCT journal_entry_id::text) AS entries
		FROM reconciliation_links WHERE company_id = $1 AND removed_at IS NULL GROUP BY set_id`, b.id); err != nil {
		t.Fatal(err)
	}
	var linked [][2][]uuid.UUID
	for _, x := range sets {
		linked = append(linked, [2][]uuid.UUID{ids(x.Rows), ids(x.Entries)})
	}
	precision, recall := s.Score(linked)
	var methods []struct {
		M string `db:"method"`
		N int    `db:"n"`
	}
	_ = d.Select(&methods, `SELECT method, count(*) AS n FROM reconciliation_proposals WHERE company_id = $1 GROUP BY 1`, b.id)
	errs := map[string]int{}
	for _, e := range data["errors"].([]any) {
		errs[e.(map[string]any)["code"].(string)]++
	}
	fmt.Printf("proposals by method %v; pairs skipped by code %v\n", methods, errs)
	var withTruth int
	if err := d.Get(&withTruth, `SELECT count(*) FROM bank_transactions WHERE company_id = $1 AND journal_entry_id IS NOT NULL`,
		b.id); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	reconciliation.Propose(s.Rows, s.Items, reconciliation.BankRules("1930"))
	engine := time.Since(start).Seconds()
	fmt.Printf("%-58s %8s %8s\n", "", "seconds", "ratio")
	fmt.Printf("%-58s %8.2f %8.2f\n", fmt.Sprintf("POST reconciliation/bank/run, %d sets linked", len(sets)), run, run/join)
	fmt.Printf("%-58s %8.2f %8.2f\n", "the engine alone, in memory (reconciliation.Propose)", engine, engine/join)
	fmt.Printf("%-58s %8.2f\n", fmt.Sprintf("SQL join on (amount, date), %d pairs fetched", pairs), join)
	fmt.Printf("links at 0.75: precision %.4f, recall %.4f (%d transactions linked; %d proposals below 0.75)\n",
		precision, recall, withTruth, int(data["skipped_below_threshold"].(float64)))
	if recall < 0.95 || precision < 0.99 {
		t.Errorf("precision %.4f, recall %.4f", precision, recall)
	}
}

func ids(ss []string) []uuid.UUID {
	out := make([]uuid.UUID, len(ss))
	for i, s := range ss {
		out[i] = uuid.MustParse(s)
	}
	return out
}

// loadRows COPYs the data's bank rows onto cash account cash, with their
// own ids.
func loadRows(t *testing.T, owner *store.DB, b books, cash string, s synth.Account) {
	tx := owner.MustBegin()
	stmt, err := tx.Prepare(pq.CopyIn("bank_transactions", "company_id", "id", "cash_account_id", "ledger_account", "date",
		"description", "amount", "currency", "external_id", "import_source"))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range s.Rows {
		if _, err := stmt.Exec(b.id, r.ID, cash, "1930", r.Date.Format(time.DateOnly), fmt.Sprintf("Rad %d", i), r.Amount.String(),
			"SEK", "bench:"+r.ID.String(), "bank_file"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// loadEntries posts the data's verifikat (each its amount on 1930 against
// 2890), with their own ids, through the ledger's own posting trigger:
// drafts a thousand a statement, posted ten a statement (the trigger
// re-sums the month rows line by line, so a statement posting many
// entries on one account reads its own dead versions).
func loadEntries(t *testing.T, d *store.DB, b books, s synth.Account) {
	type entry struct {
		ID     string `json:"id"`
		Day    string `json:"day"`
		Amount string `json:"amount"`
	}
	for start := 0; start < len(s.Items); start += 1000 {
		var chunk []entry
		var ids []string
		for _, it := range s.Items[start:min(start+1000, len(s.Items))] {
			chunk = append(chunk, entry{ID: it.EntryID.String(), Day: it.Date.Format(time.DateOnly), Amount: it.Amount.String()})
			ids = append(ids, it.EntryID.String())
		}
		raw, _ := json.Marshal(chunk)
		if _, err := d.Exec(`
			WITH c AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS c (id uuid, day date, amount numeric)),
			e AS (INSERT INTO journal_entries (company_id, id, fiscal_period_id, voucher_series, entry_date, description)
				SELECT $1, c.id, $2, 'B', c.day, 'Bank ' || c.amount FROM c RETURNING id)
			INSERT INTO journal_lines (company_id, journal_entry_id, sort_order, account_number, debit_amount, credit_amount)
			SELECT $1, c.id, k, CASE WHEN k = 0 THEN '1930' ELSE '2890' END,
				CASE WHEN (k = 0) = (c.amount > 0) THEN abs(c.amount) ELSE 0 END,
				CASE WHEN (k = 0) = (c.amount > 0) THEN 0 ELSE abs(c.amount) END
			FROM c JOIN e ON e.id = c.id, generate_series(0, 1) k`, b.id, b.period, string(raw)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(ids); i += 10 {
			if _, err := d.Exec(`UPDATE journal_entries SET status = 'posted' WHERE company_id = $1 AND id = ANY($2::uuid[])`,
				b.id, pq.Array(ids[i:min(i+10, len(ids))])); err != nil {
				t.Fatal(err)
			}
		}
	}
}
