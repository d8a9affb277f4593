package banking

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// Remittance is money on a bank transaction settling invoices, as the
// domain that owns them books it (invoicing for money in, payables for
// money out): the one payment path of 1510 and 2440.
type Remittance struct {
	Account     string // the cash account's ledger account
	Series      string // its voucher series, "" the default
	Date        time.Time
	Description string
	// Currency, Amount and SEK are what moved, positive.
	Currency    string
	Amount, SEK money.Amount
	// Parts are the invoices and what of Amount each takes; one part is a
	// match of the whole.
	Parts []Allocation
	Force bool
}

// Allocation is what of a transaction settles one invoice, in the
// transaction's currency.
type Allocation struct {
	InvoiceID uuid.UUID
	Amount    money.Amount
}

// Settled is what a settlement booked.
type Settled struct {
	Entry ledger.Entry
	Parts []SettledPart
	// Fee is what the bank charged above what was asked (6570), Rounding
	// the öre short written off (3740).
	Fee, Rounding money.Amount
}

// SettledPart is an invoice as a settlement left it.
type SettledPart struct {
	InvoiceID, PaymentID uuid.UUID
	Status               string
	PaidAt               *time.Time
	// Amount is the payment in the invoice's currency; Paid and Remaining
	// what is paid and left of the invoice after it.
	Amount, Paid, Remaining money.Amount
	// Allocated is the part of the transaction it took, in its currency.
	Allocated money.Amount
}

// Kinds of invoice an allocation names.
const (
	CustomerInvoice = "customer_invoice"
	SupplierInvoice = "supplier_invoice"
)

// Matched is what a match did: the transaction booked, and what it settled.
type Matched struct {
	Transaction Transaction
	Kind        string
	Settled     Settled
}

// MatchInvoice settles customer invoice invoice with money-in transaction
// id, whole: the invoice's payment, booked by invoicing in the cash
// account's series (D the cash account / C 1510), books the transaction.
// An öre short (< 1 kr) is written off on 3740; more than is left pays
// the reminders' charges, and the rest is the customer's credit (2420).
func (b *Bank) MatchInvoice(ctx context.Context, company, id, invoice uuid.UUID, force bool) (Matched, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Matched{}, err
	}
	switch {
	case t.Booked():
		return Matched{}, apierr.New(apierr.MatchInvoiceTxAlreadyBooked, map[string]any{"transaction_id": id,
			"journal_entry_id": t.JournalEntryID})
	case t.Ignored:
		return Matched{}, ignored(id)
	case t.Amount.Sign() <= 0:
		return Matched{}, apierr.New(apierr.MatchInvoiceNotIncome, map[string]any{"transaction_id": id, "amount": t.Amount})
	}
	s, err := b.remittance(ctx, t, []Allocation{{InvoiceID: invoice, Amount: t.Amount}}, force)
	if err != nil {
		return Matched{}, err
	}
	done, err := b.books.Receive(ctx, company, s)
	if err != nil {
		return Matched{}, single(err, "invoice_id")
	}
	return b.booked(ctx, t, CustomerInvoice, done, "invoice")
}

// MatchSupplierInvoice pays supplier invoice invoice with money-out
// transaction id, whole: the payment, booked by payables in the cash
// account's series (D 2440 / C the cash account), books the transaction.
// Up to 5 000 kr more than is left is the bank's fee (6570), an öre short
// (< 1 kr) is credited to 3740; paid in kronor, a foreign invoice's
// exchange difference goes to 3960/7960.
func (b *Bank) MatchSupplierInvoice(ctx context.Context, company, id, invoice uuid.UUID, force bool) (Matched, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Matched{}, err
	}
	switch {
	case t.Booked():
		d := map[string]any{"transaction_id": id, "journal_entry_id": t.JournalEntryID}
		if t.SupplierInvoiceID != nil {
			d["existingSupplierInvoiceId"] = *t.SupplierInvoiceID
		}
		return Matched{}, apierr.New(apierr.MatchSITxAlreadyLinked, d)
	case t.Ignored:
		return Matched{}, ignored(id)
	case t.Amount.Sign() >= 0:
		return Matched{}, apierr.New(apierr.MatchSINotExpense, map[string]any{"transaction_id": id, "amount": t.Amount})
	}
	s, err := b.remittance(ctx, t, []Allocation{{InvoiceID: invoice, Amount: t.Amount.Neg()}}, force)
	if err != nil {
		return Matched{}, err
	}
	done, err := b.books.Disburse(ctx, company, s)
	if apierr.Is(errors.Unwrap(err), apierr.SupplierInvoiceNotFound) {
		return Matched{}, apierr.New(apierr.MatchSINotFound, map[string]any{"supplier_invoice_id": invoice,
			"field": "supplier_invoice_id"})
	}
	if err != nil {
		return Matched{}, single(err, "supplier_invoice_id")
	}
	return b.booked(ctx, t, SupplierInvoice, done, "supplier_invoice")
}

