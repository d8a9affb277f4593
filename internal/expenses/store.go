package expenses

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of expense_claims and expense_payouts.
type Store struct{ db *store.DB }

// NewStore returns the store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// Payout is a row of expense_payouts.
type Payout struct {
	CompanyID      uuid.UUID    `db:"company_id" json:"company_id"`
	ID             uuid.UUID    `db:"id" json:"id"`
	PayoutDate     time.Time    `db:"payout_date" json:"payout_date"`
	CashAccount    string       `db:"cash_account" json:"cash_account"`
	TotalSEK       money.Amount `db:"total_sek" json:"total_sek"`
	ClaimCount     int          `db:"claim_count" json:"claim_count"`
	JournalEntryID uuid.UUID    `db:"journal_entry_id" json:"journal_entry_id"`
	Notes          *string      `db:"notes" json:"notes"`
	ReversedBy     *uuid.UUID   `db:"reversed_by_entry_id" json:"reversed_by_entry_id"`
	CreatedAt      time.Time    `db:"created_at" json:"created_at"`
}

// Filter narrows a list; empty fields match every claim but deleted ones.
type Filter struct {
	Status   string
	Employee *uuid.UUID
}

// List answers a page of the company's claims, newest first.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter, after *cursor.Position, limit int) ([]Claim, error) {
	at, id := time.Now().AddDate(100, 0, 0), uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	var out []Claim
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM expense_claims
		WHERE company_id = $1 AND (status = $2 OR ($2 = '' AND status <> 'deleted'))
		  AND ($3::uuid IS NULL OR employee_id = $3) AND (created_at, id) < ($4, $5)
		ORDER BY created_at DESC, id DESC LIMIT $6`, company, f.Status, f.Employee, at, id, limit+1)
	return out, err
}

// Get answers one claim, held FOR UPDATE when hold: EXPENSE_CLAIM_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, hold bool) (Claim, error) {
	q := `SELECT * FROM expense_claims WHERE company_id = $1 AND id = $2`
	if hold {
		q += ` FOR UPDATE`
	}
	var c Claim
	err := s.db.Q(ctx).GetContext(ctx, &c, q, company, id)
	if store.NotFound(err) {
		return c, apierr.New(apierr.ExpenseClaimNotFound, map[string]any{"expense_claim_id": id})
	}
	return c, err
}

// Hold answers the claims of ids, held FOR UPDATE, in the order asked:
// EXPENSE_CLAIM_NOT_FOUND naming the first the company lacks, in field.
func (s *Store) Hold(ctx context.Context, company uuid.UUID, ids []uuid.UUID, field string) ([]Claim, error) {
	var rows []Claim
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT * FROM expense_claims WHERE company_id = $1 AND id = ANY($2)
		ORDER BY id FOR UPDATE`, company, pq.Array(ids)); err != nil {
		return nil, err
	}
	by := store.Index(rows, func(c Claim) uuid.UUID { return c.ID })
	out := make([]Claim, len(ids))
	for i, id := range ids {
		c, ok := by[id]
		if !ok {
			return nil, apierr.New(apierr.ExpenseClaimNotFound, map[string]any{"expense_claim_id": id,
				"field": field, "index": i})
		}
		out[i] = c
	}
	return out, nil
}

// Insert stores a registered claim.
func (s *Store) Insert(ctx context.Context, c Claim) (Claim, error) {
	var out Claim
	err := s.db.Q(ctx).GetContext(ctx, &out, `INSERT INTO expense_claims (company_id, id, employee_id, claimant_name,
			description, expense_date, currency, amount_in_currency, vat_in_currency, exchange_rate, amount_sek, vat_sek,
			expense_account, liability_account, document_id, inbox_item_id, dimensions, journal_entry_id, pay_with_salary)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING *`,
		c.CompanyID, c.ID, c.EmployeeID, c.ClaimantName, c.Description, store.Day(c.ExpenseDate), c.Currency,
		c.AmountInCurrency, c.VATInCurrency, c.ExchangeRate, c.AmountSEK, c.VATSEK, c.ExpenseAccount, c.LiabilityAccount,
		c.DocumentID, c.InboxItemID, c.Dimensions, c.JournalEntryID, c.PayWithSalary)
	return out, err
}

// Deleted marks a registered claim deleted by the storno reversal.
func (s *Store) Deleted(ctx context.Context, c Claim, reversal uuid.UUID) (Claim, error) {
	var out Claim
	err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE expense_claims SET status = 'deleted', reversal_entry_id = $3
		WHERE company_id = $1 AND id = $2 RETURNING *`, c.CompanyID, c.ID, reversal)
	return out, err
}

// InsertPayout stores payout p and marks its claims paid by it.
func (s *Store) InsertPayout(ctx context.Context, p Payout, claims []uuid.UUID) (Payout, error) {
	var out Payout
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH p AS (
			INSERT INTO expense_payouts (company_id, id, payout_date, cash_account, total_sek, claim_count,
				journal_entry_id, notes)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *),
		c AS (UPDATE expense_claims SET status = 'paid', payout_id = $2, paid_at = now()
			WHERE company_id = $1 AND id = ANY($9) AND status = 'registered' RETURNING 1)
		SELECT p.* FROM p WHERE (SELECT count(*) FROM c) = $6`,
		p.CompanyID, p.ID, store.Day(p.PayoutDate), p.CashAccount, p.TotalSEK, p.ClaimCount, p.JournalEntryID, p.Notes,
		pq.Array(claims))
	return out, err
}

