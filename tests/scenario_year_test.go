package tests

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// scenario is a year of a VAT-registered aktiebolag kept through the API,
// its clock moved along as the year goes.
type scenario struct {
	*partiesBooks
	now    *atomic.Pointer[time.Time]
	period string
	ids    map[string]string
}

// at moves the scenario's clock to noon of day.
func (s *scenario) at(day string) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		s.t.Fatal(err)
	}
	d = d.Add(12 * time.Hour)
	s.now.Store(&d)
}

func (s *scenario) invoice(name, customer, day, due string, more map[string]any, items ...map[string]any) {
	s.t.Helper()
	s.at(day)
	body := mergeMaps(map[string]any{"customer_id": s.ids[customer], "invoice_date": day, "due_date": due, "items": items}, more)
	id := s.createInvoice(body).status(s.t, 201).str("data.id")
	s.markSent(id).status(s.t, 200)
	s.ids[name] = id
}

func item(text string, price float64, rate float64) map[string]any {
	return map[string]any{"description": text, "quantity": 1, "unit": "st", "unit_price": price, "vat_rate": rate}
}

func (s *scenario) paid(name, day string, amount float64) {
	s.t.Helper()
	s.at(day)
	s.markPaid(s.ids[name], map[string]any{"amount": amount, "payment_date": day}).status(s.t, 200)
}

func (s *scenario) bought(name, supplier, day, due string, more map[string]any, items ...map[string]any) {
	s.t.Helper()
	s.at(day)
	body := mergeMaps(map[string]any{"supplier_id": s.ids[supplier], "supplier_invoice_number": name, "invoice_date": day,
		"due_date": due, "items": items}, more)
	s.ids[name] = s.write("POST", "supplier-invoices", body).status(s.t, 201).str("data.id")
}

func (s *scenario) payBill(name, day string, amount float64) {
	s.t.Helper()
	s.at(day)
	s.write("POST", "supplier-invoices/"+s.ids[name]+"/mark-paid", map[string]any{"amount": amount, "payment_date": day}).
		status(s.t, 200)
}

func (s *scenario) journal(day, text string, lines ...[3]any) {
	s.t.Helper()
	s.at(day)
	ls := make([]map[string]any, len(lines))
	for i, l := range lines {
		ls[i] = map[string]any{"account_number": l[0]}
		if l[1] != 0 {
			ls[i]["debit_amount"] = l[1]
		}
		if l[2] != 0 {
			ls[i]["credit_amount"] = l[2]
		}
	}
	id := s.write("POST", "journal-entries", map[string]any{"fiscal_period_id": s.period, "entry_date": day,
		"description": text, "lines": ls}).status(s.t, 201).str("data.id")
	s.write("POST", "journal-entries/"+id+"/commit", nil).status(s.t, 200)
}

func (s *scenario) vat(kind string, year, n int) *response {
	return s.get(s.path(fmt.Sprintf("reports/vat-declaration?period_type=%s&year=%d&period=%d", kind, year, n)), s.token).status(s.t, 200)
}

func (s *scenario) settle(n int) *response {
	s.t.Helper()
	p := s.get(s.path(fmt.Sprintf("reports/vat-declaration/settlement-proposal?period_type=quarterly&year=2026&period=%d", n)), s.token).
		status(s.t, 200)
	return s.write("POST", "vat/settlement", map[string]any{"period_type": "quarterly", "year": 2026, "period": n,
		"expected_fingerprint": p.str("data.fingerprint")})
}

