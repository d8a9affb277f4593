package payables

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// A booked invoice's credit mirrors its registration; a prepaid line's
// released part comes back from its cost account, the rest from 17xx.
func TestCreditLinesBooked(t *testing.T) {
	s := Supplier{ID: uuid.New(), Name: "Försäkringsbolaget", Currency: "SEK"}
	inv := registered(t, draft(ItemDraft{Description: "Försäkring 2026", Amount: amt("12000"), Account: ptr("6310"),
		AccrualStart: ptr(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), AccrualEnd: ptr(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))}), s, accrualAB)
	expect(t, "registered", Registration(inv), "D 1730 12000.00", "D 2641 3000.00", "C 2440 15000.00")
	released := map[uuid.UUID]money.Amount{inv.Items[0].ID: amt("3000")}
	expect(t, "credited", CreditLines(inv, released), "D 2440 15000.00", "C 6310 3000.00", "C 1730 9000.00", "C 2641 3000.00")
	note := CreditNote(inv, 2, "KR-1", day.AddDate(0, 1, 0), day)
	if note.Total.Cmp(amt("-15000")) != 0 || note.TotalSEK.Cmp(amt("-15000")) != 0 || !note.CreditNote || *note.CreditedID != inv.ID ||
		note.Items[0].Amount.Cmp(amt("-12000")) != 0 || note.Items[0].AccrualAccount != nil || note.DueDate.Before(note.InvoiceDate) {
		t.Fatalf("credit note %+v", note)
	}
}

// Under kontantmetoden only what the payments booked is taken back,
// against 2440; an unpaid invoice's credit books nothing.
func TestCreditLinesCash(t *testing.T) {
	s := Supplier{ID: uuid.New(), Name: "Hyresvärden", Currency: "SEK"}
	cash := accrualAB
	cash.Cash = true
	inv, err := Plan(draft(ItemDraft{Description: "Hyra", Amount: amt("10000"), Account: ptr("5010")}), s, cash)
	if err != nil {
		t.Fatal(err)
	}
	if lines := CreditLines(inv, nil); len(lines) != 0 {
		t.Fatalf("unpaid: %v", shape(lines))
	}
	inv.PaidAmount = amt("5000")
	expect(t, "paid 5 000", CreditLines(inv, nil), "D 2440 5000.00", "C 5010 4000.00", "C 2641 1000.00")
}

// The schedule shares a line equally, the öre rest on the last month;
// months already past are released on the invoice date.
func TestSchedule(t *testing.T) {
	s := Supplier{ID: uuid.New(), Name: "Leverantören", Currency: "SEK"}
	inv := registered(t, draft(ItemDraft{Description: "Licens", Amount: amt("1000"), Account: ptr("5420"),
		AccrualStart: ptr(time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)), AccrualEnd: ptr(time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC))}), s, accrualAB)
	months := Schedule(inv, inv.Items[0])
	if len(months) != 3 || months[0].Amount.String() != "333.33" || months[2].Amount.String() != "333.34" ||
		!months[0].Day.Equal(day) || months[1].Day.Format(time.DateOnly) != "2026-03-31" || *inv.Items[0].AccrualAccount != "1790" {
		t.Fatalf("schedule %+v", months)
	}
	expect(t, "February", ReleaseLines(inv, months[:1]), "D 5420 333.33", "C 1790 333.33")
}

// Paid privately, the owner (AB 2893, EF 2018), a member (2890) or an
// employee (2820) is owed the total: 800 + 200 → C 2893 1 000.
func TestPrivateLines(t *testing.T) {
	s := Supplier{ID: uuid.New(), Name: "Bokhandeln", Currency: "SEK"}
	d := draft(ItemDraft{Description: "Böcker", Amount: amt("800"), Account: ptr("6970")})
	d.PrivatelyPaid = true
	inv := registered(t, d, s, accrualAB)
	expect(t, "owner", PrivateLines(inv, PrivateAccount(inv, "aktiebolag")), "D 6970 800.00", "D 2641 200.00", "C 2893 1000.00")
	for entity, want := range map[string]string{"enskild_firma": "2018", "ideell_forening": "2890"} {
		if got := PrivateAccount(inv, entity); got != want {
			t.Fatalf("%s: %s", entity, got)
		}
	}
	inv.EmployeeID = ptr(uuid.New())
	if got := PrivateAccount(inv, "aktiebolag"); got != "2820" {
		t.Fatalf("employee: %s", got)
	}
}

// Three foreign lines whose conversions round the same way leave an öre
// against the total at the rate: it goes on 3740, and 2440 carries
// exactly total × rate, so the ledger's rate check holds.
func TestForeignRounding(t *testing.T) {
	s := Supplier{ID: uuid.New(), Name: "Lieferant GmbH", Currency: "EUR", Type: "eu_business"}
	d := draft(ItemDraft{Description: "A", Amount: amt("0.01"), Account: ptr("5420"), VATRate: ptr(money.Amount{})},
		ItemDraft{Description: "B", Amount: amt("0.01"), Account: ptr("5420"), VATRate: ptr(money.Amount{})},
		ItemDraft{Description: "C", Amount: amt("0.01"), Account: ptr("5421"), VATRate: ptr(money.Amount{})})
	d.Currency, d.ExchangeRate, d.Treatment = "EUR", ptr(money.MustParseRate("11.45")), Exempt
	inv := registered(t, d, s, accrualAB)
	// 0.01 × 11.45 = 0.1145 → 0.11 a line, 0.33 in all; 0.03 × 11.45 = 0.3435 → 0.34.
	expect(t, "rounded", Registration(inv), "D 5420 0.22", "D 5421 0.11", "D 3740 0.01", "C 2440 0.34")
	if !inv.ExchangeRate.Matches(inv.Total, inv.TotalSEK) {
		t.Fatalf("2440 %s for %s at %s", inv.TotalSEK, inv.Total, inv.ExchangeRate)
	}
}

// An undone credit returns the invoice to what its payments and attest
// make it.
func TestRestored(t *testing.T) {
	inv := Invoice{Total: amt("100")}
	cases := []struct {
		paid     string
		approved bool
		want     string
	}{{"0", false, Registered}, {"0", true, Approved}, {"40", true, PartiallyPaid}, {"100", false, Paid}}
	for _, c := range cases {
		inv.PaidAmount, inv.ApprovedAt = amt(c.paid), nil
		if c.approved {
			inv.ApprovedAt = ptr(day)
		}
		if got := Restored(inv); got != c.want {
			t.Fatalf("%+v: %s", c, got)
		}
	}
}
