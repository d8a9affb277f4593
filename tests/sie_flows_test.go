package tests

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/sie/sietest"
)

// A file with a problem is refused whole, each problem on its line, and
// nothing is written; so is a file truncated after its #KSUMMA opened.
func TestSieImportRefusesBadFiles(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	head := "#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n#KONTO 1930 Bank\n"
	ver := func(n int, date string, amounts ...string) string {
		s := "#VER A " + strconv.Itoa(n) + " " + date + " \"Rad\"\n{\n"
		for i, a := range amounts {
			acct := "1930"
			if i > 0 {
				acct = "3001"
			}
			s += "   #TRANS " + acct + " {} " + a + "\n"
		}
		return s + "}\n"
	}
	accounts := b.count(`SELECT count(*) FROM accounts WHERE company_id = $1`, b.company)
	for name, c := range map[string]struct {
		file  string
		lines []float64
		want  string
	}{
		"unbalanced": {head + ver(1, "20250105", "100", "-100") + ver(2, "20250106", "100", "-99.50"), []float64{10}, "sum to 0.50"},
		"duplicate":  {head + ver(1, "20250105", "1", "-1") + ver(1, "20250106", "2", "-2"), []float64{10}, "twice"},
		"bad date":   {head + ver(1, "20250230", "1", "-1") + ver(2, "20240105", "1", "-1"), []float64{5, 10}, ""},
		"truncated":  {"#FLAGGA 0\n#KSUMMA\n" + head[10:] + ver(1, "20250105", "1", "-1"), nil, "truncated"},
	} {
		started := b.importSie(t, name+".se", []byte(c.file), "").status(t, 202)
		op, imp := b.imported(t, started)
		if op.str("data.status") != "failed" || op.str("data.error.code") != "SIE_IMPORT_INVALID_FILE" ||
			op.str("data.error.details.state") != "failed" || imp.str("data.state") != "failed" {
			t.Fatalf("%s: %s\n%s", name, op.Body, imp.Body)
		}
		errs := imp.list("data.errors")
		if len(errs) == 0 || (c.want != "" && !strings.Contains(errs[0].(map[string]any)["issue"].(string), c.want)) {
			t.Errorf("%s: errors %v", name, errs)
		}
		for i, line := range c.lines {
			if i >= len(errs) || errs[i].(map[string]any)["line"] != line {
				t.Errorf("%s: errors %v, want lines %v", name, errs, c.lines)
			}
		}
		if d := op.at("data.error.details.errors"); d == nil {
			t.Errorf("%s: the operation's error names no errors: %s", name, op.Body)
		}
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("%d entries written", n)
	}
	if n := b.count(`SELECT count(*) FROM accounts WHERE company_id = $1`, b.company); n != accounts {
		t.Fatalf("accounts %d, were %d", n, accounts)
	}
	b.importSie(t, "bokslut.txt", []byte(head), "").errorCode(t, 400, "SIE_IMPORT_UNSUPPORTED_FILE")
	b.importSie(t, "bokslut.se", []byte(head), `{"onExistingPeriod": "replace"}`).errorCode(t, 400, "VALIDATION_ERROR")
	b.importSie(t, "bokslut.se", []byte(head), `{"onExisting": "block"}`).errorCode(t, 400, "VALIDATION_ERROR")
	big := make([]byte, 50<<20+1)
	b.importSie(t, "stor.se", big, "").errorCode(t, 413, "PAYLOAD_TOO_LARGE")
}

