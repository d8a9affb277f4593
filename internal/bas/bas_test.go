package bas

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// sharedBAS is the public BAS list our catalogue is checked against. It
// lives outside the repository; the test skips when it is absent.
func sharedBAS(t *testing.T) [][]string { return sharedCSV(t, "bas-accounts.csv") }

func sharedCSV(t *testing.T, name string) [][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "bas", name)
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("BAS reference data absent (%v): skipping the check against it", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// The balance sheet's group names are BAS's.
func TestGroupNames(t *testing.T) {
	seen := 0
	for _, r := range sharedCSV(t, "bas-groups.csv") {
		if len(r[0]) == 2 && r[0] >= "10" && r[0] <= "29" {
			seen++
			if GroupName(r[0]) != r[1] {
				t.Errorf("group %s: %q, BAS %q", r[0], GroupName(r[0]), r[1])
			}
		}
	}
	if seen != 20 {
		t.Errorf("%d groups compared", seen)
	}
}

func TestCatalogueMatchesBAS2025(t *testing.T) {
	rows := sharedBAS(t)
	if len(rows) != len(All()) {
		t.Errorf("catalogue has %d accounts, BAS 2025 has %d", len(All()), len(rows))
	}
	for _, r := range rows {
		number, name, sru, basic, notK2 := r[0], r[1], r[2], r[6] == "1", r[5] == "1"
		a, ok := Lookup(number)
		if !ok {
			t.Errorf("%s missing from the catalogue", number)
			continue
		}
		if a.Name != name || a.SRU != sru || a.Basic != basic || a.NotK2 != notK2 {
			t.Errorf("%s: catalogue %q sru %q basic %v notK2 %v; BAS %q sru %q basic %v notK2 %v",
				number, a.Name, a.SRU, a.Basic, a.NotK2, name, sru, basic, notK2)
		}
		if r[3] != string(a.Number[0]) || r[4] != a.Group() {
			t.Errorf("%s: class/group %d/%s, BAS %s/%s", number, a.Class(), a.Group(), r[3], r[4])
		}
	}
}

func TestTypeAndNormalBalance(t *testing.T) {
	cases := []struct {
		number string
		typ    Type
		bal    Balance
	}{
		{"1930", Asset, Debit}, {"1229", Asset, Credit}, {"1519", Asset, Credit},
		{"2081", Equity, Credit}, {"2013", Equity, Debit}, {"2094", Equity, Debit},
		{"2150", UntaxedReserves, Credit}, {"2440", Liability, Credit}, {"2611", Liability, Credit},
		{"2640", Liability, Debit}, {"2645", Liability, Debit},
		{"3001", Revenue, Credit}, {"3730", Revenue, Debit},
		{"4000", Expense, Debit}, {"4730", Expense, Credit}, {"6993", Expense, Debit},
		{"8310", Revenue, Credit}, {"8070", Expense, Debit}, {"8410", Expense, Debit},
		{"8910", Expense, Debit}, {"8999", Expense, Debit},
	}
	for _, c := range cases {
		a, ok := Lookup(c.number)
		if !ok {
			t.Fatalf("%s not in catalogue", c.number)
		}
		if a.Type != c.typ || a.NormalBalance != c.bal {
			t.Errorf("%s %s: %s/%s, want %s/%s", c.number, a.Name, a.Type, a.NormalBalance, c.typ, c.bal)
		}
		if !TypeFits(a.Class(), a.Type) {
			t.Errorf("%s: derived type %s does not fit class %d", c.number, a.Type, a.Class())
		}
	}
	for _, a := range All() {
		if !TypeFits(a.Class(), a.Type) {
			t.Errorf("%s: derived type %s does not fit class %d", a.Number, a.Type, a.Class())
		}
	}
}

func TestTypeFits(t *testing.T) {
	if TypeFits(1, Liability) || TypeFits(3, Expense) || TypeFits(5, Revenue) || TypeFits(2, Asset) {
		t.Error("a type outside its class fits")
	}
	if !TypeFits(8, Revenue) || !TypeFits(8, Expense) || !TypeFits(2, UntaxedReserves) || !TypeFits(9, Expense) {
		t.Error("a type inside its class does not fit")
	}
}

func TestVATDefaults(t *testing.T) {
	for n, v := range vatOf {
		a, ok := Lookup(n)
		if !ok {
			t.Errorf("VAT default for %s, which BAS does not have", n)
			continue
		}
		if a.VAT != v {
			t.Errorf("%s: VAT %v, want %v", n, a.VAT, v)
		}
		found := false
		for _, tr := range Treatments {
			found = found || tr == v.Treatment
		}
		if !found {
			t.Errorf("%s: unknown treatment %s", n, v.Treatment)
		}
	}
	if a, _ := Lookup("1930"); !a.VAT.None() {
		t.Error("1930 has a VAT default")
	}
}

func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{"1930": true, "0100": true, "193": false, "19301": false, "19a0": false, "": false} {
		if ValidNumber(s) != want {
			t.Errorf("ValidNumber(%q) = %v", s, !want)
		}
	}
}

func TestDormant(t *testing.T) {
	for in, want := range map[string]string{"2611": "2618", "2614": "2618", "2621": "2628", "2631": "2638",
		"2641": "2648", "2645": "2648", "2618": "", "2648": "", "2650": "", "1510": "", "3001": ""} {
		if got := Dormant(in); got != want {
			t.Errorf("Dormant(%s) = %q, want %q", in, got, want)
		}
	}
}
