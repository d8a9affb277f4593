package ledger

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/money"
)

// The source types of the year-end's adjustments: each is booked on the
// year's last day and reversed on the next year's first day, so the
// balance sheet holds the items at the closing date and the next year
// books their payments as before.
const (
	// SourceCashCutoff books the invoices kontantmetoden left outside the
	// books at the year's end: 1510/2440 with their VAT on the vilande
	// accounts, outside every VAT return.
	SourceCashCutoff = "cash_method_cutoff"
	// SourceRevaluation revalues open foreign-currency items at the
	// closing day's rate.
	SourceRevaluation = "currency_revaluation"
)

// The accounts a revaluation takes its differences to (BAS): operating
// receivables and debts to 3960/7960, foreign cash to 8330 (gain) and
// 8430 (loss).
const (
	OperatingGain = "3960"
	OperatingLoss = "7960"
	FinancialGain = "8330"
	FinancialLoss = "8430"
)

// The kinds of an open item.
const (
	CustomerInvoice = "customer_invoice"
	SupplierInvoice = "supplier_invoice"
	CashAccount     = "cash_account"
)

// OpenItem is an invoice, supplier invoice or foreign-currency cash
// account open at the end of a day.
type OpenItem struct {
	Kind   string    `json:"kind"`
	ID     uuid.UUID `json:"id"`
	Number string    `json:"number"`
	// Account is where the item stands: 1510, 2440 or the cash account.
	Account  string `json:"account"`
	Currency string `json:"currency"`
	// Remaining is what is left in Currency: to be paid (an invoice), or
	// held (a cash account).
	Remaining money.Amount `json:"remaining"`
	// Booked is the kronor Account holds for it (for a cut-off, what the
	// cut-off books).
	Booked money.Amount `json:"booked_sek"`
	// Rate, Revalued and Difference are the revaluation's: the closing
	// day's rate, Remaining at it, and Revalued less Booked.
	Rate       *money.Rate   `json:"rate,omitempty"`
	Revalued   *money.Amount `json:"revalued_sek,omitempty"`
	Difference *money.Amount `json:"difference,omitempty"`
	// Lines are a cut-off item's lines.
	Lines []Line `json:"-"`
}

// Register is a register whose items can be open at a year's end: the
// customer and supplier invoices, and the cash accounts.
type Register interface {
	// Unbooked lists what kontantmetoden keeps outside the books and is
	// open at the end of day, with the lines its cut-off books.
	Unbooked(ctx context.Context, company uuid.UUID, day time.Time) ([]OpenItem, error)
	// Foreign lists the foreign-currency items on the books open at the
	// end of day, Booked left to the ledger for a cash account.
	Foreign(ctx context.Context, company uuid.UUID, day time.Time) ([]OpenItem, error)
}

// Rates are the day's rates the revaluation reads (fx.Rates): never the
// network inside the transaction.
type Rates interface {
	Rate(ctx context.Context, currency string, day time.Time) (money.Rate, error)
}

// RevaluationLines are the lines of a revaluation of items, each with
// its Difference: a receivable or cash that grew is debited, a debt that
// grew credited, against the gain or loss account of its kind.
func RevaluationLines(items []OpenItem) []Line {
	var b Booking
	for _, it := range items {
		if it.Difference == nil || it.Difference.IsZero() {
			continue
		}
		d := *it.Difference
		desc := fmt.Sprintf("Omvärdering %s %s %s à %s", it.Number, it.Remaining, it.Currency, it.Rate)
		gain, loss := OperatingGain, OperatingLoss
		if it.Kind == CashAccount {
			gain, loss = FinancialGain, FinancialLoss
		}
		asset := it.Kind != SupplierInvoice
		// An asset that grew, or a debt that shrank, is a gain.
		up := d.Sign() > 0 == asset
		b.Add(it.Account, d, !asset, nil, &desc)
		if up {
			b.Add(gain, d.Abs(), true, nil, &desc)
		} else {
			b.Add(loss, d.Abs(), false, nil, &desc)
		}
	}
	return b.Lines
}

// Revalue works out the revaluation of items at day: each at the day's
// rate, its difference against the kronor booked.
func Revalue(items []OpenItem, rate func(currency string) (money.Rate, error)) error {
	for i := range items {
		r, err := rate(items[i].Currency)
		if err != nil {
			return err
		}
		v := r.Convert(items[i].Remaining)
		d := v.Sub(items[i].Booked)
		items[i].Rate, items[i].Revalued, items[i].Difference = &r, &v, &d
	}
	return nil
}

// CutoffLines are the lines of the cash-method cut-off of items: each
// item's lines, merged by account, side and tags.
func CutoffLines(items []OpenItem) []Line {
	var b Booking
	for _, it := range items {
		for _, l := range it.Lines {
			b.Add(l.Account, l.Debit.Sub(l.Credit), false, l.Dimensions, nil)
		}
	}
	return b.Lines
}

