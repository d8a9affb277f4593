package assets

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of assets and asset_depreciations.
type Store struct{ db *store.DB }

// NewStore returns the store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// read selects assets a with the depreciation booked on them.
const read = `SELECT a.*, coalesce((SELECT sum(d.amount) FROM asset_depreciations d
		WHERE d.company_id = a.company_id AND d.asset_id = a.id AND d.reversed_by IS NULL), 0) AS booked
	FROM assets a`

// List answers the company's assets by acquisition date: of status when
// given.
func (s *Store) List(ctx context.Context, company uuid.UUID, status string) ([]Asset, error) {
	out := []Asset{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, read+` WHERE a.company_id = $1 AND ($2 = '' OR a.status = $2)
		ORDER BY a.acquisition_date, a.id`, company, status)
	return out, err
}

// Get answers one asset, held FOR UPDATE when hold: ASSET_NOT_FOUND.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID, hold bool) (Asset, error) {
	q := read + ` WHERE a.company_id = $1 AND a.id = $2`
	if hold {
		q += ` FOR UPDATE OF a`
	}
	var a Asset
	err := s.db.Q(ctx).GetContext(ctx, &a, q, company, id)
	if store.NotFound(err) {
		return a, apierr.New(apierr.AssetNotFound, map[string]any{"asset_id": id})
	}
	return a, err
}

// Insert stores a new asset.
func (s *Store) Insert(ctx context.Context, a Asset) (Asset, error) {
	var out Asset
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH a AS (
			INSERT INTO assets (company_id, id, name, asset_class, acquisition_date, acquisition_value, asset_account,
				depreciation_account, cost_account, depreciation_method, useful_life_months, residual_value,
				depreciation_start, dimensions, journal_entry_id, supplier_invoice_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *)
		SELECT a.*, 0 AS booked FROM a`,
		a.CompanyID, a.ID, a.Name, a.Class, store.Day(a.AcquisitionDate), a.AcquisitionValue, a.AssetAccount,
		a.AccumulatedAccount, a.CostAccount, a.Method, a.LifeMonths, a.ResidualValue, store.Day(a.DepreciationStart),
		a.Dimensions, a.JournalEntryID, a.SupplierInvoiceID)
	return out, err
}

// Update stores a's changeable fields.
func (s *Store) Update(ctx context.Context, a Asset) (Asset, error) {
	var out Asset
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH a AS (
			UPDATE assets SET name = $3, acquisition_date = $4, acquisition_value = $5, asset_account = $6,
				depreciation_account = $7, cost_account = $8, useful_life_months = $9, residual_value = $10,
				depreciation_start = $11, dimensions = $12, updated_at = now()
			WHERE company_id = $1 AND id = $2 RETURNING *)
		SELECT a.*, $13::numeric AS booked FROM a`,
		a.CompanyID, a.ID, a.Name, store.Day(a.AcquisitionDate), a.AcquisitionValue, a.AssetAccount, a.AccumulatedAccount,
		a.CostAccount, a.LifeMonths, a.ResidualValue, store.Day(a.DepreciationStart), a.Dimensions, a.Booked)
	return out, err
}

// Delete removes an asset nothing was booked for.
func (s *Store) Delete(ctx context.Context, a Asset) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM assets WHERE company_id = $1 AND id = $2`, a.CompanyID, a.ID)
	return err
}

// Booked answers the months booked (not stornoed) per asset of the
// company.
func (s *Store) Booked(ctx context.Context, company uuid.UUID) (map[uuid.UUID]map[time.Time]bool, error) {
	var rows []struct {
		Asset uuid.UUID `db:"asset_id"`
		Month time.Time `db:"month"`
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT asset_id, month FROM asset_depreciations
		WHERE company_id = $1 AND reversed_by IS NULL`, company); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]map[time.Time]bool{}
	for _, r := range rows {
		if out[r.Asset] == nil {
			out[r.Asset] = map[time.Time]bool{}
		}
		out[r.Asset][r.Month.UTC()] = true
	}
	return out, nil
}

