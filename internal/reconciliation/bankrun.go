package reconciliation

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/money"
)

// DefaultThreshold is the bank run's confidence threshold when none is
// given (hundredths). The peer applies everything down to 0.75 then;
// Kontera applies only what its precision test holds to (0.9).
const DefaultThreshold = 90

// maxRunDays is the longest window a bank run or status takes.
const maxRunDays = 366

// RunRequest is a bank run asked for.
type RunRequest struct {
	From, To  *time.Time
	Account   *string
	Threshold *int
}

// RunMatch is a row and verifikat a run linked.
type RunMatch struct {
	Tx     banking.Transaction
	Amount money.Amount
	Entry  Led
	Method string
	Conf   int
}

// RunResult is what a bank run did.
type RunResult struct {
	Matches   []RunMatch
	Skipped   []Skipped
	BelowBar  int
	Threshold int
}

// bankKey resolves the run's account number to its cash account: the
// primary's when none is given; a number of no cash account is a
// VALIDATION_ERROR naming account_number.
func (r *Reconciler) bankKey(ctx context.Context, company uuid.UUID, number *string) (Key, error) {
	cash, err := r.bank.Store().CashAccounts(ctx, company, true)
	if err != nil {
		return Key{}, err
	}
	for _, c := range cash {
		if number == nil && c.Primary || number != nil && c.LedgerAccount == *number {
			return Key{Kind: KindBank, CashID: c.ID}, nil
		}
	}
	if number == nil {
		return Key{}, apierr.Validation(apierr.Issue{Field: "account_number", In: "body", Rule: "cash_account",
			Issue: "the company has no primary cash account; name one's ledger account"})
	}
	return Key{}, apierr.Validation(apierr.Issue{Field: "account_number", In: "body", Rule: "cash_account",
		Issue: *number + " is not the ledger account of one of the company's enabled cash accounts"})
}

// runWindow checks a run's or status's window: both dates set at most
// 366 days apart.
func (r *Reconciler) runWindow(from, to *time.Time, in string) (Window, error) {
	w, err := r.window(from, to)
	if err != nil {
		return w, err
	}
	if from != nil && to != nil && w.To.Sub(w.From) > maxRunDays*24*time.Hour {
		return w, apierr.Validation(apierr.Issue{Field: "date_to", In: in, Rule: "max_window",
			Issue: "date_from and date_to are at most 366 days apart"})
	}
	return w, nil
}

// BankRun recomputes the proposals of a cash account and links those at
// or above the threshold whose rows are dated in the window, through the
// links' own path; the proposals it did not link are stored.
func (r *Reconciler) BankRun(ctx context.Context, company uuid.UUID, req RunRequest) (RunResult, error) {
	w, err := r.runWindow(req.From, req.To, "body")
	if err != nil {
		return RunResult{}, err
	}
	k, err := r.bankKey(ctx, company, req.Account)
	if err != nil {
		return RunResult{}, err
	}
	out := RunResult{Threshold: DefaultThreshold}
	if req.Threshold != nil {
		out.Threshold = *req.Threshold
	}
	a, err := r.loadFresh(ctx, company, k, r.today())
	if err != nil {
		return out, err
	}
	props, err := r.propose(ctx, company, a)
	if err != nil {
		return out, err
	}
	a.Input.Proposals = props
	pic := Build(a.Input)
	from, to := dayNumber(w.From), dayNumber(w.To)
	var pairs []Pair
	for _, p := range props {
		in := true
		for _, id := range p.ExternalIDs {
			d := dayNumber(a.txs[id].Date)
			in = in && d >= from && d <= to
		}
		if !in {
			continue
		}
		if p.Confidence < out.Threshold {
			out.BelowBar++
			continue
		}
		c := p.Confidence
		pairs = append(pairs, Pair{ExternalIDs: p.ExternalIDs, EntryIDs: p.EntryIDs, Allocations: p.Allocations,
			Method: p.Method, Confidence: &c})
	}
	so, err := r.activeSignoff(ctx, company, k)
	if err != nil {
		return out, err
	}
	res, err := r.apply(ctx, company, a, pic, pairs, so)
	if err != nil {
		return out, err
	}
	if err := r.store.ReplaceProposals(ctx, company, k.String(), unapplied(props, res.Applied)); err != nil {
		return out, err
	}
	items := make(map[uuid.UUID]Led, len(a.Input.Items))
	out.Matches = make([]RunMatch, 0, len(res.Applied))
	for _, it := range a.Input.Items {
		items[it.EntryID] = it
	}
	for _, ap := range res.Applied {
		for _, x := range ap.Pair.ExternalIDs {
			for _, al := range ap.Allocations {
				if al.ExternalID == x {
					out.Matches = append(out.Matches, RunMatch{Tx: a.txs[x], Amount: al.Amount, Entry: items[al.EntryID],
						Method: ap.Pair.Method, Conf: *ap.Pair.Confidence})
				}
			}
		}
	}
	out.Skipped = res.Skipped
	return out, nil
}

