package bench

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/sie/sietest"
	"github.com/kontera/kontera/internal/store"
)

// TestBenchSieImport measures a SIE import end to end (signed upload,
// PUT, import, poll to completed) of a generated file of 100,000
// vouchers (400,000 booked rows), as lines per second and as a ratio to
// a raw COPY of the same entries, lines and postings into tables LIKE
// the ledger's (same indexes, no triggers) in the same run; then its
// undo; then the SIE export of a 1,000,000-line company, as lines per
// second and peak memory beside the export of the 100,000-voucher one.
// Goals (issue 51): ratio ≥ 0.6 for the import, the undo at least at the
// import's pace, ≥ 300k lines/s and the same peak memory for the export.
func TestBenchSieImport(t *testing.T) {
	if os.Getenv("KONTERA_BENCH") == "" {
		t.Skip("run with make bench")
	}
	vouchers := envInt("KONTERA_BENCH_SIE_VOUCHERS", 100_000)
	d, owner := pgtest.NewPair(t)
	a := benchServer(t, d)
	co := newCompany(a, "Import AB")
	year := atoi(co.year)
	file := sietest.Write(sietest.Spec{Year: year, Vouchers: vouchers, Opening: 1_000_000, Split: true})
	base := "/api/v1/companies/" + co.id
	settle(t, owner)

	profile := statementProfile(t, "SIE import")
	stopCPU := cpuProfile(t, "sie-import")
	start := time.Now()
	up := a.must("POST", base+"/imports/sie/upload", map[string]any{"filename": "stor.se", "size": len(file)}, 201)
	put, err := http.NewRequest("PUT", strings.Replace(str(up, "data", "uploadUrl"), "http://bench", a.url, 1), bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	put.Header.Set("Content-Type", "application/octet-stream")
	res, err := a.client.Do(put)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("PUT: %v %v", res, err)
	}
	res.Body.Close()
	uploaded := time.Since(start)
	op := a.importByPath(base, str(up, "data", "storagePath"))
	done := a.await(op, 10*time.Minute)
	took := time.Since(start)
	if s := str(done, "data", "status"); s != "succeeded" {
		t.Fatalf("import: %v", done)
	}
	var lines, entries int
	if err := d.QueryRow(`SELECT count(*) FROM journal_lines WHERE company_id = $1`, co.id).Scan(&lines); err != nil {
		t.Fatal(err)
	}
	if err := d.QueryRow(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, co.id).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	stopCPU()
	if profile != nil {
		profile()
	}
	raw := rawCopy(t, owner, co.id)
	ratio := raw.Seconds() / took.Seconds()
	t.Logf("SIE import of %d vouchers (%d entries, %d lines, %.1f MB): upload %v, upload to completed %v = %.0f lines/s; raw COPY of the same rows %v: ratio %.2f (goal ≥ 0.6)",
		vouchers, entries, lines, float64(len(file))/1e6, uploaded.Round(time.Millisecond), took.Round(time.Millisecond),
		float64(lines)/took.Seconds(), raw.Round(time.Millisecond), ratio)

	// The export of the 100,000 vouchers, then of 1,000,000 lines.
	small, smallPeak := a.export(t, base, co.period)
	t.Logf("SIE export of %d lines: %v = %.0f lines/s, peak heap +%.1f MB", lines, small.Round(time.Millisecond),
		float64(lines)/small.Seconds(), float64(smallPeak)/1e6)

	profile = statementProfile(t, "SIE undo")
	stopCPU = cpuProfile(t, "sie-undo")
	undoStart := time.Now()
	var imp string
	if err := d.QueryRow(`SELECT id FROM sie_imports WHERE company_id = $1`, co.id).Scan(&imp); err != nil {
		t.Fatal(err)
	}
	u := a.must("POST", base+"/imports/sie/"+imp+"/undo", nil, 202)
	if s := str(a.await(str(u, "data", "operation_id"), 10*time.Minute), "data", "status"); s != "succeeded" {
		t.Fatalf("undo: %s", s)
	}
	undo := time.Since(undoStart)
	stopCPU()
	if profile != nil {
		profile()
	}
	t.Logf("SIE undo of %d entries: %v = %.0f lines/s (ratio to the import's time %.2f, goal ≥ 1.0)", entries, undo.Round(time.Millisecond),
		float64(lines)/undo.Seconds(), took.Seconds()/undo.Seconds())

	big := newCompany(a, "Stor AB")
	n := envInt("KONTERA_BENCH_LINES", 1_000_000)
	generate(t, d, big, n)
	settle(t, owner)
	stopCPU = cpuProfile(t, "sie-export")
	large, largePeak := a.export(t, "/api/v1/companies/"+big.id, big.period)
	stopCPU()
	read := orderedRead(t, d, big.id)
	t.Logf("SIE export of %d lines: %v = %.0f lines/s (goal ≥ 300k); the same lines read in voucher order to the client %v: ratio %.2f (goal ≤ 3); peak heap +%.1f MB (at %d lines +%.1f MB: constant memory)",
		n, large.Round(time.Millisecond), float64(n)/large.Seconds(), read.Round(time.Millisecond), large.Seconds()/read.Seconds(),
		float64(largePeak)/1e6, lines, float64(smallPeak)/1e6)
}