// OfEntry answers the claims the verifikat entry booked.
func (s *Store) OfEntry(ctx context.Context, company, entry uuid.UUID) ([]Claim, error) {
	var out []Claim
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM expense_claims WHERE company_id = $1 AND journal_entry_id = $2`,
		company, entry)
	return out, err
}

// Reversed records that the verifikat orig of the company was stornoed
// by storno: a registered claim it booked is deleted; a payout it booked
// is reversed and its claims are owed again. Expenses.Reversed refuses
// first what may not be stornoed. A rättelse's storno (replaced) is
// followed by Replaced instead.
func (s *Store) Reversed(ctx context.Context, company, orig, storno uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `
		WITH d AS (UPDATE expense_claims SET status = 'deleted', reversal_entry_id = $3
			WHERE company_id = $1 AND journal_entry_id = $2 AND status = 'registered'),
		p AS (UPDATE expense_payouts SET reversed_by_entry_id = $3
			WHERE company_id = $1 AND journal_entry_id = $2 AND reversed_by_entry_id IS NULL RETURNING id)
		SELECT 1`, company, orig, storno)
	if err != nil {
		return err
	}
	// The claims of a payout reversed are owed again (a statement of its
	// own: the guard reads the payout as reversed).
	_, err = s.db.Q(ctx).ExecContext(ctx, `UPDATE expense_claims c SET status = 'registered', payout_id = NULL, paid_at = NULL
		FROM expense_payouts p WHERE p.company_id = $1 AND p.journal_entry_id = $2 AND p.reversed_by_entry_id = $3
		  AND c.company_id = p.company_id AND c.payout_id = p.id`, company, orig, storno)
	return err
}

// TakeForRun puts on salary run of the company the claims owed to its
// employees that ride on a salary and are dated no later than through,
// takes off the run those that no longer belong there, and answers the
// claims the run pays back. A claim another run holds stays there.
func (s *Store) TakeForRun(ctx context.Context, company, run uuid.UUID, employees []uuid.UUID, through time.Time) ([]Claim, error) {
	var out []Claim
	err := s.db.Q(ctx).SelectContext(ctx, &out, `WITH
		gone AS (UPDATE expense_claims SET salary_run_id = NULL
			WHERE company_id = $1 AND salary_run_id = $2 AND status = 'registered'
			  AND NOT (employee_id = ANY($3) AND expense_date <= $4)),
		taken AS (UPDATE expense_claims SET salary_run_id = $2
			WHERE company_id = $1 AND pay_with_salary AND salary_run_id IS NULL AND status = 'registered'
			  AND employee_id = ANY($3) AND expense_date <= $4 RETURNING *)
		SELECT * FROM taken
		UNION ALL
		SELECT * FROM expense_claims WHERE company_id = $1 AND salary_run_id = $2 AND status = 'registered'
			AND employee_id = ANY($3) AND expense_date <= $4
		ORDER BY expense_date, created_at, id`, company, run, pq.Array(employees), store.Day(through))
	return out, err
}

// LetGo takes the claims of salary run off it: employee's alone unless
// nil.
func (s *Store) LetGo(ctx context.Context, company, run uuid.UUID, employee *uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE expense_claims SET salary_run_id = NULL
		WHERE company_id = $1 AND salary_run_id = $2 AND status = 'registered' AND ($3::uuid IS NULL OR employee_id = $3)`,
		company, run, employee)
	return err
}

// PaidByRun marks paid the claims of ids the salary run booked; each
// must be on it, owed.
func (s *Store) PaidByRun(ctx context.Context, company, run uuid.UUID, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	res, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE expense_claims SET status = 'paid', paid_at = now()
		WHERE company_id = $1 AND salary_run_id = $2 AND status = 'registered' AND id = ANY($3)`, company, run, pq.Array(ids))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(ids)) {
		return errors.Join(err, fmt.Errorf("expenses: run %s pays %d claims, %d of them on it", run, len(ids), n))
	}
	return nil
}

// OwedAgain makes the claims a corrected salary run paid owed again and
// free for the next run.
func (s *Store) OwedAgain(ctx context.Context, company, run uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE expense_claims SET status = 'registered', paid_at = NULL,
		salary_run_id = NULL WHERE company_id = $1 AND salary_run_id = $2 AND status = 'paid'`, company, run)
	return err
}

// Replaced follows a rättelse: claims and payouts booked by orig are
// booked by e from now on.
func (s *Store) Replaced(ctx context.Context, company, orig, e uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `
		WITH c AS (UPDATE expense_claims SET journal_entry_id = $3 WHERE company_id = $1 AND journal_entry_id = $2)
		UPDATE expense_payouts SET journal_entry_id = $3 WHERE company_id = $1 AND journal_entry_id = $2`, company, orig, e)
	return err
}
