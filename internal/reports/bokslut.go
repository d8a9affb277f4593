package reports

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
)

// VATStatus is a VAT period as the books stand (see vat.Status).
type VATStatus struct {
	Label, TaxPeriod string
	Start, End       time.Time
	Filed, Settled   bool
	// Accounts are the VAT accounts' turnover in the period, debit minus
	// credit.
	Accounts map[string]money.Amount
}

// CashBalance is a cash account with the bank's balance on a day (nil
// when the bank gave none that reaches back to it).
type CashBalance struct {
	ID            uuid.UUID
	Account, Name string
	Currency      string
	Balance       *money.Amount
}

// SpecItem is a line of an account's specification.
type SpecItem struct {
	Ref     *uuid.UUID
	Label   string
	Amount  money.Amount
	Settled *bool
}

// Spec is what Kontera holds that an account's balance should equal.
type Spec struct {
	Source string
	Items  []SpecItem
	Total  money.Amount
}

// vatSpecs specify the VAT accounts from the periods not yet settled: the
// opening balance carried in, and each unsettled period's turnover.
func vatSpecs(opening map[string]money.Amount, statuses []VATStatus) map[string]*Spec {
	out := map[string]*Spec{}
	spec := func(n string) *Spec {
		if out[n] == nil {
			out[n] = &Spec{Source: "vat_periods", Items: []SpecItem{}}
			if o := opening[n]; !o.IsZero() {
				out[n].Items = append(out[n].Items, SpecItem{Label: "Ingående balans", Amount: o})
				out[n].Total = o
			}
		}
		return out[n]
	}
	for _, st := range statuses {
		settled := st.Settled
		for n, amt := range st.Accounts {
			s := spec(n)
			s.Items = append(s.Items, SpecItem{Label: st.Label, Amount: amt, Settled: &settled})
			if !settled {
				s.Total = s.Total.Add(amt)
			}
		}
	}
	return out
}

// ledgerSpec specifies a register's accounts from its open items: each
// item's kronor on the accounts, as debit minus credit (credit says the
// register is of debts).
func ledgerSpec(source string, items []Outstanding, credit bool) *Spec {
	s := &Spec{Source: source, Items: []SpecItem{}}
	for _, o := range items {
		amt := o.OpenSEK
		if credit {
			amt = amt.Neg()
		}
		label := o.PartyName
		if o.Number != nil {
			label = "Faktura " + *o.Number + " " + o.PartyName
		}
		id := o.ID
		s.Items = append(s.Items, SpecItem{Ref: &id, Label: label, Amount: amt})
		s.Total = s.Total.Add(amt)
	}
	return s
}