// importByPath starts the import of an uploaded file and answers its
// operation's id.
func (a *api) importByPath(base, path string) string {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("storagePath", path)
	_ = w.WriteField("filename", "stor.se")
	_ = w.Close()
	req, _ := http.NewRequest("POST", a.url+base+"/imports/sie", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := a.client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 202 {
		a.t.Fatalf("import: %d %s", res.StatusCode, b)
	}
	i := bytes.Index(b, []byte(`"operation_id":"`))
	return string(b[i+16 : i+16+36])
}

// await polls an operation until it ends.
func (a *api) await(id string, limit time.Duration) map[string]any {
	deadline := time.Now().Add(limit)
	for {
		r := a.must("GET", "/api/v1/operations/"+id, nil, 200)
		if s := str(r, "data", "status"); s == "succeeded" || s == "failed" {
			return r
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("operation %s: %v", id, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// export reads a year's SIE export to the end, answering how long it took
// and how far the heap grew meanwhile (sampled), both for this process,
// which serves the export.
func (a *api) export(t *testing.T, base, period string) (time.Duration, uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > before.HeapInuse && m.HeapInuse-before.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse - before.HeapInuse)
			}
		}
	}()
	start := time.Now()
	req, _ := http.NewRequest("GET", a.url+base+"/reports/sie-export?period_id="+period, nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	took := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil || res.StatusCode != 200 || n == 0 {
		t.Fatalf("export: %d, %d bytes, %v", res.StatusCode, n, err)
	}
	return took, peak.Load()
}

// orderedRead reads every line of the company in voucher order to the
// client and drops it: anchors.md r6 on our schema, the floor of an
// export.
func orderedRead(t *testing.T, d *store.DB, company string) time.Duration {
	start := time.Now()
	rows, err := d.Query(`SELECT l.* FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id
		AND l.journal_entry_id = e.id WHERE e.company_id = $1 ORDER BY e.voucher_series, e.voucher_number, l.sort_order`, company)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	return time.Since(start)
}

// rawCopy copies the company's entries, lines and postings, read into
// memory first, into tables LIKE the ledger's (same indexes, no triggers)
// with COPY, and answers how long the copies took.
func rawCopy(t *testing.T, owner *store.DB, company string) time.Duration {
	ctx := context.Background()
	var took time.Duration
	for _, table := range []string{"journal_entries", "journal_lines", "ledger_postings"} {
		raw := "bench_raw_" + table
		if _, err := owner.Exec(`CREATE TABLE ` + raw + ` (LIKE ` + table + ` INCLUDING ALL)`); err != nil {
			t.Fatal(err)
		}
		rows, err := owner.QueryxContext(ctx, `SELECT * FROM `+table+` WHERE company_id = $1`, company)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var data [][]any
		for rows.Next() {
			vals, err := rows.SliceScan()
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, vals)
		}
		rows.Close()
		start := time.Now()
		if err := copyRows(ctx, owner.DB, raw, cols, data); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		took += time.Since(start)
	}
	return took
}

func copyRows(ctx context.Context, d *sqlx.DB, table string, cols []string, data [][]any) error {
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn(table, cols...))
	if err != nil {
		return err
	}
	for _, row := range data {
		for i, v := range row {
			if b, ok := v.([]byte); ok {
				row[i] = string(b)
			}
		}
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return err
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return err
	}
	if err := stmt.Close(); err != nil {
		return err
	}
	return tx.Commit()
}

// cpuProfile, with KONTERA_BENCH_CPUPROFILE naming a directory, writes
// this process's CPU profile (the bench's server runs in it) to
// <dir>/<name>.pprof until the func it returns is called.
func cpuProfile(t *testing.T, name string) func() {
	dir := os.Getenv("KONTERA_BENCH_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
