package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/expenses"
	"github.com/kontera/kontera/internal/parties"
	"github.com/kontera/kontera/internal/payables"
	"github.com/kontera/kontera/internal/payfiles"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/store"
)

// paymentBatches is the supplier payment files on the invoices payables
// keeps, the suppliers' accounts, the expense claims owed to employees and
// their salary accounts, and the company's cash accounts.
func paymentBatches(db *store.DB, audits *audit.Store, bought *payables.Payables, people *parties.Store, bank *banking.Store,
	companies *company.Store, staff *payroll.Payroll, now func() time.Time) *payfiles.Batches {
	claims := expenses.NewStore(db)
	return payfiles.NewBatches(db, payfiles.Books{
		Claims: func(ctx context.Context, c uuid.UUID, ids []uuid.UUID) ([]payfiles.Payable, error) {
			if len(ids) == 0 {
				return nil, nil // a batch of invoices alone reads no claims
			}
			rows, err := claims.Hold(ctx, c, ids, "expense_claim_ids")
			if err != nil {
				return nil, err
			}
			out := make([]payfiles.Payable, len(rows))
			for i, r := range rows {
				var e *payroll.Employee
				if r.EmployeeID != nil {
					got, err := staff.Employee(ctx, c, *r.EmployeeID, false)
					if err != nil {
						return nil, err
					}
					e = &got
				}
				out[i] = claimPayable(r, e)
			}
			return out, nil
		},
		Payables: func(ctx context.Context, c uuid.UUID, ids []uuid.UUID) ([]payfiles.Payable, error) {
			out := make([]payfiles.Payable, len(ids))
			for i, id := range ids {
				inv, err := bought.Get(ctx, c, id, false)
				if apierr.Is(err, apierr.SupplierInvoiceNotFound) {
					return nil, apierr.New(apierr.SupplierInvoiceNotFound, map[string]any{"supplier_invoice_id": id,
						"field": "supplier_invoice_ids", "index": i})
				}
				if err != nil {
					return nil, err
				}
				sup, err := people.Supplier(ctx, c, inv.SupplierID, false)
				if err != nil {
					return nil, err
				}
				out[i] = payable(inv, sup)
			}
			return out, nil
		},
		Payer: func(ctx context.Context, c, cash uuid.UUID) (payfiles.Payer, error) {
			a, err := bank.CashAccount(ctx, c, cash, false)
			if err != nil {
				return payfiles.Payer{}, err
			}
			id, err := companies.Identity(ctx, c)
			if err != nil {
				return payfiles.Payer{}, err
			}
			p := payfiles.Payer{Name: id.Name}
			if id.OrgNumber != nil {
				p.OrgNumber = *id.OrgNumber
			}
			if a.IBAN != nil {
				p.Account.IBAN = *a.IBAN
				return p, nil
			}
			set, err := companies.Settings(ctx, c)
			if err != nil {
				return p, err
			}
			if bg, _ := set["bankgiro"].(string); a.Primary && bg != "" {
				p.Account.Bankgiro = bg
				return p, nil
			}
			return p, apierr.New(apierr.PaymentBatchPayerAccount, map[string]any{"field": "cash_account_id", "cash_account_id": cash})
		},
	}, audits, now)
}

// payable is a supplier invoice as a batch pays it, and why not when it
// cannot be.
func payable(inv payables.Invoice, sup parties.Supplier) payfiles.Payable {
	p := payfiles.Payable{ID: inv.ID, Number: inv.Number, Supplier: sup.Name, Country: sup.Address.Country,
		Remaining: inv.Remaining(), Currency: inv.Currency}
	if inv.PaymentReference != nil {
		p.Reference = *inv.PaymentReference
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	p.Account = payfiles.Account{Bankgiro: str(sup.Bankgiro), Plusgiro: str(sup.Plusgiro), IBAN: str(sup.IBAN), BIC: str(sup.BIC),
		Clearing: str(sup.ClearingNumber), Number: str(sup.AccountNumber)}
	switch {
	case inv.CreditNote:
		p.Why = "credit_note"
	case inv.ApprovedAt == nil || (inv.Status != payables.Approved && inv.Status != payables.PartiallyPaid):
		p.Why = "not_approved"
	case inv.Remaining().Sign() <= 0:
		p.Why = "nothing_left"
	case p.Account.Bankgiro == "" && p.Account.Plusgiro == "" && p.Account.IBAN == "" &&
		(p.Account.Clearing == "" || p.Account.Number == ""):
		p.Why = "no_account"
	}
	return p
}

// claimPayable is an expense claim as a batch pays it, to employee e's
// salary account (nil: the owner's claim), and why not when it cannot be.
func claimPayable(c expenses.Claim, e *payroll.Employee) payfiles.Payable {
	p := payfiles.Payable{ID: c.ID, Claim: true, Supplier: c.ClaimantName, Country: "SE", Remaining: c.AmountSEK,
		Currency: "SEK", Reference: "Utlägg " + c.Description}
	if e != nil && e.Clearing != nil && e.BankAccount != nil {
		p.Account = payfiles.Account{Clearing: *e.Clearing, Number: *e.BankAccount}
	}
	switch {
	case c.Status != expenses.Registered:
		p.Why = "not_owed"
	case e == nil:
		p.Why = "not_employee"
	case c.PayWithSalary && c.SalaryRunID != nil:
		p.Why = "on_payslip"
	case c.PayWithSalary:
		p.Why = "pay_with_salary"
	case p.Account.Number == "":
		p.Why = "no_account"
	}
	return p
}