// GetBokslutsbilagor answers the balance accounts at the period's end with
// their specifications.
func (h *Handler) GetBokslutsbilagor(ctx context.Context, req gen.GetBokslutsbilagorRequestObject) (gen.GetBokslutsbilagorResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	per, names, sheet, err := h.periodNamed(ctx, company, req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	day := per.End.Time
	totals, opening, err := h.openings(ctx, company, per.Id, sheet)
	if err != nil {
		return nil, err
	}
	specs := map[string]*Spec{}
	receivable, err := h.src.Receivables(ctx, company, day)
	if err != nil {
		return nil, err
	}
	payable, err := h.src.Payables(ctx, company, day)
	if err != nil {
		return nil, err
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return nil, err
	}
	if c.AccountingMethod != "cash" {
		// The register is one specification of 1510 and 1513 together:
		// each is held to its own part.
		all := ledgerSpec("ar_ledger", receivable, false)
		customer, deduction := &Spec{Source: "ar_ledger", Items: []SpecItem{}}, &Spec{Source: "ar_ledger", Items: []SpecItem{}}
		for i, o := range receivable {
			item := all.Items[i]
			part := o.OpenSEK.Sub(o.OpenDeduction)
			customer.Items = append(customer.Items, SpecItem{Ref: item.Ref, Label: item.Label, Amount: part})
			customer.Total = customer.Total.Add(part)
			if !o.OpenDeduction.IsZero() {
				deduction.Items = append(deduction.Items, SpecItem{Ref: item.Ref, Label: item.Label + " (ROT/RUT)", Amount: o.OpenDeduction})
				deduction.Total = deduction.Total.Add(o.OpenDeduction)
			}
		}
		specs["1510"], specs["1513"] = customer, deduction
		specs["2440"] = ledgerSpec("supplier_ledger", payable, true)
	}
	statuses, err := h.src.VATStatuses(ctx, company, per.Start.Time, day)
	if err != nil {
		return nil, err
	}
	for n, s := range vatSpecs(opening, statuses) {
		specs[n] = s
	}
	cash, err := h.src.CashBalances(ctx, company, day)
	if err != nil {
		return nil, err
	}
	for _, b := range cash {
		if b.Balance == nil || b.Currency != "SEK" {
			continue
		}
		id := b.ID
		s := specs[b.Account]
		if s == nil {
			s = &Spec{Source: "cash_account", Items: []SpecItem{}}
			specs[b.Account] = s
		}
		s.Items = append(s.Items, SpecItem{Ref: &id, Label: b.Name, Amount: *b.Balance})
		s.Total = s.Total.Add(*b.Balance)
	}
	signed := map[string]gen.ReconciliationSignoff{}
	if h.src.Signoffs != nil {
		if signed, err = h.src.Signoffs(ctx, company, day); err != nil {
			return nil, err
		}
	}
	out := gen.Bokslutsbilagor{Period: per, BalanceDate: openapi_types.Date{Time: day}, Accounts: []gen.BokslutAccount{}}
	numbers := make([]string, 0, len(totals))
	byNumber := map[string]int{}
	for i, t := range totals {
		numbers = append(numbers, t.Account)
		byNumber[t.Account] = i
	}
	for n := range specs {
		if _, ok := byNumber[n]; !ok && len(specs[n].Items) > 0 {
			numbers = append(numbers, n)
		}
	}
	sort.Strings(numbers)
	for _, n := range numbers {
		a := gen.BokslutAccount{AccountNumber: n, AccountName: names[n],
			Specification: nullable.NewNullNullable[gen.BokslutSpec](), ExternalBalance: nullable.NewNullNullable[money.Amount](),
			Difference: nullable.NewNullNullable[money.Amount](), Signoff: nullable.NewNullNullable[gen.ReconciliationSignoff]()}
		if s, ok := signed[n]; ok {
			a.Signoff = nullable.NewNullableWithValue(s)
		}
		if i, ok := byNumber[n]; ok {
			t := totals[i]
			a.OpeningBalance, a.Movement, a.ClosingBalance = t.Opening, t.Debit.Sub(t.Credit), t.Closing()
		}
		if s := specs[n]; s != nil {
			ws := gen.BokslutSpec{Source: gen.BokslutSpecSource(s.Source), Total: s.Total, Items: make([]gen.BokslutSpecItem, len(s.Items))}
			for i, it := range s.Items {
				ws.Items[i] = gen.BokslutSpecItem{Label: it.Label, Amount: it.Amount, Ref: nullable.NewNullNullable[string](),
					Settled: envelope.Nullable(it.Settled)}
				if it.Ref != nil {
					ws.Items[i].Ref = nullable.NewNullableWithValue(it.Ref.String())
				}
			}
			a.Specification = nullable.NewNullableWithValue(ws)
			a.ExternalBalance = nullable.NewNullableWithValue(s.Total)
			diff := a.ClosingBalance.Sub(s.Total)
			a.Difference = nullable.NewNullableWithValue(diff)
			out.Totals.Specified++
			if !diff.IsZero() {
				out.Totals.WithDifference++
			}
		}
		out.Accounts = append(out.Accounts, a)
	}
	return gen.GetBokslutsbilagor200JSONResponse{Body: gen.BokslutsbilagorResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}