// Booking is a month of an asset booked, and the verifikat that did.
type Booking struct {
	Month   time.Time    `db:"month"`
	Amount  money.Amount `db:"amount"`
	EntryID uuid.UUID    `db:"journal_entry_id"`
}

// Bookings answers an asset's months booked (not stornoed), by month.
func (s *Store) Bookings(ctx context.Context, company, asset uuid.UUID) ([]Booking, error) {
	var out []Booking
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT month, amount, journal_entry_id FROM asset_depreciations
		WHERE company_id = $1 AND asset_id = $2 AND reversed_by IS NULL ORDER BY month`, company, asset)
	return out, err
}

// InsertDepreciation records rows, one month's, booked by entry.
func (s *Store) InsertDepreciation(ctx context.Context, company uuid.UUID, rows []Row, entry uuid.UUID) error {
	ids, amounts := make([]uuid.UUID, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		ids[i], amounts[i] = r.Asset, r.Amount.String()
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO asset_depreciations (company_id, asset_id, month, amount, journal_entry_id)
		SELECT $1, x.id, $3, x.amount, $4 FROM unnest($2::uuid[], $5::numeric[]) AS x(id, amount)`,
		company, pq.Array(ids), store.Day(rows[0].Month), entry, pq.Array(amounts))
	if store.UniqueViolation(err, "asset_depreciations_once") {
		return apierr.New(apierr.Conflict, map[string]any{"reason": "depreciated_meanwhile",
			"month": rows[0].Month.Format("2006-01")})
	}
	return err
}

// Dispose records a's disposal.
func (s *Store) Dispose(ctx context.Context, a Asset, d Disposal, entry uuid.UUID) (Asset, error) {
	var out Asset
	err := s.db.Q(ctx).GetContext(ctx, &out, `WITH a AS (
			UPDATE assets SET status = 'disposed', disposed_on = $3, disposal_price = $4, disposal_entry_id = $5,
				updated_at = now()
			WHERE company_id = $1 AND id = $2 RETURNING *)
		SELECT a.*, $6::numeric AS booked FROM a`, a.CompanyID, a.ID, store.Day(d.Date), d.Price, entry, a.Booked)
	return out, err
}

// Reversed follows a storno of a verifikat assets posted: the months it
// booked may be booked again, and an asset it disposed of is active.
func (s *Store) Reversed(ctx context.Context, company, orig, storno uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `
		WITH d AS (UPDATE asset_depreciations SET reversed_by = $3
			WHERE company_id = $1 AND journal_entry_id = $2 AND reversed_by IS NULL)
		UPDATE assets SET status = 'active', disposed_on = NULL, disposal_price = NULL, disposal_entry_id = NULL,
			updated_at = now()
		WHERE company_id = $1 AND disposal_entry_id = $2`, company, orig, storno)
	return err
}

// Owns says whether entry booked depreciation or a disposal.
func (s *Store) Owns(ctx context.Context, company, entry uuid.UUID) (bool, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT (SELECT count(*) FROM asset_depreciations
			WHERE company_id = $1 AND journal_entry_id = $2 AND reversed_by IS NULL)
		+ (SELECT count(*) FROM assets WHERE company_id = $1 AND disposal_entry_id = $2)`, company, entry)
	return n > 0, err
}

// AllBookings answers the company's months booked (not stornoed) per
// asset, by month.
func (s *Store) AllBookings(ctx context.Context, company uuid.UUID) (map[uuid.UUID][]Booking, error) {
	var rows []struct {
		Asset uuid.UUID `db:"asset_id"`
		Booking
	}
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT asset_id, month, amount, journal_entry_id FROM asset_depreciations
		WHERE company_id = $1 AND reversed_by IS NULL ORDER BY asset_id, month`, company); err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]Booking{}
	for _, r := range rows {
		out[r.Asset] = append(out[r.Asset], r.Booking)
	}
	return out, nil
}
