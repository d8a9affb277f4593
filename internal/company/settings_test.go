package company

import (
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
)

func settings(t *testing.T, s string) Settings {
	t.Helper()
	out, err := DecodeSettings([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckGeneral(t *testing.T) {
	cur := settings(t, `{"reminder_days_level_1": 10, "reminder_days_level_2": 20, "reminder_days_level_3": 30}`)
	for body, want := range map[string]string{
		`{"bankgiro": "5050-1055", "city": "  Lund "}`:             "",
		`{"bankgiro": "5050-1056"}`:                                "bankgiro",
		`{"plusgiro": "4512-5"}`:                                   "plusgiro",
		`{"iban": "SE4550000000058398257467"}`:                     "iban",
		`{"reminder_days_level_2": 5}`:                             "reminder_days_level_2",
		`{"reminder_days_level_3": 20}`:                            "reminder_days_level_3",
		`{"invoice_payment_accounts": {"eur": {}}}`:                "invoice_payment_accounts.eur",
		`{"invoice_payment_accounts": {"EUR": {"bankgiro": "1"}}}`: "invoice_payment_accounts.EUR.bankgiro",
		`{"voucher_series_labels": {"AB": "x"}}`:                   "voucher_series_labels.AB",
	} {
		p := settings(t, body)
		err := CheckGeneral(p, cur)
		if (want == "" && err != nil) || (want != "" && !hasIssue(err, want)) {
			t.Errorf("%s: %v, want an issue on %q", body, err, want)
		}
		if want == "" && p["city"] != "Lund" {
			t.Errorf("text not trimmed: %v", p["city"])
		}
	}
}

// next_invoice_number moves on, never back: invoices below it are
// numbered. Unset counts as 1.
func TestCheckGeneralInvoiceNumber(t *testing.T) {
	at42 := settings(t, `{"next_invoice_number": 42}`)
	unset := settings(t, `{"next_invoice_number": null}`)
	for _, c := range []struct {
		cur  Settings
		body string
		ok   bool
	}{
		{at42, `{"next_invoice_number": 42}`, true},
		{at42, `{"next_invoice_number": 1000}`, true},
		{at42, `{"next_invoice_number": 41}`, false},
		{at42, `{"next_invoice_number": null}`, false},
		{unset, `{"next_invoice_number": 1}`, true},
		{unset, `{"next_invoice_number": 100}`, true},
		{at42, `{"city": "Lund"}`, true},
	} {
		err := CheckGeneral(settings(t, c.body), c.cur)
		if c.ok != (err == nil) || !c.ok && !hasIssue(err, "next_invoice_number") {
			t.Errorf("%v then %s: %v", c.cur, c.body, err)
		}
	}
}

func TestLockMove(t *testing.T) {
	d := func(s string) *time.Time { v := day(s); return &v }
	filed := []FiledPeriod{
		{Start: day("2026-01-01"), End: day("2026-03-31"), FiledOn: day("2026-05-12")},
		{Start: day("2026-04-01"), End: day("2026-06-30"), FiledOn: day("2026-08-17")},
	}
	today := day("2026-11-21")
	if err := CheckLock(LockMove{From: d("2026-06-30"), To: d("2026-09-30")}, filed, today); err != nil {
		t.Fatalf("forward: %v", err)
	}
	if err := CheckLock(LockMove{To: d("2026-12-01")}, filed, today); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("future: %v", err)
	}
	m := LockMove{From: d("2026-06-30"), To: d("2026-03-31")}
	if !m.Backwards() || len(m.Reopened(filed)) != 1 {
		t.Fatalf("reopened: %v", m.Reopened(filed))
	}
	err := CheckLock(m, filed, today)
	e, _ := apierr.As(err)
	if e == nil || e.Code != apierr.BookkeepingLockReopensFiledVAT {
		t.Fatalf("refusal: %v", err)
	}
	if got := e.Details["filed_periods"].([]map[string]string); len(got) != 1 || got[0]["period_start"] != "2026-04-01" {
		t.Fatalf("details: %v", got)
	}
	m.Acknowledged = true
	if err := CheckLock(m, filed, today); err != nil {
		t.Fatalf("acknowledged: %v", err)
	}
	if n := len((LockMove{From: d("2026-06-30")}).Reopened(filed)); n != 2 {
		t.Fatalf("removing the lock reopens %d", n)
	}
}

func TestCheckTaxProfile(t *testing.T) {
	org := "556677-8899"
	cur := settings(t, `{"vat_registered": true, "moms_period": "quarterly", "accounting_method": "accrual",
		"defer_invoice_booking": true, "vat_has_eu_trade": true}`)
	c, err := CheckTaxProfile(Aktiebolag, &org, settings(t, `{"vat_registered": false}`), cur)
	if err != nil || c.Patch["moms_period"] != nil || c.Patch["vat_has_eu_trade"] != false || !c.Deadlines {
		t.Fatalf("deregistering: %+v %v", c, err)
	}
	c, err = CheckTaxProfile(Aktiebolag, &org, settings(t, `{"accounting_method": "cash"}`), cur)
	if err != nil || c.Patch["defer_invoice_booking"] != false || !c.MethodChanged || c.Deadlines {
		t.Fatalf("cash: %+v %v", c, err)
	}
	for body, field := range map[string]string{
		`{"vat_taxable_base_over_40m": true}`:                 "vat_taxable_base_over_40m",
		`{"vat_registered": false, "moms_period": "monthly"}`: "moms_period",
		`{"vat_number": "SE556036079301"}`:                    "vat_number",
		`{"aktiekapital": 24999, "antal_aktier": 1}`:          "aktiekapital",
		`{"antal_aktier": 100}`:                               "antal_aktier",
	} {
		if _, err := CheckTaxProfile(Aktiebolag, &org, settings(t, body), cur); !apierr.Is(err, apierr.ValidationError) ||
			!hasIssue(err, field) {
			t.Errorf("%s: %v, want an issue on %s", body, err, field)
		}
	}
	if _, err := CheckTaxProfile(EnskildFirma, nil, settings(t, `{"fiscal_year_start_month": 7}`), cur); !hasIssue(err, "fiscal_year_start_month") {
		t.Errorf("enskild firma start month: %v", err)
	}
	if _, err := CheckTaxProfile(Aktiebolag, nil, settings(t, `{"vat_registered": true}`), settings(t, `{"vat_registered": false}`)); !hasIssue(err, "moms_period") || !hasIssue(err, "vat_registered") {
		t.Errorf("registering without period or org number: %v", err)
	}
}

func hasIssue(err error, field string) bool {
	e, _ := apierr.As(err)
	if e == nil {
		return false
	}
	is, _ := e.Details["issues"].([]apierr.Issue)
	for _, i := range is {
		if i.Field == field {
			return true
		}
	}
	return false
}
