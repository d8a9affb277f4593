package reports

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

func ptr(s string) *string { return &s }

func TestAccountRange(t *testing.T) {
	cases := []struct {
		from, to *string
		lo, hi   string
		bad      bool
	}{
		{nil, nil, "0000", "9999", false},
		{ptr("193"), ptr("199"), "1930", "1999", false},
		{ptr("19301"), ptr("1930"), "1930", "1930", false},
		{ptr("300"), ptr("299"), "3000", "2999", true},
	}
	for _, c := range cases {
		lo, hi, err := AccountRange(c.from, c.to)
		if lo != c.lo || hi != c.hi || (err != nil) != c.bad {
			t.Fatalf("%v %v: %s %s %v", c.from, c.to, lo, hi, err)
		}
	}
}

// Paging the general ledger one line at a time gives the same lines and
// running balances as one page, and an account with only an opening
// balance still shows.
func TestLedgerPage(t *testing.T) {
	amt := money.MustParse
	accounts := []ledger.AccountTotals{
		{Account: "1930", Opening: amt("100"), Debit: amt("50"), Credit: amt("20")},
		{Account: "2081", Opening: amt("-100")},
		{Account: "3001", Credit: amt("50")},
		{Account: "5410", Debit: amt("20")},
	}
	post := func(acct string, n int, d, c string) ledger.Posting {
		return ledger.Posting{PostingPosition: ledger.PostingPosition{Account: acct, Series: "A", Number: n, LineID: uuid.New()},
			Debit: amt(d), Credit: amt(c)}
	}
	all := []ledger.Posting{post("1930", 1, "50", "0"), post("1930", 2, "0", "20"), post("3001", 1, "0", "50"), post("5410", 2, "20", "0")}
	render := func(page []LedgerAccount) string {
		s := ""
		for _, a := range page {
			s += a.Account + ":"
			for _, l := range a.Lines {
				s += l.Balance.String() + ","
			}
			s += " "
		}
		return s
	}
	whole, next := LedgerPage(accounts, all, 10, nil, "0000", "9999")
	if next != nil || render(whole) != "1930:150.00,130.00, 2081: 3001:-50.00, 5410:20.00, " {
		t.Fatalf("whole: %q", render(whole))
	}
	var at *LedgerCursor
	got := ""
	for i := 0; i < 10; i++ {
		rest := all
		if at != nil {
			for j, p := range all {
				if p.PostingPosition == at.After {
					rest = all[j+1:]
				}
			}
		}
		if len(rest) > 2 {
			rest = rest[:2]
		}
		var page []LedgerAccount
		page, at = LedgerPage(accounts, rest, 1, at, "0000", "9999")
		got += render(page)
		if at == nil {
			break
		}
	}
	want := "1930:150.00, 1930:130.00, 2081: 3001:-50.00, 5410:20.00, "
	if got != want {
		t.Fatal(fmt.Sprintf("paged %q\nwant  %q", got, want))
	}
}
