package tests

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/pgtest"
)

// figure reads the amount of a row of the income statement by field, or
// of a subtotal by key: [amount, previous].
func figure(t *testing.T, r *response, key string) [2]float64 {
	t.Helper()
	for _, s := range r.list("data.sections") {
		sec := s.(map[string]any)
		for _, x := range sec["rows"].([]any) {
			row := x.(map[string]any)
			if row["field"] == key {
				return [2]float64{row["amount"].(float64), row["previous_amount"].(float64)}
			}
		}
		if st, ok := sec["subtotal"].(map[string]any); ok && st["key"] == key {
			return [2]float64{st["amount"].(float64), st["previous_amount"].(float64)}
		}
	}
	t.Fatalf("no %s in %s", key, r.Body)
	return [2]float64{}
}

// balanceRow reads a balance-sheet row by key: opening, change, closing.
func balanceRow(t *testing.T, r *response, key string) [3]float64 {
	t.Helper()
	for _, s := range r.list("data.sections") {
		for _, g := range s.(map[string]any)["groups"].([]any) {
			for _, x := range g.(map[string]any)["rows"].([]any) {
				row := x.(map[string]any)
				if row["key"] == key {
					return [3]float64{row["opening_balance"].(float64), row["change"].(float64), row["closing_balance"].(float64)}
				}
			}
		}
	}
	t.Fatalf("no row %s in %s", key, r.Body)
	return [3]float64{}
}

