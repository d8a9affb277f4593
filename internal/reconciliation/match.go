package reconciliation

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
)

// Row is an outside row open for matching: a bank transaction or a
// skattekonto row, signed as the account moved (money in positive).
type Row struct {
	ID     uuid.UUID
	Date   time.Time
	Amount money.Amount
	// Reference is the row's structured reference (camt.053 CdtrRefInf),
	// Text what else it says; a Luhn-valid OCR in the text counts too.
	Reference, Text string
}

// Item is a ledger item open for matching: a posted verifikat's lines on
// the account, netted (debit positive).
type Item struct {
	EntryID uuid.UUID
	Date    time.Time
	Amount  money.Amount
	// OCRs are the OCR references of the invoices the verifikat pays.
	OCRs []string
}

// Allocation is the part of an outside row a proposal or link gives one
// verifikat.
type Allocation struct {
	ExternalID uuid.UUID    `json:"external_id"`
	EntryID    uuid.UUID    `json:"journal_entry_id"`
	Amount     money.Amount `json:"amount"`
}

// Methods a match is made by.
const (
	MethodReference = "reference"
	MethodExact     = "exact"
	MethodWindow    = "date_window"
	MethodManyToOne = "many_to_one"
	MethodOneToMany = "one_to_many"
	MethodManual    = "manual"
)

// Proposal is a suggested link: rows and verifikat that close to the öre.
// Confidence is in hundredths (99 = 0.99).
type Proposal struct {
	ExternalIDs []uuid.UUID
	EntryIDs    []uuid.UUID
	Allocations []Allocation
	Confidence  int
	Method      string
	Reasons     []string
}

// Rules are what differs between kinds of account.
type Rules struct {
	// Window is how many days apart a row and a verifikat may be.
	Window int
	// Split allows one row to pay several verifikat (bank only).
	Split bool
	// Account is the ledger account, named in the reasons.
	Account string
}

// BankRules and SkattekontoRules are the two kinds of account's rules.
func BankRules(account string) Rules { return Rules{Window: 5, Split: true, Account: account} }

// SkattekontoRules are 1630's: ±3 days, no splitting of a row.
func SkattekontoRules() Rules { return Rules{Window: 3, Account: "1630"} }

// The confidences of the passes, in hundredths.
const (
	confReference = 99
	confExact     = 97
	confWindow    = 95 // less 2 a day apart
	confSubset    = 85
	confAmbiguous = 70
	// maxParts is the most rows (or verifikat) a subset match sums.
	maxParts = 6
	// The subset search looks at the candidates nearest in date: pairCands
	// of them for two parts, tripleCands for three, quadCands for four,
	// dfsCandidates for five or six, in searchBudget steps. The more parts,
	// the fewer: sums of many parts meet a target by chance.
	pairCands     = 100
	tripleCands   = 40
	quadCands     = 24
	dfsCandidates = 12
	searchBudget  = 20000
)

// Propose pairs the open rows and items of one account, each used at most
// once, in five passes of falling confidence (reference, same day, within
// the window, many rows to one verifikat, one row to many). It is
// deterministic: the same input in any order gives the same proposals.
func Propose(rows []Row, items []Item, r Rules) []Proposal {
	m := newMatcher(rows, items, r)
	m.byReference()
	m.byAmount()
	m.manyToOne()
	if r.Split {
		m.oneToMany()
	}
	slices.SortFunc(m.out, func(a, b Proposal) int {
		return cmp.Or(-cmp.Compare(a.Confidence, b.Confidence), cmpID(a.ExternalIDs[0], b.ExternalIDs[0]))
	})
	return m.out
}

type mrow struct {
	Row
	ore  int64
	day  int
	refs []string
	used bool
}

type mitem struct {
	Item
	ore  int64
	day  int
	used bool
}

type matcher struct {
	rows  []*mrow
	items []*mitem
	rules Rules
	// itemsByOre and rowsByOre index the open sides by amount.
	itemsByOre map[int64][]*mitem
	out        []Proposal
}

func newMatcher(rows []Row, items []Item, r Rules) *matcher {
	m := &matcher{rules: r, itemsByOre: map[int64][]*mitem{}}
	for _, x := range rows {
		m.rows = append(m.rows, &mrow{Row: x, ore: x.Amount.InÖre(), day: dayNumber(x.Date), refs: references(x.Reference, x.Text)})
	}
	for _, x := range items {
		m.items = append(m.items, &mitem{Item: x, ore: x.Amount.InÖre(), day: dayNumber(x.Date)})
	}
	// Input order must not matter: both sides in (date, id) order.
	slices.SortFunc(m.rows, func(a, b *mrow) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmpID(a.ID, b.ID))
	})
	slices.SortFunc(m.items, func(a, b *mitem) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmpID(a.EntryID, b.EntryID))
	})
	for _, it := range m.items {
		m.itemsByOre[it.ore] = append(m.itemsByOre[it.ore], it)
	}
	return m
}

// pair is one candidate of a one-to-one pass.
type pair struct {
	row  *mrow
	item *mitem
	conf int
	gap  int
	ref  string
}

