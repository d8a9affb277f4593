package company

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// readModel is the settings row with the company's identity, as the API
// shows it.
const readModel = `
	SELECT (to_jsonb(s) - 'updated_at') || jsonb_build_object('company_id', c.id, 'entity_type', c.entity_type,
		'org_number', c.org_number, 'company_name', c.name)
	FROM company_settings s JOIN companies c ON c.id = s.company_id WHERE s.company_id = $1`

// Settings returns the company's settings read model. An enskild firma's
// org_number, the owner's personnummer, has its last four digits masked.
func (s *Store) Settings(ctx context.Context, company uuid.UUID) (Settings, error) {
	var raw string
	if err := s.db.Q(ctx).GetContext(ctx, &raw, readModel, company); err != nil {
		return nil, err
	}
	out, err := DecodeSettings([]byte(raw))
	if err != nil {
		return nil, err
	}
	if out["entity_type"] == string(EnskildFirma) {
		if org, ok := out["org_number"].(string); ok && len(org) > 4 {
			out["org_number"] = org[:len(org)-4] + "****"
		}
		// The VAT number holds the same personnummer: SE YYMMDD**** 01.
		if vat, ok := out["vat_number"].(string); ok && len(vat) == 14 {
			out["vat_number"] = vat[:8] + "****" + vat[12:]
		}
	}
	return out, nil
}

// insertSettings writes a new company's settings row.
func (s *Store) insertSettings(ctx context.Context, c Company) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `
		INSERT INTO company_settings (company_id, vat_registered, moms_period, accounting_method, f_skatt,
			fiscal_year_start_month, address_line1, postal_code, city, vat_number)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		c.ID, c.VATRegistered, c.MomsPeriod, c.AccountingMethod, c.FSkatt, c.FiscalYearStartMonth,
		c.AddressLine1, c.PostalCode, c.City, c.VATNumber)
	return err
}

// SettingsForUpdate locks the company's settings row for the rest of the
// transaction of ctx, then returns the read model: two changes at once
// cannot both pass rules checked against the same old values.
func (s *Store) SettingsForUpdate(ctx context.Context, company uuid.UUID) (Settings, error) {
	if _, err := s.db.Q(ctx).ExecContext(ctx, `SELECT 1 FROM company_settings WHERE company_id = $1 FOR UPDATE`,
		company); err != nil {
		return nil, err
	}
	return s.Settings(ctx, company)
}

// UpdateSettings writes the checked patch to the company's settings and
// audits the change, in the transaction of ctx. company_name renames the
// company.
func (s *Store) UpdateSettings(ctx context.Context, company uuid.UUID, patch Settings, what string) error {
	q := s.db.Q(ctx)
	if name, ok := patch["company_name"].(string); ok {
		if _, err := q.ExecContext(ctx, `UPDATE companies SET name = $2, updated_at = now() WHERE id = $1`,
			company, strings.TrimSpace(name)); err != nil {
			return err
		}
	}
	set := []string{"updated_at = now()"}
	for k := range patch {
		if _, ok := fields[k]; ok {
			// k is a column name from the fixed list, never client text.
			set = append(set, k+" = r."+k)
		}
	}
	sort.Strings(set[1:])
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	// One statement: the row as it was (the FROM subquery sees the
	// statement's snapshot) and as it is now, for the audit trail.
	var old, now string
	if err := q.QueryRowxContext(ctx, `UPDATE company_settings s SET `+strings.Join(set, ", ")+`
		FROM jsonb_populate_record(NULL::company_settings, $2::jsonb) r,
			(SELECT to_jsonb(p) AS snapshot FROM company_settings p WHERE p.company_id = $1) prev
		WHERE s.company_id = $1 RETURNING prev.snapshot, to_jsonb(s)`, company, string(body)).Scan(&old, &now); err != nil {
		return err
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "company_settings",
		RecordID: company.String(), Description: what, Old: json.RawMessage(old), New: json.RawMessage(now)})
}

// FiledVATPeriods returns the VAT periods the company has filed.
func (s *Store) FiledVATPeriods(ctx context.Context, company uuid.UUID) ([]FiledPeriod, error) {
	var out []FiledPeriod
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT period_start, period_end, filed_on FROM vat_filings
		WHERE company_id = $1 ORDER BY period_start`, company)
	return out, err
}

