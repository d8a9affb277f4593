package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/expenses"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/store"
)

// payrollBooks is what payroll reads and writes of the company, the
// chart, the bank, the expense claims and the ledger.
func payrollBooks(db *store.DB, dims *dimensions.Store, companies *company.Store, accounts *chart.Store, bank *banking.Bank, journal *ledger.Store) payroll.Books {
	claims := expenses.NewStore(db)
	return payroll.Books{
		Settings: func(ctx context.Context, c uuid.UUID) (map[string]any, error) {
			return companies.Settings(ctx, c)
		},
		SetSeries: func(ctx context.Context, c uuid.UUID, series *string) error {
			cur, err := companies.SettingsForUpdate(ctx, c)
			if err != nil {
				return err
			}
			m := map[string]any{}
			if old, ok := cur["default_voucher_series_per_source_type"].(map[string]any); ok {
				for k, v := range old {
					m[k] = v
				}
			}
			if series == nil {
				delete(m, payroll.SourceSalary)
			} else {
				m[payroll.SourceSalary] = *series
			}
			return companies.UpdateSettings(ctx, c, company.Settings{"default_voucher_series_per_source_type": m},
				"Verifikationsserien för löner ändrades")
		},
		CashAccount: func(ctx context.Context, c uuid.UUID) (string, error) {
			a, err := bank.Store().Primary(ctx, c)
			if err != nil || a == nil {
				return "", err
			}
			return a.LedgerAccount, nil
		},
		KnownAccounts:   accounts.Known,
		CheckDimensions: dims.Check,
		Identity: func(ctx context.Context, c uuid.UUID) (payroll.Identity, error) {
			id, err := companies.Identity(ctx, c)
			out := payroll.Identity{Name: id.Name, OrgNumber: id.OrgNumber, Form: id.Form}
			for _, p := range []*string{id.PostalCode, id.City} {
				if p != nil {
					out.Address = append(out.Address, *p)
				}
			}
			return out, err
		},
		Balance: func(ctx context.Context, c uuid.UUID, account string, day time.Time) (money.Amount, error) {
			b, err := journal.AccountBalances(ctx, c, account, day)
			if err != nil || len(b) == 0 {
				return money.Amount{}, err
			}
			return b[0], nil
		},
		Claims: func(ctx context.Context, c, run uuid.UUID, employees []uuid.UUID, through time.Time) ([]payroll.Claim, error) {
			rows, err := claims.TakeForRun(ctx, c, run, employees, through)
			out := make([]payroll.Claim, len(rows))
			for i, r := range rows {
				out[i] = payroll.Claim{ID: r.ID, EmployeeID: *r.EmployeeID, Description: r.Description, Amount: r.AmountSEK,
					Account: r.LiabilityAccount}
			}
			return out, err
		},
		ClaimsOff:   claims.LetGo,
		ClaimsPaid:  claims.PaidByRun,
		ClaimsOwed:  claims.OwedAgain,
		AddDeadline: deadline.NewStore(db).AddAGI,
		Post:        journal.Post,
		Reverse:     journal.Reverse,
	}
}
