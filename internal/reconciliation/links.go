package reconciliation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Reconciliation events.
const (
	EventMatched   = "reconciliation.matched"
	EventUnmatched = "reconciliation.unmatched"
	EventSignedOff = "reconciliation.signed_off"
	EventReopened  = "reconciliation.reopened"
)

// Codes a pair of a links request is skipped with.
const (
	SkipShape      = "UNSUPPORTED_PAIR_SHAPE"
	SkipLinked     = "ALREADY_LINKED"
	SkipNoEntry    = "ENTRY_NOT_FOUND"
	SkipNotClosed  = "PAIR_NOT_CLOSED"
	SkipIgnored    = "ROW_IGNORED"
	SkipNotFound   = "NOT_FOUND"
	SkipRace       = "LINK_RACE"
	SkipSignedOff  = "SIGNED_OFF"
	maxPairParts   = 50
	maxPairsPerAsk = 500
)

// Pair is rows and verifikat to link as one set; Allocations, optional,
// split a row among verifikat.
type Pair struct {
	ExternalIDs []uuid.UUID
	EntryIDs    []uuid.UUID
	Allocations []Allocation
	// Method and Confidence are the proposal's when it came from one.
	Method     string
	Confidence *int
}

// Skipped is a pair left unlinked, and why.
type Skipped struct {
	Pair    Pair
	Code    string
	Message string
}

// Applied is a pair linked: its set and links.
type Applied struct {
	Pair        Pair
	SetID       uuid.UUID
	Allocations []Allocation
}

// LinkResult is what a links request did.
type LinkResult struct {
	Considered int
	Applied    []Applied
	Skipped    []Skipped
}

// LinkRequest is what to link: pairs given, and the stored proposals at
// or above Threshold (hundredths) when UseProposals.
type LinkRequest struct {
	Pairs        []Pair
	UseProposals bool
	Threshold    int
}

// Link applies each pair on its own: a pair that cannot be linked is
// skipped with its code, the rest are linked. Links never post, so they
// work in locked periods.
func (r *Reconciler) Link(ctx context.Context, company uuid.UUID, k Key, req LinkRequest) (LinkResult, error) {
	if len(req.Pairs) > maxPairsPerAsk {
		return LinkResult{}, apierr.Field("pairs", "max_items", fmt.Sprintf("at most %d pairs", maxPairsPerAsk))
	}
	load := r.load
	if req.UseProposals {
		// The engine's proposals as of now, not as the last recompute left
		// them (its job may not have run since the last import).
		load = r.loadFresh
	}
	a, err := load(ctx, company, k, r.today())
	if err != nil {
		return LinkResult{}, err
	}
	if req.UseProposals {
		if a.Input.Proposals, err = r.propose(ctx, company, a); err != nil {
			return LinkResult{}, err
		}
	}
	pic := Build(a.Input)
	pairs := slices.Clone(req.Pairs)
	if req.UseProposals {
		seen := map[uuid.UUID]bool{}
		for _, e := range pic.Entries {
			if e.Proposal == nil || e.Proposal.Confidence < req.Threshold || seen[e.Proposal.ExternalIDs[0]] {
				continue
			}
			p := e.Proposal
			seen[p.ExternalIDs[0]] = true
			c := p.Confidence
			pairs = append(pairs, Pair{ExternalIDs: p.ExternalIDs, EntryIDs: p.EntryIDs, Allocations: p.Allocations,
				Method: p.Method, Confidence: &c})
		}
	}
	so, err := r.activeSignoff(ctx, company, k)
	if err != nil {
		return LinkResult{}, err
	}
	res, err := r.apply(ctx, company, a, pic, pairs, so)
	if err != nil || !req.UseProposals {
		return res, err
	}
	return res, r.store.ReplaceProposals(ctx, company, k.String(), unapplied(a.Input.Proposals, res.Applied))
}

// unapplied are the proposals of props none of whose rows a pair of
// applied linked: what is left to propose once they are linked.
func unapplied(props []Proposal, applied []Applied) []Proposal {
	linked := map[uuid.UUID]bool{}
	for _, ap := range applied {
		for _, id := range ap.Pair.ExternalIDs {
			linked[id] = true
		}
	}
	out := make([]Proposal, 0, len(props))
	for _, p := range props {
		if !slices.ContainsFunc(p.ExternalIDs, func(id uuid.UUID) bool { return linked[id] }) {
			out = append(out, p)
		}
	}
	return out
}