// Status is the older bank status: the window's bank movements against the
// books' on the cash account's ledger account.
type Status struct {
	Account              string
	BankTotal            money.Amount
	IgnoredTotal         money.Amount
	IgnoredCount         int
	LedgerBalance        money.Amount
	LedgerMovement       money.Amount
	LedgerOpening        money.Amount
	CorrectionAdjustment money.Amount
	Difference           money.Amount
	MatchedCount         int
	UnmatchedTxCount     int
	UnmatchedTxTotal     money.Amount
	UnmatchedLedgerCount int
	UnmatchedLedgerTotal money.Amount
	Unexplained          money.Amount
}

// Reconciled says the window's movements agree to the öre.
func (s Status) Reconciled() bool { return s.Difference.IsZero() }

// BankStatus compares a cash account's bank rows dated in the window with
// the books' movement on its ledger account.
func (r *Reconciler) BankStatus(ctx context.Context, company uuid.UUID, from, to *time.Time, number *string) (Status, error) {
	w, err := r.runWindow(from, to, "query")
	if err != nil {
		return Status{}, err
	}
	k, err := r.bankKey(ctx, company, number)
	if apierr.Is(err, apierr.ValidationError) && number != nil {
		err = apierr.Validation(apierr.Issue{Field: "account_number", In: "query", Rule: "cash_account",
			Issue: *number + " is not the ledger account of one of the company's enabled cash accounts"})
	}
	if err != nil {
		return Status{}, err
	}
	a, err := r.load(ctx, company, k, w.To)
	if err != nil {
		return Status{}, err
	}
	return r.status(ctx, company, a, w)
}

func (r *Reconciler) status(ctx context.Context, company uuid.UUID, a Account, w Window) (Status, error) {
	s := Status{Account: a.Number}
	bal, err := r.journal.AccountBalances(ctx, company, a.Number, w.From.AddDate(0, 0, -1), w.To)
	if err != nil {
		return s, err
	}
	s.LedgerOpening, s.LedgerBalance = bal[0], bal[1]
	s.LedgerMovement = s.LedgerBalance.Sub(s.LedgerOpening)
	pic := Build(a.Input)
	from := dayNumber(w.From)
	var matchedExt, matchedLed money.Amount
	for _, e := range pic.Entries {
		if dayNumber(e.Date) < from {
			continue
		}
		switch {
		case e.Side == "external" && e.Bucket == BucketIgnored:
			s.IgnoredTotal, s.IgnoredCount = s.IgnoredTotal.Add(e.Amount), s.IgnoredCount+1
		case e.Side == "external" && e.Bucket == BucketMatched:
			s.BankTotal, s.MatchedCount, matchedExt = s.BankTotal.Add(e.Amount), s.MatchedCount+1, matchedExt.Add(e.Amount)
		case e.Side == "external":
			s.BankTotal = s.BankTotal.Add(e.Amount)
			s.UnmatchedTxCount, s.UnmatchedTxTotal = s.UnmatchedTxCount+1, s.UnmatchedTxTotal.Add(e.Amount)
		case e.Bucket == BucketMatched:
			matchedLed = matchedLed.Add(e.Amount)
		default:
			s.UnmatchedLedgerCount, s.UnmatchedLedgerTotal = s.UnmatchedLedgerCount+1, s.UnmatchedLedgerTotal.Add(e.Amount)
		}
	}
	// Verifikat reversed and their storno: what they move in the window
	// (nothing when both are in it; a storno of an earlier period's
	// verifikat moves this one).
	for _, it := range a.Input.Items {
		if dayNumber(it.Date) >= from && (it.ReversesID != nil || it.ReversedBy != nil) {
			s.CorrectionAdjustment = s.CorrectionAdjustment.Add(it.Amount)
		}
	}
	s.Difference = s.BankTotal.Sub(s.LedgerMovement)
	s.Unexplained = s.Difference.Sub(s.UnmatchedTxTotal).Add(s.UnmatchedLedgerTotal).Sub(matchedExt.Sub(matchedLed))
	return s, nil
}
