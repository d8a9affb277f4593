package payables

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// CreditLine asks to credit part of a line of the original: Amount of its
// net (VAT excluded), or without it what is left of the line.
type CreditLine struct {
	ItemID uuid.UUID
	Amount *money.Amount
}

// Tally is what the credit notes of an invoice have credited of one of
// its lines: net and VAT.
type Tally struct {
	Amount, VAT money.Amount
}

// PartOf is the part of orig that lines credit, as an invoice of its own
// with positive amounts (CreditNote makes it the credit note), given
// what earlier credit notes took of each line (credited). The VAT of an
// amount is the line's VAT in proportion, rounded to the öre; of what is
// left of a line, what is left of its VAT. A line asked twice, not the
// original's, accrued, an amount past what is left of the line, or
// nothing left to credit, is refused naming lines.<i>.
func PartOf(orig Invoice, lines []CreditLine, credited map[uuid.UUID]Tally) (Invoice, error) {
	byID := map[uuid.UUID]Item{}
	for _, it := range orig.Items {
		byID[it.ID] = it
	}
	part := orig
	part.Items = make([]Item, 0, len(lines))
	part.Subtotal, part.VAT, part.Rounding, part.OreRounding = money.Amount{}, money.Amount{}, money.Amount{}, false
	seen := map[uuid.UUID]bool{}
	for i, c := range lines {
		field := fmt.Sprintf("lines.%d", i)
		it, ok := byID[c.ItemID]
		switch {
		case !ok:
			return Invoice{}, apierr.Field(field+".item_id", "of_invoice", "not a line of the supplier invoice")
		case seen[c.ItemID]:
			return Invoice{}, apierr.Field(field+".item_id", "unique", "each line is named once")
		case it.AccrualAccount != nil:
			return Invoice{}, apierr.Field(field+".item_id", "not_accrued",
				"an accrued line is credited with the whole invoice")
		}
		seen[c.ItemID] = true
		done := credited[it.ID]
		left, leftVAT := it.Amount.Sub(done.Amount), it.VAT.Sub(done.VAT)
		id := it.ID
		p := it
		p.ID, p.CreditedItemID, p.SortOrder = uuid.New(), &id, len(part.Items)+1
		p.AccrualStart, p.AccrualEnd, p.AccrualAccount = nil, nil, nil
		switch {
		case c.Amount != nil && c.Amount.Sign() <= 0:
			return Invoice{}, apierr.Field(field+".amount", "positive", "an amount to credit is more than zero")
		case c.Amount != nil && c.Amount.Cmp(left) > 0:
			return Invoice{}, apierr.Field(field+".amount", "at_most_left",
				fmt.Sprintf("at most %s (net, VAT excluded) is left to credit of the line", left))
		case c.Amount != nil && c.Amount.Cmp(left) < 0:
			p.Amount, p.VAT = *c.Amount, share(it.VAT, *c.Amount, it.Amount)
		case left.Sign() <= 0:
			return Invoice{}, apierr.Field(field+".item_id", "left_to_credit", "the line is credited already")
		default:
			p.Amount, p.VAT = left, leftVAT
		}
		part.Items = append(part.Items, p)
		part.Subtotal, part.VAT = part.Subtotal.Add(p.Amount), part.VAT.Add(p.VAT)
	}
	part.Total = part.Subtotal.Add(part.VAT)
	part.TotalSEK = creditorSEK(part)
	part.PaidAmount, part.PaidSEK = money.Amount{}, money.Amount{}
	return part, nil
}

// rest is inv less what its partial credit notes took (Less): its lines'
// amounts and VAT, its totals, and of what was paid the credit notes'
// settlement; what kontantmetoden's payments book their shares of.
func (i Invoice) rest() Invoice {
	if i.Less == nil {
		return i
	}
	r := i
	r.Items = make([]Item, 0, len(i.Items))
	for _, it := range i.Items {
		for _, c := range i.Less.Items {
			if c.CreditedItemID != nil && *c.CreditedItemID == it.ID {
				it.Amount, it.VAT = it.Amount.Sub(c.Amount), it.VAT.Sub(c.VAT)
			}
		}
		if !it.Amount.IsZero() || !it.VAT.IsZero() {
			r.Items = append(r.Items, it)
		}
	}
	r.Total, r.TotalSEK = i.Total.Sub(i.Less.Total), i.TotalSEK.Sub(i.Less.TotalSEK)
	r.PaidAmount, r.PaidSEK = i.PaidAmount.Sub(i.Less.Total), i.PaidSEK.Sub(i.Less.TotalSEK)
	r.Less = nil
	return r
}

