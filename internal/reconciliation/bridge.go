package reconciliation

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// The buckets an item falls in.
const (
	BucketProposed          = "proposed"
	BucketUnmatchedExternal = "unmatched_external"
	BucketUnmatchedLedger   = "unmatched_ledger"
	BucketMatched           = "matched"
	BucketIgnored           = "ignored"
	BucketUpcoming          = "upcoming"
)

// Buckets are every bucket, in the order the API lists them.
var Buckets = []string{BucketProposed, BucketUnmatchedExternal, BucketUnmatchedLedger, BucketMatched, BucketIgnored,
	BucketUpcoming}

// Ext is an outside row as reconciliation sees it.
type Ext struct {
	ID          uuid.UUID
	Date        time.Time
	Amount      money.Amount
	Description string
	Reference   string
	Ignored     bool
	// Upcoming is a coming skattekonto debit: not yet in the saldo.
	Upcoming bool
	// EntryID is the verifikat a bank transaction names as its own or
	// linked booking; Method how (banking's reconciliation_method).
	EntryID *uuid.UUID
	Method  *string
}

// Led is a ledger item: a posted verifikat's lines on the account, netted.
type Led struct {
	EntryID     uuid.UUID
	Date        time.Time
	Amount      money.Amount
	Voucher     string
	Series      string
	Number      int
	Description string
	Status      string
	ReversesID  *uuid.UUID
	ReversedBy  *uuid.UUID
	OCRs        []string
}

// Link is an active link of one outside row to one verifikat, in a set.
type Link struct {
	SetID, ExternalID, EntryID uuid.UUID
	Amount                     money.Amount
	Method                     string
	Confidence                 *int
}

// Input is what an account's picture is made of: every outside row and
// ledger item from the start of its history through the day, the active
// links and stored proposals, and the balances on both sides.
type Input struct {
	Through     time.Time
	LastCovered time.Time
	Ext         []Ext
	Items       []Led
	// Heads are verifikat linked to rows but outside Items (dated
	// elsewhere), for their status.
	Heads     map[uuid.UUID]Led
	Links     []Link
	Proposals []Proposal
	// ExternalBalance and LedgerBalance are both sides' balances at the
	// end of Through; OpeningDifference is what they differed by when the
	// outside history starts.
	ExternalBalance, LedgerBalance, OpeningDifference money.Amount
}

// Entry is an item of the picture: an outside row or a ledger item, its
// bucket and what belongs to it.
type Entry struct {
	Side     string // external or ledger
	ID       uuid.UUID
	Bucket   string
	Date     time.Time
	Amount   money.Amount
	Ext      *Ext
	Led      *Led
	Proposal *Proposal
	// LinkedEntryIDs are the verifikat an outside row is linked to;
	// LinkedExternalIDs the rows a verifikat is linked to.
	LinkedEntryIDs, LinkedExternalIDs []uuid.UUID
	LinkProblem                       string
	Awaiting                          bool
}

// BridgeLine is one step from the outside balance to the books'.
type BridgeLine struct {
	Key            string       `json:"key"`
	LabelSV        string       `json:"label_sv"`
	LabelEN        string       `json:"label_en"`
	Amount         money.Amount `json:"amount"`
	Count          int          `json:"count"`
	Bucket         *string      `json:"items_bucket"`
	countsInBridge bool
}

// Picture is an account reconciled through a day: every item in its
// bucket, the bridge and what it leaves unexplained.
type Picture struct {
	Entries     []Entry
	Bridge      []BridgeLine
	Unexplained money.Amount
	// Counts are the items per bucket; ReversedPairs the entries that
	// left the lists with their storno.
	Counts map[string]int
}