// An identical retry answers the same import and operation; a second
// file into the year is refused while the first import stands; test keys
// cannot import.
func TestSieImportRetryAndBlock(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 30, Opening: 50000})
	first := b.importSie(t, "bok.se", file, "").status(t, 202)
	again := b.importSie(t, "bok.se", file, `{"updateAccountNames": true}`).status(t, 202)
	if again.str("data.import_id") != first.str("data.import_id") || again.str("data.operation_id") != first.str("data.operation_id") {
		t.Fatalf("retry: %s vs %s", again.Body, first.Body)
	}
	op, imp := b.imported(t, first)
	if op.str("data.status") != "succeeded" || imp.at("data.result.vouchers_posted") != 30.0 ||
		imp.at("data.result.zero_rows") != 30.0 {
		t.Fatalf("%s\n%s", op.Body, imp.Body)
	}
	// The opening balance is its own verifikat in series IB.
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND voucher_series = 'IB'
		AND source_type = 'opening_balance'`, b.company); n != 1 {
		t.Fatalf("%d opening balances", n)
	}
	other := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 3, Series: "B"})
	r := b.importSie(t, "annan.se", other, "").errorCode(t, 409, "SIE_IMPORT_PERIOD_NOT_EMPTY")
	if r.at("error.details.count") != 30.0 || r.list("error.details.import_ids")[0] != first.str("data.import_id") {
		t.Fatalf("block: %s", r.Body)
	}
	test := b.key("owner@example.se", keySpec{mode: auth.Test})
	f := form{name: "annan.se", data: other}
	ct, raw := f.body()
	b.do(req{Method: "POST", Path: b.base + "/imports/sie", Token: test, Body: raw,
		Header: map[string]string{"Content-Type": ct}}).errorCode(t, 403, "TEST_KEY_WRITE_BLOCKED")
	list := b.get(b.base+"/imports/sie", b.token).status(t, 200)
	if len(list.list("data")) != 1 || list.str("data.0.state") != "completed" {
		t.Fatalf("list: %s", list.Body)
	}
}

// Undo reverses everything an import wrote, its opening balance too,
// with the refusals the spec names; a re-import of the year then follows
// the numbers the year holds; replace supersedes an import.
func TestSieImportUndoAndReplace(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 40, Opening: 10000})
	op, imp := b.imported(t, b.importSie(t, "bok.se", file, "").status(t, 202))
	if op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	id := imp.str("data.import_id")
	act := func(id, action, token string, dry bool) *response {
		path := b.base + "/imports/sie/" + id + "/" + action
		if dry {
			path += "?dry_run=true"
		}
		return b.do(req{Method: "POST", Path: path, Token: token, Header: map[string]string{"Idempotency-Key": ik()}})
	}
	b.member(b.company, "medlem@example.se", auth.Member, false)
	member := b.key("medlem@example.se", keySpec{})
	act(id, "undo", member, false).errorCode(t, 403, "FORBIDDEN")
	act(id, "resume", member, false).errorCode(t, 403, "FORBIDDEN")
	if r := act(id, "resume", b.token, false).status(t, 200); r.str("data.state") != "completed" || r.str("data.action") != "resume" {
		t.Fatalf("resume of a completed import: %s", r.Body)
	}
	dry := act(id, "undo", b.token, true).status(t, 200)
	if dry.at("data.preview.would_reverse") != 41.0 || dry.at("data.preview.operation_id") != nil || dry.str("data.preview.state") != "completed" {
		t.Fatalf("dry run: %s", dry.Body)
	}
	undo := act(id, "undo", b.token, false).status(t, 202)
	if undo.str("data.state") != "undoing" || undo.str("data.action") != "undo" {
		t.Fatalf("undo: %s", undo.Body)
	}
	if done := b.operation(t, undo.str("data.operation_id")); done.str("data.status") != "succeeded" ||
		done.at("data.result.reversed") != 41.0 {
		t.Fatalf("undo run: %s", done.Body)
	}
	if got := b.booksBalances(t, b.period); len(got) != 0 {
		t.Fatalf("after undo the books hold %v", got)
	}
	if r := act(id, "undo", b.token, false).status(t, 200); r.str("data.state") != "undone" {
		t.Fatalf("undo of an undone import: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND reverses_id IS NOT NULL
		AND import_id = $2`, b.company, id); n != 41 {
		t.Fatalf("%d stornos", n)
	}

	// Undone, the same file imports anew, after the numbers the year holds.
	again := b.importSie(t, "bok.se", file, "").status(t, 202)
	if again.str("data.import_id") == id {
		t.Fatal("an undone import answered a retry")
	}
	op, imp = b.imported(t, again)
	if op.str("data.status") != "succeeded" || imp.at("data.result.series.A.offset") != 80.0 {
		t.Fatalf("re-import: %s\n%s", op.Body, imp.Body)
	}
	if !strings.Contains(string(imp.Body), "SIE_IMPORT_RENUMBERED") {
		t.Fatalf("no renumbering warning: %s", imp.Body)
	}
	var src string
	if err := b.db.Get(&src, `SELECT source_id FROM journal_entries WHERE company_id = $1 AND import_id = $2
		AND voucher_series = 'A' AND voucher_number = 81`, b.company, again.str("data.import_id")); err != nil || src != "sie:A:1" {
		t.Fatalf("A 81 keeps the file's number: %q %v", src, err)
	}

	// A voucher reversed by hand is a live correction: undo and replace
	// wait for it.
	second := again.str("data.import_id")
	var entry string
	if err := b.db.Get(&entry, `SELECT id FROM journal_entries WHERE company_id = $1 AND import_id = $2
		AND source_type = 'import' ORDER BY voucher_number LIMIT 1`, b.company, second); err != nil {
		t.Fatal(err)
	}
	b.action(entry, "reverse", map[string]any{}).status(t, 200)
	r := act(second, "undo", b.token, false).errorCode(t, 409, "SIE_IMPORT_ACTION_CONFLICT")
	if r.str("error.details.reason") != "live_correction" || r.str("error.details.journal_entry_ids.0") != entry {
		t.Fatalf("live correction: %s", r.Body)
	}
	replacement := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 5, Opening: 10000})
	opts := `{"onExistingPeriod": "replace", "supersedesImportId": "` + second + `"}`
	b.importSie(t, "ny.se", replacement, opts).errorCode(t, 409, "SIE_IMPORT_ACTION_CONFLICT")

	// In a fresh year: replace by an owner supersedes the import.
	c := newSieBooks(t, "2024")
	op, imp = c.imported(t, c.importSie(t, "bok.se", sietest.Write(sietest.Spec{Year: 2024, Vouchers: 12}), "").status(t, 202))
	if op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	prev := imp.str("data.import_id")
	opts = `{"onExistingPeriod": "replace", "supersedesImportId": "` + prev + `"}`
	c.member(c.company, "medlem@example.se", auth.Member, false)
	f := form{name: "ny.se", data: sietest.Write(sietest.Spec{Year: 2024, Vouchers: 7}), fields: map[string]string{"options": opts}}
	ct, raw := f.body()
	c.do(req{Method: "POST", Path: c.base + "/imports/sie", Token: c.key("medlem@example.se", keySpec{}), Body: raw,
		Header: map[string]string{"Content-Type": ct}}).errorCode(t, 403, "FORBIDDEN")
	op, imp = c.imported(t, c.importSie(t, "ny.se", f.data, opts).status(t, 202))
	if op.str("data.status") != "succeeded" || imp.at("data.result.replaced_vouchers_reversed") != 12.0 ||
		imp.at("data.result.series.A.offset") != 24.0 || imp.at("data.result.balance_check.balanced") != true {
		t.Fatalf("replace: %s\n%s", op.Body, imp.Body)
	}
	if r := c.get(c.base+"/imports/sie/"+prev, c.token).status(t, 200); r.str("data.state") != "undone" {
		t.Fatalf("the replaced import: %s", r.Body)
	}
	// The year is locked now: an undo must not reach into it.
	c.periodAction(c.period, "lock", nil).status(t, 200)
	r = act2(c, imp.str("data.import_id"), "undo").errorCode(t, 409, "SIE_IMPORT_ACTION_CONFLICT")
	if r.str("error.details.reason") != "period_locked" {
		t.Fatalf("locked: %s", r.Body)
	}
	// An import of an earlier run's version needs review.
	forge(t, &ledgerBooks{env: c.env}, `UPDATE sie_imports SET job_version = 0 WHERE company_id = '`+c.company.String()+`'`)
	act2(c, imp.str("data.import_id"), "resume").errorCode(t, 409, "SIE_IMPORT_LEGACY_REVIEW_REQUIRED")
	act2(c, imp.str("data.import_id"), "undo").errorCode(t, 409, "SIE_IMPORT_LEGACY_REVIEW_REQUIRED")
}

