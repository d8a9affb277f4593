// Package reports answers the reports over the books: the trial balance
// (råbalans), the general ledger (huvudbok) and the journal register
// (verifikationslista). The ledger owns the tables and their queries; this
// package pages, names and sums what they return.
package reports

import (
	"strings"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// AccountRange turns the account_from / account_to bounds (3-8 digits,
// inclusive, either may be absent) into four-digit accounts: a short bound
// covers the accounts it starts ("199" as account_to reaches 1999), and a
// longer one is cut to its account. from after to is a VALIDATION_ERROR.
func AccountRange(from, to *string) (string, string, error) {
	lo, hi := "0000", "9999"
	if from != nil {
		lo = bound(*from, '0')
	}
	if to != nil {
		hi = bound(*to, '9')
	}
	if lo > hi {
		return lo, hi, apierr.Validation(apierr.Issue{Field: "account_to", In: "query", Rule: "range",
			Issue: "account_to must not come before account_from"})
	}
	return lo, hi, nil
}

func bound(s string, fill byte) string {
	if len(s) >= 4 {
		return s[:4]
	}
	return s + strings.Repeat(string(fill), 4-len(s))
}

// TrialTotals are the sums of a trial balance.
type TrialTotals struct {
	Opening, Debit, Credit, Closing money.Amount
}

// Balanced reports whether the books add up: debits equal credits, and
// the opening and closing balances each sum to zero.
func (t TrialTotals) Balanced() bool {
	return t.Debit.Cmp(t.Credit) == 0 && t.Opening.IsZero() && t.Closing.IsZero()
}

// SumTrial adds up the rows of a trial balance.
func SumTrial(rows []ledger.AccountTotals) TrialTotals {
	var t TrialTotals
	for _, r := range rows {
		t.Opening, t.Debit, t.Credit = t.Opening.Add(r.Opening), t.Debit.Add(r.Debit), t.Credit.Add(r.Credit)
		t.Closing = t.Closing.Add(r.Closing())
	}
	return t
}

// LedgerAccount is one account on a page of the general ledger.
type LedgerAccount struct {
	ledger.AccountTotals
	// Continued is true when the account's lines began on an earlier page.
	Continued bool
	Lines     []LedgerLine
}

// LedgerLine is a posted line with the running balance after it.
type LedgerLine struct {
	ledger.Posting
	Balance money.Amount
}

// LedgerCursor is where the next page of the general ledger starts: after
// a line, with the running balance of its account there.
type LedgerCursor struct {
	// Period and Range are what the cursor was made for; a cursor sent
	// with another period or account range starts over.
	Period  string                 `json:"f"`
	Range   string                 `json:"r"`
	After   ledger.PostingPosition `json:"p"`
	Balance money.Amount           `json:"b"`
	// Done is true when the page ended with the account's last line: the
	// next page starts with the accounts after it.
	Done bool `json:"x,omitempty"`
}

// LedgerPage lays out a page of the general ledger: accounts are the
// figures of every account in range, postings the page's lines (one more
// than limit when another page follows), at the cursor of the page (nil
// for the first) and ending at account to. An account appears when it
// falls between where the page starts and where it ends, with its lines and
// running balance; an account split over pages comes again, continued. It
// returns the page and the cursor of the next (nil on the last).
func LedgerPage(accounts []ledger.AccountTotals, postings []ledger.Posting, limit int, at *LedgerCursor, from, to string) ([]LedgerAccount, *LedgerCursor) {
	more := len(postings) > limit
	var following string
	if more {
		following = postings[limit].Account
		postings = postings[:limit]
	}
	first, last := from, to
	if at != nil {
		first = at.After.Account
	}
	if more {
		last = postings[len(postings)-1].Account
	}
	out := []LedgerAccount{}
	var next *LedgerCursor
	i := 0
	for _, a := range accounts {
		if a.Account < first || a.Account > last || at != nil && at.Done && a.Account == first {
			continue
		}
		la := LedgerAccount{AccountTotals: a, Lines: []LedgerLine{}}
		running := a.Opening
		if at != nil && a.Account == at.After.Account {
			la.Continued, running = true, at.Balance
		}
		for ; i < len(postings) && postings[i].Account == a.Account; i++ {
			p := postings[i]
			running = running.Add(p.Debit).Sub(p.Credit)
			la.Lines = append(la.Lines, LedgerLine{Posting: p, Balance: running})
		}
		if more && a.Account == last {
			next = &LedgerCursor{After: postings[len(postings)-1].PostingPosition, Balance: running,
				Done: following != last}
		}
		out = append(out, la)
	}
	return out, next
}
