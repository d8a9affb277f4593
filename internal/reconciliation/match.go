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
	// maxCandidates bounds the rows a subset search looks at: the ones
	// nearest in date.
	maxCandidates = 16
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
		m.rows = append(m.rows, &mrow{Row: x, ore: Ore(x.Amount), day: dayNumber(x.Date), refs: references(x.Reference, x.Text)})
	}
	for _, x := range items {
		m.items = append(m.items, &mitem{Item: x, ore: Ore(x.Amount), day: dayNumber(x.Date)})
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
// to one verifikat (card purchases settled as one).
func (m *matcher) manyToOne() {
	for _, it := range m.items {
		if it.used || it.ore == 0 {
			continue
		}
		var cands []part
		for _, r := range m.rowsAround(it.day) {
			if !r.used && sameSign(r.ore, it.ore) && abs(r.ore) < abs(it.ore) && abs(r.day-it.day) <= m.rules.Window {
				cands = append(cands, part{ore: r.ore, gap: abs(r.day - it.day), day: r.day, id: r.ID, ref: r})
			}
		}
		picked := subset(cands, it.ore)
		if picked == nil {
			continue
		}
		inOrder(picked)
		p := Proposal{EntryIDs: []uuid.UUID{it.EntryID}, Confidence: confSubset, Method: MethodManyToOne,
			Reasons: []string{fmt.Sprintf("%d rader summerar till verifikatets belopp på %s", len(picked), m.rules.Account),
				gapReason(maxGap(picked))}}
		it.used = true
		for _, c := range picked {
			r := c.ref.(*mrow)
			r.used = true
			p.ExternalIDs = append(p.ExternalIDs, r.ID)
			p.Allocations = append(p.Allocations, Allocation{ExternalID: r.ID, EntryID: it.EntryID, Amount: r.Amount})
		}
		m.out = append(m.out, p)
	}
}

// oneToMany is pass 5: one row pays up to six verifikat, as allocations.
func (m *matcher) oneToMany() {
	for _, r := range m.rows {
		if r.used || r.ore == 0 {
			continue
		}
		var cands []part
		for _, it := range m.itemsAround(r.day) {
			if !it.used && sameSign(r.ore, it.ore) && abs(it.ore) < abs(r.ore) && abs(r.day-it.day) <= m.rules.Window {
				cands = append(cands, part{ore: it.ore, gap: abs(r.day - it.day), day: it.day, id: it.EntryID, ref: it})
			}
		}
		picked := subset(cands, r.ore)
		if picked == nil {
			continue
		}
		inOrder(picked)
		p := Proposal{ExternalIDs: []uuid.UUID{r.ID}, Confidence: confSubset, Method: MethodOneToMany,
			Reasons: []string{fmt.Sprintf("raden delas på %d verifikat på %s", len(picked), m.rules.Account),
				gapReason(maxGap(picked))}}
		r.used = true
		for _, c := range picked {
			it := c.ref.(*mitem)
			it.used = true
			p.EntryIDs = append(p.EntryIDs, it.EntryID)
			p.Allocations = append(p.Allocations, Allocation{ExternalID: r.ID, EntryID: it.EntryID, Amount: it.Amount})
		}
		m.out = append(m.out, p)
	}
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

// part is a candidate of a subset search.
type part struct {
	ore      int64
	gap, day int
	id       uuid.UUID
	ref      any
}

// subset finds two to six parts summing to target, searching the nearest
// in date first (a bounded subset sum: at most maxCandidates parts); nil
// when none do.
func subset(cands []part, target int64) []part {
	if len(cands) < 2 {
		return nil
	}
	slices.SortFunc(cands, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.gap, b.gap), cmp.Compare(a.day, b.day), cmpID(a.id, b.id))
	})
	cands = cands[:min(len(cands), maxCandidates)]
	goal := abs(target)
	// top[i] is the largest part from i on: what is left cannot reach the
	// goal when even that many of it would not.
	top := make([]int64, len(cands)+1)
	for i := len(cands) - 1; i >= 0; i-- {
		top[i] = max(top[i+1], abs(cands[i].ore))
	}
	var picked []int
	var search func(from int, sum int64) bool
	search = func(from int, sum int64) bool {
		if sum == goal && len(picked) >= 2 {
			return true
		}
		if len(picked) == maxParts || sum+int64(maxParts-len(picked))*top[from] < goal {
			return false
		}
		for i := from; i < len(cands); i++ {
			if next := sum + abs(cands[i].ore); next <= goal {
				picked = append(picked, i)
				if search(i+1, next) {
					return true
				}
				picked = picked[:len(picked)-1]
			}
		}
		return false
	}
	if !search(0, 0) {
		return nil
	}
	out := make([]part, len(picked))
	for i, k := range picked {
		out[i] = cands[k]
	}
	return out
}

// inOrder puts the parts of a match in date order.
func inOrder(ps []part) {
	slices.SortFunc(ps, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmpID(a.id, b.id))
	})
}

func maxGap(ps []part) int {
	g := 0
	for _, p := range ps {
		g = max(g, p.gap)
	}
	return g
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

// Ore is a in öre.
func Ore(a money.Amount) int64 {
	s := a.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	n, _ := strconv.ParseInt(whole+frac, 10, 64)
	if neg {
		return -n
	}
	return n
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
