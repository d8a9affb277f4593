package reconciliation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/jobs"
)

// Window is the days a request looks at: items dated From..To, balances
// at the end of To.
type Window struct {
	From, To time.Time
}

// window is w with its defaults (this year so far) and checked: from
// after to, or to in the future, is a VALIDATION_ERROR.
func (r *Reconciler) window(from, to *time.Time) (Window, error) {
	today := r.today()
	w := Window{From: time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC), To: today}
	if from != nil {
		w.From = *from
	}
	if to != nil {
		w.To = *to
	}
	if w.From.After(w.To) {
		return w, apierr.Validation(apierr.Issue{Field: "date_from", In: "query", Rule: "before_date_to",
			Issue: "date_from is after date_to"})
	}
	return w, nil
}

// Summary is an account reconciled through a day.
type Summary struct {
	Account Account
	Window  Window
	Picture Picture
	// Older counts unmatched items dated before the window.
	Older   int
	Signoff *Signoff
	// Drift is what later postings moved the books' side of the active
	// sign-off by (nil: none).
	Drift *Drift
}

// Accounts lists the company's accounts with an outside truth: every
// enabled cash account, and the skattekonto.
func (r *Reconciler) Accounts(ctx context.Context, company uuid.UUID, from, to *time.Time) ([]Summary, error) {
	w, err := r.window(from, to)
	if err != nil {
		return nil, err
	}
	cash, err := r.bank.Store().CashAccounts(ctx, company, true)
	if err != nil {
		return nil, err
	}
	keys := make([]Key, 0, len(cash)+1)
	for _, c := range cash {
		keys = append(keys, Key{Kind: KindBank, CashID: c.ID})
	}
	keys = append(keys, Key{Kind: KindSkattekonto})
	out := make([]Summary, 0, len(keys))
	for _, k := range keys {
		s, err := r.summary(ctx, company, k, w)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Summarize reconciles account k in w.
func (r *Reconciler) Summarize(ctx context.Context, company uuid.UUID, k Key, from, to *time.Time) (Summary, error) {
	w, err := r.window(from, to)
	if err != nil {
		return Summary{}, err
	}
	return r.summary(ctx, company, k, w)
}

func (r *Reconciler) summary(ctx context.Context, company uuid.UUID, k Key, w Window) (Summary, error) {
	a, err := r.load(ctx, company, k, w.To)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Account: a, Window: w, Picture: Build(a.Input)}
	from := dayNumber(w.From)
	for _, e := range s.Picture.Entries {
		if dayNumber(e.Date) < from && (e.Bucket == BucketUnmatchedExternal || e.Bucket == BucketUnmatchedLedger) {
			s.Older++
		}
	}
	if s.Signoff, err = r.activeSignoff(ctx, company, k); err != nil || s.Signoff == nil {
		return s, err
	}
	s.Drift, err = r.drift(ctx, company, a, *s.Signoff)
	return s, err
}

// ItemFilter narrows an items list.
type ItemFilter struct {
	Bucket   string
	From, To *time.Time
	Limit    int
	// After is the last item of the page before (date, side, id).
	After *ItemCursor
}

// ItemCursor is where a page of items ends.
type ItemCursor struct {
	Date time.Time `json:"d"`
	Side string    `json:"s"`
	ID   uuid.UUID `json:"i"`
}

// Items lists account k's items in the window, in one bucket or all,
// oldest first: a page of limit and whether more follow.
func (r *Reconciler) Items(ctx context.Context, company uuid.UUID, k Key, f ItemFilter) (Summary, []Entry, bool, error) {
	s, err := r.Summarize(ctx, company, k, f.From, f.To)
	if err != nil {
		return s, nil, false, err
	}
	from := dayNumber(s.Window.From)
	var out []Entry
	for _, e := range s.Picture.Entries {
		if f.Bucket != "" && e.Bucket != f.Bucket {
			continue
		}
		// Coming debits are listed whatever their day; the rest in the
		// window.
		if dayNumber(e.Date) < from && !(e.Bucket == BucketUpcoming && e.Side == "external") {
			continue
		}
		if f.After != nil && !after(e, *f.After) {
			continue
		}
		out = append(out, e)
		if len(out) > f.Limit {
			return s, out[:f.Limit], true, nil
		}
	}
	return s, out, false, nil
}

func after(e Entry, c ItemCursor) bool {
	if d := e.Date.Compare(c.Date); d != 0 {
		return d > 0
	}
	if e.Side != c.Side {
		return e.Side > c.Side
	}
	return cmpID(e.ID, c.ID) > 0
}

// Recompute replaces account k's stored proposals with the engine's over
// its open rows and items through today.
func (r *Reconciler) Recompute(ctx context.Context, company uuid.UUID, k Key) ([]Proposal, error) {
	a, err := r.load(ctx, company, k, r.today())
	if err != nil {
		return nil, err
	}
	a.Input.Proposals = nil
	props, err := r.propose(ctx, company, a)
	if err != nil {
		return nil, err
	}
	return props, r.store.ReplaceProposals(ctx, company, k.String(), props)
}

// propose runs the engine over a's open rows and items.
func (r *Reconciler) propose(ctx context.Context, company uuid.UUID, a Account) ([]Proposal, error) {
	pic := Build(a.Input)
	var rows []Row
	var items []Item
	var entries []uuid.UUID
	for _, e := range pic.Entries {
		if e.Bucket != BucketUnmatchedExternal && e.Bucket != BucketUnmatchedLedger && e.Bucket != BucketUpcoming &&
			e.Bucket != BucketProposed {
			continue
		}
		if e.Side == "external" {
			if e.Bucket != BucketUpcoming {
				rows = append(rows, Row{ID: e.ID, Date: e.Date, Amount: e.Amount, Reference: e.Ext.Reference, Text: e.Ext.Description})
			}
			continue
		}
		items = append(items, Item{EntryID: e.ID, Date: e.Date, Amount: e.Amount})
		entries = append(entries, e.ID)
	}
	if r.OCRs != nil && a.Key.Kind == KindBank && len(entries) > 0 {
		ocrs, err := r.OCRs(ctx, company, entries)
		if err != nil {
			return nil, err
		}
		for i := range items {
			items[i].OCRs = ocrs[items[i].EntryID]
		}
	}
	return Propose(rows, items, a.Rules), nil
}

// ProposeOperation is the operation type of a proposals recompute.
const ProposeOperation = "reconciliation.propose"

type proposeParams struct {
	AccountKey string `json:"account_key"`
}

// Changed queues a recompute of the proposals of cash account cash (all
// the company's when nil) unless one is queued already: in the writing
// transaction of an import, an ingest or a sync.
func (r *Reconciler) Changed(ctx context.Context, company uuid.UUID, cash *uuid.UUID) error {
	keys := []Key{}
	if cash != nil {
		keys = append(keys, Key{Kind: KindBank, CashID: *cash})
	} else {
		all, err := r.bank.Store().CashAccounts(ctx, company, true)
		if err != nil {
			return err
		}
		for _, c := range all {
			keys = append(keys, Key{Kind: KindBank, CashID: c.ID})
		}
	}
	for _, k := range keys {
		if err := r.queue(ctx, company, k); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reconciler) queue(ctx context.Context, company uuid.UUID, k Key) error {
	p := proposeParams{AccountKey: k.String()}
	queued, err := r.ops.Pending(ctx, company, ProposeOperation, p)
	if err != nil || queued != nil && queued.Status == jobs.Queued {
		return err
	}
	_, err = r.ops.Enqueue(ctx, company, ProposeOperation, p)
	return err
}

// RunPropose is the operations worker's recompute.
func (r *Reconciler) RunPropose(ctx context.Context, run *jobs.Run) (any, error) {
	var p proposeParams
	if err := unmarshal(run.Params, &p); err != nil {
		return nil, err
	}
	k, err := ParseKey(p.AccountKey)
	if err != nil {
		return nil, err
	}
	props, err := r.Recompute(ctx, run.CompanyID, k)
	if apierr.Is(err, apierr.NotFound) {
		return map[string]any{"account_key": p.AccountKey, "proposals": 0, "skipped": "account_not_found"}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_key": p.AccountKey, "proposals": len(props)}, nil
}

func unmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