// apply checks and links pairs against picture pic of account a.
func (r *Reconciler) apply(ctx context.Context, company uuid.UUID, a Account, pic Picture, pairs []Pair, so *Signoff) (LinkResult, error) {
	out := LinkResult{Considered: len(pairs)}
	ext, led := map[uuid.UUID]Entry{}, map[uuid.UUID]Entry{}
	for _, e := range pic.Entries {
		if e.Side == "external" {
			ext[e.ID] = e
		} else {
			led[e.ID] = e
		}
	}
	taken := map[uuid.UUID]bool{}
	type planned struct {
		pair  Pair
		links []StoredLink
	}
	var plan []planned
	for _, p := range pairs {
		links, code, msg := r.check(a, p, ext, led, taken, so)
		if code != "" {
			out.Skipped = append(out.Skipped, Skipped{Pair: p, Code: code, Message: msg})
			continue
		}
		for _, id := range p.ExternalIDs {
			taken[id] = true
		}
		for _, id := range p.EntryIDs {
			taken[id] = true
		}
		plan = append(plan, planned{pair: p, links: links})
	}
	if len(plan) == 0 {
		return out, nil
	}
	// The bank rows are held, then checked again: a booking, ignore or
	// link since the picture was read makes the pair a LINK_RACE.
	held := map[uuid.UUID]banking.Transaction{}
	if a.Key.Kind == KindBank {
		var ids []uuid.UUID
		for _, p := range plan {
			ids = append(ids, p.pair.ExternalIDs...)
		}
		txs, err := r.bank.Store().Held(ctx, company, ids)
		if err != nil {
			return out, err
		}
		for _, t := range txs {
			held[t.ID] = t
		}
	}
	all := make([]StoredLink, 0, len(plan))
	ok := make([]planned, 0, len(plan))
	for _, p := range plan {
		race := false
		for _, id := range p.pair.ExternalIDs {
			if t, found := held[id]; a.Key.Kind == KindBank && (!found || t.Booked() || t.Ignored) {
				race = true
			}
		}
		if race {
			out.Skipped = append(out.Skipped, Skipped{Pair: p.pair, Code: SkipRace,
				Message: "a row was booked, ignored or linked by another request meanwhile"})
			continue
		}
		all = append(all, p.links...)
		ok = append(ok, p)
	}
	err := r.db.Attempt(ctx, func(ctx context.Context) error { return r.store.InsertLinks(ctx, company, all) })
	if store.UniqueViolation(err, "") {
		// Another request linked one of the rows or verifikat: each pair
		// on its own, the ones that lost are LINK_RACE.
		var won []planned
		for _, p := range ok {
			err := r.db.Attempt(ctx, func(ctx context.Context) error { return r.store.InsertLinks(ctx, company, p.links) })
			switch {
			case store.UniqueViolation(err, ""):
				out.Skipped = append(out.Skipped, Skipped{Pair: p.pair, Code: SkipRace,
					Message: "a row or verifikat was linked by another request meanwhile"})
			case err != nil:
				return out, err
			default:
				won = append(won, p)
			}
		}
		ok, err = won, nil
	}
	if err != nil {
		return out, err
	}
	txLinks := make([]banking.TxLink, 0, len(ok))
	out.Applied = make([]Applied, 0, len(ok))
	for _, p := range ok {
		set := p.links[0].SetID
		if a.Key.Kind == KindBank {
			first := p.pair.EntryIDs[0]
			for _, id := range p.pair.ExternalIDs {
				txLinks = append(txLinks, banking.TxLink{Tx: held[id], EntryID: first, Voucher: led[first].Led.Voucher})
			}
		}
		payload := map[string]any{"account_key": a.Key.String(), "link_id": p.pair.ExternalIDs[0], "set_id": set,
			"external_ids": p.pair.ExternalIDs, "journal_entry_ids": p.pair.EntryIDs, "method": p.links[0].Method,
			"confidence": confidenceOf(p.pair.Confidence), "allocations": allocations(p.links)}
		if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "reconciliation_links",
			RecordID: set.String(), Description: fmt.Sprintf("Avstämning %s: %d rader kopplades till %d verifikat",
				a.Key, len(p.pair.ExternalIDs), len(p.pair.EntryIDs)), New: audit.Of(payload),
			Fields: audit.Keys(payload)}); err != nil {
			return out, err
		}
		if _, err := outbox.Emit(ctx, r.db, company, EventMatched, payload); err != nil {
			return out, err
		}
		out.Applied = append(out.Applied, Applied{Pair: p.pair, SetID: set, Allocations: allocations(p.links)})
	}
	if _, err := r.bank.Reconcile(ctx, company, txLinks); err != nil {
		return out, err
	}
	return out, nil
}

