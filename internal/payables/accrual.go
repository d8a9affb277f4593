package payables

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// SourceAccrual is the source type of the verifikat that moves a month of
// a prepaid cost to its cost account.
const SourceAccrual = ledger.SourceAccrual

// Month is one month of an accrued line: its part, in kronor, moved from
// the 17xx account it waits on to the line's cost account on Day.
type Month struct {
	InvoiceID uuid.UUID    `db:"supplier_invoice_id"`
	ItemID    uuid.UUID    `db:"item_id"`
	Month     time.Time    `db:"month"` // the month's first day
	Day       time.Time    `db:"release_date"`
	Amount    money.Amount `db:"amount"`
	Balance   string       `db:"balance_account"`
	EntryID   *uuid.UUID   `db:"journal_entry_id"`
	// CancelledBy is the credit note (or, for a stornoed registration,
	// the invoice itself) that took the month back before it was due.
	CancelledBy *uuid.UUID `db:"cancelled_by"`
}

// Released says whether the month's part has reached its cost account.
func (m Month) Released() bool { return m.EntryID != nil }

// Schedule shares an accrued line of inv among the months its period
// touches: equal parts of its kronor to the öre, the rest on the last.
// Each is released on its month's last day, or on the invoice date when
// that day is already past.
func Schedule(inv Invoice, it Item) []Month {
	if it.AccrualStart == nil || it.AccrualEnd == nil || it.AccrualAccount == nil {
		return nil
	}
	whole := sekOf(inv, it.Amount).InÖre()
	n := int64(monthsBetween(*it.AccrualStart, *it.AccrualEnd))
	part := whole / n
	out := make([]Month, 0, n)
	first := time.Date(it.AccrualStart.Year(), it.AccrualStart.Month(), 1, 0, 0, 0, 0, time.UTC)
	for k := int64(0); k < n; k++ {
		m := first.AddDate(0, int(k), 0)
		amount := part
		if k == n-1 {
			amount = whole - part*(n-1)
		}
		if amount == 0 {
			continue
		}
		day := m.AddDate(0, 1, -1)
		if day.Before(inv.InvoiceDate) {
			day = inv.InvoiceDate
		}
		out = append(out, Month{InvoiceID: inv.ID, ItemID: it.ID, Month: m, Day: day, Amount: money.Öre(amount),
			Balance: *it.AccrualAccount})
	}
	return out
}

// Schedules are the months of every accrued line of inv.
func Schedules(inv Invoice) []Month {
	var out []Month
	for _, it := range inv.Items {
		out = append(out, Schedule(inv, it)...)
	}
	return out
}

// ReleaseDay is the day the month is moved to its cost account.
func (m Month) ReleaseDay() time.Time { return m.Day }

// ReleaseLines are the verifikat lines releasing months of inv on one
// day: each month's part debited to its line's cost account with the
// line's tags, credited to the 17xx account it waited on.
func ReleaseLines(inv Invoice, months []Month) []ledger.Line {
	items := map[uuid.UUID]Item{}
	for _, it := range inv.Items {
		items[it.ID] = it
	}
	var b ledger.Booking
	for _, m := range months {
		it := items[m.ItemID]
		d := it.Description
		b.Add(it.Account, m.Amount, false, tags(inv, it), &d)
	}
	for _, m := range months {
		b.Add(m.Balance, m.Amount, true, tags(inv, items[m.ItemID]), nil)
	}
	return b.Lines
}
