package payroll

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// Filed is a generated AGI as stored.
type Filed struct {
	ID          uuid.UUID `json:"agi_declaration_id"`
	RunID       uuid.UUID `json:"salary_run_id"`
	Period      string    `json:"period"`
	Correction  bool      `json:"is_correction"`
	XML         string    `json:"-"`
	Filename    string    `json:"xml_filename"`
	Due         time.Time `json:"due_date"`
	Totals      AGITotals `json:"totals"`
	GeneratedAt time.Time `json:"generated_at"`
}

// AGITotals are an AGI's sums in whole kronor.
type AGITotals struct {
	Persons  int   `json:"persons"`
	Cash     int64 `json:"cash_gross"`
	Tax      int64 `json:"tax"`
	Avgifter int64 `json:"avgifter"`
	Absence  int   `json:"absence_days"`
}

// GenerateAGI writes the arbetsgivardeklaration of an approved or booked
// run for its payment month, stores it and emits agi.generated. A
// correction run's AGI is a correction: the persons keep their
// specification numbers, and those the correction dropped are taken away
// (205).
func (p *Payroll) GenerateAGI(ctx context.Context, company, id uuid.UUID) (Filed, error) {
	r, err := p.Run(ctx, company, id, true)
	if err != nil {
		return Filed{}, err
	}
	if err := r.In(Approved, Booked); err != nil {
		return Filed{}, err
	}
	who, err := p.books.Identity(ctx, company)
	if err != nil {
		return Filed{}, err
	}
	s, err := p.settings(ctx, company, false)
	if err != nil {
		return Filed{}, err
	}
	a := AGI{Period: r.PaymentDate.Format("200601"), Created: p.now(), Correction: r.CorrectsRunID != nil}
	if who.OrgNumber != nil {
		a.OrgNumber = identifier.Digits(*who.OrgNumber)
		if n, err := ParsePersonnummer(a.OrgNumber, p.today()); err == nil && who.Form == "enskild_firma" {
			a.OrgNumber = n.Digits // a sole trader declares under the owner's personnummer, century and all
		}
	}
	for i, v := range []*string{s.ContactName, s.ContactPhone, s.ContactEmail} {
		if v != nil {
			a.Contact[i] = *v
		}
	}
	rows, err := p.RunEmployees(ctx, company, id, nil, 0)
	if err != nil {
		return Filed{}, err
	}
	people, err := p.people(ctx, company, r)
	if err != nil {
		return Filed{}, err
	}
	slips := make([]Slip, 0, len(rows))
	totals := AGITotals{}
	on := map[uuid.UUID]bool{}
	for _, row := range rows {
		slip, err := row.Payslip()
		if err != nil || slip == nil {
			return Filed{}, fmt.Errorf("payroll: an approved run's payslip has no calculation: %w", err)
		}
		on[row.EmployeeID] = true
		person := AGIPerson{Personnummer: people[row.EmployeeID].pn, Spec: row.Spec, Tax: kronorDown(of(row.EffectiveTax())),
			Benefits: kronorDown(of(slip.Benefits["012"])), CarBenefit: kronorDown(of(slip.Benefits["013"])),
			FuelBenefit: kronorDown(of(slip.Benefits["018"]))}
		if slip.TaxMethod == "f_skatt" {
			person.FSkatt = kronorDown(of(slip.Gross))
		} else {
			person.Cash = kronorDown(of(slip.Gross))
		}
		a.Persons = append(a.Persons, person)
		slips = append(slips, Slip{Payslip: *slip, Tax: row.EffectiveTax(), Avgifter: row.EffectiveAvgifter()})
		totals.Cash += person.Cash
	}
	for emp, pe := range people {
		if !on[emp] && pe.removedSpec > 0 {
			a.Persons = append(a.Persons, AGIPerson{Personnummer: pe.pn, Spec: pe.removedSpec, Removed: true})
		}
	}
	if a.Absence, err = p.reportedAbsence(ctx, company, id, people); err != nil {
		return Filed{}, err
	}
	a.TotalAvgifter = Declare(slips).Total
	raw, err := a.XML()
	if err != nil {
		return Filed{}, err
	}
	totals.Persons, totals.Tax, totals.Avgifter, totals.Absence = len(rows), a.TotalTax(), a.TotalAvgifter, len(a.Absence)
	d := Filed{ID: uuid.New(), RunID: id, Period: a.Period, Correction: a.Correction, XML: string(raw),
		Filename: "AGI_" + a.OrgNumber + "_" + a.Period + ".xml", Totals: totals,
		Due: deadline.AGIDue(r.PaymentDate.Year(), r.PaymentDate.Month(), s.Over40M)}
	body, err := json.Marshal(totals)
	if err != nil {
		return d, err
	}
	if err := p.db.Q(ctx).GetContext(ctx, &d.GeneratedAt, `INSERT INTO agi_declarations (company_id, id, run_id, period,
			is_correction, xml_sealed, xml_filename, due_date, totals, generated_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING generated_at`, company, d.ID, id, d.Period, d.Correction,
		p.box.Seal(raw, agiContext(company, d.ID)), d.Filename, d.Due, string(body),
		actor(audit.ActorFrom(ctx))); err != nil {
		return d, err
	}
	if err := p.books.AddDeadline(ctx, company, r.PaymentDate.Year(), r.PaymentDate.Month(), d.Due); err != nil {
		return d, err
	}
	if err := p.record(ctx, company, audit.Insert, "agi_declarations", d.ID.String(),
		"Arbetsgivardeklaration "+d.Period+" skapades för lönekörningen "+r.Period(), nil, d); err != nil {
		return d, err
	}
	_, err = outbox.Emit(ctx, p.db, company, "agi.generated", map[string]any{"agi_declaration_id": d.ID,
		"salary_run_id": d.RunID, "period": d.Period, "is_correction": d.Correction, "xml_filename": d.Filename,
		"due_date": d.Due.Format(time.DateOnly), "totals": d.Totals, "generated_at": d.GeneratedAt.UTC()})
	return d, err
}

