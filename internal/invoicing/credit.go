package invoicing

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// EventCreditNote is announced when an invoice is credited.
const EventCreditNote = "credit_note.created"

// SourceCredit is the source_type of a credit note's verifikat.
const SourceCredit = "credit_note"

// Credited is a credit note written, the original it credits, and the
// lines its verifikat posted (none when nothing of the sale was booked).
type Credited struct {
	Note     Invoice
	Original Invoice
	Lines    []ledger.Line
}

// Mirror is the credit note of orig dated day: its lines with the
// quantities negated, every amount negated, numbered KR-<original>. What
// was paid, and any verifikat, are the caller's to settle.
func Mirror(orig Invoice, day time.Time) Invoice {
	n := orig
	number := "KR-" + *orig.Number
	id := orig.ID
	n.ID, n.Number, n.CreditedID, n.Status = uuid.New(), &number, &id, "draft"
	n.InvoiceDate, n.DueDate, n.DeliveryDate = day, day, nil
	n.Subtotal, n.VAT, n.Rounding, n.Total = orig.Subtotal.Neg(), orig.VAT.Neg(), orig.Rounding.Neg(), orig.Total.Neg()
	n.DeductionTotal, n.ROTDeduction, n.Paid = orig.DeductionTotal.Neg(), orig.ROTDeduction.Neg(), money.Amount{}
	if orig.TotalSEK != nil {
		sek := orig.TotalSEK.Neg()
		n.TotalSEK = &sek
	}
	n.OCR, n.EntryID, n.SourceQuoteID, n.BookingDeferred = nil, nil, nil, false
	n.SentAt, n.PaidAt, n.CancelledAt, n.Overdue = nil, nil, nil, false
	n.DefaultDimensions = maps.Clone(orig.DefaultDimensions)
	n.Lines = make([]Line, len(orig.Lines))
	for i, l := range orig.Lines {
		l.ID = uuid.New()
		l.Net, l.VAT = l.Net.Neg(), l.VAT.Neg()
		if l.Type == "product" {
			l.Quantity = l.Quantity.Neg()
		}
		n.Lines[i] = l
	}
	return n
}

// CreditRequest is what a credit asks: why, the credit note's date (nil:
// today in Sweden), and the lines to credit (none: the whole invoice).
type CreditRequest struct {
	Reason *string
	Date   *time.Time
	Lines  []CreditLine
}