// newScenario keeps the year's books under method (accrual or cash),
// up to Q1's close: the settlement of Q1 is left to the test.
func newScenario(t *testing.T, method string) *scenario {
	var clockAt atomic.Pointer[time.Time]
	start := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	clockAt.Store(&start)
	b := newPartiesBooks(t, clock(func() time.Time { return *clockAt.Load() }))
	s := &scenario{partiesBooks: b, now: &clockAt, ids: map[string]string{}}
	if _, err := b.db.Exec(`UPDATE companies SET org_number = '556677-8899' WHERE id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly', accounting_method = $2,
		vat_number = 'SE556677889901', tax_contact_name = 'Per Persson', tax_contact_phone = '08-12345678',
		tax_contact_email = 'skatt@scenario.se' WHERE company_id = $1`, b.company, method); err != nil {
		t.Fatal(err)
	}
	s.period = b.get(b.path("fiscal-periods"), b.token).status(t, 200).str("data.fiscal_periods.0.id")
	for name, body := range map[string]map[string]any{
		"sv": {"name": "Svensk Kund AB", "customer_type": "swedish_business"},
		"de": {"name": "Müller GmbH", "customer_type": "eu_business", "country": "DE", "vat_number": "DE123456789"},
		"fr": {"name": "Dupont SARL", "customer_type": "eu_business", "country": "FR", "vat_number": "FR40303265045"},
		"us": {"name": "Acme Inc", "customer_type": "non_eu_business", "country": "US"},
	} {
		s.ids[name] = b.createCustomer(body).status(t, 201).str("data.id")
	}
	if _, err := b.db.Exec(`UPDATE customers SET vat_number_validated = true WHERE company_id = $1 AND vat_number IS NOT NULL`,
		b.company); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]map[string]any{
		"kontor": {"name": "Kontorsvaror AB", "supplier_type": "swedish_business"},
		"bygg":   {"name": "Byggare AB", "supplier_type": "swedish_business"},
		"berat":  {"name": "Beratung GmbH", "supplier_type": "eu_business", "country": "DE"},
		"teile":  {"name": "Teile GmbH", "supplier_type": "eu_business", "country": "DE"},
		"hyra":   {"name": "Fastighets AB", "supplier_type": "swedish_business"},
	} {
		s.ids[name] = b.write("POST", "suppliers", body).status(t, 201).str("data.id")
	}
	// The opening balance: share capital, retained earnings, and last
	// year's Q4 VAT still on 2611.
	s.at("2026-01-02")
	b.write("POST", "fiscal-periods/"+s.period+"/opening-balances/manual", map[string]any{"lines": []map[string]any{
		{"account_number": "1930", "debit_amount": 100500}, {"account_number": "2081", "credit_amount": 50000},
		{"account_number": "2091", "credit_amount": 50000}, {"account_number": "2611", "credit_amount": 500}}}).status(t, 201)
	// Last year's Q4 settled as a SIE import would bring it: 2611 against
	// 2650, no vat_settlement source. The return leaves it out.
	s.journal("2026-01-12", "Momsredovisning kvartal 4 2025", [3]any{"2611", 500, 0}, [3]any{"2650", 0, 500})
	s.invoice("A", "sv", "2026-01-15", "2026-02-14", nil, item("Snickeri", 10000, 0.25))
	s.bought("S1", "kontor", "2026-01-20", "2026-02-19", nil,
		map[string]any{"description": "Kontorsmaterial", "amount": 2000, "account_number": "5410", "vat_rate": 0.25})
	s.invoice("B", "sv", "2026-02-01", "2026-03-03", nil, item("Livsmedel", 1000.40, 0.12), item("Böcker", 500, 0.06))
	s.bought("S2", "berat", "2026-02-05", "2026-03-07", map[string]any{"vat_treatment": "reverse_charge"},
		map[string]any{"description": "Konsulttjänst", "amount": 4000, "account_number": "4535", "vat_rate": 0.25})
	s.paid("A", "2026-02-10", 12500)
	s.invoice("D", "de", "2026-02-15", "2026-03-17", map[string]any{"delivery_country": "DE"}, item("Maskindelar", 8000, 0))
	s.payBill("S1", "2026-02-19", 2500)
	s.paid("B", "2026-02-20", 1650.45)
	s.paid("D", "2026-03-01", 8000)
	s.bought("S3", "teile", "2026-03-03", "2026-04-02", map[string]any{"vat_treatment": "reverse_charge"},
		map[string]any{"description": "Reservdelar", "amount": 2000, "account_number": "4515", "vat_rate": 0.25})
	s.payBill("S2", "2026-03-05", 4000)
	s.invoice("E", "fr", "2026-03-10", "2026-04-09", nil, item("Rådgivning", 6000, 0))
	s.invoice("F", "us", "2026-03-12", "2026-04-11", map[string]any{"delivery_country": "US"}, item("Export", 3000, 0))
	s.bought("S4", "bygg", "2026-03-15", "2026-04-14", map[string]any{"vat_treatment": "reverse_charge"},
		map[string]any{"description": "Byggtjänst", "amount": 10000, "account_number": "4425", "vat_rate": 0.25})
	s.invoice("C", "sv", "2026-03-20", "2026-04-19", nil, item("Snickeri mars", 4000, 0.25))
	s.invoice("G", "sv", "2026-03-25", "2026-04-24", nil, item("Felfakturerat", 2000, 0.25))
	s.at("2026-03-26")
	s.credit(s.ids["G"], map[string]any{}).status(t, 200)
	s.payBill("S3", "2026-03-25", 2000)
	s.paid("F", "2026-03-30", 3000)
	s.paid("E", "2026-03-31", 6000)
	return s
}