func act2(b *ledgerBooks, id, action string) *response {
	return b.do(req{Method: "POST", Path: b.base + "/imports/sie/" + id + "/" + action, Token: b.token,
		Header: map[string]string{"Idempotency-Key": ik()}})
}

func importBatch(n int) option { return func(c *httpapi.Config) { c.ImportBatch = n } }

// An import stopped after committed chunks is paused: it holds its year
// against everything that would fix it, until it is resumed (after the
// books were put right) and completes from its last committed chunk.
func TestSieImportPausedHoldsAndResumes(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025", importBatch(2))
	// The year opens with 600 000 000 000 kr on 1930, and each voucher
	// books 162 500 000 000 kr more: the file alone is well within what an
	// account holds, but its third voucher (in the second chunk) takes
	// 1930 past the largest balance the books hold.
	b.periodAction(b.period, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 600_000_000_000.0}, {"account_number": "2081", "credit_amount": 600_000_000_000.0}}}).
		status(t, 201)
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 3, Net: 130_000_000_000})
	started := b.importSie(t, "stor.se", file, "").status(t, 202)
	op, imp := b.imported(t, started)
	if op.str("data.status") != "failed" || op.str("data.error.code") != "ACCOUNT_BALANCE_OUT_OF_RANGE" ||
		op.str("data.error.details.state") != "paused" || op.str("data.error.details.import_id") != started.str("data.import_id") {
		t.Fatalf("%s", op.Body)
	}
	if imp.str("data.state") != "paused" || imp.at("data.progress.posted") != 2.0 || imp.str("data.phase") != "vouchers" {
		t.Fatalf("paused: %s", imp.Body)
	}
	id := imp.str("data.import_id")
	hold := func(r *response) {
		t.Helper()
		r.errorCode(t, 409, "CONFLICT")
		if r.str("error.details.reason") != "sie_import_hold" || r.str("error.details.import_id") != id {
			t.Errorf("hold: %s", r.Body)
		}
	}
	hold(b.periodAction(b.period, "lock", nil))
	hold(b.periodAction(b.period, "year-end", nil))
	hold(b.patch(b.base+"/settings/bookkeeping-lock", b.token, map[string]any{"bookkeeping_locked_through": "2025-03-31"},
		"Idempotency-Key", ik()))
	hold(b.post(b.base+"/reports/vat-declaration/filings", b.token, map[string]any{"period_type": "monthly", "year": 2025,
		"period": 1, "filed_on": "2025-02-12"}, "Idempotency-Key", ik()))
	hold(b.get(b.base+"/reports/income-statement/pdf?period_id="+b.period, b.token))
	hold(b.get(b.base+"/reports/sie-export?period_id="+b.period, b.token))
	// Another import waits for this one to finish.
	b.importSie(t, "annan.se", sietest.Write(sietest.Spec{Year: 2025, Vouchers: 1, Series: "B"}), "").
		errorCode(t, 409, "SIE_IMPORT_PERIOD_NOT_EMPTY")

	// The bookkeeper makes room on 1930, then resumes.
	b.entry(t, b.period, "2025-05-31", [3]any{"2081", 600_000_000_000.0, 0.0}, [3]any{"1930", 0.0, 600_000_000_000.0})
	r := act2(b, id, "resume").status(t, 202)
	if r.str("data.action") != "resume" || r.str("data.state") != "queued" || r.str("data.phase") != "vouchers" {
		t.Fatalf("resume: %s", r.Body)
	}
	done := b.operation(t, r.str("data.operation_id"))
	imp = b.get(b.base+"/imports/sie/"+id, b.token).status(t, 200)
	if done.str("data.status") != "succeeded" || imp.str("data.state") != "completed" || imp.at("data.progress.posted") != 3.0 {
		t.Fatalf("resumed: %s\n%s", done.Body, imp.Body)
	}
	if n := b.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND import_id = $2`, b.company, id); n != 3 {
		t.Fatalf("%d entries after the resume", n)
	}
	// The verifikat posted by hand took A 3: the file's third voucher
	// follows it, keeping its own number in source_id.
	var src string
	if err := b.db.Get(&src, `SELECT source_id FROM journal_entries WHERE company_id = $1 AND import_id = $2
		AND voucher_series = 'A' AND voucher_number = 4`, b.company, id); err != nil || src != "sie:A:3" {
		t.Fatalf("A 4: %q %v", src, err)
	}
	if !strings.Contains(string(imp.Body), `"from_file_number":"3"`) {
		t.Fatalf("no renumbering warning: %s", imp.Body)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
}

// A large file comes by a signed upload: PUT exactly its size, once,
// within two hours, then import it by its storage path.
func TestSieSignedUpload(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	b := newLedger(t, clock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	file := sietest.Write(sietest.Spec{Year: 2025, Vouchers: 25, Opening: 1000})
	ask := func(name string, size int) *response {
		return b.post(b.base+"/imports/sie/upload", b.token, map[string]any{"filename": name, "size": size}, "Idempotency-Key", ik())
	}
	ask("bok.xls", len(file)).errorCode(t, 400, "SIE_IMPORT_UNSUPPORTED_FILE")
	ask("bok.se", 50<<20+1).errorCode(t, 400, "VALIDATION_ERROR")
	up := ask("bok.se", len(file)).status(t, 201)
	url := up.str("data.uploadUrl")
	if !strings.HasPrefix(url, base+"/api/v1/uploads/") || up.str("data.expires_at") != "2025-06-15T11:00:00Z" {
		t.Fatalf("upload: %s", up.Body)
	}
	put := func(url string, data []byte) *response {
		return b.do(req{Method: "PUT", Path: strings.TrimPrefix(url, base), Body: data,
			Header: map[string]string{"Content-Type": "application/octet-stream"}})
	}
	put(url, append(append([]byte{}, file...), '\n')).errorCode(t, 413, "PAYLOAD_TOO_LARGE")
	put(url, file[:len(file)-1]).errorCode(t, 400, "SIE_UPLOAD_SIZE_MISMATCH")
	put(url+"x", file).errorCode(t, 401, "SIE_UPLOAD_TOKEN_INVALID")
	got := put(url, file).status(t, 200)
	if got.at("data.size") != float64(len(file)) || len(got.str("data.sha256")) != 64 {
		t.Fatalf("put: %s", got.Body)
	}
	put(url, file).errorCode(t, 409, "SIE_UPLOAD_ALREADY_RECEIVED")

	// The storage path is the company's own, and expires with the upload.
	path := up.str("data.storagePath")
	byPath := func(b *ledgerBooks, path string) *response {
		f := form{noFile: true, fields: map[string]string{"storagePath": path, "filename": "bok.se"}}
		ct, raw := f.body()
		return b.do(req{Method: "POST", Path: b.base + "/imports/sie", Token: b.token, Body: raw,
			Header: map[string]string{"Content-Type": ct, "Idempotency-Key": ik()}})
	}
	other := ledgerOn(t, b.env)
	byPath(other, path).errorCode(t, 400, "SIE_UPLOAD_INVALID")
	byPath(b, "uploads/sie/"+ik()).errorCode(t, 400, "SIE_UPLOAD_INVALID")
	op, imp := b.imported(t, byPath(b, path).status(t, 202))
	if op.str("data.status") != "succeeded" || imp.at("data.result.vouchers_posted") != 25.0 || imp.str("data.sha256") != got.str("data.sha256") {
		t.Fatalf("%s\n%s", op.Body, imp.Body)
	}
	late := ask("sen.se", len(file)).status(t, 201)
	mu.Lock()
	now = now.Add(2*time.Hour + time.Second)
	mu.Unlock()
	r := put(late.str("data.uploadUrl"), file).errorCode(t, 401, "SIE_UPLOAD_TOKEN_INVALID")
	if r.str("error.details.reason") != "expired" {
		t.Fatalf("expired: %s", r.Body)
	}
	r = byPath(b, path).errorCode(t, 400, "SIE_UPLOAD_INVALID")
	if r.str("error.details.reason") != "expired" {
		t.Fatalf("expired path: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM import_file_chunks WHERE company_id = $1`, b.company); n != 1 {
		t.Fatalf("%d chunks kept", n)
	}
}