// Credit credits an issued invoice (sent, partially paid, paid or
// overdue): a credit note, KR-<number> (KR-<number>-2 for a second), is
// written sent and dated cr.Date (default today; not before the
// original, not after today), and its verifikat, on that date and so in
// that date's VAT period, reverses what of the sale reached the ledger.
//
// Whole (no lines, none credited before): all of the sale when it was
// booked at issue (faktureringsmetoden), under kontantmetoden the shares
// its payments booked (#1430), nothing while its booking waits. What the
// original still had to be paid is settled by the credit note at once;
// what the customer had paid is left on it, to be refunded by a payment
// of the credit note; the original becomes credited.
//
// Partial (lines, or what is left once part was credited): the credit
// note holds the chosen lines (a quantity, or an amount of the net; VAT
// reckoned on them), each naming the original's line. It settles what
// the customer still owes on the original, up to its total (a payment of
// source credit_note), so the original's remaining amount and status
// follow; the rest, what the customer had paid, is refunded by a payment
// of the credit note. Its verifikat takes the part's revenue and VAT back
// from 1510 when the sale was booked (a sale whose booking waits is booked
// first); a sale kontantmetoden keeps outside the books books nothing,
// its later payments book the rest of the sale, and the credit may not
// pass what is owed.
//
// A locked period for the date is INVOICE_CREDIT_PERIOD_LOCKED, none
// INVOICE_BOOK_NO_FISCAL_PERIOD.
func (s *Sales) Credit(ctx context.Context, company, id uuid.UUID, cr CreditRequest) (Credited, error) {
	today := s.today()
	orig, err := s.store.Get(ctx, company, id, today, true, Hold)
	if err != nil {
		return Credited{}, err
	}
	switch orig.Status {
	case "sent", "partially_paid", "paid":
	default:
		return Credited{}, apierr.New(apierr.Conflict, map[string]any{"reason": "not_creditable", "invoice_id": id,
			"current_status": orig.State()})
	}
	if orig.DocumentType != "invoice" || orig.CreditedID != nil {
		return Credited{}, apierr.New(apierr.Conflict, map[string]any{"reason": "not_creditable", "invoice_id": id,
			"document_type": orig.DocumentType, "credited_invoice_id": orig.CreditedID})
	}
	if orig.DeductionTotal.Sign() > 0 {
		// Skatteverket's money is repaid to Skatteverket, not credited
		// to the customer.
		out, err := s.store.PaidOut(ctx, company, id)
		if err != nil {
			return Credited{}, err
		}
		if out.Sign() > 0 {
			return Credited{}, apierr.New(apierr.Conflict, map[string]any{"reason": "rot_rut_paid_out", "invoice_id": id,
				"paid_out": out})
		}
	}
	day, err := creditDay(orig, cr.Date, today)
	if err != nil {
		return Credited{}, err
	}
	// A partial credit note settles part of the original, so an original
	// nothing was settled of has none, nor anything credited of a line.
	credited, notes := map[uuid.UUID]Tally{}, 0
	if !orig.Paid.IsZero() {
		if credited, notes, err = s.store.Credited(ctx, company, id); err != nil {
			return Credited{}, err
		}
	}
	partial := len(cr.Lines) > 0 || notes > 0
	src := orig
	if partial {
		if src, err = s.partOf(ctx, orig, cr.Lines, credited); err != nil {
			return Credited{}, err
		}
		if orig.EntryID == nil && orig.BookingDeferred {
			// The sale is booked whole first, so the credit of its part
			// has a booking to take back.
			entry, issued, err := s.book(ctx, orig)
			if err != nil {
				return Credited{}, err
			}
			sek := kronorOf(issued)
			orig.EntryID, orig.TotalSEK, src.EntryID = &entry, &sek, &entry
		}
	}
	note := Mirror(src, day)
	if notes > 0 {
		number := fmt.Sprintf("KR-%s-%d", *orig.Number, notes+1)
		note.Number = &number
	}
	note.Notes = cr.Reason
	if note.Notes == nil {
		text := "Kreditering av faktura " + *orig.Number
		note.Notes = &text
	}
	if orig.OCR != nil {
		// A 9 before the digits: the credit note never shares the
		// original's reference (peer §12.1).
		digits := "9" + *orig.Number
		if notes > 0 {
			digits = fmt.Sprintf("9%s%d", *orig.Number, notes+1)
		}
		if ocr, ok := identifier.OCR(digits); ok {
			note.OCR = &ocr
		}
	}
	var lines []ledger.Line
	var settledSEK money.Amount
	if partial {
		lines, settledSEK, err = partLines(orig, src)
	} else {
		lines, err = s.creditLines(ctx, orig)
	}
	if err != nil {
		return Credited{}, err
	}
	if len(lines) == 0 && s.ledger.Postable != nil {
		// No verifikat, but the credit note still changes the customer
		// ledger on its date: a closed or locked date refuses it too.
		if err := creditPeriod(s.ledger.Postable(ctx, company, day, SourceCredit), day); err != nil {
			return Credited{}, err
		}
	}
	if note, err = s.store.Insert(ctx, note, today); err != nil {
		return Credited{}, err
	}
	if len(lines) > 0 {
		// Named now, posted last (see post).
		entry := uuid.New()
		note.EntryID = &entry
	}
	at := s.now().UTC()
	issued := note
	if note, err = s.store.MarkSent(ctx, note, at, today); err != nil {
		return Credited{}, err
	}
	var after Invoice
	switch {
	case partial:
		// What the customer still owes is settled, up to the credit's
		// total; the rest of the credit note is theirs to be refunded.
		after = orig
		if c := minAmount(src.Total, orig.Remaining()); c.Sign() > 0 {
			if note, err = s.store.AddPayment(ctx, note, Payment{ID: uuid.New(), Date: day, Amount: c.Neg(),
				SEK: settledSEK.Neg(), Source: SourceCredit, EntryID: note.EntryID}, today, false); err != nil {
				return Credited{}, err
			}
			if after, err = s.store.AddPayment(ctx, orig, Payment{ID: uuid.New(), Date: day, Amount: c, SEK: settledSEK,
				Source: SourceCredit, EntryID: note.EntryID}, today, false); err != nil {
				return Credited{}, err
			}
		}
	default:
		if left := orig.Remaining(); left.Sign() > 0 {
			settled, err := offsetKronor(orig)
			if err != nil {
				return Credited{}, err
			}
			if note, err = s.store.AddPayment(ctx, note, Payment{ID: uuid.New(), Date: day, Amount: left.Neg(),
				SEK: settled.Neg(), Source: SourceCredit, EntryID: note.EntryID}, today, false); err != nil {
				return Credited{}, err
			}
		}
		if after, err = s.store.Credit(ctx, orig, at, today); err != nil {
			return Credited{}, err
		}
	}
	note.Lines = issued.Lines
	if err := s.record(ctx, audit.Insert, describe(note)+" skapades och krediterar "+*orig.Number, note, nil, &note); err != nil {
		return Credited{}, err
	}
	if err := s.record(ctx, audit.Update, describe(orig)+" krediterades av "+*note.Number, after, &orig, &after); err != nil {
		return Credited{}, err
	}
	if _, err := outbox.Emit(ctx, s.store.db, company, EventCreditNote, map[string]any{"credit_note": Detail(note),
		"credited_invoice": Detail(after)}); err != nil {
		return Credited{}, err
	}
	if note.EntryID != nil {
		_, err := s.post(ctx, note, *note.EntryID, true, day, "credit_date", SourceCredit,
			"Kreditfaktura "+*note.Number+", "+note.CustomerName, lines)
		if err := creditPeriod(err, day); err != nil {
			return Credited{}, err
		}
	}
	return Credited{Note: note, Original: after, Lines: lines}, nil
}

