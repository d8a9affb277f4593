package reports

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/money"
)

// Outstanding is an invoice (a customer's or a supplier's) or credit note
// with something open on a day.
type Outstanding struct {
	ID          uuid.UUID
	Number      *string
	PartyID     uuid.UUID
	PartyName   string
	InvoiceDate time.Time
	DueDate     time.Time
	Currency    string
	CreditNote  bool
	Total, Paid money.Amount
	// Open is what the party still owes (or is owed back) in the
	// invoice's currency; OpenDeduction the ROT/RUT part Skatteverket has
	// yet to pay; OpenSEK all of it in kronor, as the ledger holds it.
	Open, OpenDeduction, OpenSEK money.Amount
}

// The aging buckets, by days past due.
const (
	Bucket0To30  = "0-30"
	Bucket31To60 = "31-60"
	Bucket61To90 = "61-90"
	BucketOver90 = "90+"
)

// DaysPastDue is how many days past its due date an item is on day; 0
// when it is not yet due.
func DaysPastDue(due, day time.Time) int {
	d := int(day.Sub(due).Hours() / 24)
	return max(d, 0)
}

// Bucket is where an item days past due falls: 0-30 holds the items not
// yet due too.
func Bucket(days int) string {
	switch {
	case days <= 30:
		return Bucket0To30
	case days <= 60:
		return Bucket31To60
	case days <= 90:
		return Bucket61To90
	}
	return BucketOver90
}

// Aging sums open amounts in kronor by bucket.
type Aging struct {
	NotDue, Days0To30, Days31To60, Days61To90, Over90, Total money.Amount
	Count                                                    int
}

// Add counts an item of amt kronor due on due, on day.
func (a *Aging) Add(due, day time.Time, amt money.Amount) {
	switch Bucket(DaysPastDue(due, day)) {
	case Bucket0To30:
		a.Days0To30 = a.Days0To30.Add(amt)
	case Bucket31To60:
		a.Days31To60 = a.Days31To60.Add(amt)
	case Bucket61To90:
		a.Days61To90 = a.Days61To90.Add(amt)
	default:
		a.Over90 = a.Over90.Add(amt)
	}
	if !due.Before(day) {
		a.NotDue = a.NotDue.Add(amt)
	}
	a.Total = a.Total.Add(amt)
	a.Count++
}

// CustomerStatus is an invoice's state on day as the AR ledger shows it:
// overdue past its due date, else partially_paid once paid in part, else
// sent; a credit note is credit_note.
func CustomerStatus(o Outstanding, day time.Time) string {
	switch {
	case o.CreditNote:
		return "credit_note"
	case o.DueDate.Before(day) && o.Open.Sign() > 0:
		return "overdue"
	case !o.Paid.IsZero():
		return "partially_paid"
	}
	return "sent"
}

// SupplierStatus is a supplier invoice's state on day: overdue,
// partially_paid, unpaid or credit_note.
func SupplierStatus(o Outstanding, day time.Time) string {
	s := CustomerStatus(o, day)
	if s == "sent" {
		return "unpaid"
	}
	return s
}
