package documents

import (
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// A document is kept through its last day, and free the day after; one
// never underlag of a posted verifikat is never held by retention.
func TestKept(t *testing.T) {
	until := day("2024-12-31")
	for _, tc := range []struct {
		today string
		want  bool
	}{{"2024-12-30", true}, {"2024-12-31", true}, {"2025-01-01", false}, {"2026-11-23", false}} {
		today := day(tc.today).Add(23 * time.Hour) // the time of day does not count
		if got := Kept(&until, today); got != tc.want {
			t.Errorf("on %s: kept %v, want %v", tc.today, got, tc.want)
		}
	}
	if Kept(nil, day("2020-01-01")) {
		t.Error("a document never underlag is held")
	}
}