// check is a pair's links, or the code and message it is skipped with.
func (r *Reconciler) check(a Account, p Pair, ext, led map[uuid.UUID]Entry, taken map[uuid.UUID]bool, so *Signoff) ([]StoredLink, string, string) {
	nx, ne := len(p.ExternalIDs), len(p.EntryIDs)
	switch {
	case nx == 0 || ne == 0:
		return nil, SkipShape, "a pair names at least one row and one verifikat"
	case nx > 1 && ne > 1:
		return nil, SkipShape, "many rows to many verifikat is not supported: split it into pairs"
	case nx > maxPairParts || ne > maxPairParts:
		return nil, SkipShape, fmt.Sprintf("at most %d rows or verifikat in a pair", maxPairParts)
	case hasDuplicates(p.ExternalIDs) || hasDuplicates(p.EntryIDs):
		return nil, SkipShape, "a row or verifikat is named twice"
	}
	var sumExt, sumLed money.Amount
	for _, id := range p.ExternalIDs {
		e, ok := ext[id]
		switch {
		case !ok:
			return nil, SkipNotFound, "row " + id.String() + " is not on the account (through today)"
		case e.Bucket == BucketIgnored:
			return nil, SkipIgnored, "row " + id.String() + " is ignored"
		case e.Bucket == BucketMatched || taken[id]:
			return nil, SkipLinked, "row " + id.String() + " is linked already"
		case e.Bucket == BucketUpcoming:
			return nil, SkipShape, "row " + id.String() + " is a coming debit: link it once drawn"
		case so != nil && !e.Date.After(so.ThroughDate):
			return nil, SkipSignedOff, "row " + id.String() + " is in the period signed off through " + so.ThroughDate.Format(time.DateOnly)
		}
		sumExt = sumExt.Add(e.Amount)
	}
	amounts := map[uuid.UUID]money.Amount{}
	for _, id := range p.EntryIDs {
		e, ok := led[id]
		switch {
		case !ok:
			return nil, SkipNoEntry, "verifikat " + id.String() + " has no posted lines on " + a.Number + " through today"
		case e.Bucket == BucketMatched || taken[id]:
			return nil, SkipLinked, "verifikat " + id.String() + " is linked already"
		}
		amounts[id] = e.Amount
		sumLed = sumLed.Add(e.Amount)
	}
	if sumExt.Cmp(sumLed) != 0 {
		return nil, SkipNotClosed, fmt.Sprintf("the rows sum to %s and the verifikat to %s on %s", sumExt, sumLed, a.Number)
	}
	method := p.Method
	if method == "" {
		method = MethodManual
	}
	var conf *money.Amount
	if p.Confidence != nil {
		c := confidence(*p.Confidence)
		conf = &c
	}
	set := uuid.Must(uuid.NewV7())
	var links []StoredLink
	if nx == 1 {
		alloc, code, msg := split(p, amounts)
		if code != "" {
			return nil, code, msg
		}
		for i, id := range p.EntryIDs {
			links = append(links, StoredLink{SetID: set, AccountKey: a.Key.String(), ExternalID: p.ExternalIDs[0], EntryID: id,
				EntryOrd: i, Amount: alloc[id], Method: method, Confidence: conf})
		}
		return links, "", ""
	}
	// Many rows to one verifikat: each row goes whole; allocations, if
	// given, must say so.
	for _, al := range p.Allocations {
		e, ok := ext[al.ExternalID]
		switch {
		case !ok || !slices.Contains(p.ExternalIDs, al.ExternalID) || al.EntryID != p.EntryIDs[0]:
			return nil, SkipShape, "an allocation names a row or verifikat that is not the pair's"
		case al.Amount.Cmp(e.Amount) != 0:
			return nil, SkipNotClosed, "rows paid as one go whole: row " + al.ExternalID.String() + " is " + e.Amount.String()
		}
	}
	for i, id := range p.ExternalIDs {
		links = append(links, StoredLink{SetID: set, AccountKey: a.Key.String(), ExternalID: id, EntryID: p.EntryIDs[0],
			RowOrd: i, Amount: ext[id].Amount, Method: method, Confidence: conf})
	}
	return links, "", ""
}