// Two years of an aktiebolag, the statements computed by hand: the
// income statement's fields and subtotals, a window cutting a month, last
// year's figures, the year-end's closing entry left out; the balance
// sheet before and after the year-end; both as PDFs.
func TestIncomeStatementAndBalanceSheet(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	y1, py := b.pastYear(t)
	y := b.year
	b.periodAction(y1, "opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 50000}, {"account_number": "2081", "credit_amount": 50000}}}).status(t, 201)
	b.entry(t, y1, py+"-03-05", [3]any{"1930", 12500, 0}, [3]any{"3001", 0, 10000}, [3]any{"2611", 0, 2500})
	b.entry(t, y1, py+"-03-10", [3]any{"5010", 4000, 0}, [3]any{"1930", 0, 4000})
	cur := func(md string, lines ...[3]any) { b.entry(t, b.period, y+"-"+md, lines...) }
	cur("02-10", [3]any{"5010", 48000, 0}, [3]any{"1930", 0, 48000})
	cur("03-05", [3]any{"1930", 125000, 0}, [3]any{"3001", 0, 100000}, [3]any{"2611", 0, 25000})
	cur("04-25", [3]any{"7010", 20000, 0}, [3]any{"1930", 0, 20000})
	cur("06-30", [3]any{"8410", 1200, 0}, [3]any{"1930", 0, 1200})
	cur("07-05", [3]any{"1930", 25000, 0}, [3]any{"3001", 0, 20000}, [3]any{"2611", 0, 5000})
	cur("12-31", [3]any{"7832", 3000, 0}, [3]any{"1229", 0, 3000})
	cur("12-31", [3]any{"8811", 10000, 0}, [3]any{"2125", 0, 10000})
	cur("12-31", [3]any{"8910", 2000, 0}, [3]any{"2512", 0, 2000})

	is := b.base + "/reports/income-statement?"
	q := func(kv ...string) string {
		v := url.Values{"period_id": {b.period}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	// By hand: 120 000 of sales; 48 000 + 20 000 + 3 000 of operating
	// costs: 49 000; 1 200 of interest: 47 800; 10 000 to a
	// periodiseringsfond: 37 800; 2 000 of tax: 35 800. Last year 10 000 -
	// 4 000 = 6 000.
	r := b.get(is+q(), b.token).status(t, 200)
	for key, want := range map[string][2]float64{"3.1": {120000, 10000}, "3.7": {-48000, -4000}, "3.8": {-20000, 0},
		"3.9": {-3000, 0}, "rorelseresultat": {49000, 6000}, "3.18": {-1200, 0},
		"resultat_efter_finansiella_poster": {47800, 6000}, "3.22": {-10000, 0}, "3.21": {0, 0},
		"resultat_fore_skatt": {37800, 6000}, "3.25": {-2000, 0}, "arets_resultat": {35800, 6000}} {
		if got := figure(t, r, key); got != want {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
	if r.at("data.netResult") != 35800.0 || r.at("data.nettoomsattning") != 120000.0 || r.str("data.comparison_period.start") != py+"-01-01" ||
		r.at("data.dimension_filter") != nil {
		t.Fatalf("income statement: %s", r.Body)
	}
	// A window cutting July: the sale of the 5th in or out by a day.
	for to, want := range map[string]float64{y + "-07-04": 78800, y + "-07-05": 98800} {
		w := b.get(is+q("from_date", y+"-03-01", "to_date", to), b.token).status(t, 200)
		if got := figure(t, w, "arets_resultat"); got[0] != want || got[1] != 6000 || w.str("data.period.end") != to {
			t.Errorf("to %s: %v, want %v", to, got, want)
		}
	}
	// The refusals: unknown parameters, a window outside the period or
	// backwards, a half dimension filter, another company's period.
	u := b.get(is+q("from", y+"-01-01", "as_of", y+"-02-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	if strings.Join(strs(u.list("error.details.unknown_params")), ",") != "as_of,from" ||
		strings.Join(strs(u.list("error.details.allowed_params")), ",") != "dim_code,dim_no,from_date,period_id,to_date" {
		t.Fatalf("unknown params: %s", u.Body)
	}
	b.get(is+q("from_date", py+"-12-31"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(is+q("from_date", y+"-05-01", "to_date", y+"-04-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(is+q("dim_no", "6"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(is+"period_id=nope", b.token).errorCode(t, 400, "VALIDATION_ERROR")
	b.get(is+"period_id="+newLedger(t).period, b.token).errorCode(t, 404, "PERIOD_NOT_FOUND")

	bs := b.base + "/reports/balance-sheet?"
	bq := func(period string, kv ...string) string {
		v := url.Values{"period_id": {period}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	// Last year before its year-end: 1930 at 50 000 + 12 500 - 4 000,
	// the result of 6 000 not yet closed.
	s := b.get(bs+bq(y1), b.token).status(t, 200)
	if balanceRow(t, s, "19") != [3]float64{50000, 8500, 58500} || balanceRow(t, s, "bundet_eget_kapital") != [3]float64{50000, 0, 50000} ||
		balanceRow(t, s, "arets_resultat") != [3]float64{0, 6000, 6000} || balanceRow(t, s, "26") != [3]float64{0, 2500, 2500} ||
		s.at("data.totals.assets") != 58500.0 || s.at("data.totals.equity_and_liabilities") != 58500.0 || s.at("data.totals.difference") != 0.0 {
		t.Fatalf("balance sheet before the year-end: %s", s.Body)
	}
	if mid := b.get(bs+bq(y1, "as_of", py+"-03-07"), b.token).status(t, 200); balanceRow(t, mid, "19")[2] != 62500 || mid.str("data.period.end") != py+"-03-07" {
		t.Fatalf("as of 7 March: %s", mid.Body)
	}
	b.get(bs+bq(y1, "as_of", py+"-03-07", "to_date", py+"-03-07"), b.token).errorCode(t, 400, "VALIDATION_ERROR")
	if f := b.get(bs+bq(y1, "from_date", py+"-01-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR"); strs(f.list("error.details.unknown_params"))[0] != "from_date" {
		t.Fatalf("from_date: %s", f.Body)
	}
	b.get(bs+bq(y1, "to_date", y+"-01-01"), b.token).errorCode(t, 400, "VALIDATION_ERROR")

	// The year-end moves the result to 2099: the statement is unchanged,
	// the balance sheet shows it as free equity.
	b.yearEnd(t, y1, true)
	last := b.get(is+"period_id="+y1, b.token).status(t, 200)
	if figure(t, last, "arets_resultat")[0] != 6000 || figure(t, last, "3.1")[0] != 10000 {
		t.Fatalf("the closing entry counted: %s", last.Body)
	}
	s = b.get(bs+bq(y1), b.token).status(t, 200)
	if balanceRow(t, s, "arets_resultat") != [3]float64{0, 0, 0} || balanceRow(t, s, "fritt_eget_kapital") != [3]float64{0, 6000, 6000} ||
		s.at("data.totals.equity_and_liabilities") != 58500.0 {
		t.Fatalf("balance sheet after the year-end: %s", s.Body)
	}
	// This year, with the opening balance the year-end carried: 1930 at
	// 58 500 + 125 000 + 25 000 - 48 000 - 20 000 - 1 200 = 139 300, 1229
	// at -3 000; 2611 at 2 500 + 30 000, 2125 at 10 000, 2512 at 2 000 and
	// the year's 35 800 on top of the 56 000 of equity.
	s = b.get(bs+bq(b.period), b.token).status(t, 200)
	if balanceRow(t, s, "19") != [3]float64{58500, 80800, 139300} || balanceRow(t, s, "12") != [3]float64{0, -3000, -3000} ||
		balanceRow(t, s, "26") != [3]float64{2500, 30000, 32500} || balanceRow(t, s, "21") != [3]float64{0, 10000, 10000} ||
		balanceRow(t, s, "25") != [3]float64{0, 2000, 2000} || balanceRow(t, s, "fritt_eget_kapital") != [3]float64{6000, 0, 6000} ||
		balanceRow(t, s, "arets_resultat") != [3]float64{0, 35800, 35800} || s.at("data.totals.assets") != 136300.0 ||
		s.at("data.totals.equity_and_liabilities") != 136300.0 {
		t.Fatalf("this year's balance sheet: %s", s.Body)
	}

	// Month by month, summing to the year; the key figures; the cash
	// flow by hand: 47 800 + 3 000 of depreciation + 30 000 more VAT owed
	// (the tax of 2 000 still owed on 2512: none paid) = 80 800, the
	// equipment's depreciation taking nothing out of investing, the
	// periodiseringsfond none out of financing: 19xx grew 80 800.
	mb := b.get(b.base+"/reports/monthly-breakdown?period_id="+b.period, b.token).status(t, 200)
	if len(mb.list("data.months")) != 12 || mb.at("data.totals.net") != 35800.0 || mb.at("data.months.2.revenue") != 100000.0 ||
		mb.at("data.months.1.expenses") != 48000.0 || mb.at("data.totals.operating_result") != 49000.0 {
		t.Fatalf("monthly: %s", mb.Body)
	}
	k := b.get(b.base+"/reports/kpi?period_id="+b.period, b.token).status(t, 200)
	if k.at("data.netResult") != 35800.0 || k.at("data.totalRevenue") != 120000.0 || k.at("data.totalExpenses") != 71000.0 ||
		k.at("data.grossMargin") != 1.0 || k.at("data.expenseRatio") != 0.5917 || k.at("data.topExpenseAccounts.0.account_number") != "5010" ||
		k.at("data.expenseComposition.0.class") != 5.0 || len(k.list("data.months")) != 12 {
		t.Fatalf("kpi: %s", k.Body)
	}
	cf := b.get(b.base+"/reports/kassaflodesanalys?period_id="+b.period, b.token).status(t, 200)
	if cf.at("data.lopande.resultat_efter_finansiella_poster") != 47800.0 || cf.at("data.lopande.avskrivningar") != 3000.0 ||
		cf.at("data.lopande.forandring_kortfristiga_skulder") != 30000.0 || cf.at("data.lopande.betald_skatt") != 0.0 ||
		cf.at("data.lopande.total") != 80800.0 || cf.at("data.investerings.total") != 0.0 || cf.at("data.finansierings.total") != 0.0 ||
		cf.at("data.total_cash_flow") != 80800.0 || cf.at("data.reconciliation.opening_cash") != 58500.0 ||
		cf.at("data.reconciliation.closing_cash") != 139300.0 || cf.at("data.reconciliation.is_reconciled") != true {
		t.Fatalf("cash flow: %s", cf.Body)
	}
	// A dimension filter the report cannot apply is refused, not ignored.
	if cf = b.get(b.base+"/reports/kassaflodesanalys?period_id="+b.period+"&dim_no=6&dim_code=P1", b.token).errorCode(t, 400, "VALIDATION_ERROR"); cf.str("error.details.issues.0.rule") != "dimension_filter" {
		t.Fatalf("dimension filter on the cash flow: %s", cf.Body)
	}
	if r := b.get(b.base+"/reports/income-statement?period_id=nope", b.token).errorCode(t, 400, "VALIDATION_ERROR"); r.str("error.details.field") != "period_id" {
		t.Fatalf("malformed period_id: %s", r.Body)
	}

	// The PDFs, read back.
	pi := b.get(b.base+"/reports/income-statement/pdf?"+q(), b.token).status(t, 200)
	text := pdfText(t, pi.Body)
	for _, want := range []string{"Resultaträkning", "Verifikat AB", "Nettoomsättning", "120 000,00", "Årets resultat",
		"35 800,00", "6 000,00", "Utkast", "Sida 1 av 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("income statement PDF lacks %q:\n%s", want, text)
		}
	}
	// The year before had figures: its column is there, each heading in
	// its own room.
	if !strings.Contains(text, "Föregående år") {
		t.Errorf("the income statement does not compare with the year before:\n%s", text)
	}
	laidOut(t, "income statement", pi.Body)
	pb := b.get(b.base+"/reports/balance-sheet/pdf?"+bq(b.period), b.token).status(t, 200)
	laidOut(t, "balance sheet", pb.Body)
	text = pdfText(t, pb.Body)
	for _, want := range []string{"Balansräkning", "Summa tillgångar", "136 300,00", "Summa eget kapital och skulder",
		"Kassa och bank", "139 300,00", "Utkast"} {
		if !strings.Contains(text, want) {
			t.Errorf("balance sheet PDF lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(pb.Header.Get("Content-Disposition"), "balansrakning-"+y+"-12-31.pdf") {
		t.Errorf("file name: %v", pb.Header)
	}
	b.get(b.base+"/reports/balance-sheet/pdf?"+bq(b.period, "foo", "1"), b.token).errorCode(t, 400, "VALIDATION_ERROR")

	// Books that do not balance (here forged past the guards, as only a
	// broken database could hold them) get no balance-sheet PDF.
	forge(t, b, `UPDATE account_balances SET opening_debit = opening_debit + 100
		WHERE company_id = '`+b.company.String()+`' AND account_number = '1930' AND fiscal_period_id = '`+b.period+`'
		AND month = (SELECT min(month) FROM account_balances WHERE company_id = '`+b.company.String()+`'
			AND account_number = '1930' AND fiscal_period_id = '`+b.period+`')`)
	refusal := b.get(b.base+"/reports/balance-sheet/pdf?"+bq(b.period), b.token).errorCode(t, 409, "REPORT_GENERATION_FAILED")
	if refusal.at("error.details.difference") != 100.0 || refusal.at("error.details.assets") != 136400.0 {
		t.Fatalf("refusal: %s", refusal.Body)
	}
}

// forge runs q on the books' database as a superuser with every trigger
// off: what a broken database, not the API, could do.
func forge(t *testing.T, b *ledgerBooks, q string) {
	t.Helper()
	var name string
	if err := b.db.GetContext(context.Background(), &name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := sql.Open("postgres", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SET session_replication_role = replica; " + q); err != nil {
		t.Fatal(err)
	}
}

// A company in its first year has no year before to compare with: its
// income statement PDF has no column for one.
func TestIncomeStatementPDFFirstYear(t *testing.T) {
	t.Parallel()
	b := newLedger(t)
	b.posted(t, "03-15")
	r := b.get(b.base+"/reports/income-statement/pdf?period_id="+b.period, b.token).status(t, 200)
	if text := pdfText(t, r.Body); strings.Contains(text, "Föregående år") || !strings.Contains(text, "1 000,00") {
		t.Errorf("a first year's income statement:\n%s", text)
	}
	laidOut(t, "income statement, first year", r.Body)
}
