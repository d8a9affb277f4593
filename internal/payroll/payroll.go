package payroll

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Identity is what the AGI and the payslip say of the employer.
type Identity struct {
	Name      string
	OrgNumber *string
	Form      string
	Address   []string
}

// Books are what payroll needs of the rest of the books, filled in at
// composition.
type Books struct {
	// Settings reads the company's settings (the read model of GET
	// /settings).
	Settings func(ctx context.Context, company uuid.UUID) (map[string]any, error)
	// SetSeries sets default_voucher_series_per_source_type.salary_payment
	// (nil removes it), audited by the company's settings.
	SetSeries func(ctx context.Context, company uuid.UUID, series *string) error
	// CashAccount is the primary cash account's ledger account, "" when
	// the company has none.
	CashAccount func(ctx context.Context, company uuid.UUID) (string, error)
	// KnownAccounts refuses accounts neither the chart nor BAS has
	// (ACCOUNTS_NOT_IN_CHART).
	KnownAccounts func(ctx context.Context, company uuid.UUID, numbers []string) error
	// CheckDimensions refuses tags the company's dimension registers do
	// not hold, active on day.
	CheckDimensions func(ctx context.Context, company uuid.UUID, day time.Time, tags []ledger.Dimensions) error
	// Identity names the employer.
	Identity func(ctx context.Context, company uuid.UUID) (Identity, error)
	// Balance is an account's balance (debit less credit) at the end of
	// day.
	Balance func(ctx context.Context, company uuid.UUID, account string, day time.Time) (money.Amount, error)
	// AddDeadline puts a month's AGI among the company's tax deadlines.
	AddDeadline func(ctx context.Context, company uuid.UUID, year int, month time.Month, due time.Time) error
	// Claims puts on run the expense claims its employees are paid back
	// with their salary, dated no later than through, takes off those
	// that no longer belong, and answers the run's.
	Claims func(ctx context.Context, company, run uuid.UUID, employees []uuid.UUID, through time.Time) ([]Claim, error)
	// ClaimsOff takes run's claims off it: employee's alone unless nil.
	ClaimsOff func(ctx context.Context, company, run uuid.UUID, employee *uuid.UUID) error
	// ClaimsPaid marks paid the claims of ids the approved run books.
	ClaimsPaid func(ctx context.Context, company, run uuid.UUID, ids []uuid.UUID) error
	// ClaimsOwed makes the claims a corrected run paid owed again.
	ClaimsOwed func(ctx context.Context, company, run uuid.UUID) error
	// Post and Reverse are the ledger's.
	Post    func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	Reverse func(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (ledger.Reversal, error)
}

// Payroll keeps a company's employees, their absence and vacation, and
// its salary runs, in the request's unit of work.
type Payroll struct {
	db     *store.DB
	box    *seal.Box
	audit  *audit.Store
	books  Books
	now    func() time.Time
	tables *tableCache
}

// New returns the payroll.
func New(db *store.DB, box *seal.Box, audits *audit.Store, books Books, now func() time.Time) *Payroll {
	return &Payroll{db: db, box: box, audit: audits, books: books, now: now, tables: newTableCache(db)}
}

// today is the current day in Sweden's calendar.
func (p *Payroll) today() time.Time { return ledger.Today(p.now()) }

// record audits a change of a payroll table.
func (p *Payroll) record(ctx context.Context, company uuid.UUID, action audit.Action, table, id, desc string, old, new any) error {
	return p.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: table, RecordID: id,
		Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}

// notFound maps a missing row to code.
func notFound(err error, code apierr.Code, details map[string]any) error {
	if store.NotFound(err) {
		return apierr.New(code, details)
	}
	return err
}
