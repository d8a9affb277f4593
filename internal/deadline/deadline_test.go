package deadline

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestEaster(t *testing.T) {
	for year, want := range map[int]string{2024: "2024-03-31", 2025: "2025-04-20", 2026: "2026-04-05", 2027: "2027-03-28", 2038: "2038-04-25"} {
		if got := Easter(year); !got.Equal(day(want)) {
			t.Errorf("Easter(%d) = %s, want %s", year, got.Format(time.DateOnly), want)
		}
	}
}

func TestWorkingDay(t *testing.T) {
	for in, want := range map[string]string{
		"2026-02-12": "2026-02-12", // a Thursday
		"2026-07-12": "2026-07-13", // Sunday
		"2026-12-24": "2026-12-28", // julafton, juldagen, annandag jul, then the weekend
		"2027-01-01": "2027-01-04", // nyårsdagen (Friday), weekend
		"2026-04-03": "2026-04-07", // långfredag, weekend, annandag påsk
		"2026-06-19": "2026-06-22", // midsommarafton
		"2026-05-14": "2026-05-15", // Kristi himmelsfärd
		"2026-05-01": "2026-05-04", // första maj (Friday)
	} {
		if got := WorkingDay(day(in)); !got.Equal(day(want)) {
			t.Errorf("WorkingDay(%s) = %s, want %s", in, got.Format(time.DateOnly), want)
		}
	}
}

func find(ds []Deadline, typ, period string) *Deadline {
	for i := range ds {
		if ds[i].Type == typ && ds[i].TaxPeriod == period {
			return &ds[i]
		}
	}
	return nil
}

func TestGenerate(t *testing.T) {
	cal := Year{ID: uuid.New(), Start: day("2026-01-01"), End: day("2026-12-31")}
	cases := []struct {
		name   string
		p      Profile
		y      Year
		count  int
		typ    string
		period string
		due    string
	}{
		{"quarterly Q1: 12 May", Profile{"aktiebolag", true, "quarterly", false}, cal, 6, VATReturn, "2026-Q1", "2026-05-12"},
		{"quarterly Q2: 17 August", Profile{"aktiebolag", true, "quarterly", false}, cal, 6, VATReturn, "2026-Q2", "2026-08-17"},
		{"quarterly Q4: 12 February, a Friday", Profile{"aktiebolag", true, "quarterly", false}, cal, 6, VATReturn, "2026-Q4", "2027-02-12"},
		{"monthly November: 17 January, a Sunday", Profile{"aktiebolag", true, "monthly", false}, cal, 14, VATReturn, "2026-11", "2027-01-18"},
		{"monthly March: 12 May", Profile{"aktiebolag", true, "monthly", false}, cal, 14, VATReturn, "2026-03", "2026-05-12"},
		{"over 40 MSEK November: 27 December, a Sunday", Profile{"aktiebolag", true, "monthly", true}, cal, 14, VATReturn, "2026-11", "2026-12-28"},
		{"over 40 MSEK March: 26 April, a Sunday", Profile{"aktiebolag", true, "monthly", true}, cal, 14, VATReturn, "2026-03", "2026-04-27"},
		{"yearly enskild firma: 12 May", Profile{"enskild_firma", true, "yearly", false}, cal, 2, VATReturn, "2026", "2027-05-12"},
		{"yearly aktiebolag: 26 February", Profile{"aktiebolag", true, "yearly", false}, cal, 3, VATReturn, "2026", "2027-02-26"},
		{"INK2 calendar year: 1 July", Profile{"aktiebolag", false, "", false}, cal, 2, IncomeTaxReturn, "2026", "2027-07-01"},
		{"INK1 enskild firma: 2 May, a Sunday", Profile{"enskild_firma", false, "", false}, cal, 1, IncomeTaxReturn, "2026", "2027-05-03"},
		{"INK3 ideell förening", Profile{"ideell_forening", false, "", false}, cal, 1, IncomeTaxReturn, "2026", "2027-07-01"},
		{"INK2 year ending April: 1 November", Profile{"aktiebolag", false, "", false},
			Year{Start: day("2025-05-01"), End: day("2026-04-30")}, 2, IncomeTaxReturn, "2025/2026", "2026-11-02"},
		{"INK2 year ending June: 15 January", Profile{"aktiebolag", false, "", false},
			Year{Start: day("2025-07-01"), End: day("2026-06-30")}, 2, IncomeTaxReturn, "2025/2026", "2027-01-15"},
		{"INK2 year ending August: 1 March", Profile{"aktiebolag", false, "", false},
			Year{Start: day("2025-09-01"), End: day("2026-08-31")}, 2, IncomeTaxReturn, "2025/2026", "2027-03-01"},
		{"broken year quarterly: quarters ending inside it", Profile{"aktiebolag", true, "quarterly", false},
			Year{Start: day("2025-05-01"), End: day("2026-04-30")}, 6, VATReturn, "2026-Q1", "2026-05-12"},
		{"annual report, calendar year: 31 July, a Saturday", Profile{"aktiebolag", false, "", false}, cal, 2, AnnualReport, "2026",
			"2027-08-02"},
		{"annual report, year ending February: 30 September", Profile{"aktiebolag", false, "", false},
			Year{Start: day("2025-03-01"), End: day("2026-02-28")}, 2, AnnualReport, "2025/2026", "2026-09-30"},
		{"annual report, year ending May: 31 December, nyårsafton", Profile{"aktiebolag", false, "", false},
			Year{Start: day("2025-06-01"), End: day("2026-05-31")}, 2, AnnualReport, "2025/2026", "2027-01-04"},
		{"18-month first year, monthly", Profile{"aktiebolag", true, "monthly", false},
			Year{Start: day("2026-07-01"), End: day("2027-12-31")}, 20, VATReturn, "2027-12", "2028-02-14"},
	}
	for _, c := range cases {
		got := Generate(c.p, []Year{c.y})
		if len(got) != c.count {
			t.Errorf("%s: %d deadlines, want %d", c.name, len(got), c.count)
		}
		d := find(got, c.typ, c.period)
		if d == nil {
			t.Errorf("%s: no %s for %s", c.name, c.typ, c.period)
			continue
		}
		if !d.Due.Equal(day(c.due)) {
			t.Errorf("%s: due %s, want %s", c.name, d.Due.Format(time.DateOnly), c.due)
		}
	}
}

func TestAGIDue(t *testing.T) {
	cases := []struct {
		year    int
		month   time.Month
		over40M bool
		want    string
	}{
		{2026, time.May, false, "2026-06-12"},      // a Friday
		{2026, time.July, false, "2026-08-17"},     // August: the 17th, a Monday
		{2026, time.July, true, "2026-08-12"},      // over 40 MSEK: the 12th
		{2026, time.December, false, "2027-01-18"}, // 17 January 2027 is a Sunday
		{2026, time.September, false, "2026-10-12"},
		{2026, time.February, false, "2026-03-12"},
		{2025, time.December, false, "2026-01-19"}, // 17 January 2026 is a Saturday
	}
	for _, c := range cases {
		if got := AGIDue(c.year, c.month, c.over40M).Format("2006-01-02"); got != c.want {
			t.Errorf("%d-%02d: %s, want %s", c.year, c.month, got, c.want)
		}
	}
}