// partLines are the lines of the verifikat crediting part of orig, and
// the kronor of 1510 the credit settles of what the customer still owes:
// a booked sale's part taken back, its revenue and VAT debited, 1510
// credited with the share of the booked kronor the settled amount takes
// and, for what the customer had paid of it (to be refunded), that part
// at the sale's rate; a difference of rounding between the two on
// exchange gain or loss. Nothing when kontantmetoden keeps the sale
// outside the books (the credit then settles only what is unpaid).
func partLines(orig, part Invoice) ([]ledger.Line, money.Amount, error) {
	booked := receivable(orig)
	settle := minAmount(part.Total, orig.Remaining())
	if orig.EntryID == nil || booked == nil {
		if orig.Currency != "SEK" && orig.ExchangeRate != nil {
			return nil, orig.ExchangeRate.Convert(settle), nil
		}
		return nil, settle, nil
	}
	sale, err := saleOf(part)
	if err != nil {
		return nil, money.Amount{}, err
	}
	issued, err := IssueLines(sale)
	if err != nil {
		return nil, money.Amount{}, err
	}
	var settled money.Amount
	if settle.Sign() > 0 {
		if settled, err = Share(*booked, orig.Total.Sub(orig.DeductionTotal), orig.Paid, settle); err != nil {
			return nil, money.Amount{}, err
		}
	}
	owed := settled.Add(sale.sek(part.Total.Sub(settle)))
	lines := CreditLines(issued)
	var diff money.Amount
	for i, l := range lines {
		if l.Account == Receivable {
			diff = l.Credit.Sub(owed)
			lines[i].Credit = owed
			if l.AmountInCurrency != nil {
				neg := part.Total.Neg()
				lines[i].AmountInCurrency = &neg
			}
		}
	}
	switch diff.Sign() {
	case 1:
		lines = append(lines, entry(ExchangeGain, diff.Neg()))
	case -1:
		lines = append(lines, entry(ExchangeLoss, diff.Neg()))
	}
	return lines, settled, nil
}

