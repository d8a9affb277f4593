package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/httpapi"
)

// A computer bought on 15 January 2026 for 24 000 kr (D 1250 / C 1930),
// depreciated over 36 months: 667 kr a month, the last (December 2028)
// 655. Twelve months booked by the year's end (8 004), each month a
// verifikat D 7835 667 / C 1259 667 dated its last day, never twice; the
// register at 31 December stands at 24 000 less 8 004, 15 996, and agrees
// with 1250 and 1259. Sold on 10 August 2027, month 20, for 10 000 + 25 %
// VAT once months 13-19 are booked (19 x 667 = 12 673): its book value
// 11 327 less the price is a loss of 1 327, booked D 1930 12 500, C 2611
// 2 500, D 1259 12 673, C 1250 24 000, D 7973 1 327.
func TestFixedAssetComputer(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2027, 8, 15, 9, 0, 0, 0, time.UTC) }))
	b.vatQuarterly()
	// The company is made in 2027; its books start a year earlier.
	y2026 := b.post(b.path("fiscal-periods"), b.token, map[string]any{"period_start": "2026-01-01", "period_end": "2026-12-31"}).
		status(t, 201).str("data.fiscal_period.id")
	bought := b.write("POST", "journal-entries", map[string]any{"fiscal_period_id": y2026, "entry_date": "2026-01-15",
		"description": "Inköp dator", "lines": []map[string]any{{"account_number": "1250", "debit_amount": 24000},
			{"account_number": "1930", "credit_amount": 24000}}}).status(t, 201).str("data.id")
	b.write("POST", "journal-entries/"+bought+"/commit", nil).status(t, 200)

	dry := b.do(req{Method: "POST", Path: b.path("assets?dry_run=true"), Token: b.token, Header: map[string]string{"Idempotency-Key": newKey()},
		Body: map[string]any{"name": "Bärbar dator", "asset_class": "datorer", "acquisition_date": "2026-01-15",
			"acquisition_value": 24000, "useful_life_months": 36}}).status(t, 200)
	if dry.at("data.dry_run") != true || dry.at("data.preview.monthly_depreciation") != 667.0 {
		t.Fatalf("dry run: %s", dry.Body)
	}
	a := b.write("POST", "assets", map[string]any{"name": "Bärbar dator", "asset_class": "datorer",
		"acquisition_date": "2026-01-15", "acquisition_value": 24000, "useful_life_months": 36}).status(t, 201)
	id := a.str("data.id")
	if a.str("data.asset_account") != "1250" || a.str("data.depreciation_account") != "1259" || a.str("data.cost_account") != "7835" ||
		a.str("data.depreciation_start") != "2026-01-01" || a.at("data.book_value") != 24000.0 {
		t.Fatalf("the asset: %s", a.Body)
	}
	s := b.get(b.path("assets/"+id+"/schedule"), b.token).status(t, 200)
	months := s.list("data.months")
	if len(months) != 36 || s.at("data.total") != 24000.0 || s.at("data.months.0.amount") != 667.0 ||
		s.at("data.months.35.amount") != 655.0 || s.str("data.months.35.month") != "2028-12" {
		t.Fatalf("the schedule: %d months, %s", len(months), s.Body)
	}

	// The year's end waits for its twelve months.
	pending := func() []any {
		t.Helper()
		r := b.get(b.path("compliance/check?type=year_end_readiness&fiscal_period_id="+y2026), b.token).status(t, 200)
		for _, f := range r.list("data.findings") {
			if m := f.(map[string]any); m["code"] == "DEPRECIATION_PENDING" {
				return m["details"].(map[string]any)["assets"].([]any)[0].(map[string]any)["months"].([]any)
			}
		}
		return nil
	}
	if months := pending(); len(months) != 12 || months[0] != "2026-01" || months[11] != "2026-12" {
		t.Fatalf("pending before the run: %v", months)
	}
	depreciate := func(through string) *response {
		t.Helper()
		return b.write("POST", "assets/depreciation", map[string]any{"through_month": through})
	}
	if d := b.do(req{Method: "POST", Path: b.path("assets/depreciation?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}, Body: map[string]any{"through_month": "2027-07"}}).status(t, 200); d.at("data.preview.total") != 12673.0 ||
		len(d.list("data.preview.months")) != 19 {
		t.Fatalf("a dry run through July 2027: %s", d.Body)
	}
	if n := b.count(`SELECT count(*) FROM asset_depreciations WHERE company_id = $1`, b.company); n != 0 {
		t.Fatalf("a dry run booked %d", n)
	}
	r := depreciate("2026-12").status(t, 200)
	if r.at("data.total") != 8004.0 || len(r.list("data.months")) != 12 || r.str("data.months.0.month") != "2026-01" {
		t.Fatalf("2026: %s", r.Body)
	}
	je := b.get(b.path("journal-entries/"+r.str("data.months.0.journal_entry_id")), b.token).status(t, 200)
	if lines(je, "data.lines") != "D 7835 667.00, C 1259 667.00" || je.str("data.entry_date") != "2026-01-31" ||
		je.str("data.source_type") != "depreciation" {
		t.Fatalf("January's verifikat: %s", je.Body)
	}
	if months := pending(); months != nil {
		t.Fatalf("pending after the run: %v", months)
	}
	if again := depreciate("2026-12").status(t, 200); len(again.list("data.months")) != 0 || again.at("data.total") != 0.0 {
		t.Fatalf("booked twice: %s", again.Body)
	}
	depreciate("2027-09").errorCode(t, 400, "VALIDATION_ERROR")

	reg := b.get(b.path("assets/register?date=2026-12-31"), b.token).status(t, 200)
	if reg.at("data.totals.accumulated_depreciation") != 8004.0 || reg.at("data.totals.book_value") != 15996.0 ||
		fmt.Sprint(reg.at("data.accounts")) != "[map[account:1250 difference:0 ledger:24000 register:24000] "+
			"map[account:1259 difference:0 ledger:-8004 register:-8004]]" {
		t.Fatalf("the register: %s", reg.Body)
	}

	// What depreciation is reckoned from stays once booked; the name may change.
	b.write("PATCH", "assets/"+id, map[string]any{"acquisition_value": 25000}).errorCode(t, 409, "ASSET_DEPRECIATION_BOOKED")
	b.write("PATCH", "assets/"+id, map[string]any{"name": "Bärbar dator, Anna"}).status(t, 200)
	refusedByTheBooks(t, b.db, "booked depreciation changed", `UPDATE asset_depreciations SET amount = 1 WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "booked depreciation removed", `DELETE FROM asset_depreciations WHERE company_id = $1`, b.company)
	refusedByTheBooks(t, b.db, "a depreciated asset's value changed", `UPDATE assets SET acquisition_value = 1 WHERE company_id = $1`, b.company)
	b.write("DELETE", "assets/"+id, nil).errorCode(t, 409, "ASSET_DEPRECIATION_BOOKED")

	sale := map[string]any{"disposal_date": "2027-08-10", "price": 10000}
	behind := b.write("POST", "assets/"+id+"/dispose", sale).errorCode(t, 409, "ASSET_DEPRECIATION_BEHIND")
	if got := fmt.Sprint(behind.at("error.details.months")); !strings.HasPrefix(got, "[2027-01 ") || !strings.HasSuffix(got, " 2027-07]") {
		t.Fatalf("behind: %s", behind.Body)
	}
	depreciate("2027-07").status(t, 200)
	sold := b.write("POST", "assets/"+id+"/dispose", sale).status(t, 200)
	if sold.at("data.book_value") != 11327.0 || sold.at("data.result") != -1327.0 || sold.str("data.asset.status") != "disposed" {
		t.Fatalf("the sale: %s", sold.Body)
	}
	if got := verifikat(b, sold.str("data.journal_entry_id")); got != "D 1930 12500.00, C 2611 2500.00, D 1259 12673.00, C 1250 24000.00, D 7973 1327.00" {
		t.Fatalf("the sale's verifikat: %s", got)
	}
	if s := b.get(b.path("assets/"+id+"/schedule"), b.token).status(t, 200); len(s.list("data.months")) != 19 || s.at("data.booked") != 12673.0 {
		t.Fatalf("the schedule after the sale: %s", s.Body)
	}
	if r := depreciate("2027-08").status(t, 200); len(r.list("data.months")) != 0 {
		t.Fatalf("a sold asset depreciated: %s", r.Body)
	}
	b.write("PATCH", "assets/"+id, map[string]any{"name": "Såld"}).errorCode(t, 409, "ASSET_DISPOSED")
	b.write("POST", "assets/"+id+"/dispose", sale).errorCode(t, 409, "ASSET_DISPOSED")

	// The sale's storno brings the asset back.
	b.write("POST", "journal-entries/"+sold.str("data.journal_entry_id")+"/reverse", map[string]any{}).status(t, 200)
	if g := b.get(b.path("assets/"+id), b.token).status(t, 200); g.str("data.status") != "active" || g.at("data.disposed_on") != nil {
		t.Fatalf("after the sale's storno: %s", g.Body)
	}
}

// Land is not depreciated; an asset added by mistake is removed; a
// reader lists but does not write.
func TestFixedAssetLandAndMistakes(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC) }))
	land := b.write("POST", "assets", map[string]any{"name": "Tomt", "asset_class": "mark", "acquisition_date": "2026-02-01",
		"acquisition_value": 500000}).status(t, 201)
	if land.str("data.depreciation_method") != "none" || land.at("data.monthly_depreciation") != nil || land.str("data.asset_account") != "1130" {
		t.Fatalf("land: %s", land.Body)
	}
	b.write("POST", "assets", map[string]any{"name": "Tomt", "asset_class": "mark", "acquisition_date": "2026-02-01",
		"acquisition_value": 500000, "depreciation_method": "linear", "useful_life_months": 12}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("POST", "assets", map[string]any{"name": "Svarv", "asset_class": "maskiner", "acquisition_date": "2026-02-01",
		"acquisition_value": 60000}).errorCode(t, 400, "VALIDATION_ERROR")
	if r := b.write("POST", "assets/depreciation", map[string]any{"through_month": "2026-05"}).status(t, 200); len(r.list("data.months")) != 0 {
		t.Fatalf("land depreciated: %s", r.Body)
	}
	if d := b.write("DELETE", "assets/"+land.str("data.id"), nil).status(t, 200); d.at("data.deleted") != true {
		t.Fatalf("delete: %s", d.Body)
	}
	b.get(b.path("assets/"+land.str("data.id")), b.token).errorCode(t, 404, "ASSET_NOT_FOUND")

	reader := b.key("kund@example.se", keySpec{scopes: []string{"reports:read"}})
	b.get(b.path("assets"), reader).status(t, 200)
	b.do(req{Method: "POST", Path: b.path("assets/depreciation"), Token: reader, Body: map[string]any{"through_month": "2026-05"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "INSUFFICIENT_SCOPE")
}

// More asset-months due than a request books itself (two here) are
// queued as an operation, whose result is the run: January to May of a
// computer of 24 000 over 36 months, 5 x 667 = 3 335.
func TestFixedAssetDepreciationQueued(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC) }),
		func(c *httpapi.Config) { c.DepreciationsAtOnce = 2 })
	id := b.write("POST", "assets", map[string]any{"name": "Dator", "asset_class": "datorer", "acquisition_date": "2026-01-15",
		"acquisition_value": 24000, "useful_life_months": 36}).status(t, 201).str("data.id")
	if d := b.do(req{Method: "POST", Path: b.path("assets/depreciation?dry_run=true"), Token: b.token,
		Header: map[string]string{"Idempotency-Key": newKey()}, Body: map[string]any{"through_month": "2026-05"}}).status(t, 200); d.at("data.preview.total") != 3335.0 {
		t.Fatalf("a dry run answers at once: %s", d.Body)
	}
	op := b.write("POST", "assets/depreciation", map[string]any{"through_month": "2026-05"}).status(t, 202)
	if op.str("data.type") != "assets.depreciation" {
		t.Fatalf("queued: %s", op.Body)
	}
	done := waitOperation(b, op.str("data.operation_id"))
	if done.str("data.status") != "succeeded" || done.at("data.result.total") != 3335.0 || len(done.list("data.result.months")) != 5 {
		t.Fatalf("the operation: %s", done.Body)
	}
	if a := b.get(b.path("assets/"+id), b.token).status(t, 200); a.at("data.accumulated_depreciation") != 3335.0 {
		t.Fatalf("the asset: %s", a.Body)
	}
}

// A supplier invoice's line on 1250 becomes an asset as it is registered:
// acquired on the invoice date at the line's 24 000 kr, naming the
// registration verifikat and the invoice. A line on a cost account may
// not; and a refused asset leaves no invoice behind.
func TestFixedAssetFromSupplierInvoice(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t, clock(func() time.Time { return time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC) }))
	seller := b.supplier("Datorbutiken AB")
	line := func(account string, asset map[string]any) map[string]any {
		return map[string]any{"items": []any{map[string]any{"description": "Bärbar dator", "amount": 24000,
			"account_number": account, "create_asset": asset}}}
	}
	bill := b.supplierInvoice(seller, "D-1", 24000, line("1250", map[string]any{"asset_class": "datorer", "useful_life_months": 36}))
	si := b.get(b.path("supplier-invoices/"+bill), b.token).status(t, 200)
	l := b.get(b.path("assets"), b.token).status(t, 200)
	if len(l.list("data")) != 1 || l.str("data.0.supplier_invoice_id") != bill || l.at("data.0.acquisition_value") != 24000.0 ||
		l.str("data.0.acquisition_date") != "2026-03-02" || l.str("data.0.asset_account") != "1250" ||
		l.str("data.0.journal_entry_id") != si.str("data.registration_journal_entry_id") || l.str("data.0.name") != "Bärbar dator" {
		t.Fatalf("the asset: %s\nthe invoice: %s", l.Body, si.Body)
	}
	body := mergeMaps(map[string]any{"supplier_id": seller, "supplier_invoice_number": "D-2", "invoice_date": "2026-03-02",
		"due_date": "2026-04-01"}, line("5410", map[string]any{"asset_class": "inventarier", "useful_life_months": 60}))
	if r := b.write("POST", "supplier-invoices", body).errorCode(t, 400, "SI_CREATE_INVALID_INPUT"); r.str("error.details.reason") != "asset_account" {
		t.Fatalf("a cost line: %s", r.Body)
	}
	body = mergeMaps(body, line("1250", map[string]any{"asset_class": "datorer"}))
	if r := b.write("POST", "supplier-invoices", body).errorCode(t, 400, "VALIDATION_ERROR"); !names(r, "items.0.create_asset", "") {
		t.Fatalf("no life: %s", r.Body)
	}
	if n := b.count(`SELECT count(*) FROM supplier_invoices WHERE company_id = $1`, b.company); n != 1 {
		t.Fatalf("%d invoices after the refusals", n)
	}
}