// person is what the AGI needs of one employee: the personnummer opened,
// and a specification number an earlier run of the period declared.
type person struct {
	pn          string
	removedSpec int
}

// people opens the personnummer of the run's employees and of those the
// runs it corrects declared, in one query.
func (p *Payroll) people(ctx context.Context, company uuid.UUID, r Run) (map[uuid.UUID]person, error) {
	var rows []struct {
		ID     uuid.UUID `db:"id"`
		Sealed []byte    `db:"personnummer_sealed"`
		Spec   int       `db:"spec"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `WITH RECURSIVE chain AS (
			SELECT id, corrects_run_id FROM salary_runs WHERE company_id = $1 AND id = $2
			UNION ALL
			SELECT r.id, r.corrects_run_id FROM salary_runs r JOIN chain c ON r.id = c.corrects_run_id AND r.company_id = $1)
		SELECT e.id, e.personnummer_sealed, coalesce(max(re.specification_number) FILTER (WHERE re.run_id <> $2), 0) AS spec
		FROM salary_run_employees re JOIN chain c ON c.id = re.run_id
		JOIN employees e ON e.company_id = re.company_id AND e.id = re.employee_id
		WHERE re.company_id = $1 GROUP BY e.id, e.personnummer_sealed`, company, r.ID); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]person, len(rows))
	for _, row := range rows {
		plain, err := p.box.Open(row.Sealed, sealContext(company, row.ID))
		if err != nil {
			return nil, apierr.Wrap(apierr.CustomerPersonalNumberUnreadable, err)
		}
		out[row.ID] = person{pn: string(plain), removedSpec: row.Spec}
	}
	return out, nil
}

// reportedAbsence is the days of VAB and parental leave the run's
// payslips read, for the AGI's Frånvarouppgift.
func (p *Payroll) reportedAbsence(ctx context.Context, company, run uuid.UUID, people map[uuid.UUID]person) ([]AGIAbsence, error) {
	var rows []struct {
		Employee uuid.UUID      `db:"employee_id"`
		Spec     int            `db:"specification_number"`
		Day      time.Time      `db:"absence_date"`
		Type     string         `db:"absence_type"`
		Hours    money.Quantity `db:"hours"`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, `SELECT a.employee_id, re.specification_number, a.absence_date,
			a.absence_type, a.hours
		FROM salary_run_employees re JOIN employee_absence a ON a.company_id = re.company_id
			AND a.employee_id = re.employee_id AND a.absence_date BETWEEN re.absence_from AND re.absence_to
		WHERE re.company_id = $1 AND re.run_id = $2 AND a.absence_type IN ('vab', 'parental')
		ORDER BY re.specification_number, a.absence_date`, company, run); err != nil {
		return nil, err
	}
	out := make([]AGIAbsence, len(rows))
	for i, r := range rows {
		out[i] = AGIAbsence{Personnummer: people[r.Employee].pn, Spec: r.Spec, Day: r.Day, Parental: r.Type == Parental,
			Hours: r.Hours.Decimal()}
	}
	return out, nil
}
