package reports

import (
	"testing"
	"time"
)

func day(s string) time.Time {
	d, _ := time.Parse(time.DateOnly, s)
	return d
}

func TestBuckets(t *testing.T) {
	on := day("2026-06-30")
	for due, want := range map[string]string{"2026-07-15": "0-30", "2026-06-30": "0-30", "2026-05-31": "0-30",
		"2026-05-30": "31-60", "2026-05-01": "31-60", "2026-04-30": "61-90", "2026-04-01": "61-90", "2026-03-31": "90+"} {
		if got := Bucket(DaysPastDue(day(due), on)); got != want {
			t.Errorf("due %s: %s, want %s", due, got, want)
		}
	}
	var a Aging
	a.Add(day("2026-07-15"), on, m("100"))
	a.Add(day("2026-06-01"), on, m("50"))
	a.Add(day("2026-01-01"), on, m("-20"))
	if a.NotDue.Cmp(m("100")) != 0 || a.Days0To30.Cmp(m("150")) != 0 || a.Over90.Cmp(m("-20")) != 0 ||
		a.Total.Cmp(m("130")) != 0 || a.Count != 3 {
		t.Errorf("aging %+v", a)
	}
	o := Outstanding{DueDate: day("2026-06-01"), Open: m("10")}
	if CustomerStatus(o, on) != "overdue" || SupplierStatus(Outstanding{DueDate: day("2026-07-01"), Open: m("1")}, on) != "unpaid" ||
		CustomerStatus(Outstanding{DueDate: day("2026-07-01"), Open: m("1"), Paid: m("2")}, on) != "partially_paid" ||
		CustomerStatus(Outstanding{CreditNote: true}, on) != "credit_note" {
		t.Error("statuses")
	}
}