// PostedIn counts the company's posted verifikationer dated on day's
// fiscal year. (The ledger's table, read to refuse a change of method
// mid-year.)
func (s *Store) PostedIn(ctx context.Context, company uuid.UUID, day time.Time) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `
		SELECT count(*) FROM journal_entries e JOIN fiscal_periods p ON p.id = e.fiscal_period_id
		WHERE e.company_id = $1 AND e.status = 'posted' AND $2 BETWEEN p.period_start AND p.period_end`,
		company, day)
	return n, err
}

// Books are the stores a company's creation and tax profile reach into.
type Books struct {
	Chart        *chart.Store
	Periods      *fiscal.Store
	Deadlines    *deadline.Store
	Capabilities *capability.Store
}

// SetUpBooks gives the new company c its books, in the transaction of
// ctx: the chart for its form, its first fiscal period, its tax
// deadlines and the trial of every paid capability.
func (s *Store) SetUpBooks(ctx context.Context, c Company, now time.Time) error {
	if _, err := s.books.Chart.Seed(ctx, c.ID, string(c.EntityType)); err != nil {
		return err
	}
	if _, _, err := s.books.Periods.Open(ctx, c.ID, "", c.FirstYear); err != nil {
		return err
	}
	if err := s.RegenerateDeadlines(ctx, c.ID); err != nil {
		return err
	}
	return s.books.Capabilities.StartTrial(ctx, c.ID, now)
}

// RegenerateDeadlines rebuilds the company's tax deadlines from its tax
// profile and fiscal years, in the transaction of ctx.
func (s *Store) RegenerateDeadlines(ctx context.Context, company uuid.UUID) error {
	set, err := s.Settings(ctx, company)
	if err != nil {
		return err
	}
	periods, err := s.books.Periods.List(ctx, company)
	if err != nil {
		return err
	}
	years := make([]deadline.Year, 0, len(periods))
	for _, p := range periods {
		if !p.Closed {
			years = append(years, deadline.Year{ID: p.ID, Start: p.Start, End: p.End})
		}
	}
	profile := deadline.Profile{Form: set.str("entity_type"), VATRegistered: set.flag("vat_registered"),
		MomsPeriod: set.str("moms_period"), Over40M: set.flag("vat_taxable_base_over_40m")}
	return s.books.Deadlines.Replace(ctx, company, deadline.Generate(profile, years))
}

// OrgNumber returns the company's organisation number unmasked.
func (s *Store) OrgNumber(ctx context.Context, company uuid.UUID) (*string, error) {
	var org *string
	err := s.db.Q(ctx).GetContext(ctx, &org, `SELECT org_number FROM companies WHERE id = $1`, company)
	return org, err
}

// Ledger returns what the ledger needs of the company: its form, its lock
// date and its voucher-series defaults.
func (s *Store) Ledger(ctx context.Context, company uuid.UUID) (ledger.Company, error) {
	var row ledger.Settings
	err := s.db.Q(ctx).GetContext(ctx, &row, `SELECT `+ledger.SettingsColumns+`
		FROM companies c JOIN company_settings s ON s.company_id = c.id WHERE c.id = $1`, company)
	return row.Company(), err
}

// InvoiceDefaultDays returns the company's invoice_default_days, nil when
// it is unset.
func (s *Store) InvoiceDefaultDays(ctx context.Context, company uuid.UUID) (*int, error) {
	var days *int
	err := s.db.Q(ctx).GetContext(ctx, &days, `SELECT invoice_default_days FROM company_settings WHERE company_id = $1`, company)
	if store.NotFound(err) {
		return nil, nil
	}
	return days, err
}

// InvoiceNumber is the number an invoice is issued with, taken from the
// company's settings.
type InvoiceNumber struct {
	Prefix  *string `db:"invoice_prefix"`
	Number  int     `db:"number"`
	ShowOCR *bool   `db:"invoice_show_ocr"`
	// How the invoice is booked, read in the same statement.
	AccountingMethod string `db:"accounting_method"`
	DeferBooking     *bool  `db:"defer_invoice_booking"`
	// The company as the law asks an invoice to name it.
	Name          string  `db:"name"`
	VATRegistered bool    `db:"vat_registered"`
	VATNumber     *string `db:"vat_number"`
	AddressLine1  *string `db:"address_line1"`
	AddressLine2  *string `db:"address_line2"`
	PostalCode    *string `db:"postal_code"`
	City          *string `db:"city"`
	Country       *string `db:"country"`
}

