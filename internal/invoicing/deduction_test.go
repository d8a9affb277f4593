package invoicing

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// A ROT line of 40 hours at 250 and material at 4 000, for a private
// person's home: 3 750 of ROT; each rule broken names its field.
func TestPlanDeduction(t *testing.T) {
	person := Customer{ID: uuid.New(), Name: "Eva", PaymentTerms: 30, Buyer: Buyer{Type: "individual", Country: "SE"}}
	on := Settings{RotRut: true}
	home := "UPPSALA KUNGSÄNGEN 1:2"
	draft := func(edit func(*Draft)) Draft {
		q40, q1, h := qty("40"), qty("1"), money.MustParse("40")
		p250, p4000, unit, rot := money.MustParse("250"), money.MustParse("4000"), "st", "rot"
		d := Draft{CustomerID: person.ID, InvoiceDate: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Housing: &home,
			Lines: []DraftLine{{Description: "Snickeri", Quantity: &q40, Unit: &unit, UnitPrice: &p250, Deduction: &rot, LaborHours: &h},
				{Description: "Virke", Quantity: &q1, Unit: &unit, UnitPrice: &p4000}}}
		if edit != nil {
			edit(&d)
		}
		return d
	}
	inv, _, err := Plan(draft(nil), person, on)
	if err != nil {
		t.Fatal(err)
	}
	if inv.DeductionTotal.String() != "3750.00" || inv.ROTDeduction.String() != "3750.00" || inv.Remaining().String() != "13750.00" {
		t.Fatalf("deduction %s (ROT %s), left %s", inv.DeductionTotal, inv.ROTDeduction, inv.Remaining())
	}
	for _, c := range []struct {
		field string
		c     Customer
		s     Settings
		edit  func(*Draft)
	}{
		{"items.0.deduction_type", person, Settings{}, nil},
		{"customer_id", Customer{ID: person.ID, Name: "AB", Buyer: Buyer{Type: "swedish_business"}}, on, nil},
		{"deduction_housing_designation", person, on, func(d *Draft) { d.Housing = nil }},
		{"items.0.labor_hours", person, on, func(d *Draft) { d.Lines[0].LaborHours = nil }},
		{"items.1.deduction_type", person, on, func(d *Draft) { w := "BYGG"; d.Lines[1].WorkType = &w }},
		{"document_type", person, on, func(d *Draft) { d.DocumentType = "delivery_note" }},
	} {
		_, _, err := Plan(draft(c.edit), c.c, c.s)
		e, ok := apierr.As(err)
		if !ok || e.Code != apierr.InvoiceCreateRotRutValidation || e.Details["field"] != c.field {
			t.Errorf("%s: %v", c.field, err)
		}
	}
}

// The ceilings are passed, not reached: 50 000 of ROT exactly is no
// warning, one öre more is.
func TestCeilings(t *testing.T) {
	inv := Invoice{ROTDeduction: money.MustParse("20000"), DeductionTotal: money.MustParse("20000")}
	if w := ceilings(money.MustParse("30000"), money.MustParse("30000"), inv); len(w) != 0 {
		t.Fatalf("at the ceiling: %v", w)
	}
	w := ceilings(money.MustParse("55000.01"), money.MustParse("30000.01"), inv)
	if len(w) != 2 || w[0].Code != "ROT_CEILING_EXCEEDED" || w[1].Code != "ROT_RUT_CEILING_EXCEEDED" {
		t.Fatalf("past both: %v", w)
	}
}

// Failed passes catalogue errors on and makes anything else
// INVOICE_BOOK_FAILED, keeping the cause.
func TestFailed(t *testing.T) {
	if e, ok := apierr.As(Failed(apierr.New(apierr.PeriodLocked, nil))); !ok || e.Code != apierr.PeriodLocked {
		t.Fatalf("a catalogue error: %v", e)
	}
	cause := errors.New("connection reset")
	e, ok := apierr.As(Failed(cause))
	if !ok || e.Code != apierr.InvoiceBookFailed || e.Status != 500 || !errors.Is(e, cause) {
		t.Fatalf("the unexpected: %v", e)
	}
	if Failed(nil) != nil {
		t.Fatal("no error")
	}
}
