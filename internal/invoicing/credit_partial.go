package invoicing

import (
	"context"
	"fmt"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// CreditLine asks to credit part of a line of the original: Quantity of
// it, or Amount of its net (VAT excluded); neither, what is left of it.
type CreditLine struct {
	ItemID   uuid.UUID
	Quantity *money.Quantity
	Amount   *money.Amount
}

// one is a quantity of one: a line credited by an amount is one of it.
var one, _ = money.ParseQuantity("1")

// Tally is what the credit notes of an invoice have credited of one of
// its lines: the quantity credited at the line's own price and discount,
// and the net in all.
type Tally struct {
	Quantity money.Quantity
	Net      money.Amount
}

// PartOf is the part of orig that lines credit, as an invoice of its own
// with positive amounts (Mirror makes it the credit note), given what
// earlier credit notes took of each line (credited). Each line of the
// part names the original's line it credits. A line asked twice, not
// the original's, a text line, an accrued line, a deduction line, a
// quantity or amount past what is left of the line, or nothing left to
// credit, is refused naming lines.<i>.
func PartOf(orig Invoice, lines []CreditLine, credited map[uuid.UUID]Tally) (Invoice, error) {
	byID := map[uuid.UUID]Line{}
	for _, l := range orig.Lines {
		byID[l.ID] = l
	}
	part := orig
	part.Lines = make([]Line, 0, len(lines))
	seen := map[uuid.UUID]bool{}
	for i, c := range lines {
		field := fmt.Sprintf("lines.%d", i)
		l, ok := byID[c.ItemID]
		switch {
		case !ok:
			return Invoice{}, apierr.Field(field+".item_id", "of_invoice", "not a line of the invoice")
		case seen[c.ItemID]:
			return Invoice{}, apierr.Field(field+".item_id", "unique", "each line is named once")
		case l.Type == "text":
			return Invoice{}, apierr.Field(field+".item_id", "not_text", "a text line has no amount to credit")
		case l.AccrualBalanceAccount != nil:
			return Invoice{}, apierr.Field(field+".item_id", "not_accrued",
				"an accrued line is credited with the whole invoice")
		case l.Deduction != nil:
			return Invoice{}, apierr.Field(field+".item_id", "not_deduction",
				"a line with a ROT or RUT deduction is credited with the whole invoice")
		case c.Quantity != nil && c.Amount != nil:
			return Invoice{}, apierr.Field(field, "one_of", "send quantity or amount, not both")
		}
		seen[c.ItemID] = true
		done := credited[l.ID]
		left := l.Net.Sub(done.Net)
		id := l.ID
		p := l
		p.ID, p.CreditedItemID, p.SortOrder = uuid.New(), &id, len(part.Lines)+1
		switch {
		case c.Quantity != nil:
			if c.Quantity.Sign() <= 0 {
				return Invoice{}, apierr.Field(field+".quantity", "positive", "a quantity to credit is more than zero")
			}
			var rest apd.Decimal
			if _, err := apd.BaseContext.WithPrecision(40).Sub(&rest, l.Quantity.Decimal(), done.Quantity.Decimal()); err != nil {
				return Invoice{}, err
			}
			if c.Quantity.Decimal().Cmp(&rest) > 0 {
				return Invoice{}, apierr.Field(field+".quantity", "at_most_left",
					fmt.Sprintf("at most %s is left to credit of the line", rest.Text('f')))
			}
			p.Quantity = *c.Quantity
		case c.Amount != nil:
			if c.Amount.Sign() <= 0 {
				return Invoice{}, apierr.Field(field+".amount", "positive", "an amount to credit is more than zero")
			}
			if c.Amount.Cmp(left) > 0 {
				return Invoice{}, apierr.Field(field+".amount", "at_most_left",
					fmt.Sprintf("at most %s (net, VAT excluded) is left to credit of the line", left))
			}
			p.Quantity, p.UnitPrice, p.Discount = one, *c.Amount, money.Amount{}
		default:
			if left.Sign() <= 0 {
				return Invoice{}, apierr.Field(field+".item_id", "left_to_credit", "the line is credited already")
			}
			if !done.Net.IsZero() {
				p.Quantity, p.UnitPrice, p.Discount = one, left, money.Amount{}
			}
		}
		part.Lines = append(part.Lines, p)
	}
	items := make([]Item, len(part.Lines))
	for i, l := range part.Lines {
		items[i] = Item{Quantity: l.Quantity, UnitPrice: l.UnitPrice, Discount: l.Discount, VATRate: int(l.VATRate.InÖre())}
	}
	t, err := Compute(items, Options{OreRounding: orig.OreRounding, Date: orig.InvoiceDate})
	if err != nil {
		return Invoice{}, apierr.Field("lines", "amount", err.Error())
	}
	for i := range part.Lines {
		part.Lines[i].Net, part.Lines[i].VAT = t.Lines[i].Net, t.Lines[i].VAT
		if left := byID[*part.Lines[i].CreditedItemID].Net.Sub(credited[*part.Lines[i].CreditedItemID].Net); t.Lines[i].Net.Cmp(left) > 0 {
			return Invoice{}, apierr.Field(fmt.Sprintf("lines.%d.quantity", i), "at_most_left",
				fmt.Sprintf("at most %s (net, VAT excluded) is left to credit of the line", left))
		}
	}
	part.Subtotal, part.VAT, part.Rounding, part.Total = t.Subtotal, t.VAT, t.Rounding, t.Total
	part.DeductionTotal, part.ROTDeduction, part.Paid = money.Amount{}, money.Amount{}, money.Amount{}
	part.TotalSEK = nil
	return part, nil
}

// partOf is the part of orig lines credit, or when earlier credit notes
// took part of it, what is left of every line. Under kontantmetoden it
// may not pass what the customer still owes
// (INVOICE_CREDIT_EXCEEDS_REMAINING: credit the whole invoice to refund
// what was paid).
func (s *Sales) partOf(ctx context.Context, orig Invoice, lines []CreditLine, credited map[uuid.UUID]Tally) (Invoice, error) {
	if len(lines) == 0 {
		for _, l := range orig.Lines {
			if l.Type != "text" && l.Net.Sub(credited[l.ID].Net).Sign() > 0 {
				lines = append(lines, CreditLine{ItemID: l.ID})
			}
		}
	}
	if len(lines) == 0 {
		return Invoice{}, apierr.New(apierr.Conflict, map[string]any{"reason": "every_line_credited", "invoice_id": orig.ID,
			"current_status": orig.State()})
	}
	if orig.DeductionTotal.Sign() > 0 {
		return Invoice{}, apierr.New(apierr.Conflict, map[string]any{"reason": "partial_credit_deduction", "invoice_id": orig.ID,
			"hint": "an invoice with a ROT or RUT deduction is credited whole"})
	}
	part, err := PartOf(orig, lines, credited)
	if err != nil {
		return Invoice{}, err
	}
	if left := orig.Remaining(); part.Total.Cmp(left) > 0 && orig.EntryID == nil && !orig.BookingDeferred {
		// Kontantmetoden booked the paid part's revenue in proportion to
		// the whole sale; a refund of a chosen part is the whole credit's.
		return Invoice{}, apierr.New(apierr.InvoiceCreditExceedsRemaining, map[string]any{"invoice_id": orig.ID,
			"credit_total": part.Total, "remaining_amount": left, "reason": "cash_method",
			"hint": "under kontantmetoden a paid part is refunded by crediting the whole invoice"})
	}
	return part, nil
}

// creditDay is the credit note's date asked, checked against orig and
// today.
func creditDay(orig Invoice, asked *time.Time, today time.Time) (time.Time, error) {
	day := today
	if asked != nil {
		day = *asked
	}
	switch {
	case day.Before(orig.InvoiceDate):
		return day, apierr.Field("credit_date", "not_before_invoice_date",
			"a credit note is not dated before the invoice it credits, "+orig.InvoiceDate.Format(time.DateOnly))
	case day.After(today):
		return day, apierr.Field("credit_date", "not_after_today",
			"a credit note is issued at once: not dated after today, "+today.Format(time.DateOnly))
	}
	return day, nil
}

// cashSale is the sale a payment of inv books its shares of under
// kontantmetoden: the whole sale, less the parts partial credit notes
// dated through day (nil: all) took of it.
func (s *Sales) cashSale(ctx context.Context, inv Invoice, through *time.Time) (Sale, error) {
	sale, err := saleOf(inv)
	if err != nil || inv.Paid.IsZero() {
		// A partial credit note settles part of its original: one
		// nothing was settled of has none.
		return sale, err
	}
	notes, err := s.store.PartialNotes(ctx, inv.CompanyID, inv.ID, through)
	if err != nil {
		return Sale{}, err
	}
	for _, n := range notes {
		part, err := saleOf(Mirror(n, n.InvoiceDate))
		if err != nil {
			return Sale{}, err
		}
		sale.Credited = append(sale.Credited, part.Parts()...)
		sale.CreditedTotal = sale.CreditedTotal.Sub(n.Total)
	}
	return sale, nil
}