// BatchAllocation is one line of a match-batch: an invoice of kind and
// what of the transaction it takes.
type BatchAllocation struct {
	Kind      string
	InvoiceID uuid.UUID
	Amount    money.Amount
}

// MaxAllocations is how many invoices one match-batch settles.
const MaxAllocations = 100

// MatchBatch settles several invoices of one kind with transaction id in
// one samlingsverifikat: the allocations add up to the transaction's
// amount exactly, each at most what is left of its invoice.
func (b *Bank) MatchBatch(ctx context.Context, company, id uuid.UUID, allocs []BatchAllocation, force bool) (Matched, error) {
	if len(allocs) < 1 || len(allocs) > MaxAllocations {
		return Matched{}, apierr.Field("allocations", "length", "1 to 100 allocations")
	}
	t, err := b.store.Transaction(ctx, company, id, true)
	if apierr.Is(err, apierr.TxNotFound) {
		return Matched{}, apierr.New(apierr.BatchTxNotFound, map[string]any{"transaction_id": id})
	}
	if err != nil {
		return Matched{}, err
	}
	if err := batchable(t, allocs); err != nil {
		return Matched{}, err
	}
	kind := allocs[0].Kind
	parts := make([]Allocation, len(allocs))
	for i, a := range allocs {
		parts[i] = Allocation{InvoiceID: a.InvoiceID, Amount: a.Amount}
	}
	s, err := b.remittance(ctx, t, parts, force)
	if err != nil {
		return Matched{}, err
	}
	var done Settled
	if kind == CustomerInvoice {
		done, err = b.books.Receive(ctx, company, s)
	} else {
		done, err = b.books.Disburse(ctx, company, s)
	}
	if err != nil {
		return Matched{}, batchError(err, kind, allocs)
	}
	return b.booked(ctx, t, kind, done, "batch")
}

// batchable holds a match-batch to its rules before anything is read of
// the invoices.
func batchable(t Transaction, allocs []BatchAllocation) error {
	id := t.ID
	switch {
	case t.Booked() || t.Ignored:
		return apierr.New(apierr.BatchTxAlreadyBooked, map[string]any{"transaction_id": id,
			"journal_entry_id": t.JournalEntryID, "is_ignored": t.Ignored})
	case t.Amount.IsZero():
		return apierr.New(apierr.BatchTxZeroAmount, map[string]any{"transaction_id": id})
	}
	kind := allocs[0].Kind
	var sum money.Amount
	seen := map[uuid.UUID]int{}
	for i, a := range allocs {
		at := "allocations[" + strconv.Itoa(i) + "]"
		switch {
		case a.Kind != kind:
			return apierr.New(apierr.BatchMixedKindsUnsupported, map[string]any{"index": i, "field": at + ".kind"})
		case a.Amount.Sign() <= 0:
			return apierr.Field(at+".amount", "exclusiveMinimum", "more than 0")
		}
		if j, dup := seen[a.InvoiceID]; dup {
			return apierr.Field(at, "unique", "the invoice is allocated already at allocations["+strconv.Itoa(j)+"]")
		}
		seen[a.InvoiceID] = i
		sum = sum.Add(a.Amount)
	}
	if (kind == CustomerInvoice) != (t.Amount.Sign() > 0) {
		return apierr.New(apierr.BatchDirectionMismatch, map[string]any{"transaction_id": id, "amount": t.Amount,
			"kind": kind, "hint": "money in settles customer_invoice, money out supplier_invoice"})
	}
	want := t.Amount.Abs()
	d := map[string]any{"transaction_id": id, "expected": want, "allocated": sum}
	switch sum.Cmp(want) {
	case 1:
		return apierr.New(apierr.BatchAmountExceedsTx, d)
	case -1:
		return apierr.New(apierr.BatchAmountBelowTx, d)
	}
	return nil
}