// The rest of the year after Q1: Q2-Q4 and the settlements.
func (s *scenario) restOfYear(t *testing.T) {
	s.paid("C", "2026-04-05", 5000)
	s.payBill("S4", "2026-04-14", 10000)
	s.invoice("H", "sv", "2026-04-20", "2026-05-20", nil, item("Stort uppdrag", 40000, 0.25))
	s.bought("S5", "hyra", "2026-05-10", "2026-06-09", nil,
		map[string]any{"description": "Lokalhyra", "amount": 8000, "account_number": "5010", "vat_rate": 0.25})
	s.journal("2026-06-25", "Löner juni", [3]any{"7010", 30000, 0}, [3]any{"1930", 0, 30000})
	s.journal("2026-07-01", "Hyra förråd", [3]any{"5010", 6000, 0}, [3]any{"2641", 1500, 0}, [3]any{"1930", 0, 7500})
	s.journal("2026-08-01", "Kundlunch", [3]any{"6072", 300, 0}, [3]any{"1930", 0, 300})
	s.invoice("I", "sv", "2026-08-15", "2026-09-14", nil, item("Snickeri augusti", 12000, 0.25))
	s.paid("I", "2026-09-15", 15000)
	s.at("2026-10-05")
	s.settle(2).status(t, 200)
	s.settle(3).status(t, 200)
	s.journal("2026-12-20", "Bankavgift", [3]any{"6570", 100, 0}, [3]any{"1930", 0, 100})
	s.journal("2026-12-31", "Avskrivning inventarier", [3]any{"7832", 1000, 0}, [3]any{"1229", 0, 1000})
	s.journal("2026-12-31", "Skatt på årets resultat", [3]any{"8910", 5000, 0}, [3]any{"2512", 0, 5000})
}

// allBoxes is want with every other box at 0.
func allBoxes(want map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, k := range []string{"05", "06", "07", "08", "10", "11", "12", "20", "21", "22", "23", "24", "30", "31", "32",
		"35", "36", "37", "38", "39", "40", "41", "42", "48", "49", "50", "60", "61", "62"} {
		out["ruta"+k] = want[k]
	}
	return out
}

