package payroll

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
)

// The states of a salary run.
const (
	Draft     = "draft"
	Review    = "review"
	Approved  = "approved"
	Booked    = "booked"
	Corrected = "corrected"
)

// Run is a salary run: one period's payslips from draft to booked.
type Run struct {
	CompanyID       uuid.UUID    `db:"company_id" json:"-"`
	ID              uuid.UUID    `db:"id" json:"id"`
	Year            int          `db:"period_year" json:"period_year"`
	Month           int          `db:"period_month" json:"period_month"`
	PaymentDate     time.Time    `db:"payment_date" json:"payment_date"`
	Series          *string      `db:"voucher_series" json:"voucher_series"`
	Status          string       `db:"status" json:"status"`
	CorrectsRunID   *uuid.UUID   `db:"corrects_run_id" json:"corrects_run_id"`
	CorrectionRunID *uuid.UUID   `db:"correction_run_id" json:"correction_run_id"`
	CalculatedAt    *time.Time   `db:"calculated_at" json:"calculated_at"`
	ApprovedAt      *time.Time   `db:"approved_at" json:"approved_at"`
	BookedAt        *time.Time   `db:"booked_at" json:"booked_at"`
	CorrectedAt     *time.Time   `db:"corrected_at" json:"corrected_at"`
	JournalEntryIDs IDs          `db:"journal_entry_ids" json:"journal_entry_ids"`
	StornoEntryIDs  IDs          `db:"storno_entry_ids" json:"storno_entry_ids"`
	Gross           money.Amount `db:"gross_total" json:"gross_total"`
	Tax             money.Amount `db:"tax_total" json:"tax_total"`
	Net             money.Amount `db:"net_total" json:"net_total"`
	Avgifter        money.Amount `db:"avgifter_total" json:"avgifter_total"`
	Accrual         money.Amount `db:"accrual_total" json:"accrual_total"`
	EmployeeCount   int          `db:"employee_count" json:"employee_count"`
	AGIGeneratedAt  *time.Time   `db:"agi_generated_at" json:"agi_generated_at"`
	CreatedAt       time.Time    `db:"created_at" json:"created_at"`
	UpdatedAt       time.Time    `db:"updated_at" json:"updated_at"`
}

// Period is the run's month as YYYY-MM.
func (r Run) Period() string { return fmt.Sprintf("%04d-%02d", r.Year, r.Month) }

// First and Last are the period's first and last day.
func (r Run) First() time.Time {
	return time.Date(r.Year, time.Month(r.Month), 1, 0, 0, 0, 0, time.UTC)
}

// Last is the period's last day.
func (r Run) Last() time.Time { return r.First().AddDate(0, 1, -1) }

// Editable refuses a change to the roster, lines or dates of a run past
// review (SALARY_RUN_INVALID_STATE); editing a review run returns it to
// draft.
func (r Run) Editable() error { return r.In(Draft, Review) }

// In refuses a run not in one of states.
func (r Run) In(states ...string) error {
	for _, s := range states {
		if r.Status == s {
			return nil
		}
	}
	return apierr.New(apierr.SalaryRunInvalidState, map[string]any{"salary_run_id": r.ID, "status": r.Status,
		"allowed": states})
}

// IDs is a uuid[] column.
type IDs []uuid.UUID

// Scan reads a uuid[].
func (v *IDs) Scan(src any) error {
	var s pq.StringArray
	if err := s.Scan(src); err != nil {
		return err
	}
	out := make(IDs, len(s))
	for i, x := range s {
		id, err := uuid.Parse(x)
		if err != nil {
			return err
		}
		out[i] = id
	}
	*v = out
	return nil
}

// Value writes a uuid[].
func (v IDs) Value() (driver.Value, error) {
	s := make(pq.StringArray, len(v))
	for i, id := range v {
		s[i] = id.String()
	}
	return s.Value()
}

// actor is who made a change, as a run keeps it.
func actor(a audit.Actor) string {
	b, err := json.Marshal(map[string]any{"type": a.Type, "id": a.ID, "label": a.Label})
	if err != nil {
		panic(err)
	}
	return string(b) // as text: binary parameters would send a []byte as jsonb's binary form
}
