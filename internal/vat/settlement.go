package vat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// The accounts a settlement nets to: VAT to pay, VAT to get back, and
// the öre (and kronor) the whole-kronor return leaves over.
const (
	PayAccount      = "2650"
	RefundAccount   = "1650"
	RoundingAccount = "3740"
)

// Line is a line of the proposed settlement verifikat.
type Line struct {
	Account     string       `json:"account_number"`
	Debit       money.Amount `json:"debit_amount"`
	Credit      money.Amount `json:"credit_amount"`
	Description string       `json:"line_description,omitempty"`
}

// Proposal is the settlement verifikat of a period: every reported VAT
// account (output 10-12, 30-32, 60-62; input 48) cleared by its turnover,
// the net to 2650 (to pay) or 1650 (to get back) in whole kronor as filed
// (box 49), and what that leaves to 3740.
type Proposal struct {
	Period      Period
	EntryDate   time.Time
	Description string
	Lines       []Line
	// FiledNet is box 49 as filed; Rounding what went to 3740 (positive
	// a credit, an income).
	FiledNet int64
	Rounding money.Amount
}

// Empty reports whether there is nothing to settle.
func (p Proposal) Empty() bool { return len(p.Lines) == 0 }

// Propose builds the settlement of period p from its return.
func Propose(p Period, r Return) Proposal {
	out := Proposal{Period: p, EntryDate: p.End, Description: "Momsredovisning " + p.Label(), FiledNet: r.Filed["49"],
		Lines: []Line{}}
	add := func(account string, amt money.Amount, debitWhenPositive bool, text string) {
		if amt.IsZero() {
			return
		}
		l := Line{Account: account, Description: text}
		if (amt.Sign() > 0) == debitWhenPositive {
			l.Debit = amt.Abs()
		} else {
			l.Credit = amt.Abs()
		}
		out.Lines = append(out.Lines, l)
	}
	for _, b := range outputBoxes {
		for _, a := range r.Accounts[b] {
			add(a.Account, a.Amount, true, "")
		}
	}
	for _, a := range r.Accounts["48"] {
		add(a.Account, a.Amount, false, "")
	}
	if len(out.Lines) == 0 {
		return out
	}
	filed := money.Kr(out.FiledNet)
	if out.FiledNet >= 0 {
		add(PayAccount, filed, false, "Moms att betala")
	} else {
		add(RefundAccount, filed.Neg(), true, "Momsfordran")
	}
	out.Rounding = r.Exact["49"].Sub(filed)
	add(RoundingAccount, out.Rounding, false, "Öres- och kronutjämning")
	return out
}

// Fingerprint is the SHA-256 of the proposal's canonical form: its period,
// date, text and lines. A settlement is booked only while the proposal a
// caller read still holds.
func (p Proposal) Fingerprint() string {
	canon, _ := json.Marshal(struct {
		Type   string `json:"period_type"`
		Start  string `json:"period_start"`
		End    string `json:"period_end"`
		Date   string `json:"entry_date"`
		Text   string `json:"description"`
		Lines  []Line `json:"lines"`
		Filed  int64  `json:"filed_net"`
		Rounds string `json:"rounding_amount"`
	}{p.Period.Type, p.Period.Start.Format(time.DateOnly), p.Period.End.Format(time.DateOnly),
		p.EntryDate.Format(time.DateOnly), p.Description, p.Lines, p.FiledNet, p.Rounding.String()})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