// Adjusted is what an adjustment of a year booked: the entry on its last
// day (nil when the books already held it) and its reversal on the next
// year's first day.
type Adjusted struct {
	EntryID    *uuid.UUID `json:"entry_id"`
	ReversalID *uuid.UUID `json:"reversal_entry_id"`
	Lines      []Line     `json:"-"`
}

// adjust books lines as the adjustment of kind source of period p on
// day: only what the adjustments already in p lack (so a run after late
// postings books the difference, and a run that finds the books agreeing
// books nothing), and, when the next year is open, what its reversals
// lack on next's first day. The entries name p in source_id.
func (s *Store) adjust(ctx context.Context, company uuid.UUID, p, next fiscal.Period, day time.Time, source, desc string,
	lines []Line) (Adjusted, error) {
	var out Adjusted
	tag := p.ID.String()
	have, err := s.current(ctx, company, p.ID, source, &tag)
	if err != nil {
		return out, err
	}
	delta := lines
	if len(have) > 0 {
		delta = difference(lines, entryLines(have))
	}
	out.Lines = delta
	if len(delta) > 0 {
		e, err := s.Post(ctx, company, Input{PeriodID: p.ID, Date: day, SourceType: source, SourceID: &tag,
			Description: desc, Lines: delta})
		if err != nil {
			return out, err
		}
		out.EntryID = &e.ID
	}
	if next.ID == uuid.Nil {
		return out, nil
	}
	return out, s.reverseAdjustment(ctx, company, p, next, source, desc, &out)
}

// reverseAdjustment books on next's first day what the reversals of p's
// adjustments of kind source lack.
func (s *Store) reverseAdjustment(ctx context.Context, company uuid.UUID, p, next fiscal.Period, source, desc string,
	out *Adjusted) error {
	tag := p.ID.String()
	originals, err := s.current(ctx, company, p.ID, source, &tag)
	if err != nil {
		return err
	}
	reversals, err := s.current(ctx, company, next.ID, source, &tag)
	if err != nil {
		return err
	}
	// The reversals should net to minus the originals.
	want := negate(entryLines(originals))
	delta := difference(want, entryLines(reversals))
	if len(delta) == 0 {
		return nil
	}
	e, err := s.Post(ctx, company, Input{PeriodID: next.ID, Date: next.Start, SourceType: source, SourceID: &tag,
		Description: "Återföring: " + desc, Lines: delta})
	if err != nil {
		return err
	}
	out.ReversalID = &e.ID
	return nil
}

// reverseAdjustments books in next, the year after p, the reversals p's
// adjustments still lack: the year-end calls it once it has opened next.
func (s *Store) reverseAdjustments(ctx context.Context, company uuid.UUID, p, next fiscal.Period) (int, error) {
	n := 0
	for _, src := range []struct{ source, desc string }{
		{SourceCashCutoff, cutoffText(p)}, {SourceRevaluation, revaluationText(p.End)},
	} {
		var out Adjusted
		if err := s.reverseAdjustment(ctx, company, p, next, src.source, src.desc, &out); err != nil {
			return n, err
		}
		if out.ReversalID != nil {
			n++
		}
	}
	return n, nil
}

func cutoffText(p fiscal.Period) string {
	return "Kontantmetoden: obetalda fakturor vid bokslut " + p.Name
}

func revaluationText(day time.Time) string {
	return "Omvärdering av poster i utländsk valuta " + day.Format(time.DateOnly)
}

// difference is the lines that take b's net to a's, per account and tags.
func difference(a, b []Line) []Line {
	net := map[string]money.Amount{}
	first := map[string]Line{}
	var keys []string
	add := func(l Line, sign int) {
		k := lineKey(l.Account, l.Dimensions)
		if _, ok := first[k]; !ok {
			first[k] = Line{Account: l.Account, Dimensions: l.Dimensions}
			keys = append(keys, k)
		}
		v := l.Debit.Sub(l.Credit)
		if sign < 0 {
			v = v.Neg()
		}
		net[k] = net[k].Add(v)
	}
	for _, l := range a {
		add(l, 1)
	}
	for _, l := range b {
		add(l, -1)
	}
	sort.Strings(keys)
	var out Booking
	for _, k := range keys {
		out.Add(first[k].Account, net[k], false, first[k].Dimensions, nil)
	}
	return out.Lines
}

// negate is lines with debit and credit swapped.
func negate(lines []Line) []Line {
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = Line{Account: l.Account, Debit: l.Credit, Credit: l.Debit, Dimensions: l.Dimensions}
	}
	return out
}