// batchError answers a refusal of a settlement in match-batch's codes,
// naming the allocation.
func batchError(err error, kind string, allocs []BatchAllocation) error {
	var pe *apierr.PartError
	if !errors.As(err, &pe) {
		if apierr.Is(err, apierr.PeriodLocked) {
			e, _ := apierr.As(err)
			return apierr.New(apierr.BatchPeriodLocked, e.Details)
		}
		return err
	}
	e, ok := apierr.As(pe.Err)
	if !ok {
		return pe.Err
	}
	at := "allocations[" + strconv.Itoa(pe.Index) + "]"
	d := map[string]any{"index": pe.Index, "field": at, "invoice_id": allocs[pe.Index].InvoiceID}
	for k, v := range e.Details {
		if _, set := d[k]; !set {
			d[k] = v
		}
	}
	switch e.Code {
	case apierr.InvoiceNotFound:
		return apierr.New(apierr.BatchInvoiceNotFound, d)
	case apierr.SupplierInvoiceNotFound:
		return apierr.New(apierr.BatchSupplierInvoiceNotFound, d)
	case apierr.MatchInvoiceNotOpen, apierr.MatchInvoiceNotInvoiceType:
		return apierr.New(apierr.BatchInvoiceNotOpen, d)
	case apierr.MatchSIAlreadyPaid:
		return apierr.New(apierr.BatchSupplierInvoiceNotOpen, d)
	case apierr.Conflict:
		if kind == SupplierInvoice {
			return apierr.New(apierr.BatchSupplierInvoiceNotOpen, d)
		}
	case apierr.InvoicePaidLikelyDuplicate, apierr.SIPaidLikelyDuplicate, apierr.SIPaidSEKUnresolved:
		return apierr.New(apierr.BatchTxPossibleDuplicate, d)
	case apierr.MatchInvoiceAmountExceedsRemaining, apierr.MatchSIAmountExceedsRemaining:
		return apierr.Validation(apierr.Issue{Field: at + ".amount", In: "body", Rule: "remaining",
			Issue: "more than what is left of the invoice"})
	}
	return apierr.New(e.Code, d)
}

// single answers a refusal of a one-invoice match without its part,
// naming the field of the invoice where the refusal names none.
func single(err error, field string) error {
	var pe *apierr.PartError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if e, ok := apierr.As(err); ok && e.Details != nil {
		if _, set := e.Details["field"]; !set && e.Code != apierr.Conflict {
			e.Details["field"] = field
		}
	}
	return err
}

// remittance is what moving t settles parts with: the money in its
// currency and in kronor (a foreign transaction needs its rate first),
// the day, the cash account and its series.
func (b *Bank) remittance(ctx context.Context, t Transaction, parts []Allocation, force bool) (Remittance, error) {
	sek, ok := t.SEK()
	if !ok {
		return Remittance{}, apierr.New(apierr.MatchInvoiceBookingRateMissing, map[string]any{"transaction_id": t.ID,
			"currency": t.Currency, "hint": "POST …/transactions/{id}/refresh-exchange-rate first"})
	}
	return Remittance{Account: t.LedgerAccount, Series: b.series(ctx, t), Date: t.Date, Description: "",
		Currency: t.Currency, Amount: t.Amount.Abs(), SEK: sek.Abs(), Parts: parts, Force: force}, nil
}

// series is the voucher series of t's cash account ("" the default).
func (b *Bank) series(ctx context.Context, t Transaction) string {
	if t.CashAccountID == nil {
		return ""
	}
	a, err := b.store.CashAccount(ctx, t.CompanyID, *t.CashAccountID, false)
	if err != nil || a.VoucherSeries == nil {
		return ""
	}
	return *a.VoucherSeries
}

// booked marks t booked by what settled it (method: invoice,
// supplier_invoice or batch), audited, and announces it reconciled.
func (b *Bank) booked(ctx context.Context, t Transaction, kind string, done Settled, method string) (Matched, error) {
	old := t
	business := true
	t.JournalEntryID, t.ReconciliationMethod, t.IsBusiness = &done.Entry.ID, &method, &business
	if method != "batch" && len(done.Parts) == 1 {
		id := done.Parts[0].InvoiceID
		if kind == CustomerInvoice {
			t.InvoiceID = &id
		} else {
			t.SupplierInvoiceID = &id
		}
	}
	t, err := b.store.Save(ctx, t)
	if err != nil {
		return Matched{}, err
	}
	if err := b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionen matchades och bokfördes i verifikation "+
		done.Entry.Voucher()); err != nil {
		return Matched{}, err
	}
	_, err = outbox.Emit(ctx, b.store.db, t.CompanyID, EventReconciled, map[string]any{"transaction": TxDetail(t, nil, nil),
		"journal_entry_id": done.Entry.ID, "reconciliation_method": method})
	return Matched{Transaction: t, Kind: kind, Settled: done}, err
}

func ignored(id uuid.UUID) error {
	return apierr.New(apierr.Conflict, map[string]any{"reason": "transaction_ignored", "transaction_id": id,
		"hint": "DELETE …/ignore first"})
}
