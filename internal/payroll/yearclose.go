package payroll

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// The vacation law's figures on saving (semesterlagen 18 §).
const (
	paidDaysKept = 20 // the days that must be taken; those above may be saved
	savedYears   = 5  // saved days are taken within five years
)

// ClosedEmployee is one employee's vacation year at its close.
type ClosedEmployee struct {
	EmployeeID          uuid.UUID
	FirstName, LastName string
	Entitled, Taken     *apd.Decimal
	Remaining           *apd.Decimal
	SavedNow, SavedAll  *apd.Decimal
	Expired, Lapsed     *apd.Decimal
	Next                *apd.Decimal
}

// LiabilityCheck sets the computed liability against the books.
type LiabilityCheck struct {
	Computed, Ledger, Difference             money.Amount
	AvgifterComputed, AvgifterLedger, AvgDif money.Amount
	EntryID                                  *uuid.UUID
}

// ClosedYear is a vacation year's close.
type ClosedYear struct {
	Start, Next time.Time
	ClosedAt    *time.Time
	Employees   []ClosedEmployee
	Liability   LiabilityCheck
}

// CloseVacationYear closes the vacation year starting start (nil: the
// last ended): days above 20 left over are saved, saved days past five
// years taken off, the rest of the 20 lapse, and the next year opens
// with the days earned (rounded up, semesterlagen 7 §). The computed
// liability is then set against 2920/2940; past 1 kr, and when book is
// set, one verifikat dated the year's last day books the difference.
func (p *Payroll) CloseVacationYear(ctx context.Context, company uuid.UUID, start *time.Time, book bool) (ClosedYear, error) {
	basis, err := p.basis(ctx, company)
	if err != nil {
		return ClosedYear{}, err
	}
	y := ClosedYear{}
	if start != nil {
		if y.Start = VacationYearStart(*start, basis); !y.Start.Equal(*start) {
			return y, apierr.Field("vacation_year_start", "year_start",
				"the company's vacation year ("+basis+") starts on "+y.Start.Format(time.DateOnly))
		}
	} else {
		y.Start = VacationYearStart(p.today(), basis).AddDate(-1, 0, 0)
	}
	y.Next = y.Start.AddDate(1, 0, 0)
	if y.Next.After(p.today()) {
		return y, apierr.Field("vacation_year_start", "ended", "the vacation year has not ended yet")
	}
	var closed []time.Time
	if err := p.db.Q(ctx).SelectContext(ctx, &closed, `SELECT closed_at FROM vacation_year_closes
		WHERE company_id = $1 AND vacation_year_start = $2`, company, y.Start); err != nil {
		return y, err
	}
	if len(closed) > 0 {
		return y, apierr.New(apierr.VacationYearAlreadyClosed, map[string]any{"vacation_year_start": y.Start.Format(time.DateOnly),
			"closed_at": closed[0]})
	}
	var rows []struct {
		ID           uuid.UUID       `db:"employee_id"`
		FirstName    string          `db:"first_name"`
		LastName     string          `db:"last_name"`
		VacationDays int             `db:"vacation_days_per_year"`
		Entitled     money.Quantity  `db:"entitled_days"`
		Taken        money.Quantity  `db:"taken_days"`
		Earned       money.Quantity  `db:"earned_days"`
		Saved        json.RawMessage `db:"saved_days"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT v.employee_id, e.first_name, e.last_name, e.vacation_days_per_year,
			v.entitled_days, v.taken_days, v.earned_days, v.saved_days
		FROM employee_vacation_years v JOIN employees e ON e.company_id = v.company_id AND e.id = v.employee_id
		WHERE v.company_id = $1 AND v.vacation_year_start = $2 ORDER BY e.last_name, e.first_name, e.id FOR UPDATE OF v`,
		company, y.Start); err != nil {
		return y, err
	}
	type next struct {
		Employee uuid.UUID                 `json:"employee_id"`
		Entitled money.Quantity            `json:"entitled"`
		Saved    map[string]money.Quantity `json:"saved"`
	}
	var opened []next
	for _, r := range rows {
		var saved map[string]money.Quantity
		if err := json.Unmarshal(r.Saved, &saved); err != nil {
			return y, err
		}
		c := ClosedEmployee{EmployeeID: r.ID, FirstName: r.FirstName, LastName: r.LastName, Entitled: r.Entitled.Decimal(),
			Taken: r.Taken.Decimal(), Expired: new(apd.Decimal), SavedAll: new(apd.Decimal)}
		c.Remaining = sub(c.Entitled, c.Taken)
		c.SavedNow = new(apd.Decimal)
		if room := sub(c.Entitled, apd.New(paidDaysKept, 0)); room.Sign() > 0 && c.Remaining.Sign() > 0 {
			c.SavedNow = minDec(c.Remaining, room)
		}
		c.Lapsed = new(apd.Decimal)
		if c.Remaining.Sign() > 0 {
			c.Lapsed = sub(c.Remaining, c.SavedNow)
		}
		kept := map[string]money.Quantity{}
		for origin, d := range saved {
			if yr, err := strconv.Atoi(origin); err == nil && yr <= y.Start.Year()-savedYears {
				c.Expired = add(c.Expired, d.Decimal())
				continue
			}
			kept[origin] = d
		}
		if c.SavedNow.Sign() > 0 {
			kept[strconv.Itoa(y.Start.Year())] = quantity(add(c.SavedNow, savedOf(kept, y.Start.Year())))
		}
		for _, d := range kept {
			c.SavedAll = add(c.SavedAll, d.Decimal())
		}
		c.Next = ceilDays(r.Earned.Decimal(), r.VacationDays)
		y.Employees = append(y.Employees, c)
		opened = append(opened, next{Employee: r.ID, Entitled: quantity(c.Next), Saved: kept})
	}
	if len(opened) > 0 {
		body, err := json.Marshal(opened)
		if err != nil {
			return y, err
		}
		if _, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO employee_vacation_years AS v (company_id, employee_id,
				vacation_year_start, entitled_days, saved_days)
			SELECT $1, x.employee_id, $2, x.entitled, coalesce(x.saved, '{}')
			FROM jsonb_to_recordset($3::jsonb) AS x(employee_id uuid, entitled numeric, saved jsonb)
			ON CONFLICT (company_id, employee_id, vacation_year_start) DO UPDATE SET entitled_days = EXCLUDED.entitled_days,
				saved_days = EXCLUDED.saved_days, updated_at = now()`, company, y.Next, string(body)); err != nil {
			return y, err
		}
	}
	if err := p.checkLiability(ctx, company, &y, book); err != nil {
		return y, err
	}
	report, err := json.Marshal(closeView(y))
	if err != nil {
		return y, err
	}
	var at time.Time
	err = p.db.Q(ctx).GetContext(ctx, &at, `INSERT INTO vacation_year_closes (company_id, vacation_year_start, report,
		journal_entry_id, closed_by) VALUES ($1, $2, $3, $4, $5) RETURNING closed_at`, company, y.Start, string(report),
		y.Liability.EntryID, actor(audit.ActorFrom(ctx)))
	if store.UniqueViolation(err, "vacation_year_closes_pkey") {
		return y, apierr.New(apierr.VacationYearAlreadyClosed, map[string]any{"vacation_year_start": y.Start.Format(time.DateOnly)})
	}
	if err != nil {
		return y, err
	}
	y.ClosedAt = &at
	return y, p.record(ctx, company, audit.Insert, "vacation_year_closes", y.Start.Format(time.DateOnly),
		"Semesteråret från "+y.Start.Format(time.DateOnly)+" stängdes", nil, json.RawMessage(report))
}

func savedOf(m map[string]money.Quantity, year int) *apd.Decimal {
	if d, ok := m[strconv.Itoa(year)]; ok {
		return d.Decimal()
	}
	return new(apd.Decimal)
}

// ceilDays is the days earned rounded up to whole days, at most the
// employee's yearly days (semesterlagen 7 §).
func ceilDays(earned *apd.Decimal, most int) *apd.Decimal {
	c := exact.WithPrecision(50)
	c.Rounding = apd.RoundCeiling
	var out apd.Decimal
	if _, err := c.Quantize(&out, earned, 0); err != nil {
		panic(err)
	}
	return minDec(&out, apd.New(int64(most), 0))
}

// checkLiability sets the liability the new year opens with against
// 2920 and 2940 at the closed year's last day, and books the difference
// when asked and past 1 kr.
func (p *Payroll) checkLiability(ctx context.Context, company uuid.UUID, y *ClosedYear, book bool) error {
	last := y.Next.AddDate(0, 0, -1)
	l, err := p.liability(ctx, company, y.Next, last) // the new year's days, valued at the closed year's end
	if err != nil {
		return err
	}
	debt, err := p.books.Balance(ctx, company, AccountVacationLiability, last)
	if err != nil {
		return err
	}
	avg, err := p.books.Balance(ctx, company, AccountAccruedAvgifter, last)
	if err != nil {
		return err
	}
	c := LiabilityCheck{Computed: l.Total, Ledger: debt.Neg(), AvgifterComputed: l.Avgifter, AvgifterLedger: avg.Neg()}
	c.Difference, c.AvgDif = c.Computed.Sub(c.Ledger), c.AvgifterComputed.Sub(c.AvgifterLedger)
	y.Liability = c
	if !book || c.Difference.Abs().Cmp(money.Kr(1)) <= 0 && c.AvgDif.Abs().Cmp(money.Kr(1)) <= 0 {
		return nil
	}
	var b ledger.Booking
	b.Add(AccountAccrualWhiteCollar, c.Difference, false, nil, nil)
	b.Add(AccountVacationLiability, c.Difference, true, nil, nil)
	b.Add(AccountAccrualAvgifter, c.AvgDif, false, nil, nil)
	b.Add(AccountAccruedAvgifter, c.AvgDif, true, nil, nil)
	source := "vacation-year-" + y.Start.Format(time.DateOnly)
	e, err := p.books.Post(ctx, company, ledger.Input{Date: last, SourceType: SourceSalary, SourceID: &source,
		Description: "Semesterlöneskuld vid semesterårets slut " + y.Start.Format(time.DateOnly) + "–" + last.Format(time.DateOnly),
		Lines:       b.Lines})
	if err != nil {
		return err
	}
	y.Liability.EntryID = &e.ID
	return nil
}

// closeView is a year's close as its report keeps it.
func closeView(y ClosedYear) map[string]any {
	emps := make([]map[string]any, len(y.Employees))
	for i, e := range y.Employees {
		emps[i] = map[string]any{"employee_id": e.EmployeeID, "first_name": e.FirstName, "last_name": e.LastName,
			"entitled_days": quantity(e.Entitled), "taken_days": quantity(e.Taken), "remaining_days": quantity(e.Remaining),
			"saved_now": quantity(e.SavedNow), "saved_total": quantity(e.SavedAll), "expired_days": quantity(e.Expired),
			"lapsed_days": quantity(e.Lapsed), "next_year_entitled": quantity(e.Next)}
	}
	l := y.Liability
	return map[string]any{"vacation_year_start": y.Start.Format(time.DateOnly), "next_year_start": y.Next.Format(time.DateOnly),
		"closed_at": y.ClosedAt, "employees": emps, "liability": map[string]any{"computed": l.Computed, "ledger_2920": l.Ledger,
			"difference": l.Difference, "avgifter_computed": l.AvgifterComputed, "ledger_2940": l.AvgifterLedger,
			"avgifter_difference": l.AvgDif, "adjustment_entry_id": l.EntryID}}
}
