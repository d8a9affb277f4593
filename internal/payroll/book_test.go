package payroll

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The May 2026 run booked: D 7210 58 338.46 (Anna 36 000 −
// 1 661.54 + Cleo 24 000), 7285 516, 7010 25 200, 7082 3 024; 7281 nets
// to nothing (sjuklön 1 329.23 − karens 1 329.23); K 2710 15 462
// (6 359 + 4 986 + 4 117), K 1930 71 616.46 (27 979.46 + 23 238 +
// 20 399). D 7510 24 758.90 (10 789.14 + 8 867.98 + 5 101.78), K 2731
// 24 757 (19 656 + 5 101), K 3740 1.90.
func TestEntriesMay2026(t *testing.T) {
	anna, bo, cleo := may2026()
	var vac []Absence
	for d := date("2026-05-04"); !d.After(date("2026-05-08")); d = d.AddDate(0, 0, 1) {
		vac = append(vac, Absence{Day: d, Type: Vacation, Hours: hrs("8")})
	}
	slips := []Slip{}
	for _, in := range []Input{
		{Employee: anna, Absence: []Absence{{Day: date("2026-05-12"), Type: Sick, Hours: hrs("8")}}},
		{Employee: bo, Lines: []Line{{ItemType: ItemHours, Quantity: ptr(hrs("140")), UnitPrice: ptr(amt("180"))}}},
		{Employee: cleo, Absence: vac, Vacation: VacationState{Known: true, RemainingDays: apd.New(25, 0)}},
	} {
		p := reckon(t, in)
		slips = append(slips, Slip{Payslip: p, Tax: p.Tax, Avgifter: p.AvgiftTotal})
	}
	entries, d := Entries("2026-05", slips, "1930")
	if len(entries) != 3 {
		t.Fatalf("%d verifikat", len(entries))
	}
	want := []map[string]string{
		{"D7210": "58338.46", "D7285": "516", "D7010": "25200", "D7082": "3024", "K2710": "15462", "K1930": "71616.46"},
		{"D7510": "24758.90", "K2731": "24757", "K3740": "1.90"},
	}
	for i, w := range want {
		got := sides(entries[i].Lines)
		if len(got) != len(w) {
			t.Errorf("verifikat %d: %v", i, got)
		}
		for k, v := range w {
			if g, ok := got[k]; !ok || g.Cmp(amt(v)) != 0 {
				t.Errorf("verifikat %d %s = %v, want %s", i, k, got[k], v)
			}
		}
		balanced(t, entries[i])
	}
	if d.Avgift[CategoryStandard] != 19656 || d.Avgift[CategoryYouth] != 5101 || d.Total != 24757 {
		t.Errorf("declared %+v", d)
	}
	// The liability: Anna earns 25/12 days at 36 000 × 5.03 % = 1 810.80
	// (3 772.50), Cleo takes 5 more than she earns (−3 521.00): D 7290
	// 251.50, K 2920 251.50, and their avgifter at 31.42 % and 20.81 %.
	l := sides(entries[2].Lines)
	if l["D7290"].Cmp(amt("251.50")) != 0 || l["K2920"].Cmp(amt("251.50")) != 0 {
		t.Errorf("liability %v", l)
	}
	if l["D7519"].Cmp(amt("452.60")) != 0 || l["K2940"].Cmp(amt("452.60")) != 0 { // 1 185.32 − 732.72
		t.Errorf("liability avgifter %v", l)
	}
	balanced(t, entries[2])
}

// sides sums a verifikat's lines by side and account: "D7210", "K2710".
func sides(lines []ledger.Line) map[string]money.Amount {
	out := map[string]money.Amount{}
	for _, l := range lines {
		if l.Debit.Sign() > 0 {
			out["D"+l.Account] = out["D"+l.Account].Add(l.Debit)
		}
		if l.Credit.Sign() > 0 {
			out["K"+l.Account] = out["K"+l.Account].Add(l.Credit)
		}
	}
	return out
}

func balanced(t *testing.T, in ledger.Input) {
	t.Helper()
	d, c := money.Amount{}, money.Amount{}
	for _, l := range in.Lines {
		d, c = d.Add(l.Debit), c.Add(l.Credit)
	}
	if d.Cmp(c) != 0 {
		t.Errorf("%s: debit %s, credit %s", in.Description, d, c)
	}
}

// What is paid with the net but is no pay books on its own account: a
// traktamente of 500 kr on 7321, a nettolöneavdrag of 200 kr credited
// 2790, an expense claim of 1 120 kr paid back debiting 2820. The tax
// stays what Anna's 36 000 give; the net grows by 500 − 200 + 1 120 =
// 1 420 and the salaries' verifikat balances.
func TestNetLinesBookOnTheirAccounts(t *testing.T) {
	anna, _, _ := may2026()
	plain := reckon(t, Input{Employee: anna})
	claim := Claim{ID: uuidOf(1), EmployeeID: anna.ID, Description: "Tågbiljett", Amount: amt("1120"), Account: "2820"}
	p := reckon(t, Input{Employee: anna, Claims: []Claim{claim}, Lines: []Line{
		{ID: uuidOf(2), ItemType: ItemPerDiem, Amount: amt("500")},
		{ID: uuidOf(3), ItemType: ItemNetDeduction, Amount: amt("200")}}})
	is(t, "tax", p.Tax, plain.Tax.String())
	is(t, "net", p.Net, plain.Net.Add(amt("1420")).String())
	if l := line(t, p, ItemExpenseClaim); l.ExpenseClaimID == nil || *l.ExpenseClaimID != claim.ID || l.Account != "2820" {
		t.Errorf("the claim's line: %+v", l)
	}
	entries, _ := Entries("2026-05", []Slip{{Payslip: p, Tax: p.Tax, Avgifter: p.AvgiftTotal}}, "1930")
	balanced(t, entries[0])
	got := sides(entries[0].Lines)
	for k, v := range map[string]string{"D7321": "500", "K2790": "200", "D2820": "1120", "K1930": p.Net.String()} {
		is(t, k, got[k], v)
	}
}

func uuidOf(n byte) uuid.UUID { return uuid.UUID{15: n} }
