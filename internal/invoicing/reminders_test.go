package invoicing

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/money"
)

func TestInterest(t *testing.T) {
	for _, c := range []struct {
		remaining, rate string
		days            int
		want            string
	}{
		{"10000", "10", 30, "82.19"}, // 10 000 × 0,10 × 30 / 365 = 82,1918
		{"10000", "10", 15, "41.10"}, // 41,0958
		{"12500", "8.5", 365, "1062.50"},
		{"100", "10", 0, "0"},
		{"0.10", "2", 1, "0.00"},
	} {
		got, err := Interest(money.MustParse(c.remaining), money.MustParse(c.rate), c.days)
		if err != nil || got.Cmp(money.MustParse(c.want)) != 0 {
			t.Errorf("%s at %s %% for %d days: %s (%v), want %s", c.remaining, c.rate, c.days, got, err, c.want)
		}
	}
}

func TestNextLevel(t *testing.T) {
	d := func(n int) *int { return &n }
	due := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	day := func(m time.Month, dd int) time.Time { return time.Date(2026, m, dd, 0, 0, 0, 0, time.UTC) }
	p := ReminderPolicy{On: true, Days: [3]*int{d(10), nil, d(40)}}
	for _, c := range []struct {
		today time.Time
		sent  int
		want  int
	}{
		{day(4, 9), 0, 0}, {day(4, 10), 0, 1}, {day(6, 1), 0, 1}, // in order: level 1 first however late
		{day(5, 9), 1, 0}, {day(5, 10), 1, 3}, // level 2 is off
		{day(6, 1), 3, 0},
	} {
		if got := NextLevel(p, due, c.today, c.sent); got != c.want {
			t.Errorf("%s after level %d: %d, want %d", c.today.Format(time.DateOnly), c.sent, got, c.want)
		}
	}
	p.On = false
	if NextLevel(p, due, day(6, 1), 0) != 0 {
		t.Error("reminders off")
	}
}

func TestCharges(t *testing.T) {
	m := money.MustParse
	fee, interest, ok := Charges(m("100"), m("60"), m("82.19"))
	if !ok || fee.Cmp(m("60")) != 0 || interest.Cmp(m("40")) != 0 {
		t.Errorf("fees first: %s %s %v", fee, interest, ok)
	}
	if _, _, ok := Charges(m("142.20"), m("60"), m("82.19")); ok {
		t.Error("more than the charges")
	}
	if fee, interest, ok := Charges(m("30"), m("60"), m("0")); !ok || fee.Cmp(m("30")) != 0 || !interest.IsZero() {
		t.Error("part of the fee")
	}
}

func TestReminderPolicyOf(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	p := ReminderPolicyOf(map[string]any{"send_invoice_reminders": true, "reminder_days_level_1": n("14"),
		"reminder_fee_enabled": false, "reminder_fee_amount": n("60"), "reminder_interest_rate_override": n("9.5"),
		"reminder_text_overrides": map[string]any{"level_2": map[string]any{"subject": "Andra påminnelsen", "body": ""}}})
	if !p.On || p.Days[0] == nil || *p.Days[0] != 14 || p.Days[1] != nil || !p.Fee.IsZero() ||
		p.Rate == nil || p.Rate.Cmp(money.MustParse("9.5")) != 0 || p.Texts[2].Subject != "Andra påminnelsen" {
		t.Errorf("%+v", p)
	}
}
