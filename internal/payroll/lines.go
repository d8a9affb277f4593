package payroll

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
)

// LineChange is a line's fields as a request sends them: Set says which
// were sent (a PATCH), nil clears.
type LineChange struct {
	ItemType                                        *ItemType
	Description                                     *string
	Quantity                                        *money.Quantity
	UnitPrice, Amount, OneOffTaxPercent             *money.Amount
	SetDescription, SetQuantity, SetUnit, SetAmount bool
	SetPercent                                      bool
}

// applyLine sets ch on l and checks the line holds together: a type a
// user may add; quantity and unit price together, or an amount; one_off
// with its percent, no other type with one.
func applyLine(l *Line, ch LineChange) error {
	if ch.ItemType != nil {
		l.ItemType = *ch.ItemType
	}
	if l.ItemType.Calculated() {
		return apierr.New(apierr.SalaryLineCalculated, map[string]any{"field": "item_type", "item_type": l.ItemType})
	}
	if _, ok := kinds[l.ItemType]; !ok {
		return apierr.Field("item_type", "enum", "not a payslip line type")
	}
	if ch.SetDescription {
		l.Description = ch.Description
	}
	if ch.SetQuantity {
		l.Quantity = ch.Quantity
	}
	if ch.SetUnit {
		l.UnitPrice = ch.UnitPrice
	}
	if ch.SetPercent {
		l.OneOffTaxPercent = ch.OneOffTaxPercent
	}
	switch {
	case (l.Quantity == nil) != (l.UnitPrice == nil):
		return apierr.Field("unit_price", "together", "quantity and unit_price are sent together")
	case l.Quantity != nil:
		l.Amount = lineAmount(*l)
		if ch.SetAmount && ch.Amount != nil && ch.Amount.Cmp(l.Amount) != 0 {
			return apierr.Field("amount", "product", "amount differs from quantity × unit_price; send one or the other")
		}
	case ch.SetAmount && ch.Amount != nil:
		l.Amount = *ch.Amount
	case ch.SetAmount:
		return apierr.Field("amount", "required", "send amount, or quantity and unit_price")
	}
	if l.Amount.OverMax() || l.Amount.Abs().Cmp(money.Kr(10000000)) > 0 {
		return apierr.Field("amount", "maximum", "a payslip line is at most 10 000 000 kr")
	}
	if (l.ItemType == ItemOneOff) != (l.OneOffTaxPercent != nil) {
		if l.ItemType == ItemOneOff {
			return apierr.Field("one_off_tax_percent", "required", "an engångsbelopp needs its tax percent")
		}
		return apierr.Field("one_off_tax_percent", "one_off_only", "only a one_off line takes one_off_tax_percent")
	}
	return nil
}

// AddLine adds a line to an employee's payslip on a draft or review run.
func (p *Payroll) AddLine(ctx context.Context, company, run, employee uuid.UUID, ch LineChange) (StoredLine, error) {
	r, err := p.editRun(ctx, company, run)
	if err != nil {
		return StoredLine{}, err
	}
	if _, err := p.RunEmployee(ctx, company, run, employee); err != nil {
		return StoredLine{}, err
	}
	ch.SetDescription, ch.SetQuantity, ch.SetUnit, ch.SetPercent = true, true, true, true
	ch.SetAmount = ch.Amount != nil || ch.Quantity == nil
	l := Line{ID: uuid.New()}
	if err := applyLine(&l, ch); err != nil {
		return StoredLine{}, err
	}
	var out StoredLine
	if err := p.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO salary_lines (company_id, id, run_id, employee_id, item_type,
			description, quantity, unit_price, amount, one_off_tax_percent)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING `+lineColumns,
		company, l.ID, run, employee, l.ItemType, l.Description, l.Quantity, l.UnitPrice, l.Amount, l.OneOffTaxPercent); err != nil {
		return out, err
	}
	return out, p.record(ctx, company, audit.Insert, "salary_lines", out.ID.String(),
		"En lönerad ("+string(l.ItemType)+") lades till på lönekörningen "+r.Period(), nil, out)
}

// UpdateLine changes a line users added, on a draft or review run.
func (p *Payroll) UpdateLine(ctx context.Context, company, run, id uuid.UUID, ch LineChange) (StoredLine, error) {
	r, err := p.editRun(ctx, company, run)
	if err != nil {
		return StoredLine{}, err
	}
	old, err := p.line(ctx, company, run, id)
	if err != nil {
		return old, err
	}
	l := old.Line
	if ch.SetAmount && ch.Amount != nil && !ch.SetQuantity && !ch.SetUnit {
		l.Quantity, l.UnitPrice = nil, nil // an amount alone replaces a product; one of the pair keeps the other
	}
	if err := applyLine(&l, ch); err != nil {
		return old, err
	}
	var out StoredLine
	if err := p.db.Q(ctx).GetContext(ctx, &out, `UPDATE salary_lines SET description = $4, quantity = $5, unit_price = $6,
			amount = $7, one_off_tax_percent = $8, updated_at = clock_timestamp()
		WHERE company_id = $1 AND run_id = $2 AND id = $3 RETURNING `+lineColumns,
		company, run, id, l.Description, l.Quantity, l.UnitPrice, l.Amount, l.OneOffTaxPercent); err != nil {
		return out, err
	}
	return out, p.record(ctx, company, audit.Update, "salary_lines", id.String(),
		"En lönerad ändrades på lönekörningen "+r.Period(), old, out)
}

// DeleteLine deletes a line users added, on a draft or review run.
func (p *Payroll) DeleteLine(ctx context.Context, company, run, id uuid.UUID) (StoredLine, error) {
	r, err := p.editRun(ctx, company, run)
	if err != nil {
		return StoredLine{}, err
	}
	old, err := p.line(ctx, company, run, id)
	if err != nil {
		return old, err
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `DELETE FROM salary_lines WHERE company_id = $1 AND run_id = $2 AND id = $3`,
		company, run, id); err != nil {
		return old, err
	}
	return old, p.record(ctx, company, audit.Delete, "salary_lines", id.String(),
		"En lönerad togs bort från lönekörningen "+r.Period(), old, nil)
}
