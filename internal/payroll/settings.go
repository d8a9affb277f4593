package payroll

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
)

// Settings are the company's payroll settings.
type Settings struct {
	PayDay          int     `db:"pay_day" json:"pay_day"`
	DeviationPeriod string  `db:"deviation_period" json:"deviation_period"`
	SickRate        string  `db:"sick_rate" json:"sick_rate"`
	NetPayAccount   *string `db:"net_pay_account" json:"net_pay_account"`
	ContactName     *string `db:"agi_contact_name" json:"agi_contact_name"`
	ContactPhone    *string `db:"agi_contact_phone" json:"agi_contact_phone"`
	ContactEmail    *string `db:"agi_contact_email" json:"agi_contact_email"`
	// Series is default_voucher_series_per_source_type.salary_payment of
	// the company's settings; NetPay the account net pay is credited to,
	// NetPayAccount or its default.
	Series *string `db:"-" json:"voucher_series"`
	NetPay string  `db:"-" json:"-"`
	// Basis is the company's vacation year: calendar or
	// statutory_apr_mar (salary_vacation_year_basis).
	Basis string `db:"-" json:"-"`
	// Over40M marks taxable turnover above 40 MSEK, which keeps the AGI
	// due on the 12th in January and August too.
	Over40M bool `db:"-" json:"-"`
}

// SourceSalary is the source type of a salary run's verifikat.
const SourceSalary = "salary_payment"

const settingsColumns = `pay_day, deviation_period, sick_rate, net_pay_account, agi_contact_name, agi_contact_phone,
	agi_contact_email`

// Settings answers the company's payroll settings, defaults where unset.
func (p *Payroll) Settings(ctx context.Context, company uuid.UUID) (Settings, error) {
	s, err := p.settings(ctx, company, false)
	if err != nil {
		return s, err
	}
	return s, p.netPay(ctx, company, &s)
}

func (p *Payroll) settings(ctx context.Context, company uuid.UUID, lock bool) (Settings, error) {
	s := Settings{PayDay: 25, DeviationPeriod: "current", SickRate: "annual_hourly"}
	var rows []Settings
	q := `SELECT ` + settingsColumns + ` FROM salary_settings WHERE company_id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	if err := p.db.Q(ctx).SelectContext(ctx, &rows, q, company); err != nil {
		return s, err
	}
	if len(rows) > 0 {
		s = rows[0]
	}
	cs, err := p.books.Settings(ctx, company)
	if err != nil {
		return s, err
	}
	if m, ok := cs["default_voucher_series_per_source_type"].(map[string]any); ok {
		if v, ok := m[SourceSalary].(string); ok {
			s.Series = &v
		}
	}
	s.Basis = vacationBasis(cs)
	s.Over40M, _ = cs["vat_taxable_base_over_40m"].(bool)
	return s, nil
}

// vacationBasis is the company's vacation year as its settings keep it:
// calendar unless it keeps the law's April–March.
func vacationBasis(cs map[string]any) string {
	if b, ok := cs["salary_vacation_year_basis"].(string); ok && b != "" {
		return b
	}
	return "calendar"
}

// netPay fills in the account net pay is credited to: the one set, else
// the primary cash account's, else 1930.
func (p *Payroll) netPay(ctx context.Context, company uuid.UUID, s *Settings) error {
	s.NetPay = DefaultNetPayAccount
	if s.NetPayAccount != nil {
		s.NetPay = *s.NetPayAccount
		return nil
	}
	a, err := p.books.CashAccount(ctx, company)
	if a != "" {
		s.NetPay = a
	}
	return err
}

// SettingsChange is a PATCH of the settings: nil leaves a field.
type SettingsChange struct {
	PayDay                    *int
	DeviationPeriod, SickRate *string
	SetSeries, SetNetPay      bool
	Series, NetPayAccount     *string
	SetContact                [3]bool
	Contact                   [3]*string
}

// UpdateSettings applies ch to the company's payroll settings.
func (p *Payroll) UpdateSettings(ctx context.Context, company uuid.UUID, ch SettingsChange) (Settings, error) {
	old, err := p.settings(ctx, company, true)
	if err != nil {
		return old, err
	}
	s := old
	if ch.PayDay != nil {
		s.PayDay = *ch.PayDay
	}
	if ch.DeviationPeriod != nil {
		s.DeviationPeriod = *ch.DeviationPeriod
	}
	if ch.SickRate != nil {
		s.SickRate = *ch.SickRate
	}
	if ch.SetNetPay {
		if ch.NetPayAccount != nil {
			if err := p.books.KnownAccounts(ctx, company, []string{*ch.NetPayAccount}); err != nil {
				return old, err
			}
		}
		s.NetPayAccount = ch.NetPayAccount
	}
	for i, dst := range []**string{&s.ContactName, &s.ContactPhone, &s.ContactEmail} {
		if ch.SetContact[i] {
			*dst = ch.Contact[i]
		}
	}
	if _, err := p.db.Q(ctx).ExecContext(ctx, `INSERT INTO salary_settings (company_id, pay_day, deviation_period,
			sick_rate, net_pay_account, agi_contact_name, agi_contact_phone, agi_contact_email)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (company_id) DO UPDATE SET pay_day = EXCLUDED.pay_day, deviation_period = EXCLUDED.deviation_period,
			sick_rate = EXCLUDED.sick_rate, net_pay_account = EXCLUDED.net_pay_account,
			agi_contact_name = EXCLUDED.agi_contact_name, agi_contact_phone = EXCLUDED.agi_contact_phone,
			agi_contact_email = EXCLUDED.agi_contact_email, updated_at = now()`,
		company, s.PayDay, s.DeviationPeriod, s.SickRate, s.NetPayAccount, s.ContactName, s.ContactPhone,
		s.ContactEmail); err != nil {
		return old, err
	}
	if ch.SetSeries {
		if err := p.books.SetSeries(ctx, company, ch.Series); err != nil {
			return old, err
		}
	}
	if err := p.record(ctx, company, audit.Update, "salary_settings", company.String(), "Löneinställningarna ändrades",
		old, s); err != nil {
		return old, err
	}
	return p.Settings(ctx, company)
}