// split is what of a pair's one row each verifikat takes: its amount on
// the account, or the allocations given, which must say the same.
func split(p Pair, amounts map[uuid.UUID]money.Amount) (map[uuid.UUID]money.Amount, string, string) {
	if len(p.Allocations) == 0 {
		return amounts, "", ""
	}
	got := map[uuid.UUID]money.Amount{}
	for _, al := range p.Allocations {
		if al.ExternalID != p.ExternalIDs[0] {
			return nil, SkipShape, "an allocation names row " + al.ExternalID.String() + ", not the pair's"
		}
		if _, ok := amounts[al.EntryID]; !ok {
			return nil, SkipShape, "an allocation names verifikat " + al.EntryID.String() + ", not the pair's"
		}
		got[al.EntryID] = got[al.EntryID].Add(al.Amount)
	}
	for id, want := range amounts {
		if got[id].Cmp(want) != 0 {
			return nil, SkipNotClosed, fmt.Sprintf("verifikat %s is allocated %s but moves %s on the account", id, got[id], want)
		}
	}
	return got, "", ""
}

func hasDuplicates(ids []uuid.UUID) bool {
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}

func allocations(links []StoredLink) []Allocation {
	out := make([]Allocation, len(links))
	for i, l := range links {
		out[i] = Allocation{ExternalID: l.ExternalID, EntryID: l.EntryID, Amount: l.Amount}
	}
	return out
}

// confidenceOf is hundredths as the API writes them (0.97), nil for none.
func confidenceOf(c *int) *money.Amount {
	if c == nil {
		return nil
	}
	a := confidence(*c)
	return &a
}

// Unlinked is what an unlink did.
type Unlinked struct {
	ExternalID    uuid.UUID
	PreviousEntry *uuid.UUID
}

// Unlink removes the link set holding outside row id; the verifikat is
// never touched. A bank transaction booked by its own verifikat
// (categorize, an invoice match) is a CONFLICT: uncategorize it.
func (r *Reconciler) Unlink(ctx context.Context, company uuid.UUID, k Key, id uuid.UUID) (Unlinked, error) {
	a, err := r.load(ctx, company, k, r.today())
	if err != nil {
		return Unlinked{}, err
	}
	x, ok := extOf(a, id)
	if !ok {
		return Unlinked{}, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_link", "link_id": id})
	}
	if err := r.frozen(ctx, company, k, x.Date, id); err != nil {
		return Unlinked{}, err
	}
	set, err := r.store.SetOf(ctx, company, id)
	if err != nil {
		return Unlinked{}, err
	}
	out := Unlinked{ExternalID: id}
	// The set goes first: releasing its transactions then finds none
	// (Released).
	if len(set) > 0 {
		out.PreviousEntry = &set[0].EntryID
		if err := r.store.RemoveSet(ctx, company, set[0].SetID); err != nil {
			return out, err
		}
	}
	if k.Kind == KindBank {
		txs, err := r.bank.Store().Held(ctx, company, setRows(set, id))
		if err != nil {
			return out, err
		}
		for _, t := range txs {
			if !t.Booked() {
				continue
			}
			if t.ID == id && out.PreviousEntry == nil {
				out.PreviousEntry = t.JournalEntryID
			}
			if _, err := r.bank.Unreconcile(ctx, t); err != nil {
				return out, err
			}
		}
		if out.PreviousEntry == nil && len(set) == 0 {
			return out, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_link", "link_id": id,
				"hint": "the row is not linked"})
		}
	} else if len(set) == 0 {
		return out, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_link", "link_id": id,
			"hint": "the row is not linked"})
	}
	return out, r.unmatched(ctx, company, k, id, out.PreviousEntry, set)
}

// unmatched audits and announces the removal of the link set of row id.
func (r *Reconciler) unmatched(ctx context.Context, company uuid.UUID, k Key, id uuid.UUID, previous *uuid.UUID, set []StoredLink) error {
	payload := map[string]any{"account_key": k.String(), "link_id": id, "external_id": id,
		"previous_journal_entry_id": previous}
	if len(set) > 0 {
		payload["set_id"], payload["allocations"] = set[0].SetID, allocations(set)
	}
	if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "reconciliation_links",
		RecordID: id.String(), Description: "Avstämning " + k.String() + ": kopplingen togs bort", Old: audit.Of(payload)}); err != nil {
		return err
	}
	_, err := outbox.Emit(ctx, r.db, company, EventUnmatched, payload)
	return err
}

