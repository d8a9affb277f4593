package invoicing

import (
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// 9 100 over April to June (91 days) is 100 a day: 3 000, 3 100, 3 000,
// released on each month's last day; a period from 15 January to 14 March
// (59 days) of 1 000 issued on 1 March releases January (17 days, 288.14)
// and February (by the running sum to 45 days, 762.71 − 288.14 = 474.57)
// on 1 March, and March the rest (237.29).
func TestSchedule(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	got := func(rs []Release) string {
		var out string
		for _, r := range rs {
			out += r.Month.Format("2006-01") + " " + r.Day.Format(time.DateOnly) + " " + r.Amount.String() + "; "
		}
		return out
	}
	if s := got(Schedule(money.MustParse("9100"), day("2026-04-01"), day("2026-06-30"), day("2026-03-01"))); s !=
		"2026-04 2026-04-30 3000.00; 2026-05 2026-05-31 3100.00; 2026-06 2026-06-30 3000.00; " {
		t.Fatalf("Q2: %s", s)
	}
	if s := got(Schedule(money.MustParse("1000"), day("2026-01-15"), day("2026-03-14"), day("2026-03-01"))); s !=
		"2026-01 2026-03-01 288.14; 2026-02 2026-03-01 474.57; 2026-03 2026-03-31 237.29; " {
		t.Fatalf("past months: %s", s)
	}
}