// byReference is pass 1: the row's reference is the OCR of an invoice the
// verifikat pays, same amount.
func (m *matcher) byReference() {
	var cands []pair
	for _, r := range m.rows {
		if len(r.refs) == 0 {
			continue
		}
		for _, it := range m.itemsByOre[r.ore] {
			for _, ocr := range it.OCRs {
				if slices.Contains(r.refs, ocr) {
					cands = append(cands, pair{row: r, item: it, conf: confReference, gap: abs(r.day - it.day), ref: ocr})
					break
				}
			}
		}
	}
	m.assign(cands, func(p pair) (string, []string) {
		return MethodReference, []string{"OCR-referens " + p.ref + " på fakturan", "exakt belopp på " + m.rules.Account,
			gapReason(p.gap)}
	})
}

// byAmount is passes 2 and 3: the same amount on the same day, or within
// the window at 0.02 less a day.
func (m *matcher) byAmount() {
	var cands []pair
	for _, r := range m.rows {
		if r.used {
			continue
		}
		for _, it := range m.itemsByOre[r.ore] {
			if it.used {
				continue
			}
			if gap := abs(r.day - it.day); gap <= m.rules.Window {
				conf := confExact
				if gap > 0 {
					conf = confWindow - 2*gap
				}
				cands = append(cands, pair{row: r, item: it, conf: conf, gap: gap})
			}
		}
	}
	m.assign(cands, func(p pair) (string, []string) {
		if p.gap == 0 {
			return MethodExact, []string{"exakt belopp på " + m.rules.Account, "samma dag"}
		}
		return MethodWindow, []string{"exakt belopp på " + m.rules.Account, gapReason(p.gap)}
	})
}

// assign takes candidates best first, each side once. A pair whose row or
// verifikat had another candidate within 0.01 of it is capped at 0.70:
// which of them is meant cannot be told.
func (m *matcher) assign(cands []pair, why func(pair) (string, []string)) {
	if len(cands) == 0 {
		return
	}
	bestOfRow, bestOfItem := map[*mrow][]int{}, map[*mitem][]int{}
	for _, c := range cands {
		bestOfRow[c.row] = append(bestOfRow[c.row], c.conf)
		bestOfItem[c.item] = append(bestOfItem[c.item], c.conf)
	}
	slices.SortFunc(cands, func(a, b pair) int {
		return cmp.Or(-cmp.Compare(a.conf, b.conf), cmp.Compare(a.gap, b.gap), cmp.Compare(a.row.day, b.row.day),
			cmpID(a.row.ID, b.row.ID), cmp.Compare(a.item.day, b.item.day),
			cmpID(a.item.EntryID, b.item.EntryID))
	})
	for _, c := range cands {
		if c.row.used || c.item.used {
			continue
		}
		c.row.used, c.item.used = true, true
		method, reasons := why(c)
		conf := c.conf
		if rivals(bestOfRow[c.row], c.conf) || rivals(bestOfItem[c.item], c.conf) {
			conf = min(conf, confAmbiguous)
			reasons = append(reasons, "flera möjliga")
		}
		m.out = append(m.out, Proposal{ExternalIDs: []uuid.UUID{c.row.ID}, EntryIDs: []uuid.UUID{c.item.EntryID},
			Allocations: []Allocation{{ExternalID: c.row.ID, EntryID: c.item.EntryID, Amount: c.row.Amount}},
			Confidence:  conf, Method: method, Reasons: reasons})
	}
}

// rivals says whether confs holds, besides conf itself, another within
// one hundredth of it.
func rivals(confs []int, conf int) bool {
	n := 0
	for _, c := range confs {
		if c >= conf-1 {
			n++
		}
	}
	return n > 1
}

// manyToOne is pass 4: up to six rows of one sign within the window sum
// to one verifikat (card purchases settled as one). Sums of several rows
// meet a verifikat by chance where rows are dense, so it goes in rounds:
// a verifikat only one set of rows makes is taken first, which takes
// those rows from the others' choices; what is still ambiguous after is
// proposed at 0.70.
func (m *matcher) manyToOne() {
	m.rounds(func(it *mitem) ([]part, bool) {
		var cands []part
		for _, r := range m.rowsAround(it.day) {
			if !r.used && sameSign(r.ore, it.ore) && abs(r.ore) < abs(it.ore) {
				cands = append(cands, part{ore: r.ore, gap: abs(r.day - it.day), day: r.day, id: r.ID, ref: r})
			}
		}
		return subset(cands, it.ore)
	}, nil)
}

// oneToMany is pass 5: one row pays up to six verifikat, as allocations,
// in rounds as pass 4.
func (m *matcher) oneToMany() {
	m.rounds(nil, func(r *mrow) ([]part, bool) {
		var cands []part
		for _, it := range m.itemsAround(r.day) {
			if !it.used && sameSign(r.ore, it.ore) && abs(it.ore) < abs(r.ore) {
				cands = append(cands, part{ore: it.ore, gap: abs(r.day - it.day), day: it.day, id: it.EntryID, ref: it})
			}
		}
		return subset(cands, r.ore)
	})
}

