package company

import (
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

var today = day("2026-11-21")

func issues(t *testing.T, err error) string {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.ValidationError {
		t.Fatalf("want VALIDATION_ERROR, got %v", err)
	}
	var out []string
	for _, i := range e.Details["issues"].([]apierr.Issue) {
		out = append(out, i.Field+":"+i.Rule)
	}
	return strings.Join(out, " ")
}

func TestDefaultsByForm(t *testing.T) {
	for form, method := range map[EntityType]string{Aktiebolag: "accrual", EnskildFirma: "cash", IdeellForening: "cash"} {
		c, err := New(Input{Name: " Bolaget ", EntityType: form, FSkatt: true}, today)
		if err != nil {
			t.Fatal(err)
		}
		if c.AccountingMethod != method || c.Name != "Bolaget" || c.FirstYear.Name() != "Räkenskapsår 2026" {
			t.Errorf("%s: %+v", form, c)
		}
	}
	c, _ := New(Input{Name: "A", EntityType: Aktiebolag, AccountingMethod: ptr("cash")}, today)
	if c.AccountingMethod != "cash" {
		t.Error("an explicit accounting_method must win")
	}
}

func TestVATRegisteredNeedsOrgNumberAndMomsPeriod(t *testing.T) {
	_, err := New(Input{Name: "A", EntityType: Aktiebolag, VATRegistered: true}, today)
	if got := issues(t, err); got != "moms_period:required org_number:required" {
		t.Fatalf("issues %s", got)
	}
	c, err := New(Input{Name: "A", EntityType: Aktiebolag, VATRegistered: true, OrgNumber: ptr("5566778899"), MomsPeriod: ptr("monthly")}, today)
	if err != nil || *c.OrgNumber != "556677-8899" || *c.MomsPeriod != "monthly" {
		t.Fatalf("%v %+v", err, c)
	}
	// Not VAT-registered: a moms period means nothing and is not kept.
	c, _ = New(Input{Name: "A", EntityType: Aktiebolag, MomsPeriod: ptr("monthly")}, today)
	if c.MomsPeriod != nil {
		t.Fatal("moms_period kept without VAT registration")
	}
}

func TestOrgNumbers(t *testing.T) {
	if _, err := New(Input{Name: "A", EntityType: Aktiebolag, OrgNumber: ptr("556677-8898")}, today); issues(t, err) != "org_number:luhn" {
		t.Fatal("bad check digit accepted")
	}
	if _, err := New(Input{Name: "A", EntityType: Aktiebolag, OrgNumber: ptr("811218-9876")}, today); issues(t, err) != "org_number:luhn" {
		t.Fatal("a personnummer accepted for an aktiebolag")
	}
	c, err := New(Input{Name: "A", EntityType: EnskildFirma, OrgNumber: ptr("19811218-9876")}, today)
	if err != nil || *c.OrgNumber != "811218-9876" {
		t.Fatalf("enskild firma personnummer: %v", err)
	}
	if _, err := New(Input{Name: "A", EntityType: EnskildFirma, OrgNumber: ptr("556677-8899")}, today); issues(t, err) != "org_number:luhn" {
		t.Fatal("an organisationsnummer accepted as a sole trader's personnummer")
	}
}

func TestFiscalYears(t *testing.T) {
	// A broken year starting in May.
	c, _ := New(Input{Name: "A", EntityType: Aktiebolag, FiscalYearStartMonth: ptr(5)}, today)
	if !c.FirstYear.Start.Equal(day("2026-05-01")) || !c.FirstYear.End.Equal(day("2027-04-30")) || c.FirstYear.Name() != "2026/2027" {
		t.Fatalf("broken year %+v %s", c.FirstYear, c.FirstYear.Name())
	}
	c, _ = New(Input{Name: "A", EntityType: Aktiebolag, FiscalYearStartMonth: ptr(12)}, today)
	if !c.FirstYear.Start.Equal(day("2025-12-01")) {
		t.Fatalf("start month after today's month: %+v", c.FirstYear)
	}
	// An enskild firma keeps the calendar year whatever is asked.
	c, _ = New(Input{Name: "A", EntityType: EnskildFirma, FiscalYearStartMonth: ptr(7)}, today)
	if c.FiscalYearStartMonth != 1 || !c.FirstYear.Start.Equal(day("2026-01-01")) {
		t.Fatalf("enskild firma year %+v", c.FirstYear)
	}
	// A first year of up to 18 months, then regular years from the month after.
	c, err := New(Input{Name: "A", EntityType: Aktiebolag, FirstFiscalYear: &Span{Start: day("2026-07-01"), End: day("2027-12-31")}}, today)
	if err != nil || c.FirstYear.Months() != 18 || c.FiscalYearStartMonth != 1 || c.FirstYear.Name() != "2026/2027" {
		t.Fatalf("18-month first year: %v %+v", err, c)
	}
	bad := map[string]Span{
		"first_fiscal_year.end:first_fiscal_year":   {Start: day("2026-07-01"), End: day("2028-01-31")}, // 19 months
		"first_fiscal_year.start:first_fiscal_year": {Start: day("2026-07-02"), End: day("2027-06-30")},
	}
	for want, s := range bad {
		if _, err := New(Input{Name: "A", EntityType: Aktiebolag, FirstFiscalYear: &s}, today); issues(t, err) != want {
			t.Errorf("%v: want %s", s, want)
		}
	}
	for name, s := range map[string]Span{
		"not month end":          {Start: day("2026-07-01"), End: day("2027-06-29")},
		"ended":                  {Start: day("2025-01-01"), End: day("2025-12-31")},
		"enskild firma broken":   {Start: day("2026-07-01"), End: day("2027-06-30")},
		"end before start":       {Start: day("2026-12-01"), End: day("2026-11-30")},
		"disagrees with month 1": {Start: day("2026-05-01"), End: day("2027-04-30")},
	} {
		form, month := Aktiebolag, (*int)(nil)
		if name == "enskild firma broken" {
			form = EnskildFirma
		}
		if name == "disagrees with month 1" {
			month = ptr(1)
		}
		if _, err := New(Input{Name: "A", EntityType: form, FirstFiscalYear: &s, FiscalYearStartMonth: month}, today); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Books that begin with an SIE import of earlier years start in the
// past, even in a broken year: only with books_from_import.
func TestFirstYearFromImport(t *testing.T) {
	past := Span{Start: day("2009-07-01"), End: day("2010-06-30")}
	if _, err := New(Input{Name: "A", EntityType: Aktiebolag, FirstFiscalYear: &past}, today); issues(t, err) != "first_fiscal_year.end:first_fiscal_year" {
		t.Fatal("a past first year accepted without books_from_import")
	}
	c, err := New(Input{Name: "A", EntityType: Aktiebolag, FirstFiscalYear: &past, BooksFromImport: true}, today)
	if err != nil || !c.FirstYear.Start.Equal(past.Start) || c.FiscalYearStartMonth != 7 || c.FirstYear.Name() != "2009/2010" {
		t.Fatalf("imported history: %v %+v", err, c)
	}
	future := Span{Start: day("2027-01-01"), End: day("2027-12-31")}
	if _, err := New(Input{Name: "A", EntityType: Aktiebolag, FirstFiscalYear: &future, BooksFromImport: true}, today); issues(t, err) != "first_fiscal_year.start:first_fiscal_year" {
		t.Fatal("imported books that begin after today")
	}
}