// Released removes the link set that holds bank transaction tx, whose
// link banking released (uncategorize): the set's other transactions are
// released too, and the removal announced. Nothing when no set holds it.
func (r *Reconciler) Released(ctx context.Context, company, tx uuid.UUID) error {
	set, err := r.store.SetOf(ctx, company, tx)
	if err != nil || len(set) == 0 {
		return err
	}
	if err := r.store.RemoveSet(ctx, company, set[0].SetID); err != nil {
		return err
	}
	others := setRows(set, tx)[1:]
	txs, err := r.bank.Store().Held(ctx, company, others)
	if err != nil {
		return err
	}
	for _, t := range txs {
		if t.Booked() && t.ReconciliationMethod != nil && *t.ReconciliationMethod == "linked" {
			if _, err := r.bank.Unreconcile(ctx, t); err != nil {
				return err
			}
		}
	}
	k, err := ParseKey(set[0].AccountKey)
	if err != nil {
		return err
	}
	return r.unmatched(ctx, company, k, tx, &set[0].EntryID, set)
}

// setRows are the outside rows of a link set (or id alone without one).
func setRows(set []StoredLink, id uuid.UUID) []uuid.UUID {
	out := []uuid.UUID{id}
	for _, l := range set {
		if !slices.Contains(out, l.ExternalID) {
			out = append(out, l.ExternalID)
		}
	}
	return out
}

func extOf(a Account, id uuid.UUID) (Ext, bool) {
	i := slices.IndexFunc(a.Input.Ext, func(x Ext) bool { return x.ID == id })
	if i < 0 {
		return Ext{}, false
	}
	return a.Input.Ext[i], true
}

// IgnoreResult is an item's ignored flag after an ignore.
type IgnoreResult struct {
	ExternalID uuid.UUID
	Ignored    bool
}

// Ignore sets outside row id's ignored flag: a bank row's is the
// transaction's own (/transactions/{id}/ignore); an ignored skattekonto
// row still counts in the saldo, on its own bridge line. A linked row is
// a CONFLICT.
func (r *Reconciler) Ignore(ctx context.Context, company uuid.UUID, k Key, id uuid.UUID, ignored bool) (IgnoreResult, error) {
	a, err := r.load(ctx, company, k, r.today())
	if err != nil {
		return IgnoreResult{}, err
	}
	x, ok := extOf(a, id)
	if !ok {
		return IgnoreResult{}, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_item", "item_id": id,
			"hint": "only outside rows are ignored; a verifikat is reversed instead"})
	}
	if err := r.frozen(ctx, company, k, x.Date, id); err != nil {
		return IgnoreResult{}, err
	}
	if x.EntryID != nil || slices.ContainsFunc(a.Input.Links, func(l Link) bool { return l.ExternalID == id }) {
		return IgnoreResult{}, apierr.New(apierr.Conflict, map[string]any{"reason": "row_linked", "item_id": id,
			"hint": "unlink the row first (DELETE …/links/{linkId})"})
	}
	if k.Kind == KindBank {
		t, _, err := r.bank.Ignore(ctx, company, id, ignored)
		return IgnoreResult{ExternalID: id, Ignored: t.Ignored}, err
	}
	row, err := r.store.TaxRow(ctx, company, id, true)
	if err != nil || row.Ignored == ignored {
		return IgnoreResult{ExternalID: id, Ignored: row.Ignored}, err
	}
	if err := r.store.SetTaxIgnored(ctx, company, id, ignored); err != nil {
		return IgnoreResult{}, err
	}
	old := row
	row.Ignored = ignored
	what := "Skattekontorad ignoreras"
	if !ignored {
		what = "Skattekontorad ignoreras inte längre"
	}
	return IgnoreResult{ExternalID: id, Ignored: ignored}, r.audit.Record(ctx, audit.Change{CompanyID: company,
		Action: audit.Update, Table: "skattekonto_transactions", RecordID: id.String(), Description: what,
		Old: audit.Of(old), New: audit.Of(row)})
}