// maxRounds bounds the rounds of a subset pass.
const maxRounds = 6

// rounds runs a subset pass: over the open verifikat (byItem) or rows
// (byRow), each round taking those with one answer, until a round takes
// none; then the ambiguous ones at 0.70.
func (m *matcher) rounds(byItem func(*mitem) ([]part, bool), byRow func(*mrow) ([]part, bool)) {
	type open struct {
		it *mitem
		r  *mrow
	}
	var todo []open
	if byItem != nil {
		for _, it := range m.items {
			if !it.used && it.ore != 0 {
				todo = append(todo, open{it: it})
			}
		}
	} else {
		for _, r := range m.rows {
			if !r.used && r.ore != 0 {
				todo = append(todo, open{r: r})
			}
		}
	}
	search := func(o open) ([]part, bool) {
		if o.it != nil {
			return byItem(o.it)
		}
		return byRow(o.r)
	}
	for round := 0; round <= maxRounds; round++ {
		last := round == maxRounds
		took := false
		next := todo[:0]
		for _, o := range todo {
			if o.it != nil && o.it.used || o.r != nil && o.r.used {
				continue
			}
			picked, ambiguous := search(o)
			if picked == nil {
				continue
			}
			if ambiguous && !last {
				next = append(next, o)
				continue
			}
			m.take(o.it, o.r, picked, ambiguous)
			took = true
		}
		todo = next
		if !took && !last {
			round = maxRounds - 1 // nothing moved: the ambiguous are left
		}
	}
}

// take proposes a subset match: verifikat it of rows picked, or row r of
// verifikat picked.
func (m *matcher) take(it *mitem, r *mrow, picked []part, ambiguous bool) {
	inOrder(picked)
	var p Proposal
	if it != nil {
		p = Proposal{EntryIDs: []uuid.UUID{it.EntryID}, Confidence: confSubset, Method: MethodManyToOne,
			Reasons: []string{fmt.Sprintf("%d rader summerar till verifikatets belopp på %s", len(picked), m.rules.Account),
				gapReason(maxGap(picked))}}
		it.used = true
		for _, c := range picked {
			row := c.ref.(*mrow)
			row.used = true
			p.ExternalIDs = append(p.ExternalIDs, row.ID)
			p.Allocations = append(p.Allocations, Allocation{ExternalID: row.ID, EntryID: it.EntryID, Amount: row.Amount})
		}
	} else {
		p = Proposal{ExternalIDs: []uuid.UUID{r.ID}, Confidence: confSubset, Method: MethodOneToMany,
			Reasons: []string{fmt.Sprintf("raden delas på %d verifikat på %s", len(picked), m.rules.Account),
				gapReason(maxGap(picked))}}
		r.used = true
		for _, c := range picked {
			item := c.ref.(*mitem)
			item.used = true
			p.EntryIDs = append(p.EntryIDs, item.EntryID)
			p.Allocations = append(p.Allocations, Allocation{ExternalID: r.ID, EntryID: item.EntryID, Amount: item.Amount})
		}
	}
	if ambiguous {
		p.Confidence = confAmbiguous
		p.Reasons = append(p.Reasons, "flera möjliga")
	}
	m.out = append(m.out, p)
}

// rowsAround are the rows within the window of day (rows are in date
// order).
func (m *matcher) rowsAround(day int) []*mrow {
	lo, _ := slices.BinarySearchFunc(m.rows, day-m.rules.Window, func(r *mrow, d int) int { return cmp.Compare(r.day, d) })
	hi, _ := slices.BinarySearchFunc(m.rows, day+m.rules.Window+1, func(r *mrow, d int) int { return cmp.Compare(r.day, d) })
	return m.rows[lo:hi]
}

// itemsAround are the verifikat within the window of day.
func (m *matcher) itemsAround(day int) []*mitem {
	lo, _ := slices.BinarySearchFunc(m.items, day-m.rules.Window, func(it *mitem, d int) int { return cmp.Compare(it.day, d) })
	hi, _ := slices.BinarySearchFunc(m.items, day+m.rules.Window+1, func(it *mitem, d int) int { return cmp.Compare(it.day, d) })
	return m.items[lo:hi]
}

func gapReason(days int) string {
	if days == 0 {
		return "samma dag"
	}
	return strconv.Itoa(days) + " dagars avstånd"
}

// references are the OCR references a row names: its structured
// reference as given, and every Luhn-valid run of 2 to 25 digits in its
// reference or text.
func references(ref, text string) []string {
	var out []string
	if r := strings.TrimSpace(ref); r != "" {
		out = append(out, r)
	}
	for _, s := range []string{ref, text} {
		for _, f := range strings.FieldsFunc(s, func(c rune) bool { return c < '0' || c > '9' }) {
			if len(f) >= 5 && identifier.ValidOCR(f, false) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func dayNumber(t time.Time) int {
	return int(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// cmpID orders ids as their text does.
func cmpID(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

func sameSign(a, b int64) bool { return a > 0 && b > 0 || a < 0 && b < 0 }

func abs[T int | int64](x T) T {
	if x < 0 {
		return -x
	}
	return x
}
