package banking

import (
	"fmt"
	"testing"

	"github.com/kontera/kontera/internal/apierr"
)

func TestChooseLedger(t *testing.T) {
	free := Ledgers{Taken: map[string]bool{}, InChart: map[string]bool{"1930": true, "1940": true}}
	for cur, want := range map[string]string{"SEK": "1930", "EUR": "1932", "USD": "1933", "GBP": "1934", "NOK": "1931"} {
		if got, err := ChooseLedger(cur, nil, free); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", cur, got, err, want)
		}
	}
	// A second SEK account: 1930 is taken, 1931 is free; a third skips the
	// defaults and what the chart holds.
	l := Ledgers{Taken: map[string]bool{"1930": true, "1931": true}, InChart: map[string]bool{"1930": true, "1931": true, "1935": true}}
	if got, _ := ChooseLedger("SEK", nil, l); got != "1936" {
		t.Errorf("third SEK account on %s, want 1936", got)
	}
	if got, _ := ChooseLedger("DKK", nil, l); got != "1936" {
		t.Errorf("DKK on %s, want 1936", got)
	}
	for _, bad := range []string{"1910", "1919", "2000", "19x0", "193", "19300"} {
		a := bad
		if _, err := ChooseLedger("SEK", &a, free); !apierr.Is(err, apierr.ValidationError) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	taken := "1930"
	if _, err := ChooseLedger("SEK", &taken, Ledgers{Taken: map[string]bool{"1930": true}}); !apierr.Is(err, apierr.CashAccountLedgerTaken) {
		t.Errorf("a taken account: %v", err)
	}
	asked := "1940"
	if got, err := ChooseLedger("EUR", &asked, free); err != nil || got != "1940" {
		t.Errorf("asked 1940: %s %v", got, err)
	}
	full := Ledgers{Taken: map[string]bool{}, InChart: map[string]bool{}}
	for n := 1931; n <= 1959; n++ {
		full.Taken[fmt.Sprint(n)] = true
	}
	if _, err := ChooseLedger("NOK", nil, full); !apierr.Is(err, apierr.CashAccountLedgerTaken) {
		t.Errorf("no free slot: %v", err)
	}
}

func TestCashApply(t *testing.T) {
	a := CashAccount{Name: "Företagskonto", Primary: true, Enabled: true}
	off := false
	if _, err := a.Apply(CashChange{Enabled: &off}); !apierr.Is(err, apierr.Conflict) {
		t.Fatalf("disabling the primary: %v", err)
	}
	b := "b"
	got, err := a.Apply(CashChange{VoucherSeriesSet: true, VoucherSeries: &b})
	if err != nil || *got.VoucherSeries != "B" {
		t.Fatalf("series: %v %v", got.VoucherSeries, err)
	}
	bad := "AB"
	if _, err := a.Apply(CashChange{VoucherSeriesSet: true, VoucherSeries: &bad}); !apierr.Is(err, apierr.ValidationError) {
		t.Fatalf("two letters: %v", err)
	}
	if got, _ := got.Apply(CashChange{VoucherSeriesSet: true}); got.VoucherSeries != nil {
		t.Fatal("null did not clear the series")
	}
}

func TestNewCashCheck(t *testing.T) {
	iban := "SE45 5000 0000 0583 9825 7466"
	if err := (NewCash{Name: "Konto", Currency: "SEK", IBAN: &iban}).Check(); err != nil {
		t.Fatal(err)
	}
	wrong := "SE45 5000 0000 0583 9825 7467"
	for _, n := range []NewCash{{Name: " ", Currency: "SEK"}, {Name: "K", Currency: "JPY"}, {Name: "K", Currency: "SEK", IBAN: &wrong}} {
		if err := n.Check(); !apierr.Is(err, apierr.ValidationError) {
			t.Errorf("%+v: %v", n, err)
		}
	}
	if NormalIBAN(" se45 5000 0000 0583 9825 7466") != "SE4550000000058398257466" {
		t.Fatal("NormalIBAN")
	}
}