// minAmount is the smaller of a and b.
func minAmount(a, b money.Amount) money.Amount {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

// creditPeriod names a period's refusal of a credit dated day as a
// credit's: INVOICE_CREDIT_PERIOD_LOCKED with PERIOD_LOCKED's details, or
// INVOICE_BOOK_NO_FISCAL_PERIOD naming credit_date.
func creditPeriod(err error, day time.Time) error {
	e, ok := apierr.As(err)
	switch {
	case !ok:
		return err
	case e.Code == apierr.PeriodLocked:
		return apierr.New(apierr.InvoiceCreditPeriodLocked, e.Details)
	case e.Code == apierr.PeriodNotFound:
		return apierr.New(apierr.InvoiceBookNoFiscalPeriod, map[string]any{"date": day.Format(time.DateOnly),
			"field": "credit_date"})
	}
	return err
}

// creditLines are the lines of the verifikat crediting orig: the sale's
// lines swapped when it was booked; under kontantmetoden its payments'
// shares of revenue, VAT and rounding debited and their kronor credited to
// 1510, where the refund finds them; nothing while its booking waits.
func (s *Sales) creditLines(ctx context.Context, orig Invoice) ([]ledger.Line, error) {
	if orig.EntryID != nil {
		sale, err := saleOf(orig)
		if err != nil {
			return nil, err
		}
		issued, err := IssueLines(sale)
		if err != nil {
			return nil, err
		}
		released, err := s.creditAccruals(ctx, orig)
		return append(CreditLines(issued), released...), err
	}
	if orig.BookingDeferred {
		return nil, nil
	}
	payments, err := s.store.Payments(ctx, orig.CompanyID, orig.ID)
	if err != nil {
		return nil, err
	}
	sale, err := saleOf(orig)
	if err != nil {
		return nil, err
	}
	var before, kronor money.Amount
	var parts []ledger.Line
	for _, p := range payments {
		if p.Account == nil {
			continue
		}
		paid, err := PaymentLines(sale, Receipt{Account: *p.Account, Amount: p.Amount, SEK: p.SEK, Before: before}, true)
		if err != nil {
			return nil, err
		}
		before, kronor = before.Add(p.Amount), kronor.Add(p.SEK)
		parts = merge(parts, paid[1:])
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return append(CreditLines(parts), entry(Receivable, kronor.Neg())), nil
}

// merge adds lines into sum, account by account.
func merge(sum, lines []ledger.Line) []ledger.Line {
next:
	for _, l := range lines {
		for i := range sum {
			if sum[i].Account == l.Account {
				net := sum[i].Debit.Sub(sum[i].Credit).Add(l.Debit).Sub(l.Credit)
				sum[i] = entry(l.Account, net)
				continue next
			}
		}
		sum = append(sum, l)
	}
	return sum
}

// offsetKronor is the kronor of orig's receivable that its credit note
// settles: what its sale put on 1510 less what its payments took off; none
// when the sale was not booked.
func offsetKronor(orig Invoice) (money.Amount, error) {
	booked := receivable(orig)
	if orig.EntryID == nil || booked == nil {
		return money.Amount{}, nil
	}
	paid, err := paidShare(orig, *booked)
	return booked.Sub(paid), err
}

// paidShare is the kronor of the receivable booked that orig's payments
// settled.
func paidShare(orig Invoice, booked money.Amount) (money.Amount, error) {
	if orig.Paid.IsZero() {
		return money.Amount{}, nil
	}
	return Share(booked, orig.Total.Sub(orig.DeductionTotal), money.Amount{}, orig.Paid)
}

// refundLines are the lines of the verifikat of a refund of credit note
// cn: the money credited, 1510 debited with the share of what the
// customer had paid that the refund settles, and in another currency the
// difference on exchange loss (more kronor paid back than were taken in)
// or gain.
func (s *Sales) refundLines(ctx context.Context, cn Invoice, account string, amount, sek money.Amount) ([]ledger.Line, error) {
	orig, err := s.store.Get(ctx, cn.CompanyID, *cn.CreditedID, s.today(), false, Read)
	if err != nil {
		return nil, err
	}
	if orig.Status != "credited" {
		return s.partRefundLines(ctx, cn, account, amount, sek)
	}
	var refundable money.Amount
	if booked := receivable(orig); orig.EntryID != nil && booked != nil {
		if refundable, err = paidShare(orig, *booked); err != nil {
			return nil, err
		}
	} else {
		payments, err := s.store.Payments(ctx, orig.CompanyID, orig.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range payments {
			if p.Account != nil {
				refundable = refundable.Add(p.SEK)
			}
		}
	}
	offset := cn.Total.Sub(cn.DeductionTotal).Abs().Sub(orig.Paid)
	sale := Sale{Currency: cn.Currency, Rate: cn.ExchangeRate, Totals: Totals{Customer: orig.Paid, Total: orig.Paid},
		Booked: &refundable}
	lines, err := PaymentLines(sale, Receipt{Account: account, Amount: amount, SEK: sek,
		Before: cn.Paid.Abs().Sub(offset)}, false)
	if err != nil {
		return nil, err
	}
	return refunded(lines), nil
}

// refunded is the lines of a payment turned into those of a refund: the
// money credited, 1510 debited, an exchange gain a loss and the other
// way round.
func refunded(lines []ledger.Line) []ledger.Line {
	out := CreditLines(lines)
	for i, l := range out {
		switch l.Account {
		case ExchangeGain:
			out[i].Account = ExchangeLoss
		case ExchangeLoss:
			out[i].Account = ExchangeGain
		}
	}
	return out
}

// partRefundLines are the lines of a refund of a partial credit note cn:
// what the customer had paid of the part it credits, left on it after it
// settled what was still owed, debited to 1510 at the sale's rate as the
// credit booked it.
func (s *Sales) partRefundLines(ctx context.Context, cn Invoice, account string, amount, sek money.Amount) ([]ledger.Line, error) {
	payments, err := s.store.Payments(ctx, cn.CompanyID, cn.ID)
	if err != nil {
		return nil, err
	}
	var settled money.Amount
	for _, p := range payments {
		if p.Source == SourceCredit {
			settled = settled.Add(p.Amount.Neg())
		}
	}
	due := cn.Total.Abs().Sub(settled)
	sale := Sale{Currency: cn.Currency, Rate: cn.ExchangeRate, Totals: Totals{Customer: due, Total: due}}
	kronor := sale.sek(due)
	sale.Booked = &kronor
	lines, err := PaymentLines(sale, Receipt{Account: account, Amount: amount, SEK: sek,
		Before: cn.Paid.Abs().Sub(settled)}, false)
	if err != nil {
		return nil, err
	}
	return refunded(lines), nil
}
