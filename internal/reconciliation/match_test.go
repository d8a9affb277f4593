package reconciliation

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
)

var day0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

func id(n int) uuid.UUID { return uuid.MustParse(fmt.Sprintf("00000000-0000-7000-8000-%012d", n)) }

func on(d int) time.Time { return day0.AddDate(0, 0, d) }

func amt(s string) money.Amount { return money.MustParse(s) }

func TestProposeByHand(t *testing.T) {
	ocr, _ := identifier.OCR("1042")
	rows := []Row{
		{ID: id(1), Date: on(0), Amount: amt("12500.00"), Text: "Kund AB"},
		{ID: id(2), Date: on(1), Amount: amt("8750.00"), Reference: ocr},
		{ID: id(3), Date: on(5), Amount: amt("-3200.00")},
		{ID: id(4), Date: on(10), Amount: amt("-1200.00")},
		{ID: id(5), Date: on(10), Amount: amt("-800.00")},
		{ID: id(6), Date: on(11), Amount: amt("-500.00")},
		{ID: id(7), Date: on(20), Amount: amt("-10000.00")},
		{ID: id(8), Date: on(25), Amount: amt("-45.00")},
	}
	items := []Item{
		{EntryID: id(101), Date: on(0), Amount: amt("12500.00")},
		{EntryID: id(102), Date: on(-2), Amount: amt("8750.00"), OCRs: []string{ocr}},
		{EntryID: id(103), Date: on(2), Amount: amt("-3200.00")},
		{EntryID: id(104), Date: on(11), Amount: amt("-2500.00")},
		{EntryID: id(105), Date: on(19), Amount: amt("-6000.00")},
		{EntryID: id(106), Date: on(19), Amount: amt("-4000.00")},
		{EntryID: id(107), Date: on(26), Amount: amt("1999.00")},
	}
	got := Propose(rows, items, BankRules("1930"))
	want := map[uuid.UUID]struct {
		entries []uuid.UUID
		conf    int
		method  string
	}{
		id(2): {[]uuid.UUID{id(102)}, 99, MethodReference},
		id(1): {[]uuid.UUID{id(101)}, 97, MethodExact},
		id(3): {[]uuid.UUID{id(103)}, 89, MethodWindow},
		id(4): {[]uuid.UUID{id(104)}, 85, MethodManyToOne},
		id(7): {[]uuid.UUID{id(105), id(106)}, 85, MethodOneToMany},
	}
	if len(got) != len(want) {
		t.Fatalf("%d proposals, want %d: %+v", len(got), len(want), got)
	}
	for _, p := range got {
		w, ok := want[p.ExternalIDs[0]]
		if !ok {
			t.Fatalf("unexpected proposal %+v", p)
		}
		slices.SortFunc(p.EntryIDs, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
		if !slices.Equal(p.EntryIDs, w.entries) || p.Confidence != w.conf || p.Method != w.method {
			t.Errorf("row %s: got %v %d %s, want %v %d %s (%v)", p.ExternalIDs[0], p.EntryIDs, p.Confidence, p.Method,
				w.entries, w.conf, w.method, p.Reasons)
		}
		if p.Method == MethodManyToOne && len(p.ExternalIDs) != 3 {
			t.Errorf("many-to-one took %d rows, want 3", len(p.ExternalIDs))
		}
		closes(t, p, rows, items)
	}
	if got[0].Reasons[0] != "OCR-referens "+ocr+" på fakturan" {
		t.Errorf("reasons %q", got[0].Reasons)
	}
	for _, p := range got {
		if p.Method == MethodWindow && !slices.Contains(p.Reasons, "3 dagars avstånd") {
			t.Errorf("window reasons %q", p.Reasons)
		}
	}
}

func TestProposeAmbiguousCapped(t *testing.T) {
	rows := []Row{{ID: id(1), Date: on(0), Amount: amt("-500.00")}, {ID: id(2), Date: on(0), Amount: amt("-500.00")}}
	items := []Item{{EntryID: id(101), Date: on(0), Amount: amt("-500.00")}, {EntryID: id(102), Date: on(0), Amount: amt("-500.00")}}
	got := Propose(rows, items, BankRules("1930"))
	if len(got) != 2 {
		t.Fatalf("%d proposals", len(got))
	}
	for _, p := range got {
		if p.Confidence != 70 || !slices.Contains(p.Reasons, "flera möjliga") {
			t.Errorf("not capped: %+v", p)
		}
	}
	// A day before and a day after are alike (0.93 each): capped; a
	// same-day candidate (0.97) beside one a day off is not.
	items[0].Date, items[1].Date = on(-1), on(1)
	if p := Propose(rows[:1], items, BankRules("1930")); len(p) != 1 || p[0].Confidence != 70 {
		t.Errorf("row with two 0.93 candidates: %+v", p)
	}
	items[0].Date = on(0)
	if p := Propose(rows[:1], items, BankRules("1930")); len(p) != 1 || p[0].Confidence != 97 || p[0].EntryIDs[0] != id(101) {
		t.Errorf("row with candidates 0.97 and 0.93: %+v", p)
	}
}

func TestSkattekontoWindowAndNoSplit(t *testing.T) {
	rows := []Row{{ID: id(1), Date: on(0), Amount: amt("-10000.00")}, {ID: id(2), Date: on(0), Amount: amt("-700.00")}}
	items := []Item{{EntryID: id(101), Date: on(0), Amount: amt("-6000.00")}, {EntryID: id(102), Date: on(0), Amount: amt("-4000.00")},
		{EntryID: id(103), Date: on(4), Amount: amt("-700.00")}}
	if got := Propose(rows, items, SkattekontoRules()); len(got) != 0 {
		t.Fatalf("skattekonto split a row or matched 4 days apart: %+v", got)
	}
}

// closes checks a proposal's rows and verifikat sum alike, to the öre.
func closes(t *testing.T, p Proposal, rows []Row, items []Item) {
	t.Helper()
	var ext, led int64
	for _, r := range rows {
		if slices.Contains(p.ExternalIDs, r.ID) {
			ext += r.Amount.InÖre()
		}
	}
	for _, it := range items {
		if slices.Contains(p.EntryIDs, it.EntryID) {
			led += it.Amount.InÖre()
		}
	}
	var alloc int64
	for _, a := range p.Allocations {
		alloc += a.Amount.InÖre()
	}
	if ext != led || alloc != ext {
		t.Errorf("proposal %v does not close: rows %d, verifikat %d, allocations %d", p.ExternalIDs, ext, led, alloc)
	}
}
