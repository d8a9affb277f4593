package banking

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Connection is a consent the company gave its bank through an
// aggregator, and how it stands.
type Connection struct {
	CompanyID        uuid.UUID  `db:"company_id"`
	ID               uuid.UUID  `db:"id"`
	Aggregator       string     `db:"aggregator"`
	Bank             *string    `db:"bank"`
	BankCountry      *string    `db:"bank_country"`
	PSUType          string     `db:"psu_type"`
	Status           string     `db:"status"`
	Since            time.Time  `db:"since"`
	LastSyncedAt     *time.Time `db:"last_synced_at"`
	LastAttemptAt    *time.Time `db:"last_attempt_at"`
	ConsentExpires   *time.Time `db:"consent_expires"`
	ErrorMessage     *string    `db:"error_message"`
	AuthorizationID  *string    `db:"authorization_id"`
	AuthorizationURL *string    `db:"authorization_url"`
	ReturnURL        *string    `db:"return_url"`
	// Session is the aggregator's session, sealed.
	Session       []byte     `db:"session"`
	NextAllowedAt *time.Time `db:"next_allowed_at"`
	BalancesAt    *time.Time `db:"balances_at"`
	CreatedAt     time.Time  `db:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at"`
}

// ConnAccount is an account a connection's consent covers, and the cash
// account it feeds (none until chosen).
type ConnAccount struct {
	CompanyID     uuid.UUID  `db:"company_id"`
	ConnectionID  uuid.UUID  `db:"connection_id"`
	UID           string     `db:"uid"`
	IBAN          *string    `db:"iban"`
	Currency      string     `db:"currency"`
	Name          *string    `db:"name"`
	CashAccountID *uuid.UUID `db:"cash_account_id"`
}