// The same file in CP437, Windows-1252 and UTF-8 imports alike: the same
// books, the same names; updateAccountNames=false keeps the chart's.
func TestSieImportEncodingsAndNames(t *testing.T) {
	t.Parallel()
	cp := sieFile(t, "avendo-5.20_transaktioner_ovnbolag.se")
	text, err := charmap.CodePage437.NewDecoder().Bytes(cp)
	if err != nil {
		t.Fatal(err)
	}
	win, err := charmap.Windows1252.NewEncoder().Bytes(text)
	if err != nil {
		t.Fatal(err)
	}
	var first map[string]float64
	for name, data := range map[string][]byte{"cp437.se": cp, "win.se": win, "utf8.se": text} {
		b := newSieBooks(t, "2011")
		op, imp := b.imported(t, b.importSie(t, name, data, ""))
		if op.str("data.status") != "succeeded" || imp.at("data.result.balance_check.balanced") != true {
			t.Fatalf("%s: %s", name, imp.Body)
		}
		got := b.booksBalances(t, b.period)
		if first == nil {
			first = got
		} else if len(got) != len(first) {
			t.Fatalf("%s: %d accounts, %d in the first", name, len(got), len(first))
		}
		for k, v := range first {
			if got[k] != v {
				t.Errorf("%s: %s %.2f, %.2f in the first", name, k, got[k], v)
			}
		}
		if got := accountName(t, b, "1930"); got != "Bank, checkräkningskonto" {
			t.Errorf("%s: 1930 named %q", name, got)
		}
	}
	b := newSieBooks(t, "2011")
	bas := accountName(t, b, "1930")
	op, _ := b.imported(t, b.importSie(t, "namn.se", cp, `{"updateAccountNames": false}`))
	if op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	if got := accountName(t, b, "1930"); got != bas {
		t.Errorf("1930 renamed to %q with updateAccountNames false", got)
	}
}

func accountName(t *testing.T, b *ledgerBooks, n string) string {
	t.Helper()
	var name string
	if err := b.db.Get(&name, `SELECT account_name FROM accounts WHERE company_id = $1 AND account_number = $2`, b.company, n); err != nil {
		t.Fatal(err)
	}
	return name
}

// One import runs at a time in a company: a second one waits for it.
func TestSieImportOneRunAtATime(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025", idleWorkers())
	b.importSie(t, "a.se", sietest.Write(sietest.Spec{Year: 2025, Vouchers: 2}), "").status(t, 202)
	r := b.importSie(t, "b.se", sietest.Write(sietest.Spec{Year: 2025, Vouchers: 3, Series: "B"}), "").
		errorCode(t, 409, "SIE_IMPORT_ACTION_CONFLICT")
	if r.str("error.details.reason") != "another_run_active" || r.str("error.details.state") != "queued" {
		t.Fatalf("%s", r.Body)
	}
}
