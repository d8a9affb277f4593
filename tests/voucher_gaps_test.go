package tests

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A gap in a series, as another program's file leaves it (A 2 and A 5–6
// missing of 1–7), blocks the year until it is explained; an explanation
// covers missing numbers only, once, and is never changed; a dry run
// stores nothing, a retry answers the first answer, and a reader's key
// may list but not write.
func TestVoucherGapExplanations(t *testing.T) {
	t.Parallel()
	b := newSieBooks(t, "2025")
	file := "#FLAGGA 0\n#SIETYP 4\n#RAR 0 20250101 20251231\n"
	for _, n := range []int{1, 3, 4, 7} {
		file += fmt.Sprintf("#VER A %d 2025010%d \"Försäljning\"\n{\n#TRANS 1930 {} 100\n#TRANS 3001 {} -100\n}\n", n, n)
	}
	if op, _ := b.imported(t, b.importSie(t, "luckor.se", []byte(file), "").status(t, 202)); op.str("data.status") != "succeeded" {
		t.Fatal(op.Body)
	}
	check := func() *response {
		t.Helper()
		return b.get(b.base+"/compliance/check?type=voucher_gaps&fiscal_period_id="+b.period, b.token).status(t, 200)
	}
	missing := func(r *response) string {
		t.Helper()
		out := ""
		for _, f := range r.list("data.findings") {
			m := f.(map[string]any)
			if m["code"] == "VOUCHER_GAP" {
				out += fmt.Sprint(m["details"].(map[string]any)["missing_numbers"])
			}
		}
		return out
	}
	// A year the company does not have is named by the parameter asked.
	if r := b.get(b.base+"/compliance/check?type=voucher_gaps&fiscal_period_id="+uuid.NewString(), b.token).
		errorCode(t, 404, "PERIOD_NOT_FOUND"); r.str("error.details.field") != "fiscal_period_id" {
		t.Fatalf("unknown year: %s", r.Body)
	}
	if r := check(); r.at("data.ready") != false || missing(r) != "[2 5 6]" {
		t.Fatalf("before: %s", r.Body)
	}

	path := b.base + "/voucher-gap-explanations"
	explain := func(from, to int, query string) *response {
		return b.do(req{Method: "POST", Path: path + query, Token: b.token, Header: map[string]string{"Idempotency-Key": ik()},
			Body: map[string]any{"fiscal_period_id": b.period, "voucher_series": "A", "gap_start": from, "gap_end": to,
				"explanation": "Makulerade i det tidigare programmet före exporten."}})
	}
	// A dry run previews and stores nothing.
	if dry := explain(5, 6, "?dry_run=true").status(t, 200); dry.at("data.dry_run") != true || dry.at("data.preview.gap_end") != 6.0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	if n := b.count(`SELECT count(*) FROM voucher_gap_explanations WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("a dry run stored %d", n)
	}
	// Numbers in use are not a gap; nor is a range reaching over one.
	r := explain(4, 6, "").errorCode(t, 409, "VOUCHER_GAP_NOT_MISSING")
	if fmt.Sprint(r.at("error.details.used")) != "[4]" {
		t.Fatalf("not missing: %s", r.Body)
	}
	explain(6, 5, "").errorCode(t, 400, "VALIDATION_ERROR")
	// Nor are numbers past the series' last: the next verifikat takes 8.
	if r := explain(8, 9, "").errorCode(t, 409, "VOUCHER_GAP_NOT_MISSING"); r.at("error.details.last_number") != 7.0 ||
		r.str("error.details.reason") != "beyond_series" {
		t.Fatalf("beyond the series: %s", r.Body)
	}

	// Explained, with a retry that answers the first answer.
	key := ik()
	body := map[string]any{"fiscal_period_id": b.period, "voucher_series": "A", "gap_start": 5, "gap_end": 6,
		"explanation": "Makulerade i det tidigare programmet före exporten."}
	first := b.do(req{Method: "POST", Path: path, Token: b.token, Header: map[string]string{"Idempotency-Key": key}, Body: body}).status(t, 201)
	again := b.do(req{Method: "POST", Path: path, Token: b.token, Header: map[string]string{"Idempotency-Key": key}, Body: body}).status(t, 201)
	if again.str("data.id") != first.str("data.id") || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry: %s", again.Body)
	}
	// Once: an overlapping range is refused, naming the explanation.
	r = explain(6, 6, "").errorCode(t, 409, "VOUCHER_GAP_ALREADY_EXPLAINED")
	if r.str("error.details.existing.id") != first.str("data.id") {
		t.Fatalf("already explained: %s", r.Body)
	}
	// What is left: A 2 only, and the explained range said for information.
	after := check()
	if after.at("data.ready") != false || missing(after) != "[2]" {
		t.Fatalf("after one: %s", after.Body)
	}
	explain(2, 2, "").status(t, 201)
	done := check()
	if done.at("data.ready") != true || done.at("data.summary.blockers") != 0.0 || done.at("data.summary.infos") != 2.0 {
		t.Fatalf("after both: %s", done.Body)
	}

	list := b.get(path+"?voucher_series=A&fiscal_period_id="+b.period, b.token).status(t, 200)
	if got := list.list("data.voucher_gap_explanations"); len(got) != 2 || list.at("data.voucher_gap_explanations.0.gap_start") != 2.0 {
		t.Fatalf("list: %s", list.Body)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'voucher_gap_explanations'`,
		b.company); n != 2 {
		t.Fatalf("%d audit rows", n)
	}
	// The behandlingshistorik holds them, among the verifikat, on the day
	// they were written (the database's, past this test's clock).
	h := b.get(b.base+"/reports/behandlingshistorik?period_id="+b.period+"&category=verifikation&from_date=2025-01-01&to_date="+
		time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly), b.token).status(t, 200)
	explained := 0
	for _, e := range h.list("data.events") {
		if m := e.(map[string]any); m["table_name"] == "voucher_gap_explanations" {
			explained++
		}
	}
	if explained != 2 {
		t.Fatalf("the behandlingshistorik holds %d explanations: %s", explained, h.Body)
	}
	// The SIE export says why, in its one free comment.
	prosa := ""
	for _, rec := range readAll(t, b.exportSie(t, b.period, "")) {
		if rec.Label == "#PROSA" {
			prosa = rec.Text(0)
		}
	}
	if want := "Förklarade luckor i verifikationsnumren. A 2: Makulerade i det tidigare programmet före exporten.; " +
		"A 5-6: Makulerade i det tidigare programmet före exporten."; prosa != want {
		t.Fatalf("#PROSA %q, want %q", prosa, want)
	}
	// A reader lists but does not write.
	reader := b.key("owner@example.se", keySpec{scopes: []string{"reports:read"}})
	b.get(path, reader).status(t, 200)
	b.do(req{Method: "POST", Path: path, Token: reader, Header: map[string]string{"Idempotency-Key": ik()}, Body: body}).
		errorCode(t, 403, "INSUFFICIENT_SCOPE")
	// The books refuse a change or removal of an explanation.
	refusedByTheBooks(t, b.db, "an explanation changed", `UPDATE voucher_gap_explanations SET explanation = 'x' WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "an explanation removed", `DELETE FROM voucher_gap_explanations WHERE company_id = $1`, b.company)
}
