package assets

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func kr(n int64) money.Amount { return money.Öre(n * 100) }

func show(lines []ledger.Line) string {
	var out []string
	for _, l := range lines {
		if l.Credit.IsZero() {
			out = append(out, fmt.Sprintf("D %s %s", l.Account, l.Debit))
		} else {
			out = append(out, fmt.Sprintf("C %s %s", l.Account, l.Credit))
		}
	}
	return strings.Join(out, ", ")
}

func computer(t *testing.T) Asset {
	t.Helper()
	life := 36
	a, err := New(uuid.New(), Input{Name: "Dator", Class: "datorer", AcquisitionDate: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC),
		AcquisitionValue: kr(24000), LifeMonths: &life})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A computer bought for 24 000 kr in January 2026, over 36 months: 35
// months of 667 kr (24 000 / 36 = 666.67, rounded) and a last, December
// 2028, of 655; on 1250, written down on 1259 against 7835.
func TestSchedule(t *testing.T) {
	a := computer(t)
	s := a.Schedule()
	if len(s) != 36 || a.AssetAccount != "1250" || *a.AccumulatedAccount != "1259" || *a.CostAccount != "7835" {
		t.Fatalf("%d months, %+v", len(s), a)
	}
	var sum money.Amount
	for i, m := range s {
		want := kr(667)
		if i == 35 {
			want = kr(655)
		}
		if m.Amount.Cmp(want) != 0 {
			t.Errorf("month %d (%s): %s, want %s", i+1, m.Month.Format("2006-01"), m.Amount, want)
		}
		sum = sum.Add(m.Amount)
	}
	if sum.Cmp(kr(24000)) != 0 || s[0].Month != time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) ||
		s[35].Month != time.Date(2028, 12, 1, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("sum %s, from %s to %s", sum, s[0].Month, s[35].Month)
	}
	// Due: what is not booked, through a month, before a disposal's month.
	booked := map[time.Time]bool{s[0].Month: true}
	if due := a.Due(booked, s[2].Month); len(due) != 2 || due[0].Month != s[1].Month {
		t.Fatalf("due: %v", due)
	}
	sold := s[19].Month.AddDate(0, 0, 9)
	a.DisposedOn = &sold
	if due := a.Due(nil, s[30].Month); len(due) != 19 {
		t.Fatalf("due before the sale in month 20: %d", len(due))
	}
}

// Sold in month 20 (August 2027) for 10 000 + 2 500 VAT, 19 months of
// 667 kr booked (12 673): its book value 11 327 is 1 327 more than the
// price, a loss. Scrapped instead, the whole 11 327 is lost; sold for
// 12 000, 673 is gained.
func TestDisposalLines(t *testing.T) {
	a := computer(t)
	a.Booked = kr(19 * 667)
	got := show(a.DisposalLines(Disposal{Price: kr(10000), VAT: kr(2500), Settlement: "1930"}))
	if got != "D 1930 12500.00, C 2611 2500.00, D 1259 12673.00, C 1250 24000.00, D 7973 1327.00" {
		t.Fatal(got)
	}
	if got := show(a.DisposalLines(Disposal{Settlement: "1930"})); got != "D 1259 12673.00, C 1250 24000.00, D 7973 11327.00" {
		t.Fatal(got)
	}
	if got := show(a.DisposalLines(Disposal{Price: kr(12000), VAT: kr(3000), Settlement: "1510"})); got !=
		"D 1510 15000.00, C 2611 3000.00, D 1259 12673.00, C 1250 24000.00, C 3973 673.00" {
		t.Fatal(got)
	}
}

// A month's verifikat: a line pair per pair of accounts.
func TestDepreciationLines(t *testing.T) {
	rows := []Row{{Amount: kr(667), Cost: "7835", Accumulated: "1259"}, {Amount: kr(100), Cost: "7832", Accumulated: "1229"},
		{Amount: kr(333), Cost: "7835", Accumulated: "1259"}}
	if got := show(DepreciationLines(rows)); got != "D 7835 1000.00, C 1259 1000.00, D 7832 100.00, C 1229 100.00" {
		t.Fatal(got)
	}
}

// Land is not depreciated; a linear asset needs a life.
func TestNewRefuses(t *testing.T) {
	life := 12
	linear := Linear
	for name, in := range map[string]Input{
		"land depreciated": {Name: "Tomt", Class: "mark", AcquisitionValue: kr(1), Method: &linear, LifeMonths: &life},
		"no life":          {Name: "Maskin", Class: "maskiner", AcquisitionValue: kr(1)},
		"no value":         {Name: "Maskin", Class: "maskiner", LifeMonths: &life},
		"unknown class":    {Name: "X", Class: "bilar", AcquisitionValue: kr(1), LifeMonths: &life},
	} {
		if _, err := New(uuid.New(), in); err == nil {
			t.Errorf("%s: made", name)
		}
	}
	if a, err := New(uuid.New(), Input{Name: "Tomt", Class: "mark", AcquisitionValue: kr(500000)}); err != nil ||
		a.Method != None || a.Schedule() != nil {
		t.Fatalf("land: %+v %v", a, err)
	}
}