// Build sorts the items of in into buckets and bridges the outside
// balance to the ledger's, so that
//
//	external_balance − Σ unmatched_external (proposed included) − Σ ignored
//	+ Σ unmatched_ledger (proposed and upcoming included)
//	− Σ matched sets' rows less their verifikat (those straddling the day)
//	− opening_difference = ledger_balance + unexplained_difference
//
// to the öre. Rows dated after Through count nowhere (coming debits are
// listed, never counted); an unlinked verifikat and its storno leave the
// lists together and are counted on their own line.
func Build(in Input) Picture {
	through := dayNumber(in.Through)
	u := union{}
	linkedExt, linkedEntry := map[uuid.UUID][]uuid.UUID{}, map[uuid.UUID][]uuid.UUID{}
	link := func(ext, entry uuid.UUID) {
		if !slices.Contains(linkedExt[ext], entry) {
			linkedExt[ext] = append(linkedExt[ext], entry)
			linkedEntry[entry] = append(linkedEntry[entry], ext)
			u.join(ext, entry)
		}
	}
	for _, l := range in.Links {
		link(l.ExternalID, l.EntryID)
	}
	for _, x := range in.Ext {
		if x.EntryID != nil {
			link(x.ID, *x.EntryID)
		}
	}
	items := map[uuid.UUID]*Led{}
	for i := range in.Items {
		items[in.Items[i].EntryID] = &in.Items[i]
	}
	// An unlinked verifikat and its unlinked storno, both in the lists.
	paired := map[uuid.UUID]bool{}
	for _, it := range in.Items {
		if it.ReversedBy == nil || linkedEntry[it.EntryID] != nil {
			continue
		}
		if st, ok := items[*it.ReversedBy]; ok && linkedEntry[st.EntryID] == nil {
			paired[it.EntryID], paired[st.EntryID] = true, true
		}
	}
	openExt := map[uuid.UUID]bool{}
	for _, x := range in.Ext {
		if !x.Ignored && !x.Upcoming && linkedExt[x.ID] == nil && dayNumber(x.Date) <= through {
			openExt[x.ID] = true
		}
	}
	proposalOf := map[uuid.UUID]*Proposal{}
	for i := range in.Proposals {
		p := &in.Proposals[i]
		ok := true
		for _, id := range p.ExternalIDs {
			ok = ok && openExt[id] && proposalOf[id] == nil
		}
		for _, id := range p.EntryIDs {
			it, in := items[id]
			ok = ok && in && linkedEntry[id] == nil && !paired[id] && dayNumber(it.Date) <= through && proposalOf[id] == nil
		}
		if !ok {
			continue
		}
		for _, id := range p.ExternalIDs {
			proposalOf[id] = p
		}
		for _, id := range p.EntryIDs {
			proposalOf[id] = p
		}
	}

	pic := Picture{Counts: map[string]int{}}
	lines := newLines()
	extIn, ledIn := map[uuid.UUID]money.Amount{}, map[uuid.UUID]money.Amount{}
	for i := range in.Ext {
		x := &in.Ext[i]
		day := dayNumber(x.Date)
		if day > through && !x.Upcoming {
			continue
		}
		e := Entry{Side: "external", ID: x.ID, Date: x.Date, Amount: x.Amount, Ext: x, LinkedEntryIDs: linkedExt[x.ID]}
		switch {
		case x.Ignored:
			e.Bucket = BucketIgnored
			lines.add("ignored", x.Amount.Neg())
		case e.LinkedEntryIDs != nil:
			e.Bucket = BucketMatched
			e.LinkProblem = problem(e.LinkedEntryIDs, items, in.Heads)
			root := u.find(x.ID)
			extIn[root] = extIn[root].Add(x.Amount)
		case x.Upcoming:
			e.Bucket = BucketUpcoming
		case proposalOf[x.ID] != nil:
			e.Bucket, e.Proposal = BucketProposed, proposalOf[x.ID]
			lines.add("proposed_external", x.Amount.Neg())
		default:
			e.Bucket = BucketUnmatchedExternal
			lines.add("unmatched_external", x.Amount.Neg())
		}
		pic.Entries = append(pic.Entries, e)
	}
	last := dayNumber(in.LastCovered)
	for i := range in.Items {
		it := &in.Items[i]
		if dayNumber(it.Date) > through {
			continue
		}
		if paired[it.EntryID] {
			lines.add("reversed_pairs", it.Amount)
			continue
		}
		e := Entry{Side: "ledger", ID: it.EntryID, Date: it.Date, Amount: it.Amount, Led: it,
			LinkedExternalIDs: linkedEntry[it.EntryID]}
		switch {
		case e.LinkedExternalIDs != nil:
			e.Bucket = BucketMatched
			e.LinkProblem = problem([]uuid.UUID{it.EntryID}, items, in.Heads)
			root := u.find(it.EntryID)
			ledIn[root] = ledIn[root].Add(it.Amount)
		case proposalOf[it.EntryID] != nil:
			e.Bucket, e.Proposal = BucketProposed, proposalOf[it.EntryID]
			lines.add("proposed_ledger", it.Amount)
		case dayNumber(it.Date) > last:
			e.Bucket, e.Awaiting = BucketUpcoming, true
			lines.add("upcoming_ledger", it.Amount)
		default:
			e.Bucket = BucketUnmatchedLedger
			lines.add("unmatched_ledger", it.Amount)
		}
		pic.Entries = append(pic.Entries, e)
	}
	// Matched sets whose rows and verifikat within the day differ: those
	// straddling it (or not closing) are bridged by what they differ by.
	roots := map[uuid.UUID]bool{}
	for r := range extIn {
		roots[r] = true
	}
	for r := range ledIn {
		roots[r] = true
	}
	for r := range roots {
		if d := extIn[r].Sub(ledIn[r]); !d.IsZero() {
			lines.add("matched_straddling", d.Neg())
		}
	}
	if !in.OpeningDifference.IsZero() {
		lines.add("opening_difference", in.OpeningDifference.Neg())
	}
	// Reversed pairs are told as a line of their own; they sum to nothing
	// (unless one of them is dated after the day, when it is no pair).
	slices.SortStableFunc(pic.Entries, func(a, b Entry) int {
		return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.Side, b.Side), cmpID(a.ID, b.ID))
	})
	for _, e := range pic.Entries {
		pic.Counts[e.Bucket]++
	}
	total := in.ExternalBalance
	for _, l := range lines.all() {
		total = total.Add(l.Amount)
		pic.Bridge = append(pic.Bridge, l)
	}
	pic.Unexplained = total.Sub(in.LedgerBalance)
	return pic
}

