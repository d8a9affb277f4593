package banking

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Unbooked is nothing: a cash account is always on the books.
func (b *Bank) Unbooked(context.Context, uuid.UUID, time.Time) ([]ledger.OpenItem, error) {
	return nil, nil
}

// Foreign lists the company's cash accounts in another currency whose
// balance in it at the end of day is known: the balance the bank last
// reported (BalancesOn's rule), else the last statement balance on or
// before day with the transactions after it through day. An account whose
// balance nobody stated is left out: its transactions alone may miss
// money booked by hand. Their kronor are the ledger's to read.
func (b *Bank) Foreign(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	return b.store.foreignAt(ctx, company, day)
}

// foreignAt answers Foreign.
func (s *Store) foreignAt(ctx context.Context, company uuid.UUID, day time.Time) ([]ledger.OpenItem, error) {
	var rows []struct {
		ID       uuid.UUID    `db:"id"`
		Name     string       `db:"name"`
		Account  string       `db:"ledger_account"`
		Currency string       `db:"currency"`
		Held     money.Amount `db:"held"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT * FROM (
			SELECT a.id, a.name, a.ledger_account, a.currency,
				CASE WHEN a.balance IS NOT NULL AND a.balance_updated_at::date >= $2 THEN
					a.balance - coalesce((SELECT sum(t.amount) FROM bank_transactions t
						WHERE t.company_id = a.company_id AND t.cash_account_id = a.id AND t.date > $2
							AND t.date <= a.balance_updated_at::date), 0)
				ELSE (SELECT sb.balance + coalesce((SELECT sum(t.amount) FROM bank_transactions t
						WHERE t.company_id = a.company_id AND t.cash_account_id = a.id AND t.date > sb.day
							AND t.date <= $2), 0)
					FROM bank_statement_balances sb WHERE sb.company_id = a.company_id AND sb.cash_account_id = a.id
						AND sb.day <= $2 ORDER BY sb.day DESC LIMIT 1)
				END AS held
			FROM cash_accounts a WHERE a.company_id = $1 AND a.currency <> 'SEK') x
		WHERE held IS NOT NULL ORDER BY ledger_account`, company, store.Day(day))
	if err != nil {
		return nil, err
	}
	out := make([]ledger.OpenItem, 0, len(rows))
	for _, r := range rows {
		out = append(out, ledger.OpenItem{Kind: ledger.CashAccount, ID: r.ID, Number: r.Name, Account: r.Account,
			Currency: r.Currency, Remaining: r.Held})
	}
	return out, nil
}
