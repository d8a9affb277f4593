package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/store"
)

// Settings are the company's ledger settings as stored: its form and the
// columns of company_settings a posting is checked against. The company
// package owns the tables and reads them with SettingsColumns; the
// ledger reads them too, in its one query per posting (readBooks).
type Settings struct {
	EntityType        string     `db:"entity_type"`
	LockedThrough     *time.Time `db:"bookkeeping_locked_through"`
	DefaultSeries     *string    `db:"default_voucher_series"`
	PerSource         *string    `db:"per_source"`
	DimensionsEnabled *bool      `db:"dimensions_enabled"`
}

// SettingsColumns selects Settings from companies c joined with
// company_settings s.
const SettingsColumns = `c.entity_type, s.bookkeeping_locked_through, s.default_voucher_series,
	s.default_voucher_series_per_source_type::text AS per_source, s.dimensions_enabled`

// Company is what the settings mean to the ledger.
func (s Settings) Company() Company {
	c := Company{EntityType: s.EntityType, LockedThrough: s.LockedThrough, DefaultSeries: s.DefaultSeries,
		DimensionsEnabled: s.DimensionsEnabled != nil && *s.DimensionsEnabled}
	if s.PerSource != nil {
		// A malformed map only loses its defaults; the series falls back to A.
		_ = json.Unmarshal([]byte(*s.PerSource), &c.SeriesPerSource)
	}
	return c
}

// books is what a posting is checked against: its period, the company's
// ledger settings, and which of the accounts it names the chart has,
// active or deactivated.
type books struct {
	period           fiscal.Period
	company          Company
	active, inactive []string
	// now is the transaction's clock, what now() answers in every
	// statement of it: the posted_at of an entry it posts.
	now time.Time
}

// readBooks reads books for a posting in period naming accounts, in one
// round trip; PERIOD_NOT_FOUND when the company has no such period. With
// day, the period is the one holding it (period is not read).
func (s *Store) readBooks(ctx context.Context, company, period uuid.UUID, day *time.Time, accounts []string) (books, error) {
	var covering *string
	if day != nil {
		d := day.Format(time.DateOnly)
		covering = &d
	}
	var row struct {
		fiscal.Period
		Settings
		Active   pq.StringArray `db:"active_accounts"`
		Inactive pq.StringArray `db:"inactive_accounts"`
		Now      time.Time      `db:"tx_now"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &row, `
		SELECT p.*, s.*, a.*, now() AS tx_now
		FROM (SELECT `+fiscal.Columns+` FROM fiscal_periods WHERE company_id = $1
			AND CASE WHEN $4::date IS NULL THEN id = $2 ELSE $4::date BETWEEN period_start AND period_end END) p
		CROSS JOIN (SELECT `+SettingsColumns+` FROM companies c JOIN company_settings s ON s.company_id = c.id
			WHERE c.id = $1) s
		CROSS JOIN (SELECT coalesce(array_agg(account_number) FILTER (WHERE is_active), '{}') AS active_accounts,
				coalesce(array_agg(account_number) FILTER (WHERE NOT is_active), '{}') AS inactive_accounts
			FROM accounts WHERE company_id = $1 AND account_number = ANY($3)) a`, company, period, pq.Array(accounts), covering)
	if store.NotFound(err) {
		return books{}, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": period})
	}
	if err != nil {
		return books{}, err
	}
	return books{period: row.Period, company: row.Settings.Company(), active: row.Active, inactive: row.Inactive,
		now: row.Now}, nil
}
