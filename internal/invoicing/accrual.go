package invoicing

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/accrual"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Accrual periods: the balance account an accrued line waits on unless
// told, the source type of a release's verifikat, and the longest period.
const (
	AccrualAccount   = "2970" // förutbetalda intäkter
	SourceAccrual    = ledger.SourceAccrual
	MaxAccrualMonths = 60
)

// Release is one month of an accrued line: its share, in kronor, moved
// from the balance account to revenue on Day.
type Release struct {
	Month  time.Time // the month's first day
	Day    time.Time // its last day, or the invoice date for a month already past
	Amount money.Amount
}

// Schedule shares whole, the kronor of a line accrued from start to end
// (inclusive), among the months the period touches by their days in it:
// the running sum rounded to the öre, so the months add up to whole. A
// month ending before the invoice date (issued) is released on that
// date. Months whose share is 0 are left out.
func Schedule(whole money.Amount, start, end, issued time.Time) []Release {
	days := func(a, b time.Time) int64 { return int64(b.Sub(a).Hours()/24) + 1 }
	total := days(start, end)
	var out []Release
	var before int64
	for m := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(end); m = m.AddDate(0, 1, 0) {
		last := m.AddDate(0, 1, -1)
		from, to := m, last
		if from.Before(start) {
			from = start
		}
		if to.After(end) {
			to = end
		}
		upTo := before + days(from, to)
		share := halfUpWide(whole.InÖre(), upTo, total) - halfUpWide(whole.InÖre(), before, total)
		before = upTo
		if share == 0 {
			continue
		}
		day := last
		if day.Before(issued) {
			day = issued
		}
		out = append(out, Release{Month: m, Day: day, Amount: money.Öre(share)})
	}
	return out
}

// planAccrual checks line i's accrual period: both ends or neither, the
// end not before the start, at most MaxAccrualMonths months, a product
// line, never under kontantmetoden or on a delivery note; else 400
// INVOICE_CREATE_ACCRUAL_INVALID naming the field. The balance account
// defaults to 2970.
func planAccrual(i int, l DraftLine, line *Line, docType string, cash bool) error {
	at := func(name string) string { return "items." + strconv.Itoa(i) + "." + name }
	if l.AccrualStart == nil && l.AccrualEnd == nil {
		if l.AccrualAccount != nil {
			return accrualInvalid(at("accrual_balance_account"), "period", "a balance account needs an accrual period")
		}
		return nil
	}
	switch {
	case l.AccrualStart == nil:
		return accrualInvalid(at("accrual_period_start"), "required", "an accrual period needs its start")
	case l.AccrualEnd == nil:
		return accrualInvalid(at("accrual_period_end"), "required", "an accrual period needs its end")
	case l.AccrualEnd.Before(*l.AccrualStart):
		return accrualInvalid(at("accrual_period_end"), "after_start", "must be on or after accrual_period_start")
	case !l.AccrualEnd.Before(l.AccrualStart.AddDate(0, MaxAccrualMonths, 0)):
		return accrualInvalid(at("accrual_period_end"), "max_months", "an accrual period is at most "+
			strconv.Itoa(MaxAccrualMonths)+" months")
	case l.Text:
		return accrualInvalid(at("line_type"), "product", "a text line is not accrued")
	case cash:
		return accrualInvalid(at("accrual_period_start"), "cash_method",
			"under kontantmetoden revenue is booked when paid: nothing is accrued")
	case docType == "delivery_note":
		return accrualInvalid("document_type", "invoice", "a delivery note is not accrued")
	}
	account := AccrualAccount
	if l.AccrualAccount != nil {
		account = *l.AccrualAccount
	}
	line.AccrualStart, line.AccrualEnd, line.AccrualBalanceAccount = l.AccrualStart, l.AccrualEnd, &account
	return nil
}

func accrualInvalid(field, rule, issue string) error {
	return apierr.New(apierr.InvoiceCreateAccrualInvalid, map[string]any{"field": field, "rule": rule, "issue": issue})
}

// accruals are the months of inv's accrued lines, whose sale is booked.
func accruals(inv Invoice, sale Sale) []Accrual {
	var rows []Accrual
	for _, p := range sale.Parts() {
		if !p.Accrued {
			continue
		}
		l := inv.Lines[p.Item]
		for _, r := range Schedule(sale.sek(p.Amount), *l.AccrualStart, *l.AccrualEnd, inv.InvoiceDate) {
			rows = append(rows, Accrual{InvoiceID: inv.ID, ItemID: l.ID, Month: r.Month, Day: r.Day, Amount: r.Amount,
				Revenue: sale.revenueOf(p.Item), Balance: p.Account, Dimensions: p.Dimensions})
		}
	}
	return rows
}

// release books rows of inv due on one day: one verifikat of source
// accrual on that day, named on the rows.
func (s *Sales) release(ctx context.Context, inv Invoice, rows []Accrual) error {
	day := rows[0].Day
	e, err := s.post(ctx, inv, uuid.Nil, false, day, "release_date", SourceAccrual, "Periodisering, faktura "+*inv.Number+", "+
		day.Format("2006-01"), releaseLines(rows))
	if err != nil {
		return err
	}
	return s.store.Released(ctx, inv.CompanyID, rows, e.ID)
}

