package invoicing

import (
	"errors"
	"fmt"
	"maps"
	"math/big"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// The accounts of a sale (BAS; peer §4.4).
const (
	Receivable            = "1510" // kundfordringar
	DeductionClaim        = "1513" // ROT/RUT to be paid by Skatteverket
	PaymentAccount        = "1930" // the default account a payment arrives on
	RoundingAccount       = "3740" // öres- och kronutjämning
	ExchangeGain          = "3960"
	ExchangeLoss          = "7960"
	ExemptRevenue         = "3004"
	StandardRevenue       = "3001"
	EUGoodsRevenue        = "3108" // ruta 35
	TriangulationRevenue  = "3107" // ruta 38: Kontera's own account (chart.TriangulationAccount); BAS has none
	ExportGoodsRevenue    = "3105" // ruta 36
	EUServicesRevenue     = "3308" // ruta 39
	ExportServicesRevenue = "3305" // ruta 40
)

// revenueAt and outputVAT are the accounts of Swedish sales per rate.
var (
	revenueAt = map[int]string{25: StandardRevenue, 12: "3002", 6: "3003", 0: ExemptRevenue}
	outputVAT = map[int]string{25: "2611", 12: "2621", 6: "2631"}
)

// Sale is an invoice as its verifikat books it: its items with their
// revenue accounts ("" for the rate's or the treatment's), its totals,
// and, when not in kronor, its currency and rate.
type Sale struct {
	Items    []Item
	Accounts []string // per item; "" takes the default
	Totals   Totals
	Revenue  string // the treatment's revenue account, "" for Swedish VAT
	Currency string // "" or "SEK" for kronor
	Rate     *money.Rate
	// Dimensions tag the sale's lines: Default every line, Lines (per
	// item) a revenue line too, the item's winning per key.
	Default ledger.Dimensions
	Lines   []ledger.Dimensions
	// Booked is the kronor 1510 was debited with when the sale was booked;
	// nil reckons it from the items.
	Booked *money.Amount
	// Accrued names, per item, the balance account (2970) an accrued
	// line's revenue waits on; "" for a line booked as revenue at once.
	Accrued []string
	// Credited are the parts partial credit notes took of the sale, and
	// CreditedTotal their total: under kontantmetoden the payments book
	// their shares of the rest.
	Credited      []Part
	CreditedTotal money.Amount
}

// rest is the sale's parts less what partial credit notes took, and the
// total they come to.
func (s Sale) rest() ([]Part, money.Amount) {
	parts := s.Parts()
	if len(s.Credited) == 0 {
		return parts, s.Totals.Total
	}
	out := make([]Part, 0, len(parts))
	for _, p := range parts {
		for _, c := range s.Credited {
			if !p.Accrued && c.Account == p.Account && maps.Equal(c.Dimensions, p.Dimensions) {
				p.Amount = p.Amount.Sub(c.Amount)
			}
		}
		if !p.Amount.IsZero() {
			out = append(out, p)
		}
	}
	return out, s.Totals.Total.Sub(s.CreditedTotal)
}

// revenueOf is the account item i's revenue is booked on: its own, else
// the treatment's, else its rate's.
func (s Sale) revenueOf(i int) string {
	if i < len(s.Accounts) && s.Accounts[i] != "" {
		return s.Accounts[i]
	}
	if s.Revenue != "" {
		return s.Revenue
	}
	return revenueAt[s.Items[i].VATRate]
}

// tagsOf are the dimensions of item i's revenue: the sale's, the item's
// winning per key.
func (s Sale) tagsOf(i int) ledger.Dimensions {
	if i >= len(s.Lines) || len(s.Lines[i]) == 0 {
		return s.Default
	}
	tags := maps.Clone(s.Default)
	if tags == nil {
		tags = ledger.Dimensions{}
	}
	maps.Copy(tags, s.Lines[i])
	return tags
}

func (s Sale) foreign() bool { return s.Currency != "" && s.Currency != "SEK" }

// sek converts an amount of the sale's currency to kronor.
func (s Sale) sek(a money.Amount) money.Amount {
	if !s.foreign() {
		return a
	}
	return s.Rate.Convert(a)
}

// Parts are the credit side of a sale: revenue per account, output VAT
// per rate and the rounding, in the order they are booked, in the sale's
// currency. A cash-method payment books its share of each.
func (s Sale) Parts() []Part {
	var parts []Part
	add := func(account string, a money.Amount, tags ledger.Dimensions) {
		if a.IsZero() {
			return
		}
		for i := range parts {
			if !parts[i].Accrued && parts[i].Account == account && maps.Equal(parts[i].Dimensions, tags) {
				parts[i].Amount = parts[i].Amount.Add(a)
				return
			}
		}
		parts = append(parts, Part{Account: account, Amount: a, Dimensions: tags})
	}
	for i, it := range s.Items {
		switch {
		case it.Text:
		case i < len(s.Accrued) && s.Accrued[i] != "":
			// Each accrued line is a part of its own: its schedule
			// releases exactly what it put on the balance account.
			if a := s.Totals.Lines[i].Net; !a.IsZero() {
				parts = append(parts, Part{Account: s.Accrued[i], Amount: a, Dimensions: s.tagsOf(i), Item: i, Accrued: true})
			}
		default:
			add(s.revenueOf(i), s.Totals.Lines[i].Net, s.tagsOf(i))
		}
	}
	for _, r := range s.Totals.ByRate {
		if r.Rate > 0 {
			add(outputVAT[r.Rate], r.VAT, s.Default)
		}
	}
	add(RoundingAccount, s.Totals.Rounding, s.Default)
	return parts
}

// Part is one account's share of a sale's credit side, with the
// dimensions it is tagged with.
type Part struct {
	Account    string
	Amount     money.Amount
	Dimensions ledger.Dimensions
	// Accrued says the part is item Item's revenue waiting on a balance
	// account.
	Accrued bool
	Item    int
}

// IssueLines are the lines of the verifikat that books a sale when it is
// issued (faktureringsmetoden): the receivable, and Skatteverket's share
// of it under ROT/RUT, debited; revenue, VAT and rounding credited (a
// rounding down debited). In another currency every line is converted at
// the sale's rate and the receivable takes what the others come to, so
// the verifikat balances to the öre; it carries the currency amount.
func IssueLines(s Sale) ([]ledger.Line, error) {
	if s.foreign() && s.Rate == nil {
		return nil, errors.New("invoicing: a sale in another currency needs its rate")
	}
	var lines []ledger.Line
	var credits money.Amount
	for _, p := range s.Parts() {
		a := s.sek(p.Amount)
		credits = credits.Add(a)
		l := entry(p.Account, a.Neg())
		l.Dimensions = p.Dimensions
		lines = append(lines, l)
	}
	claim := s.sek(s.Totals.Deduction)
	receivable := entry(Receivable, credits.Sub(claim))
	receivable.Dimensions = s.Default
	if s.foreign() {
		cur, amount := s.Currency, s.Totals.Customer
		receivable.Currency, receivable.AmountInCurrency, receivable.ExchangeRate = &cur, &amount, s.Rate
	}
	head := []ledger.Line{receivable}
	if !claim.IsZero() {
		head = append(head, entry(DeductionClaim, claim))
	}
	return append(head, lines...), nil
}

// CreditLines are the lines of a credit note's verifikat: the issue's
// lines with debit and credit swapped.
func CreditLines(issued []ledger.Line) []ledger.Line {
	out := make([]ledger.Line, len(issued))
	for i, l := range issued {
		l.Debit, l.Credit = l.Credit, l.Debit
		if l.AmountInCurrency != nil {
			neg := l.AmountInCurrency.Neg()
			l.AmountInCurrency = &neg
		}
		out[i] = l
	}
	return out
}

// entry is a line of a (debit when positive, credit when negative).
func entry(account string, a money.Amount) ledger.Line {
	if a.Sign() < 0 {
		return ledger.Line{Account: account, Credit: a.Neg()}
	}
	return ledger.Line{Account: account, Debit: a}
}

// Share is the part of whole that a payment settles: whole × (paid
// before + paid now) / total, rounded to the öre, less what the payments
// before settled. Reckoned on the running sum, the shares of every
// payment add up to whole exactly once total is paid.
func Share(whole, total, before, now money.Amount) (money.Amount, error) {
	if total.Sign() <= 0 || before.Sign() < 0 || now.Sign() <= 0 || before.Add(now).Cmp(total) > 0 {
		return money.Amount{}, fmt.Errorf("invoicing: %s then %s of %s is not a share", before, now, total)
	}
	upTo := func(paid money.Amount) int64 {
		if paid.Cmp(total) == 0 {
			return whole.InÖre()
		}
		return halfUpWide(whole.InÖre(), paid.InÖre(), total.InÖre())
	}
	return money.Öre(upTo(before.Add(now)) - upTo(before)), nil
}

// halfUpWide is a × b / c rounded half away from zero, for b ≥ 0 and c > 0:
// a and b may each be up to 10^14 öre, and their product is not an int64.
func halfUpWide(a, b, c int64) int64 {
	n := new(big.Int).Mul(big.NewInt(abs(a)), big.NewInt(b))
	q, r := n.QuoRem(n, big.NewInt(c), new(big.Int))
	if r.Lsh(r, 1).Cmp(big.NewInt(c)) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if a < 0 {
		q.Neg(q)
	}
	return q.Int64()
}

// Receipt is money received for a sale, as its verifikat books it.
type Receipt struct {
	Account string       // where it arrived: PaymentAccount unless told
	Amount  money.Amount // in the sale's currency, > 0
	SEK     money.Amount // the kronor that arrived: Amount for a sale in kronor
	Before  money.Amount // paid before this payment, in the sale's currency
}

// PaymentLines are the lines of the verifikat of a payment.
//
// Faktureringsmetoden (cash false): the money debited, the receivable
// credited with the share of its booked kronor that the payment settles
// (Share of the customer's part), and in another currency the difference
// on exchange gain (credit) or loss (debit).
//
// Kontantmetoden (cash true): nothing was booked at issue, so the money
// is debited and each part of the sale (revenue, VAT, rounding) credited
// with its share, which the payments add up to whole; of a sale partial
// credit notes took part of, the shares of the rest, p.Before then what
// the customer paid.
func PaymentLines(s Sale, p Receipt, cash bool) ([]ledger.Line, error) {
	if p.Account == "" {
		p.Account = PaymentAccount
	}
	if !s.foreign() {
		p.SEK = p.Amount
	}
	lines := []ledger.Line{entry(p.Account, p.SEK)}
	if !cash {
		booked := s.Booked
		if booked == nil {
			issued, err := IssueLines(s)
			if err != nil {
				return nil, err
			}
			booked = &issued[0].Debit
		}
		settled, err := Share(*booked, s.Totals.Customer, p.Before, p.Amount)
		if err != nil {
			return nil, err
		}
		rec := entry(Receivable, settled.Neg())
		if s.foreign() {
			cur, amount := s.Currency, p.Amount.Neg()
			rec.Currency, rec.AmountInCurrency, rec.ExchangeRate = &cur, &amount, s.Rate
		}
		lines = append(lines, rec)
		switch diff := p.SEK.Sub(settled); diff.Sign() {
		case 1:
			lines = append(lines, entry(ExchangeGain, diff.Neg()))
		case -1:
			lines = append(lines, entry(ExchangeLoss, diff.Neg()))
		}
		return lines, nil
	}
	parts, total := s.rest()
	shares := make([]money.Amount, len(parts))
	var sum money.Amount
	for i, part := range parts {
		sh, err := Share(part.Amount, total, p.Before, p.Amount)
		if err != nil {
			return nil, err
		}
		shares[i], sum = sh, sum.Add(sh)
	}
	// In kronor the shares add up to the payment; in another currency
	// they are the kronor that arrived, shared the same way, the öre left
	// over on the last part.
	var booked money.Amount
	for i, part := range parts {
		a := shares[i]
		if s.foreign() {
			if i == len(parts)-1 {
				a = p.SEK.Sub(booked)
			} else {
				a = money.Öre(halfUpWide(p.SEK.InÖre(), abs(shares[i].InÖre()), abs(sum.InÖre())))
				if shares[i].Sign() < 0 {
					a = a.Neg()
				}
			}
		}
		booked = booked.Add(a)
		lines = append(lines, entry(part.Account, a.Neg()))
	}
	return lines, nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// PayoutLines are the lines of Skatteverket's payment of a ROT/RUT
// deduction: the money debited, the claim on 1513 credited.
func PayoutLines(account string, amount money.Amount) []ledger.Line {
	if account == "" {
		account = PaymentAccount
	}
	return []ledger.Line{entry(account, amount), entry(DeductionClaim, amount.Neg())}
}