// TakeInvoiceNumber takes the company's next invoice number (null is 1)
// and moves next_invoice_number past it, in the transaction of ctx: the
// settings row stays locked until it ends, so invoices are numbered one
// at a time and a rollback gives the number back.
func (s *Store) TakeInvoiceNumber(ctx context.Context, company uuid.UUID) (InvoiceNumber, error) {
	var n InvoiceNumber
	err := s.db.Q(ctx).GetContext(ctx, &n, `UPDATE company_settings s
		SET next_invoice_number = coalesce(s.next_invoice_number, 1) + 1 FROM companies c
		WHERE s.company_id = $1 AND c.id = s.company_id
		RETURNING s.next_invoice_number - 1 AS number, s.invoice_prefix, s.invoice_show_ocr, s.accounting_method,
			s.defer_invoice_booking, c.name, s.vat_registered, s.vat_number, s.address_line1, s.address_line2,
			s.postal_code, s.city, s.country`, company)
	return n, err
}

// Arrival is the company's next arrival number (ankomstnummer) and the
// settings a supplier invoice is registered by, read in one statement.
type Arrival struct {
	Number           int    `db:"number"`
	VATRegistered    bool   `db:"vat_registered"`
	AccountingMethod string `db:"accounting_method"`
	DeferBooking     *bool  `db:"defer_invoice_booking"`
	EntityType       string `db:"entity_type"`
	// Now is the transaction's time (now()): what the rows written in it
	// are stamped with.
	Now time.Time `db:"tx_now"`
}

// ArrivalFacts reads the settings that say how the company books
// supplier invoices, and its next arrival number as it stands, locking
// nothing (ArrivalSQL takes the number).
func (s *Store) ArrivalFacts(ctx context.Context, company uuid.UUID) (Arrival, error) {
	var a Arrival
	err := s.db.Q(ctx).GetContext(ctx, &a, `SELECT coalesce(s.next_arrival_number, 1) AS number, s.vat_registered,
			s.accounting_method, s.defer_invoice_booking, c.entity_type, now() AS tx_now
		FROM company_settings s JOIN companies c ON c.id = s.company_id WHERE s.company_id = $1`, company)
	return a, err
}

// ArrivalSQL takes the company's next arrival number ($1 the company;
// null is 1) and moves next_arrival_number past it, answering number: the
// statement payables runs inside the insert of a supplier invoice, so the
// settings row stays locked from there until the transaction ends, the
// invoices are numbered one at a time, gapless, and a rollback gives the
// number back.
const ArrivalSQL = `UPDATE company_settings SET next_arrival_number = coalesce(next_arrival_number, 1) + 1
	WHERE company_id = $1 RETURNING next_arrival_number - 1 AS number`

// Declarant returns what the tax returns need of the company: its name,
// form, numbers (unmasked), VAT period and method, lock date and tax
// contact, into out (the returns' own struct: the columns are its tags).
func (s *Store) Declarant(ctx context.Context, company uuid.UUID, out any) error {
	return s.db.Q(ctx).GetContext(ctx, out, `
		SELECT c.name, c.entity_type, c.org_number, s.vat_number, s.moms_period, s.accounting_method,
			s.bookkeeping_locked_through, s.tax_contact_name, s.tax_contact_phone, s.tax_contact_email
		FROM companies c JOIN company_settings s ON s.company_id = c.id WHERE c.id = $1`, company)
}

// Identity is the company as a report's heading names it, with the
// accounting method that decides what its ledgers reconcile to.
type Identity struct {
	Name             string  `db:"name"`
	Form             string  `db:"entity_type"`
	OrgNumber        *string `db:"org_number"`
	AccountingMethod string  `db:"accounting_method"`
	PostalCode       *string `db:"postal_code"`
	City             *string `db:"city"`
	VATRegistered    bool    `db:"vat_registered"`
}

// Identity returns the company's name, form, organisation number
// (unmasked), accounting method, postal address and VAT registration.
func (s *Store) Identity(ctx context.Context, company uuid.UUID) (Identity, error) {
	var out Identity
	err := s.db.Q(ctx).GetContext(ctx, &out, `SELECT c.name, c.entity_type, c.org_number, s.accounting_method,
			s.postal_code, s.city, s.vat_registered
		FROM companies c JOIN company_settings s ON s.company_id = c.id WHERE c.id = $1`, company)
	return out, err
}
