package payroll

import (
	"context"
	"fmt"
	"sync"

	"github.com/kontera/kontera/internal/store"
)

// SourceURL is where Skatteverket publishes the month tables as open
// data; a load names the file it came from, this by default.
const SourceURL = "https://www.skatteverket.se/ (Skattetabeller, allmanna-tabeller-manad.txt)"

// LoadTaxTables checks one year's month tables and stores the file as
// published: every table 29–42 present, each covering every income. The
// newest load of a year is the one calculations use; a file already
// loaded is not stored twice.
func LoadTaxTables(ctx context.Context, db *store.DB, year int, raw []byte, source string) (*TaxTables, error) {
	if year < 2020 || year > 2100 {
		return nil, fmt.Errorf("year %d is outside 2020–2100", year)
	}
	t, err := ParseTaxTables(raw, year, source)
	if err != nil {
		return nil, err
	}
	for no := MinTable; no <= MaxTable; no++ {
		if _, ok := t.tables[no]; !ok {
			return nil, fmt.Errorf("table %d is missing: load the whole month-table file", no)
		}
	}
	_, err = db.Q(ctx).ExecContext(ctx, `INSERT INTO payroll_tax_tables (year, sha256, source, body, row_count)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (year, sha256) DO NOTHING`, year, t.SHA256, source, raw, t.Rows())
	return t, err
}

// tableCache keeps the parsed tables of each year, read again only when a
// newer file has been loaded.
type tableCache struct {
	db     *store.DB
	mu     sync.Mutex
	byYear map[int]*TaxTables
}

func newTableCache(db *store.DB) *tableCache {
	return &tableCache{db: db, byYear: map[int]*TaxTables{}}
}

// For answers the year's tables, nil when none are loaded.
func (c *tableCache) For(ctx context.Context, year int) (*TaxTables, error) {
	var head []struct {
		SHA    string `db:"sha256"`
		Source string `db:"source"`
	}
	if err := c.db.Q(ctx).SelectContext(ctx, &head, `SELECT sha256, source FROM payroll_tax_tables WHERE year = $1
		ORDER BY loaded_at DESC LIMIT 1`, year); err != nil || len(head) == 0 {
		return nil, err
	}
	c.mu.Lock()
	t := c.byYear[year]
	c.mu.Unlock()
	if t != nil && t.SHA256 == head[0].SHA {
		return t, nil
	}
	var raw []byte
	if err := c.db.Q(ctx).GetContext(ctx, &raw, `SELECT body FROM payroll_tax_tables WHERE year = $1 AND sha256 = $2`,
		year, head[0].SHA); err != nil {
		return nil, err
	}
	t, err := ParseTaxTables(raw, year, head[0].Source)
	if err != nil {
		return nil, fmt.Errorf("payroll: the stored %d tables no longer read: %w", year, err)
	}
	c.mu.Lock()
	c.byYear[year] = t
	c.mu.Unlock()
	return t, nil
}