// The acceptance year under the accrual method, every figure by hand:
// the quarters' boxes, the eSKD file, the settlement with its öre on
// 3740 and a stale fingerprint refused, the filing against the lock, the
// EU sales list and its file, the ledgers at three dates, the statements
// with the closing entry left out, INK2 and its SRU files.
func TestScenarioYearAccrual(t *testing.T) {
	t.Parallel()
	s := newScenario(t, "accrual")
	// Q1 by hand. Sales 25 %: 10 000 + 4 000 + 2 000 credited again; 12 %:
	// 1 000.40 with 120.05 VAT; 6 %: 500 with 30. EU goods 8 000 (35), EU
	// services 6 000 (39), export 3 000 (36). Bought under reverse charge:
	// EU goods 2 000 (20), EU services 4 000 (21), construction 10 000
	// (24), each with 25 % on 2614 (30: 4 000) and the same deducted. No
	// import yet. 48: 500 + 1 000 + 500 + 2 500 = 4 500.
	s.at("2026-04-02")
	q1 := allBoxes(map[string]float64{"05": 15500.40, "10": 3500, "11": 120.05, "12": 30, "20": 2000, "21": 4000, "24": 10000,
		"30": 4000, "35": 8000, "36": 3000, "39": 6000, "48": 4500, "49": 3150.05})
	wantBoxes(t, "Q1 before the import", boxes(s.vat("quarterly", 2026, 1), "data.rutor"), q1)
	stale := s.get(s.path("reports/vat-declaration/settlement-proposal?period_type=quarterly&year=2026&period=1"), s.token).
		status(t, 200).str("data.fingerprint")
	// The customs invoice for goods imported in March comes late: 5 000
	// (50) with 1 250 of import VAT (60) deducted at once.
	s.journal("2026-03-18", "Import, tull", [3]any{"4545", 5000, 0}, [3]any{"2645", 1250, 0}, [3]any{"2615", 0, 1250},
		[3]any{"1930", 0, 5000})
	q1["ruta50"], q1["ruta60"], q1["ruta48"], q1["ruta49"] = 5000, 1250, 5750, 3150.05
	r := s.vat("quarterly", 2026, 1)
	wantBoxes(t, "Q1", boxes(r, "data.rutor"), q1)
	filed := map[string]float64{}
	for k, v := range q1 {
		filed[k] = float64(int64(v))
	}
	filed["ruta49"] = 3150
	wantBoxes(t, "Q1 as filed", boxes(r, "data.rutor_filed"), filed)
	s.write("POST", "vat/settlement", map[string]any{"period_type": "quarterly", "year": 2026, "period": 1,
		"expected_fingerprint": stale}).errorCode(t, 409, "VAT_SETTLEMENT_PROPOSAL_CHANGED")
	// The settlement by hand: 2 450 + 1 250 ... cleared, 3 150 to pay on
	// 2650, the 0.05 the whole kronor leave on 3740.
	set := s.settle(1).status(t, 200)
	wantLines(t, "Q1 settlement", set, "data.lines", "D 2611 3500.00", "D 2621 120.05", "D 2631 30.00", "D 2614 4000.00",
		"D 2615 1250.00", "C 2641 500.00", "C 2645 2750.00", "C 2647 2500.00", "C 2650 3150.00", "C 3740 0.05")
	x := s.get(s.path("reports/vat-declaration/eskd?period_type=quarterly&year=2026&period=1"), s.token).status(t, 200)
	if string(x.Body) != `<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE eSKDUpload PUBLIC "-//Skatteverket, Sweden//DTD Skatteverket eSKDUpload-DTD Version 6.0//SV" "https://www1.skatteverket.se/demoeskd/eSKDUpload_6p0.dtd">
<eSKDUpload Version="6.0">
  <OrgNr>556677-8899</OrgNr>
  <Moms>
    <Period>202603</Period>
    <ForsMomsEjAnnan>15500</ForsMomsEjAnnan>
    <InkopVaruAnnatEg>2000</InkopVaruAnnatEg>
    <InkopTjanstAnnatEg>4000</InkopTjanstAnnatEg>
    <InkopTjanstSverige>10000</InkopTjanstSverige>
    <MomsUlagImport>5000</MomsUlagImport>
    <ForsVaruAnnatEg>8000</ForsVaruAnnatEg>
    <ForsVaruUtomEg>3000</ForsVaruUtomEg>
    <ForsTjSkskAnnatEg>6000</ForsTjSkskAnnatEg>
    <MomsUtgHog>3500</MomsUtgHog>
    <MomsUtgMedel>120</MomsUtgMedel>
    <MomsUtgLag>30</MomsUtgLag>
    <MomsInkopUtgHog>4000</MomsInkopUtgHog>
    <MomsImportUtgHog>1250</MomsImportUtgHog>
    <MomsIngAvdr>5750</MomsIngAvdr>
    <MomsBetala>3150</MomsBetala>
  </Moms>
</eSKDUpload>
` {
		t.Fatalf("eSKD:\n%s", x.Body)
	}
	validESKD(t, x.Body)
	// The EU sales list of Q1 and its file.
	ps := s.get(s.path("reports/periodisk-sammanstallning?period_type=quarterly&year=2026&period=1"), s.token).status(t, 200)
	if ps.at("data.csv_ready") != true || ps.at("data.cross_check.0.difference") != 0.0 || ps.at("data.cross_check.2.difference") != 0.0 {
		t.Fatalf("EU sales list: %s", ps.Body)
	}
	csv := s.get(s.path("reports/periodisk-sammanstallning/csv?period_type=quarterly&year=2026&period=1"), s.token).status(t, 200)
	if string(csv.Body) != "SKV574008;\r\nSE556677889901;26-1;Per Persson;08-12345678;skatt@scenario.se\r\n"+
		"DE123456789;8000;;;\r\nFR40303265045;;;6000;\r\n" {
		t.Fatalf("EU sales file: %q", csv.Body)
	}
	// Filed, then the lock may not reopen it.
	s.at("2026-05-08")
	s.write("POST", "reports/vat-declaration/filings", map[string]any{"period_type": "quarterly", "year": 2026, "period": 1,
		"filed_on": "2026-05-08"}).status(t, 200)
	s.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-03-31"}).status(t, 200)
	s.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-02-28"}).
		errorCode(t, 409, "BOOKKEEPING_LOCK_REOPENS_FILED_VAT")

	s.restOfYear(t)
	// Q2: 40 000 + 10 000 sold, 2 000 of rent VAT. Q3: 12 000 + 3 000,
	// 1 500 deducted. Q4: nothing.
	wantBoxes(t, "Q2", boxes(s.vat("quarterly", 2026, 2), "data.rutor"), allBoxes(map[string]float64{"05": 40000, "10": 10000,
		"48": 2000, "49": 8000}))
	wantBoxes(t, "Q3", boxes(s.vat("quarterly", 2026, 3), "data.rutor"), allBoxes(map[string]float64{"05": 12000, "10": 3000,
		"48": 1500, "49": 1500}))
	wantBoxes(t, "Q4", boxes(s.vat("quarterly", 2026, 4), "data.rutor"), allBoxes(nil))

	// The ledgers on three days.
	for day, want := range map[string][2]float64{"2026-03-31": {5000, 10000}, "2026-06-30": {50000, 10000}, "2026-12-31": {50000, 10000}} {
		ar := s.get(s.path("reports/ar-ledger?as_of_date="+day), s.token).status(t, 200)
		ap := s.get(s.path("reports/supplier-ledger?as_of_date="+day), s.token).status(t, 200)
		if ar.at("data.totals.total") != want[0] || ap.at("data.totals.total") != want[1] ||
			ar.at("data.reconciliation.difference") != 0.0 || ap.at("data.reconciliation.difference") != 0.0 {
			t.Errorf("%s: AR %v AP %v\n%s\n%s", day, ar.at("data.totals.total"), ap.at("data.totals.total"), ar.Body, ap.Body)
		}
	}

	// The year-end, then the statements and INK2 by hand. Revenue
	// 66 000 + 1 000.40 + 500 + 8 000 + 6 000 + 3 000 + 0.05 = 84 500.45;
	// goods (3.5) 4535 + 4515 + 4425 + 4545 = 21 000; other external
	// 2 000 + 8 000 + 6 000 + 300 + 100 = 16 400; staff 30 000;
	// depreciation 1 000: 16 100.45; tax 5 000: 11 100.45.
	s.at("2027-01-20")
	s.write("PATCH", "settings/bookkeeping-lock", map[string]any{"bookkeeping_locked_through": "2026-12-30"}).status(t, 200)
	lb := &ledgerBooks{env: s.env, token: s.token, base: s.path("")[:len(s.path(""))-1], company: s.company, period: s.period}
	lb.yearEnd(t, s.period, true)
	is := s.get(s.path("reports/income-statement?period_id="+s.period), s.token).status(t, 200)
	for key, want := range map[string]float64{"3.1": 84500.45, "3.5": -21000, "3.7": -16400, "3.8": -30000, "3.9": -1000,
		"rorelseresultat": 16100.45, "3.25": -5000, "arets_resultat": 11100.45} {
		if got := figure(t, is, key)[0]; got != want {
			t.Errorf("income statement %s: %v, want %v", key, got, want)
		}
	}
	// 1930: 100 500 + 12 500 + 1 650.45 + 8 000 + 3 000 + 6 000 + 5 000 +
	// 15 000 - 2 500 - 4 000 - 2 000 - 5 000 - 10 000 - 30 000 - 7 500 -
	// 300 - 100 = 90 250.45; 1510 50 000; 1229 -1 000.
	bs := s.get(s.path("reports/balance-sheet?period_id="+s.period), s.token).status(t, 200)
	if bs.at("data.totals.assets") != 139250.45 || bs.at("data.totals.difference") != 0.0 ||
		balanceRow(t, bs, "arets_resultat")[2] != 0 || balanceRow(t, bs, "fritt_eget_kapital")[2] != 61100.45 ||
		balanceRow(t, bs, "26")[2] != 13150 || balanceRow(t, bs, "19")[2] != 90250.45 {
		t.Fatalf("balance sheet: %s", bs.Body)
	}
	text := pdfText(t, s.get(s.path("reports/income-statement/pdf?period_id="+s.period), s.token).status(t, 200).Body)
	for _, want := range []string{"84 500,45", "11 100,45", "Utkast"} {
		if !strings.Contains(text, want) {
			t.Errorf("income statement PDF lacks %q:\n%s", want, text)
		}
	}
	if text = pdfText(t, s.get(s.path("reports/balance-sheet/pdf?period_id="+s.period), s.token).status(t, 200).Body); !strings.Contains(text, "139 250,45") {
		t.Errorf("balance sheet PDF:\n%s", text)
	}
	ink := s.get(s.path("reports/ink2?period_id="+s.period), s.token).status(t, 200)
	for code, want := range map[string]float64{"ink2r.7281": 90250, "ink2r.7251": 50000, "ink2r.7215": -1000, "ink2r.7301": 50000,
		"ink2r.7302": 61100, "ink2r.7365": 10000, "ink2r.7369": 13150, "ink2r.7368": 5000, "ink2r.7410": 84500,
		"ink2r.7511": 21000, "ink2r.7513": 16400, "ink2r.7514": 30000, "ink2r.7515": 1000, "ink2r.7528": 5000,
		"ink2r.7450": 11100, "ink2s.7650": 11100, "ink2s.7651": 5000, "ink2s.7653": 300, "ink2s.7670": 16400, "ink2.7104": 16400} {
		if got := ink.at("data." + code); got != want {
			t.Errorf("%s: %v, want %v", code, got, want)
		}
	}
	files := sruFiles(t, s.get(s.path("reports/ink2/sru?period_id="+s.period), s.token).status(t, 200).Body)
	wantR := "#BLANKETT INK2R-2026P4\r\n#IDENTITET 165566778899 20270120 120000\r\n#NAMN Handelsbolaget AB\r\n" +
		"#UPPGIFT 7215 -1000\r\n#UPPGIFT 7251 50000\r\n#UPPGIFT 7281 90250\r\n#UPPGIFT 7301 50000\r\n#UPPGIFT 7302 61100\r\n" +
		"#UPPGIFT 7365 10000\r\n#UPPGIFT 7368 5000\r\n#UPPGIFT 7369 13150\r\n#UPPGIFT 7410 84500\r\n#UPPGIFT 7450 11100\r\n" +
		"#UPPGIFT 7511 21000\r\n#UPPGIFT 7513 16400\r\n#UPPGIFT 7514 30000\r\n#UPPGIFT 7515 1000\r\n#UPPGIFT 7528 5000\r\n#BLANKETTSLUT\r\n"
	if !strings.Contains(files["BLANKETTER.SRU"], wantR) {
		t.Fatalf("BLANKETTER.SRU:\n%q\nwant INK2R:\n%q", files["BLANKETTER.SRU"], wantR)
	}
	// The year's check: Q2-Q4 ended unfiled (Q4 on the year's last day
	// too), all settled or empty; the ledgers agree with 1510 and 2440.
	c := s.get(s.path("compliance/check?type=year_end_readiness&fiscal_period_id="+s.period), s.token).status(t, 200)
	var unfiled []string
	for _, f := range c.list("data.findings") {
		m := f.(map[string]any)
		switch m["code"] {
		case "VAT_PERIOD_NOT_FILED":
			unfiled = append(unfiled, m["details"].(map[string]any)["tax_period"].(string))
		case "VAT_PERIOD_NOT_SETTLED", "AR_LEDGER_MISMATCH", "AP_LEDGER_MISMATCH", "VOUCHER_GAP", "YEAR_END_DRAFTS_PRESENT":
			t.Errorf("finding %v", m)
		}
	}
	if strings.Join(unfiled, " ") != "2026-Q2 2026-Q3 2026-Q4" || c.at("data.ready") != true {
		t.Fatalf("compliance: %s", c.Body)
	}
	if n := s.count(`SELECT count(*) FROM journal_entries WHERE company_id = $1 AND status = 'posted'`, s.company); n < 30 {
		t.Fatalf("only %d verifikationer", n)
	}
}