// Accrual is a row of invoice_accruals: one month of an accrued line.
type Accrual struct {
	InvoiceID  uuid.UUID         `db:"invoice_id"`
	ItemID     uuid.UUID         `db:"item_id"`
	Month      time.Time         `db:"month"`
	Day        time.Time         `db:"release_date"`
	Amount     money.Amount      `db:"amount"`
	Revenue    string            `db:"revenue_account"`
	Balance    string            `db:"balance_account"`
	Dimensions ledger.Dimensions `db:"dimensions"`
	EntryID    *uuid.UUID        `db:"journal_entry_id"`
}

// ReleaseDay is the day the month is moved to revenue.
func (a Accrual) ReleaseDay() time.Time { return a.Day }

// releaseLines are the lines moving accruals to revenue: per row, the
// balance account debited and the revenue credited.
func releaseLines(rows []Accrual) []ledger.Line {
	var out []ledger.Line
	for _, r := range rows {
		d, c := entry(r.Balance, r.Amount), entry(r.Revenue, r.Amount.Neg())
		d.Dimensions, c.Dimensions = r.Dimensions, r.Dimensions
		out = append(out, d, c)
	}
	return out
}

// Due answers the companies with accrued months due today.
func (s *Sales) Due(ctx context.Context) ([]uuid.UUID, error) {
	return s.store.AccrualsDue(ctx, s.today())
}

// Waiting lists the company's accrued months released on or before
// through and not yet booked, by invoice and month.
func (s *Sales) Waiting(ctx context.Context, company uuid.UUID, through time.Time) ([]accrual.Waiting, error) {
	return s.store.Waiting(ctx, company, through)
}

// ListAccruals lists the company's accrued months as f asks.
func (s *Sales) ListAccruals(ctx context.Context, company uuid.UUID, f accrual.Filter) ([]accrual.Month, error) {
	return s.store.ListAccruals(ctx, company, f)
}

// ReleaseAccruals books, for company, every month of its accrued lines
// due on or before through (at most today, in Sweden): one verifikat per
// invoice and day, source_type accrual, dated that day. An invoice whose
// release the ledger refuses (a locked period) is left for later and
// reported; the others are booked. It answers how many verifikat were
// posted.
func (s *Sales) ReleaseAccruals(ctx context.Context, company uuid.UUID, through time.Time) (int, []error, error) {
	if today := s.today(); through.After(today) {
		through = today
	}
	due, err := s.store.DueAccruals(ctx, company, through)
	if err != nil {
		return 0, nil, err
	}
	type key struct {
		invoice uuid.UUID
		day     time.Time
	}
	return store.EachGroup(ctx, s.store.db, due, func(r Accrual) key { return key{r.InvoiceID, r.Day} },
		func(ctx context.Context, group []Accrual) error {
			inv, err := s.store.Get(ctx, company, group[0].InvoiceID, s.today(), false, Read)
			if err != nil {
				return err
			}
			return s.release(ctx, inv, group)
		}, func(ctx context.Context, group []Accrual, refusal error) error {
			return s.refused(ctx, company, group, refusal)
		})
}

// refused keeps the ledger's refusal of group, one invoice's months due
// on one day, on its months, and announces it the first time.
func (s *Sales) refused(ctx context.Context, company uuid.UUID, group []Accrual, refusal error) error {
	inv := group[0]
	first, err := s.store.Refused(ctx, company, group, accrual.RefusalCode(refusal))
	if err != nil || !first {
		return err
	}
	number, err := s.store.NumberOf(ctx, company, inv.InvoiceID)
	if err != nil {
		return err
	}
	var sum money.Amount
	months := make([]time.Time, len(group))
	for i, r := range group {
		sum, months[i] = sum.Add(r.Amount), r.Month
	}
	_, err = outbox.Emit(ctx, s.store.db, company, accrual.EventReleaseRefused,
		accrual.Refusal(accrual.Invoice, inv.InvoiceID, number, inv.Day, months, sum, refusal))
	return err
}

// creditAccruals are the lines a credit note adds for inv's accrued lines:
// what was released moved back from revenue to the balance account (the
// credit's reversal of the sale then empties the balance account), and
// the months not yet released are cancelled.
func (s *Sales) creditAccruals(ctx context.Context, inv Invoice) ([]ledger.Line, error) {
	accrued := false
	for _, l := range inv.Lines {
		accrued = accrued || l.AccrualBalanceAccount != nil
	}
	if !accrued {
		return nil, nil // no line has months to read
	}
	rows, err := s.store.Accruals(ctx, inv.CompanyID, inv.ID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var released []Accrual
	for _, r := range rows {
		if r.EntryID != nil {
			released = append(released, r)
		}
	}
	if err := s.store.CancelAccruals(ctx, inv.CompanyID, inv.ID); err != nil {
		return nil, err
	}
	return CreditLines(releaseLines(released)), nil
}
