package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/pgtest"
)

// importFile posts a bank file to company and waits for its operation,
// answering the rows it ingested.
func (a *api) importFile(company, name string, data []byte) int {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("file", name)
	_, _ = part.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest("POST", a.url+"/api/v1/companies/"+company+"/imports/bank", &body)
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Idempotency-Key", uuid.NewString())
	res, err := a.client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if res.StatusCode != 202 {
		a.t.Fatalf("import: %d %v", res.StatusCode, out)
	}
	op := str(out, "data", "operation_id")
	for {
		o := a.must("GET", "/api/v1/operations/"+op, nil, 200)
		switch str(o, "data", "status") {
		case "succeeded":
			return int(o["data"].(map[string]any)["result"].(map[string]any)["ingested"].(float64))
		case "failed":
			a.t.Fatalf("import failed: %v", o)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// camt053 is a statement of n booked entries from the n-th of offset.
func camt053(offset, n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">` +
		`<BkToCstmrStmt><Stmt><Id>S</Id><Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id><Ccy>SEK</Ccy></Acct>`)
	for i := offset; i < offset+n; i++ {
		fmt.Fprintf(&b, `<Ntry><Amt Ccy="SEK">%d.%02d</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>`+
			`<BookgDt><Dt>2026-03-%02d</Dt></BookgDt><AcctSvcrRef>REF%08d</AcctSvcrRef><AddtlNtryInf>Kortköp %d</AddtlNtryInf></Ntry>`,
			1+i%900, i%100, 1+i%28, i, i)
	}
	b.WriteString(`</Stmt></BkToCstmrStmt></Document>`)
	return []byte(b.String())
}

// Bank files: 100,000 CSV rows and 100,000 camt.053 entries (in files
// within the 10 MB limit) through POST imports/bank to succeeded, in rows
// per second beside a raw COPY of the same rows into a table of their
// columns, in the same run; and categorize per second at 8 clients beside
// the ledger's create + commit of a verifikat.
func TestBenchBank(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	b := newCompany(a, "Banken AB")
	j := newCompany(a, "Bokför AB")
	// The camt files name this IBAN: a statement goes only to the cash
	// account that has it.
	a.must("POST", "/api/v1/companies/"+b.id+"/cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK",
		"iban": "SE4550000000058398257466"}, 201)
	settle(t, owner)
	const rows = 100000

	var csv bytes.Buffer
	csv.WriteString("Datum;Text;Belopp\n")
	for i := range rows {
		fmt.Fprintf(&csv, "2026-03-%02d;Kortköp %d;-%d,%02d\n", 1+i%28, i, 1+i%900, i%100)
	}
	start := time.Now()
	if n := a.importFile(b.id, "stor.csv", csv.Bytes()); n != rows {
		t.Fatalf("CSV: %d rows ingested", n)
	}
	csvRate := float64(rows) / time.Since(start).Seconds()

	start = time.Now()
	ingested := 0
	for part := range 4 {
		data := camt053(rows+part*rows/4, rows/4)
		if len(data) > 10<<20 {
			t.Fatalf("a camt file of %d bytes", len(data))
		}
		ingested += a.importFile(b.id, fmt.Sprintf("camt-%d.xml", part), data)
	}
	if ingested != rows {
		t.Fatalf("camt: %d entries ingested", ingested)
	}
	camtRate := float64(rows) / time.Since(start).Seconds()

	// The baseline: the same rows COPYed into a table of their columns.
	owner.MustExec(`CREATE TABLE bench_copy (company_id uuid, date date, description text, amount numeric(14, 2),
		external_id text, PRIMARY KEY (company_id, external_id))`)
	company := uuid.MustParse(b.id)
	start = time.Now()
	tx := owner.MustBegin()
	stmt, err := tx.Prepare(pq.CopyIn("bench_copy", "company_id", "date", "description", "amount", "external_id"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if _, err := stmt.Exec(company, fmt.Sprintf("2026-03-%02d", 1+i%28), fmt.Sprintf("Kortköp %d", i),
			fmt.Sprintf("-%d.%02d", 1+i%900, i%100), fmt.Sprintf("csv:%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	copyRate := float64(rows) / time.Since(start).Seconds()

	// Categorize at 8 clients, each on transactions of its own.
	var ids []string
	if err := d.Select(&ids, `SELECT id FROM bank_transactions WHERE company_id = $1 ORDER BY id`, b.id); err != nil {
		t.Fatal(err)
	}
	var next atomic.Int64
	catRate, _, _ := rate(8, func(_, _ int) bool {
		i := next.Add(1)
		if int(i) >= len(ids) {
			return false
		}
		status, out := a.call("POST", "/api/v1/companies/"+b.id+"/transactions/"+ids[i]+"/categorize",
			map[string]any{"is_business": true, "template_id": "card_fee", "confirm_no_match": true})
		if status != 200 {
			a.t.Errorf("categorize: %d %v", status, out)
			return false
		}
		return true
	})
	postRate, _, _ := rate(8, func(_, i int) bool { return a.post(j, i) })

	fmt.Printf("\nBank files through POST imports/bank to succeeded (fsync on), beside a raw COPY of the same rows\n")
	fmt.Printf("%-44s %10s %8s\n", "", "rows/s", "ratio")
	fmt.Printf("%-44s %10.0f %8.2f\n", "generic CSV, 100,000 rows in one file", csvRate, csvRate/copyRate)
	fmt.Printf("%-44s %10.0f %8.2f\n", "camt.053, 100,000 entries in 4 files", camtRate, camtRate/copyRate)
	fmt.Printf("%-44s %10.0f\n", "COPY into a table of the same columns", copyRate)
	fmt.Printf("\nCategorize at 8 clients, %v: %.0f/s beside %.0f verifikat/s created + committed (ratio %.2f)\n",
		duration, catRate, postRate, catRate/postRate)
}