// Connections reads the company's bank connections, oldest first.
func (s *Store) Connections(ctx context.Context, company uuid.UUID) ([]Connection, error) {
	out := []Connection{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM bank_connections WHERE company_id = $1
		ORDER BY since, id`, company)
	return out, err
}

// Connection reads connection id, held for a change when lock.
func (s *Store) Connection(ctx context.Context, company, id uuid.UUID, lock bool) (Connection, error) {
	q := `SELECT * FROM bank_connections WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var c Connection
	err := s.db.Q(ctx).GetContext(ctx, &c, q, company, id)
	if store.NotFound(err) {
		return c, apierr.New(apierr.BankConnectionNotFound, map[string]any{"connection_id": id})
	}
	return c, err
}

// InsertConnection stores a new connection, pending its consent.
func (s *Store) InsertConnection(ctx context.Context, c Connection) (Connection, error) {
	err := s.db.Q(ctx).GetContext(ctx, &c, `INSERT INTO bank_connections (company_id, id, aggregator, bank, bank_country,
			psu_type, authorization_id, authorization_url, return_url)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`, c.CompanyID, c.ID, c.Aggregator, c.Bank, c.BankCountry,
		c.PSUType, c.AuthorizationID, c.AuthorizationURL, c.ReturnURL)
	return c, err
}

// SaveConnection stores how c stands.
func (s *Store) SaveConnection(ctx context.Context, c Connection) (Connection, error) {
	err := s.db.Q(ctx).GetContext(ctx, &c, `UPDATE bank_connections SET bank = $3, status = $4, last_synced_at = $5,
			last_attempt_at = $6, consent_expires = $7, error_message = $8, session = $9, next_allowed_at = $10,
			balances_at = $11, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING *`, c.CompanyID, c.ID, c.Bank, c.Status, c.LastSyncedAt, c.LastAttemptAt,
		c.ConsentExpires, c.ErrorMessage, c.Session, c.NextAllowedAt, c.BalancesAt)
	return c, err
}

// ClaimAttempt marks an attempt at syncing connection id at now when it
// may sync (consented to, active or failed before, out of its cooldown
// and the bank's limit), answering it; nil when it may not (the caller reads why).
func (s *Store) ClaimAttempt(ctx context.Context, company, id uuid.UUID, now time.Time) (*Connection, error) {
	var out []Connection
	err := s.db.Q(ctx).SelectContext(ctx, &out, `UPDATE bank_connections SET last_attempt_at = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND status IN ('active', 'error') AND session IS NOT NULL
		  AND (last_attempt_at IS NULL OR last_attempt_at <= $3::timestamptz - $4::interval)
		  AND (next_allowed_at IS NULL OR next_allowed_at <= $3)
		RETURNING *`, company, id, now, Cooldown.String())
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// ClaimDue marks an attempt at now on the connection the daily run
// syncs next: the active (or failed) one least recently tried, not tried
// for a day and not limited by its bank; nil when none waits. Replicas
// claim different ones.
func (s *Store) ClaimDue(ctx context.Context, now time.Time) (*Connection, error) {
	var out []Connection
	err := s.db.Q(ctx).SelectContext(ctx, &out, `UPDATE bank_connections c SET last_attempt_at = $1, updated_at = now()
		FROM (SELECT company_id, id FROM bank_connections
			WHERE status IN ('active', 'error') AND session IS NOT NULL AND (last_attempt_at IS NULL OR last_attempt_at <= $1::timestamptz - $2::interval)
			  AND (next_allowed_at IS NULL OR next_allowed_at <= $1)
			ORDER BY last_attempt_at NULLS FIRST, id LIMIT 1 FOR UPDATE SKIP LOCKED) d
		WHERE c.company_id = d.company_id AND c.id = d.id RETURNING c.*`, now, DailyEvery.String())
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// ConnAccounts reads the accounts connection id covers, by uid.
func (s *Store) ConnAccounts(ctx context.Context, company, id uuid.UUID) ([]ConnAccount, error) {
	out := []ConnAccount{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM bank_connection_accounts
		WHERE company_id = $1 AND connection_id = $2 ORDER BY uid`, company, id)
	return out, err
}

// AccountsOf reads the accounts of the company's connections, by
// connection.
func (s *Store) AccountsOf(ctx context.Context, company uuid.UUID) (map[uuid.UUID][]ConnAccount, error) {
	var rows []ConnAccount
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT * FROM bank_connection_accounts WHERE company_id = $1
		ORDER BY connection_id, uid`, company); err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]ConnAccount{}
	for _, r := range rows {
		out[r.ConnectionID] = append(out[r.ConnectionID], r)
	}
	return out, nil
}

// AddConnAccounts stores the accounts a consent covers.
func (s *Store) AddConnAccounts(ctx context.Context, company, id uuid.UUID, accounts []aggregator.Account) error {
	for _, a := range accounts {
		if _, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO bank_connection_accounts (company_id, connection_id, uid,
				iban, currency, name) VALUES ($1, $2, $3, nullif($4, ''), $5, nullif($6, ''))
			ON CONFLICT (company_id, connection_id, uid) DO UPDATE SET iban = EXCLUDED.iban, name = EXCLUDED.name`,
			company, id, a.UID, a.IBAN, a.Currency, truncated(a.Name, 200)); err != nil {
			return err
		}
	}
	return nil
}

// Feed makes cash account cash fed by account uid of connection id, and
// no longer by any other: the cash account is marked connected.
func (s *Store) Feed(ctx context.Context, company, id uuid.UUID, uid string, cash uuid.UUID) error {
	q := s.db.Q(ctx)
	if _, err := q.ExecContext(ctx, `UPDATE bank_connection_accounts SET cash_account_id = NULL
		WHERE company_id = $1 AND cash_account_id = $2 AND NOT (connection_id = $3 AND uid = $4)`, company, cash, id, uid); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, `UPDATE bank_connection_accounts SET cash_account_id = $4
		WHERE company_id = $1 AND connection_id = $2 AND uid = $3`, company, id, uid, cash); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `UPDATE cash_accounts SET bank_connection_id = $3, source = 'bank_feed', updated_at = now()
		WHERE company_id = $1 AND id = $2`, company, cash, id)
	return err
}

// SetBalances stores what the bank says cash account id holds, at at.
func (s *Store) SetBalances(ctx context.Context, company, id uuid.UUID, booked, available *money.Amount, at time.Time) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE cash_accounts SET balance = coalesce($3, balance),
			available_balance = coalesce($4, available_balance), balance_updated_at = $5, updated_at = now()
		WHERE company_id = $1 AND id = $2`, company, id, booked, available, at)
	return err
}
