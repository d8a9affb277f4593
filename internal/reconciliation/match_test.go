package reconciliation

import (
	"fmt"
	"math/rand/v2"
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
			ext += Ore(r.Amount)
		}
	}
	for _, it := range items {
		if slices.Contains(p.EntryIDs, it.EntryID) {
			led += Ore(it.Amount)
		}
	}
	var alloc int64
	for _, a := range p.Allocations {
		alloc += Ore(a.Amount)
	}
	if ext != led || alloc != ext {
		t.Errorf("proposal %v does not close: rows %d, verifikat %d, allocations %d", p.ExternalIDs, ext, led, alloc)
	}
}

// Synthetic is a bank account's rows and verifikat with a known truth:
// exact, shifted, many-to-one and one-to-many pairs and 2 % noise on
// either side. Truth maps each row to its verifikat.
type Synthetic struct {
	Rows  []Row
	Items []Item
	Truth map[uuid.UUID][]uuid.UUID
}

// Generate makes n pairs' worth of synthetic data from seed.
func Generate(n int, seed uint64) Synthetic {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := Synthetic{Truth: map[uuid.UUID][]uuid.UUID{}}
	next := 0
	newID := func() uuid.UUID {
		next++
		u := uuid.UUID{}
		u[0], u[6], u[8] = byte(seed), 0x70, 0x80
		for i := 0; i < 6; i++ {
			u[15-i] = byte(next >> (8 * i))
		}
		return u
	}
	randAmount := func() int64 {
		return (rng.Int64N(2_000_000) + 100) * map[bool]int64{true: 1, false: -1}[rng.IntN(3) == 0]
	}
	for len(s.Rows) < n {
		d := rng.IntN(330)
		switch k := rng.IntN(100); {
		case k < 2: // noise on the bank side
			s.Rows = append(s.Rows, Row{ID: newID(), Date: on(d), Amount: money.Öre(randAmount())})
		case k < 4: // noise in the books
			s.Items = append(s.Items, Item{EntryID: newID(), Date: on(d), Amount: money.Öre(randAmount())})
		case k < 88: // exact or shifted up to five days
			a, r, e := randAmount(), newID(), newID()
			s.Rows = append(s.Rows, Row{ID: r, Date: on(d), Amount: money.Öre(a)})
			s.Items = append(s.Items, Item{EntryID: e, Date: on(d - rng.IntN(6)*map[bool]int{true: 1, false: 0}[k >= 60]), Amount: money.Öre(a)})
			s.Truth[r] = []uuid.UUID{e}
		case k < 94: // card rows settled as one verifikat
			e, total := newID(), int64(0)
			for range 2 + rng.IntN(3) {
				a := -(rng.Int64N(300_000) + 100)
				r := newID()
				total += a
				s.Rows = append(s.Rows, Row{ID: r, Date: on(d + rng.IntN(3)), Amount: money.Öre(a)})
				s.Truth[r] = []uuid.UUID{e}
			}
			s.Items = append(s.Items, Item{EntryID: e, Date: on(d), Amount: money.Öre(total)})
		default: // one payment of several supplier invoices
			r, total := newID(), int64(0)
			for range 2 + rng.IntN(2) {
				a := -(rng.Int64N(1_000_000) + 100)
				e := newID()
				total += a
				s.Items = append(s.Items, Item{EntryID: e, Date: on(d - rng.IntN(2)), Amount: money.Öre(a)})
				s.Truth[r] = append(s.Truth[r], e)
			}
			s.Rows = append(s.Rows, Row{ID: r, Date: on(d), Amount: money.Öre(total)})
		}
	}
	return s
}

// Score is a run's precision and recall against the truth: precision of
// the proposals at or above threshold (a proposal is right when every
// row's verifikat are those the truth names), recall over all rows with
// a truth.
func (s Synthetic) Score(props []Proposal, threshold int) (precision, recall float64, applied int) {
	right, rowsRight := 0, 0
	for _, p := range props {
		if p.Confidence < threshold {
			continue
		}
		applied++
		ok := true
		for _, r := range p.ExternalIDs {
			want := s.Truth[r]
			for _, e := range p.EntryIDs {
				if !slices.Contains(want, e) {
					ok = false
				}
			}
			if len(p.ExternalIDs) == 1 && len(want) != len(p.EntryIDs) {
				ok = false
			}
		}
		if ok {
			right++
			rowsRight += len(p.ExternalIDs)
		}
	}
	if applied > 0 {
		precision = float64(right) / float64(applied)
	}
	return precision, float64(rowsRight) / float64(len(s.Truth)), applied
}

func TestProposePrecisionAndDeterminism(t *testing.T) {
	s := Generate(5000, 7)
	got := Propose(s.Rows, s.Items, BankRules("1930"))
	precision, _, applied := s.Score(got, 90)
	_, recall, _ := s.Score(got, 0)
	t.Logf("%d rows, %d verifikat: %d proposals, %d at ≥ 0.90, precision %.4f, recall (all) %.4f", len(s.Rows), len(s.Items),
		len(got), applied, precision, recall)
	if precision < 0.99 {
		t.Errorf("precision at 0.90 is %.4f, want ≥ 0.99", precision)
	}
	if recall < 0.95 {
		t.Errorf("recall is %.4f, want ≥ 0.95", recall)
	}
	seenRow, seenItem := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	for _, p := range got {
		for _, r := range p.ExternalIDs {
			if seenRow[r] {
				t.Fatalf("row %s proposed twice", r)
			}
			seenRow[r] = true
		}
		for _, e := range p.EntryIDs {
			if seenItem[e] {
				t.Fatalf("verifikat %s proposed twice", e)
			}
			seenItem[e] = true
		}
		closes(t, p, s.Rows, s.Items)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows, items := slices.Clone(s.Rows), slices.Clone(s.Items)
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	again := Propose(rows, items, BankRules("1930"))
	if fmt.Sprint(again) != fmt.Sprint(got) {
		t.Fatal("shuffled input gave other proposals")
	}
}

func BenchmarkPropose50k(b *testing.B) {
	s := Generate(50000, 3)
	b.ResetTimer()
	for range b.N {
		Propose(s.Rows, s.Items, BankRules("1930"))
	}
}