// problem is what is wrong with the verifikat of a link: entry_reversed
// when one was reversed since, entry_draft when one is not posted.
func problem(ids []uuid.UUID, items map[uuid.UUID]*Led, heads map[uuid.UUID]Led) string {
	for _, id := range ids {
		it, ok := items[id]
		if !ok {
			if h, known := heads[id]; known {
				it = &h
			} else {
				continue
			}
		}
		if it.ReversedBy != nil {
			return "entry_reversed"
		}
		if it.Status != "posted" {
			return "entry_draft"
		}
	}
	return ""
}

// bridgeLines are the bridge's lines in order, with their labels.
var bridgeLines = []struct {
	key, sv, en, bucket string
}{
	{"unmatched_external", "Rader utan verifikat", "Outside rows without a verifikat", BucketUnmatchedExternal},
	{"proposed_external", "Rader med förslag, ej kopplade", "Outside rows with a proposal, not linked", BucketProposed},
	{"ignored", "Ignorerade rader", "Ignored rows", BucketIgnored},
	{"unmatched_ledger", "Verifikat utan rad", "Verifikat without an outside row", BucketUnmatchedLedger},
	{"proposed_ledger", "Verifikat med förslag, ej kopplade", "Verifikat with a proposal, not linked", BucketProposed},
	{"upcoming_ledger", "Verifikat efter sista kända rad", "Verifikat after the last outside row", BucketUpcoming},
	{"matched_straddling", "Kopplingar över brytdagen", "Links straddling the cut-off", BucketMatched},
	{"opening_difference", "Skillnad vid historikens start", "Difference when the outside history starts", ""},
	{"reversed_pairs", "Verifikat med storno (tar ut varandra)", "Verifikat and their storno (net nothing)", ""},
}

type lineSet struct{ lines map[string]*BridgeLine }

func newLines() lineSet {
	s := lineSet{lines: map[string]*BridgeLine{}}
	for _, l := range bridgeLines {
		bl := &BridgeLine{Key: l.key, LabelSV: l.sv, LabelEN: l.en}
		if l.bucket != "" {
			b := l.bucket
			bl.Bucket = &b
		}
		s.lines[l.key] = bl
	}
	return s
}

func (s lineSet) add(key string, a money.Amount) {
	l := s.lines[key]
	l.Amount = l.Amount.Add(a)
	l.Count++
}

// all are the lines in order, every one of them, zero or not: a client
// reads the same bridge every time.
func (s lineSet) all() []BridgeLine {
	out := make([]BridgeLine, len(bridgeLines))
	for i, l := range bridgeLines {
		out[i] = *s.lines[l.key]
	}
	return out
}

// union is a union-find over ids: rows and verifikat linked together,
// directly or through others, are one set.
type union map[uuid.UUID]uuid.UUID

func (u union) find(x uuid.UUID) uuid.UUID {
	p, ok := u[x]
	if !ok || p == x {
		return x
	}
	r := u.find(p)
	u[x] = r
	return r
}

func (u union) join(a, b uuid.UUID) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		if cmpID(ra, rb) < 0 {
			ra, rb = rb, ra
		}
		u[ra] = rb
	}
}
