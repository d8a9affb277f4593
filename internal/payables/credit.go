package payables

import (
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// SourceCredit is the source type of the verifikat of a supplier's credit
// note.
const SourceCredit = "supplier_credit_note"

// CreditNote is the supplier's credit note of orig, whole: numbered
// number, dated day, its amounts and lines the original's negated. Its
// verifikat, when one is posted, is named by the caller.
func CreditNote(orig Invoice, arrival int, number string, day, received time.Time) Invoice {
	due := orig.DueDate
	if due.Before(day) {
		due = day
	}
	n := Invoice{CompanyID: orig.CompanyID, ID: uuid.New(), SupplierID: orig.SupplierID, SupplierName: orig.SupplierName,
		ArrivalNumber: arrival, Number: number, CreditNote: true, CreditedID: &orig.ID, Status: Registered,
		InvoiceDate: day, DueDate: due, ReceivedDate: received, Currency: orig.Currency, ExchangeRate: orig.ExchangeRate,
		Treatment: orig.Treatment, ReverseCharge: orig.ReverseCharge, PaymentReference: orig.PaymentReference,
		OreRounding: orig.OreRounding, Subtotal: orig.Subtotal.Neg(), VAT: orig.VAT.Neg(), Rounding: orig.Rounding.Neg(),
		Total: orig.Total.Neg(), TotalSEK: orig.TotalSEK.Neg(), DefaultDimensions: orig.DefaultDimensions}
	n.Items = make([]Item, len(orig.Items))
	for i, it := range orig.Items {
		c := it
		c.ID, c.Amount, c.VAT = uuid.New(), it.Amount.Neg(), it.VAT.Neg()
		c.AccrualStart, c.AccrualEnd, c.AccrualAccount = nil, nil, nil
		n.Items[i] = c
	}
	return n
}

// CreditLines are the verifikat lines of a credit of orig: what of it
// reached the ledger, taken back. Booked (faktureringsmetoden), its
// registration mirrored: D 2440 / C each cost (of an accrued line, what
// released says has been moved to cost, the rest from its 17xx account)
// and the VAT. Under kontantmetoden what its payments booked: the costs'
// shares of what was paid, against 2440, where the supplier now owes the
// money back. Nothing when nothing reached the ledger.
func CreditLines(orig Invoice, released map[uuid.UUID]money.Amount) []ledger.Line {
	var cost []ledger.Line
	var owed, foreign money.Amount
	switch {
	case orig.Booked():
		cost, owed, foreign = costs(orig, released).Lines, orig.TotalSEK, orig.Total
	case orig.PaidAmount.IsZero():
		return nil
	default:
		cost = CashLines(orig, money.Amount{}, orig.PaidAmount)
		owed, foreign = net(cost), orig.PaidAmount
	}
	out := make([]ledger.Line, 0, len(cost)+1)
	out = append(out, payableLine(orig, owed, foreign, false))
	for _, l := range cost {
		l.Debit, l.Credit = l.Credit, l.Debit
		out = append(out, l)
	}
	return out
}

// Restored is the state an invoice whose credit (or dispute) is undone
// returns to: what its payments and attest make it.
func Restored(inv Invoice) string {
	switch {
	case inv.PaidAmount.Cmp(inv.Total) == 0:
		return Paid
	case !inv.PaidAmount.IsZero():
		return PartiallyPaid
	case inv.ApprovedAt != nil:
		return Approved
	}
	return Registered
}
