package tests

import (
	"fmt"
	"testing"
)

// dims are ledger books with the dimension register at hand.
type dims struct{ *ledgerBooks }

func newDims(t *testing.T) *dims { return &dims{newLedger(t)} }

func (b *dims) send(method, p string, body any) *response {
	return b.do(req{Method: method, Path: b.base + "/dimensions" + p, Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": ik()}})
}

// dimension returns the id of the dimension numbered no.
func (b *dims) dimension(t *testing.T, no int) string {
	t.Helper()
	for _, d := range b.get(b.base+"/dimensions", b.token).status(t, 200).list("data.dimensions") {
		m := d.(map[string]any)
		if m["sie_dim_no"] == float64(no) {
			return m["id"].(string)
		}
	}
	t.Fatalf("no dimension %d", no)
	return ""
}

// taggedEntry creates a draft of one line pair tagged with tags on md.
func (b *dims) taggedEntry(md string, tags map[string]string) *response {
	return b.create(map[string]any{"fiscal_period_id": b.period, "entry_date": b.day(md), "description": "Taggad",
		"lines": []map[string]any{{"account_number": "5460", "debit_amount": 100, "dimensions": tags},
			{"account_number": "1930", "credit_amount": 100}}})
}

func (b *dims) enable(t *testing.T) {
	b.do(req{Method: "PATCH", Path: b.base + "/settings", Token: b.token, Body: map[string]any{"dimensions_enabled": true},
		Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
}

func TestDimensionsSystemAndCustom(t *testing.T) {
	t.Parallel()
	b := newDims(t)
	l := b.get(b.base+"/dimensions", b.token).status(t, 200)
	ds := l.list("data.dimensions")
	if len(ds) != 2 || l.at("data.dimensions.0.sie_dim_no") != 1.0 || l.str("data.dimensions.0.name") != "Kostnadsställe" ||
		l.at("data.dimensions.0.resets_annually") != true || l.at("data.dimensions.1.sie_dim_no") != 6.0 ||
		l.at("data.dimensions.1.resets_annually") != false || l.at("data.dimensions.1.is_system") != true {
		t.Fatalf("system dimensions: %s", l.Body)
	}
	one, six := b.dimension(t, 1), b.dimension(t, 6)

	// System dimensions: never renamed or deleted; archived and reordered.
	b.send("PATCH", "/"+one, map[string]any{"name": "Avdelning"}).errorCode(t, 400, "DIMENSION_SYSTEM_RENAME")
	b.send("PATCH", "/"+one, map[string]any{}).errorCode(t, 400, "VALIDATION_ERROR")
	b.send("PATCH", "/"+one, map[string]any{"sie_dim_no": 2}).errorCode(t, 400, "VALIDATION_ERROR")
	b.send("DELETE", "/"+six, nil).errorCode(t, 400, "DIMENSION_SYSTEM_DELETE")
	p := b.send("PATCH", "/"+six, map[string]any{"sort_order": 0, "is_active": false, "name": "Projekt"}).status(t, 200)
	if p.at("data.dimension.is_active") != false || p.at("data.dimension.sort_order") != 0.0 {
		t.Fatalf("archive and reorder: %s", p.Body)
	}
	if b.get(b.base+"/dimensions", b.token).at("data.dimensions.0.sie_dim_no") != 6.0 {
		t.Fatal("sort_order did not reorder the list")
	}
	b.send("PATCH", "/"+six, map[string]any{"is_active": true}).status(t, 200)

	// Custom: the next free number from 20; 1-19 reserved; taken 409.
	c := b.send("POST", "", map[string]any{"name": "Region"}).status(t, 201)
	if c.at("data.dimension.sie_dim_no") != 20.0 || c.at("data.dimension.resets_annually") != true || c.at("data.dimension.is_system") != false {
		t.Fatalf("custom: %s", c.Body)
	}
	b.send("POST", "", map[string]any{"name": "Igen", "sie_dim_no": 20}).errorCode(t, 409, "DIMENSION_NUMBER_TAKEN")
	b.send("POST", "", map[string]any{"name": "Kostnadsbärare", "sie_dim_no": 1}).errorCode(t, 409, "DIMENSION_NUMBER_TAKEN")
	b.send("POST", "", map[string]any{"name": "Kostnadsbärare", "sie_dim_no": 2}).errorCode(t, 400, "VALIDATION_ERROR")
	b.send("POST", "", map[string]any{"name": "Underregion", "parent_sie_dim_no": 99}).errorCode(t, 400, "VALIDATION_ERROR")
	sub := b.send("POST", "", map[string]any{"name": "Underregion", "parent_sie_dim_no": 20, "resets_annually": false}).status(t, 201)
	if sub.at("data.dimension.sie_dim_no") != 21.0 || sub.at("data.dimension.parent_sie_dim_no") != 20.0 {
		t.Fatalf("child: %s", sub.Body)
	}
	d := b.do(req{Method: "POST", Path: b.base + "/dimensions?dry_run=true", Token: b.token, Body: map[string]any{"name": "Prov", "sie_dim_no": 40}}).status(t, 200)
	if d.at("data.preview.dimension.id") != nil || d.at("data.preview.dimension.sie_dim_no") != 40.0 {
		t.Fatalf("dry run: %s", d.Body)
	}
	if n := b.count(`SELECT count(*) FROM dimensions WHERE company_id = $1`, b.company); n != 4 {
		t.Fatalf("%d dimensions after the dry run", n)
	}
	b.send("PATCH", "/"+c.str("data.dimension.id"), map[string]any{"name": "Säljregion"}).status(t, 200)
	// A parent is not deleted under its child; an unused dimension is.
	b.send("DELETE", "/"+c.str("data.dimension.id"), nil).errorCode(t, 409, "DIMENSION_IN_USE")
	del := b.send("DELETE", "/"+sub.str("data.dimension.id"), nil).status(t, 200)
	if del.at("data.deleted") != true || del.at("data.sie_dim_no") != 21.0 {
		t.Fatalf("delete: %s", del.Body)
	}
	b.send("DELETE", "/"+sub.str("data.dimension.id"), nil).errorCode(t, 404, "DIMENSION_NOT_FOUND")
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'dimensions'`, b.company); n != 6 {
		t.Fatalf("%d dimension audit rows", n)
	}
	other := b.key("annan@example.se", keySpec{})
	b.get(b.base+"/dimensions", other).errorCode(t, 404, "NOT_FOUND")
}

func TestDimensionValues(t *testing.T) {
	t.Parallel()
	b := newDims(t)
	one, six := b.dimension(t, 1), b.dimension(t, 6)
	v := b.send("POST", "/"+six+"/values", map[string]any{"code": "P100", "name": "Ombyggnad", "start_date": b.day("03-01"), "end_date": b.day("06-30")}).status(t, 201)
	if v.str("data.code") != "P100" || v.str("data.start_date") != b.day("03-01") || v.str("data.dimension_id") != six {
		t.Fatalf("value: %s", v.Body)
	}
	b.send("POST", "/"+six+"/values", map[string]any{"code": "P100", "name": "Igen"}).errorCode(t, 409, "DIMENSION_VALUE_DUPLICATE_CODE")
	b.send("POST", "/"+six+"/values", map[string]any{"code": "p100", "name": "Gemener"}).status(t, 201) // case-sensitive
	b.send("POST", "/"+one+"/values", map[string]any{"code": "SÄLJ+1_a-b", "name": "Försäljning"}).status(t, 201)
	for _, bad := range []string{"P 1", "P/1", "ABCDEFGHIJKLMNOPQRSTU", ""} {
		b.send("POST", "/"+one+"/values", map[string]any{"code": bad, "name": "Fel"}).errorCode(t, 400, "VALIDATION_ERROR")
	}
	// Dates only where the dimension does not reset annually.
	r := b.send("POST", "/"+one+"/values", map[string]any{"code": "K1", "name": "Kök", "start_date": b.day("01-01")})
	r.errorCode(t, 400, "VALIDATION_ERROR")
	if f := r.issueFields(); len(f) != 1 || f[0] != "body:start_date:resets_annually" {
		t.Fatalf("issues %v", f)
	}
	b.send("POST", "/"+six+"/values", map[string]any{"code": "P2", "name": "Bakvänd", "start_date": b.day("06-01"), "end_date": b.day("05-01")}).
		errorCode(t, 400, "VALIDATION_ERROR")
	b.do(req{Method: "POST", Path: b.base + "/dimensions/" + six + "/values", Token: b.token, Body: map[string]any{"code": "X", "name": "X"}}).
		errorCode(t, 400, "VALIDATION_ERROR") // Idempotency-Key mandatory
	id := v.str("data.id")
	p := b.send("PATCH", "/"+six+"/values/"+id, map[string]any{"name": "Ombyggnad Storgatan", "end_date": nil}).status(t, 200)
	if p.str("data.name") != "Ombyggnad Storgatan" || p.at("data.end_date") != nil || p.str("data.code") != "P100" {
		t.Fatalf("patch: %s", p.Body)
	}
	b.send("PATCH", "/"+six+"/values/"+id, map[string]any{"code": "P101"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.send("PATCH", "/"+one+"/values/"+id, map[string]any{"name": "x"}).errorCode(t, 404, "DIMENSION_VALUE_NOT_FOUND")
	l := b.get(b.base+"/dimensions", b.token).status(t, 200)
	if codes := fmt.Sprintf("%v %v", l.at("data.dimensions.1.values.0.code"), l.at("data.dimensions.1.values.1.code")); codes != "P100 p100" {
		t.Fatalf("values by code: %s", codes)
	}
	// An unused value is deleted; a used one is not.
	gone := b.send("POST", "/"+one+"/values", map[string]any{"code": "TMP", "name": "Tillfällig"}).status(t, 201).str("data.id")
	b.send("DELETE", "/"+one+"/values/"+gone, nil).status(t, 200)
	b.taggedEntry("04-01", map[string]string{"6": "P100"}).status(t, 201)
	b.send("DELETE", "/"+six+"/values/"+id, nil).errorCode(t, 409, "DIMENSION_VALUE_IN_USE")
	b.do(req{Method: "PATCH", Path: b.base + "/dimensions/" + six + "/values/" + id, Token: b.token, Body: map[string]any{"name": "x"}}).
		errorCode(t, 400, "VALIDATION_ERROR") // Idempotency-Key mandatory

	// A dimension of the company's own that a line carries stays.
	own := b.send("POST", "", map[string]any{"name": "Region"}).status(t, 201).str("data.dimension.id")
	b.send("POST", "/"+own+"/values", map[string]any{"code": "NORR", "name": "Norr"}).status(t, 201)
	b.taggedEntry("04-02", map[string]string{"20": "NORR"}).status(t, 201)
	r = b.send("DELETE", "/"+own, nil).errorCode(t, 409, "DIMENSION_IN_USE")
	if r.at("error.details.usage_count") != 1.0 {
		t.Fatalf("usage: %s", r.Body)
	}
	// Dry runs change nothing.
	b.do(req{Method: "PATCH", Path: b.base + "/dimensions/" + own + "?dry_run=true", Token: b.token, Body: map[string]any{"name": "Prov"}}).status(t, 200)
	unused := b.send("POST", "", map[string]any{"name": "Oanvänd"}).status(t, 201).str("data.dimension.id")
	b.do(req{Method: "DELETE", Path: b.base + "/dimensions/" + unused + "?dry_run=true", Token: b.token}).status(t, 200)
	if n := b.count(`SELECT count(*) FROM dimensions WHERE id = $1`, unused); n != 1 {
		t.Fatal("a dry run deleted")
	}
	if n := b.count(`SELECT count(*) FROM dimensions WHERE id = $1 AND name = 'Region'`, own); n != 1 {
		t.Fatal("a dry run renamed")
	}
}

// With the register enabled every posting's tags are checked; archiving a
// value refuses new postings and keeps the old ones tagged.
func TestDimensionsEnforcedOnPostings(t *testing.T) {
	t.Parallel()
	b := newDims(t)
	six := b.dimension(t, 6)
	id := b.send("POST", "/"+six+"/values", map[string]any{"code": "P100", "name": "Ombyggnad", "start_date": b.day("03-01"), "end_date": b.day("06-30")}).status(t, 201).str("data.id")

	// Off: free tags pass (the shape is still checked).
	b.taggedEntry("01-15", map[string]string{"6": "OKÄND"}).status(t, 201)
	b.taggedEntry("01-15", map[string]string{"6": "P 1"}).errorCode(t, 400, "VALIDATION_ERROR")
	b.enable(t)

	for _, c := range []struct {
		md     string
		tags   map[string]string
		reason string
	}{
		{"04-01", map[string]string{"6": "OKÄND"}, "unknown_value"},
		{"04-01", map[string]string{"7": "X"}, "unknown_dimension"},
		{"02-01", map[string]string{"6": "P100"}, "outside_validity"},
		{"07-01", map[string]string{"6": "P100"}, "outside_validity"},
	} {
		r := b.taggedEntry(c.md, c.tags).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
		if r.at("error.details.line") != 0.0 || r.str("error.details.reason") != c.reason || r.str("error.details.problems.0.reason") != c.reason {
			t.Fatalf("%v on %s: %s", c.tags, c.md, r.Body)
		}
	}
	entry := b.taggedEntry("04-01", map[string]string{"6": "P100"}).status(t, 201).str("data.id")
	b.action(entry, "commit", nil).status(t, 200)

	// Archive the value: new postings are refused, the posted one keeps its tag.
	b.send("PATCH", "/"+six+"/values/"+id, map[string]any{"is_active": false}).status(t, 200)
	draft := b.taggedEntry("04-02", map[string]string{"6": "P100"})
	draft.errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
	if draft.str("error.details.reason") != "archived_value" || draft.str("error.details.dimension") != "6" || draft.str("error.details.code") != "P100" {
		t.Fatalf("archived: %s", draft.Body)
	}
	g := b.get(b.base+"/journal-entries/"+entry, b.token).status(t, 200)
	if g.str("data.lines.0.dimensions.6") != "P100" {
		t.Fatalf("the posted line lost its tag: %s", g.Body)
	}
	// A storno of the tagged entry still goes through: it undoes history.
	b.action(entry, "reverse", map[string]any{"reversal_date": b.day("04-05")}).status(t, 200)

	// Re-activated, the same posting is accepted.
	b.send("PATCH", "/"+six+"/values/"+id, map[string]any{"is_active": true}).status(t, 200)
	b.taggedEntry("04-02", map[string]string{"6": "P100"}).status(t, 201)

	// An archived dimension refuses its tags too.
	b.send("PATCH", "/"+six, map[string]any{"is_active": false}).status(t, 200)
	r := b.taggedEntry("04-03", map[string]string{"6": "P100"}).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
	if r.str("error.details.reason") != "archived_dimension" {
		t.Fatalf("archived dimension: %s", r.Body)
	}
	// A draft made before the archive is checked again at commit.
	b.send("PATCH", "/"+six, map[string]any{"is_active": true}).status(t, 200)
	late := b.taggedEntry("04-04", map[string]string{"6": "P100"}).status(t, 201).str("data.id")
	b.send("PATCH", "/"+six+"/values/"+id, map[string]any{"is_active": false}).status(t, 200)
	b.action(late, "commit", nil).errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
	// So are the lines an inline rättelse adds.
	sale := b.posted(t, "04-06")
	var income string
	for _, l := range b.get(b.base+"/journal-entries/"+sale, b.token).status(t, 200).list("data.lines") {
		if l.(map[string]any)["account_number"] == "3001" {
			income = l.(map[string]any)["id"].(string)
		}
	}
	b.action(sale, "strike-lines", map[string]any{"strike_line_ids": []string{income}, "lines": []map[string]any{
		{"account_number": "3990", "credit_amount": 1000, "dimensions": map[string]string{"6": "P100"}}}}).
		errorCode(t, 400, "DIMENSION_VALIDATION_FAILED")
}

// The income statement per project, checked by hand.
func TestDimensionPnl(t *testing.T) {
	t.Parallel()
	b := newDims(t)
	six, one := b.dimension(t, 6), b.dimension(t, 1)
	b.send("POST", "/"+six+"/values", map[string]any{"code": "P1", "name": "Alfa"}).status(t, 201)
	b.send("POST", "/"+six+"/values", map[string]any{"code": "P2", "name": "Beta"}).status(t, 201)
	b.send("POST", "/"+one+"/values", map[string]any{"code": "K1", "name": "Butiken"}).status(t, 201)
	b.enable(t)
	post := func(md string, lines ...map[string]any) {
		id := b.create(map[string]any{"fiscal_period_id": b.period, "entry_date": b.day(md), "description": "Underlag",
			"lines": lines}).status(t, 201).str("data.id")
		b.action(id, "commit", nil).status(t, 200)
	}
	l := func(acct string, debit, credit float64, tags map[string]string) map[string]any {
		m := map[string]any{"account_number": acct}
		if debit > 0 {
			m["debit_amount"] = debit
		} else {
			m["credit_amount"] = credit
		}
		if tags != nil {
			m["dimensions"] = tags
		}
		return m
	}
	post("03-01", l("1930", 1250, 0, nil), l("3001", 0, 1000, map[string]string{"6": "P1", "1": "K1"}), l("2611", 0, 250, nil))
	post("03-02", l("1930", 625, 0, nil), l("3001", 0, 500, map[string]string{"6": "P2"}), l("2611", 0, 125, nil))
	post("03-03", l("5460", 300, 0, map[string]string{"6": "P1"}), l("1930", 0, 300, nil))
	post("03-04", l("6250", 100, 0, nil), l("1930", 0, 100, nil))
	post("03-05", l("1930", 200, 0, nil), l("3001", 0, 200, nil))
	post("06-15", l("5460", 50, 0, map[string]string{"6": "P2"}), l("1930", 0, 50, nil))
	// A draft counts for nothing.
	b.create(map[string]any{"fiscal_period_id": b.period, "entry_date": b.day("03-06"), "description": "Utkast",
		"lines": []map[string]any{l("5460", 999, 0, map[string]string{"6": "P1"}), l("1930", 0, 999, nil)}}).status(t, 201)

	report := func(q string) *response {
		return b.get(b.base+"/reports/dimension-pnl?period_id="+b.period+q, b.token).status(t, 200)
	}
	cols := func(r *response) string {
		var out []string
		for _, c := range r.list("data.columns") {
			m := c.(map[string]any)
			out = append(out, fmt.Sprintf("%v=%v", m["code"], m["name"]))
		}
		return fmt.Sprint(out)
	}
	r := report("")
	if r.at("data.dimension.sie_dim_no") != 6.0 || r.str("data.dimension.name") != "Projekt" ||
		cols(r) != "[P1=Alfa P2=Beta <nil>=(Utan dimension)]" {
		t.Fatalf("columns: %s", r.Body)
	}
	want := map[string]string{
		"data.groups.0.key":                       "revenue",
		"data.groups.0.accounts.0.account_number": "3001",
		"data.groups.0.accounts.0.amounts":        "[1000 500 200]",
		"data.groups.0.accounts.0.total":          "1700",
		"data.groups.1.key":                       "other_external",
		"data.groups.1.accounts.0.account_number": "5460",
		"data.groups.1.accounts.0.amounts":        "[-300 -50 0]",
		"data.groups.1.accounts.1.amounts":        "[0 0 -100]",
		"data.groups.1.totals":                    "[-300 -50 -100]",
		"data.groups.1.total":                     "-450",
		"data.net_per_column":                     "[700 450 100]",
		"data.net_total":                          "1250",
		"data.period.start":                       b.day("01-01"),
	}
	for path, w := range want {
		if got := fmt.Sprint(r.at(path)); got != w {
			t.Errorf("%s = %s, want %s", path, got, w)
		}
	}
	if len(r.list("data.groups")) != 2 {
		t.Fatalf("groups: %s", r.Body)
	}
	// A window inside the period leaves June out.
	w := report("&from_date=" + b.day("01-01") + "&to_date=" + b.day("05-31"))
	if fmt.Sprint(w.at("data.net_per_column")) != "[700 500 100]" || fmt.Sprint(w.at("data.net_total")) != "1300" {
		t.Fatalf("window: %s", w.Body)
	}
	// Per cost centre.
	k := report("&dim_no=1")
	if cols(k) != "[K1=Butiken <nil>=(Utan dimension)]" || fmt.Sprint(k.at("data.net_per_column")) != "[1000 250]" {
		t.Fatalf("dim 1: %s", k.Body)
	}
	// The year-end zeroes the results onto 2099; the report leaves its
	// closing entry out and reads the same.
	// (The draft must go first: a period with drafts is not locked.)
	for _, d := range b.get(b.base+"/journal-entries?status=draft", b.token).status(t, 200).list("data.journal_entries") {
		b.do(req{Method: "DELETE", Path: b.base + "/journal-entries/" + d.(map[string]any)["id"].(string), Token: b.token,
			Header: map[string]string{"Idempotency-Key": ik()}}).status(t, 200)
	}
	b.periodAction(b.period, "lock", nil).status(t, 200)
	b.yearOver(t)
	op := b.periodAction(b.period, "year-end", nil).status(t, 202).str("data.operation_id")
	if s := b.operation(t, op).str("data.status"); s != "succeeded" {
		t.Fatalf("year-end %s", s)
	}
	if after := report(""); fmt.Sprint(after.at("data.net_per_column"), after.at("data.net_total")) != "[700 450 100] 1250" {
		t.Fatalf("after the year-end: %s", after.Body)
	}
	b.get(b.base+"/reports/dimension-pnl?period_id="+b.period+"&dim_no=7", b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.base+"/reports/dimension-pnl?period_id="+b.period+"&from_date=2001-01-01", b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(b.base+"/reports/dimension-pnl", b.token).errorCode(t, 400, "VALIDATION_ERROR")
	// Nothing booked: no columns, no groups, zero.
	e := newDims(t)
	z := e.get(e.base+"/reports/dimension-pnl?period_id="+e.period, e.token).status(t, 200)
	if len(z.list("data.columns")) != 0 || len(z.list("data.groups")) != 0 || fmt.Sprint(z.at("data.net_total")) != "0" {
		t.Fatalf("empty: %s", z.Body)
	}
}

// Dimensions created at once each get a number of their own.
func TestDimensionsCreatedConcurrently(t *testing.T) {
	t.Parallel()
	b := newDims(t)
	const n = 6
	done := make(chan int, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			r := b.do(req{Method: "POST", Path: b.base + "/dimensions", Token: b.token, Body: map[string]any{"name": fmt.Sprint("Samtidig ", i)},
				Header: map[string]string{"Idempotency-Key": ik()}})
			done <- r.Status
		}(i)
	}
	for i := 0; i < n; i++ {
		if s := <-done; s != 201 {
			t.Fatalf("a concurrent create answered %d", s)
		}
	}
	if got := b.count(`SELECT count(DISTINCT sie_dim_no) FROM dimensions WHERE company_id = $1 AND sie_dim_no BETWEEN 20 AND 25`, b.company); got != n {
		t.Fatalf("%d distinct numbers from 20", got)
	}
}
