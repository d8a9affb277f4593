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

// Foreign lists the company's cash accounts in another currency and what
// they held in it at the end of day: the balance the bank last reported
// less the transactions dated after day, or without a reported balance
// the transactions through day. Their kronor are the ledger's to read.
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
		SELECT a.id, a.name, a.ledger_account, a.currency,
			CASE WHEN a.balance IS NOT NULL
			     THEN a.balance - coalesce((SELECT sum(t.amount) FROM bank_transactions t WHERE t.company_id = a.company_id
			          AND t.ledger_account = a.ledger_account AND t.currency = a.currency AND t.date > $2), 0)
			     ELSE coalesce((SELECT sum(t.amount) FROM bank_transactions t WHERE t.company_id = a.company_id
			          AND t.ledger_account = a.ledger_account AND t.currency = a.currency AND t.date <= $2), 0)
			END AS held
		FROM cash_accounts a
		WHERE a.company_id = $1 AND a.currency <> 'SEK'
		ORDER BY a.ledger_account`, company, store.Day(day))
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