// withCredits sets inv.Less to what its partial credit notes dated
// through day (nil: all) took of it, summed per line, positive.
func (p *Payables) withCredits(ctx context.Context, inv *Invoice, through *time.Time) error {
	if inv.PaidAmount.IsZero() {
		return nil // a partial credit note settles part of its original
	}
	notes, err := p.store.PartialNotes(ctx, inv.CompanyID, inv.ID, through)
	if err != nil || len(notes) == 0 {
		return err
	}
	less := Invoice{}
	for _, n := range notes {
		for _, it := range n.Items {
			it.Amount, it.VAT = it.Amount.Neg(), it.VAT.Neg()
			less.Items = append(less.Items, it)
		}
		less.Total, less.TotalSEK = less.Total.Sub(n.Total), less.TotalSEK.Sub(n.TotalSEK)
	}
	inv.Less = &less
	return nil
}

// partOf is the part of orig lines credit (or, with none, what is left
// of every line); under kontantmetoden refused when it passes what the
// original still owes.
func partOf(orig Invoice, lines []CreditLine, credited map[uuid.UUID]Tally) (Invoice, error) {
	if len(lines) == 0 {
		for _, it := range orig.Items {
			if it.Amount.Sub(credited[it.ID].Amount).Sign() > 0 {
				lines = append(lines, CreditLine{ItemID: it.ID})
			}
		}
	}
	if len(lines) == 0 {
		return Invoice{}, apierr.New(apierr.SICreditAlreadyCredited, map[string]any{"supplier_invoice_id": orig.ID,
			"current_status": orig.State(), "reason": "every_line_credited"})
	}
	part, err := PartOf(orig, lines, credited)
	if err != nil {
		return Invoice{}, err
	}
	if left := orig.Remaining(); part.Total.Cmp(left) > 0 && !orig.Booked() {
		// Kontantmetoden booked the paid part's costs in proportion to
		// the whole invoice; a chosen part owed back is the whole credit's.
		return Invoice{}, apierr.New(apierr.SICreditPartial, map[string]any{"supplier_invoice_id": orig.ID,
			"reason": "exceeds_remaining", "credit_total": part.Total, "remaining_amount": left,
			"hint": "under kontantmetoden what was paid is owed back by crediting the whole invoice"})
	}
	return part, nil
}

// settledBy is what a partial credit of part settles of orig: what orig
// still owes, up to the part's total, and its kronor on 2440 (all orig
// still holds there when it settles the rest, else the part's kronor in
// proportion).
func settledBy(orig, part Invoice) (money.Amount, money.Amount) {
	c := part.Total
	if left := orig.Remaining(); left.Cmp(c) < 0 {
		c = left
	}
	switch {
	case c.Sign() <= 0:
		return money.Amount{}, money.Amount{}
	case orig.Booked() && c.Cmp(orig.Remaining()) == 0:
		return c, orig.TotalSEK.Sub(orig.PaidSEK)
	}
	return c, share(part.TotalSEK, c, part.Total)
}

// partCreditLines are the lines of a partial credit of a booked original:
// the part's registration mirrored (D 2440 / C the costs and VAT), 2440
// debited with the kronor the credit settles of the original (settledBy)
// and the part's kronor in proportion for what the supplier owes back, a
// rounding difference between them and the costs on 7960 or 3960.
func partCreditLines(orig, part Invoice) []ledger.Line {
	lines := CreditLines(part, nil)
	c, k := settledBy(orig, part)
	owed := k.Add(share(part.TotalSEK, part.Total.Sub(c), part.Total))
	var b ledger.Booking
	for _, l := range lines {
		if l.Account == Payable {
			diff := l.Debit.Sub(owed)
			l.Debit = owed
			b.Lines = append(b.Lines, l)
			if diff.Sign() > 0 {
				b.Add(FXLoss, diff, false, nil, nil)
			} else {
				b.Add(FXGain, diff.Neg(), true, nil, nil)
			}
			continue
		}
		b.Lines = append(b.Lines, l)
	}
	return b.Lines
}