// The same year under kontantmetoden: VAT is booked when paid, so the
// March invoice paid in April and the construction bill paid in April
// move to Q2, the credited invoice never counts, and the unpaid ones not
// at all.
func TestScenarioYearCash(t *testing.T) {
	t.Parallel()
	s := newScenario(t, "cash")
	s.at("2026-04-02")
	s.journal("2026-03-18", "Import, tull", [3]any{"4545", 5000, 0}, [3]any{"2645", 1250, 0}, [3]any{"2615", 0, 1250},
		[3]any{"1930", 0, 5000})
	// Q1 by hand: paid 25 % 10 000; 12 % 1 000.40; 6 % 500; EU goods,
	// services and export as invoiced; bought and paid: 2 000 office (500
	// VAT), EU services 4 000 and goods 2 000 (1 500 on 2614 and 2645);
	// the import. 48: 500 + 1 000 + 500 + 1 250 = 3 250.
	wantBoxes(t, "Q1 cash", boxes(s.vat("quarterly", 2026, 1), "data.rutor"), allBoxes(map[string]float64{"05": 11500.40,
		"10": 2500, "11": 120.05, "12": 30, "20": 2000, "21": 4000, "30": 1500, "35": 8000, "36": 3000, "39": 6000,
		"48": 3250, "49": 2150.05, "50": 5000, "60": 1250}))
	set := s.settle(1).status(t, 200)
	if set.at("data.filed_net") != 2150.0 || set.at("data.rounding_amount") != 0.05 {
		t.Fatalf("Q1 cash settlement: %s", set.Body)
	}
	s.restOfYear(t)
	// Q2: invoice C paid 5 April (4 000 + 1 000), the construction bill
	// paid 14 April (10 000 in 24, 2 500 in 30 and 48); invoice H and the
	// rent unpaid.
	wantBoxes(t, "Q2 cash", boxes(s.vat("quarterly", 2026, 2), "data.rutor"), allBoxes(map[string]float64{"05": 4000, "10": 1000,
		"24": 10000, "30": 2500, "48": 2500, "49": 1000}))
	wantBoxes(t, "Q3 cash", boxes(s.vat("quarterly", 2026, 3), "data.rutor"), allBoxes(map[string]float64{"05": 12000, "10": 3000,
		"48": 1500, "49": 1500}))
	ar := s.get(s.path("reports/ar-ledger?as_of_date=2026-06-30"), s.token).status(t, 200)
	if ar.at("data.totals.total") != 50000.0 || ar.at("data.reconciliation") != nil {
		t.Fatalf("cash AR: %s", ar.Body)
	}
}
