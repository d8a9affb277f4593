package banking

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/store"
)

const importColumns = `company_id, id, operation_id, file_name, content, sha256, encoding, format, cash_account_id,
	ledger_account, status, ingested, duplicates, from_date, to_date, note, created_at, completed_at, undone_at`

// InsertImport keeps the bank file of import im.
func (s *Store) InsertImport(ctx context.Context, im Import) (Import, error) {
	err := s.db.Q(ctx).GetContext(ctx, &im, `INSERT INTO bank_file_imports (company_id, id, operation_id, file_name,
			content, sha256, encoding, format, cash_account_id, ledger_account, from_date, to_date, note)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING `+importColumns,
		im.CompanyID, im.ID, im.OperationID, im.FileName, im.Content, im.SHA256, im.Encoding, im.Format, im.CashAccountID,
		im.LedgerAccount, store.DayOrNil(im.From), store.DayOrNil(im.To), im.Note)
	return im, err
}

// Import reads import id, locked for a change when lock. A queued
// import's status is its operation's: running, or failed (its work
// rolled back with it, so the row itself stays queued).
func (s *Store) Import(ctx context.Context, company, id uuid.UUID, lock bool) (Import, error) {
	q := `SELECT company_id, id, operation_id, file_name, content, sha256, encoding, format, cash_account_id,
			ledger_account, CASE WHEN status = 'queued' THEN coalesce((SELECT o.status FROM operations o
				WHERE o.id = operation_id), status) ELSE status END AS status,
			ingested, duplicates, from_date, to_date, note, created_at, completed_at, undone_at
		FROM bank_file_imports WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var im Import
	err := s.db.Q(ctx).GetContext(ctx, &im, q, company, id)
	if store.NotFound(err) {
		return im, apierr.New(apierr.BankFileImportNotFound, map[string]any{"bank_file_import_id": id})
	}
	return im, err
}

// FinishImport records what import im added.
func (s *Store) FinishImport(ctx context.Context, im Import, ingested, duplicates int) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE bank_file_imports SET status = 'succeeded', ingested = $3,
		duplicates = $4, completed_at = now() WHERE company_id = $1 AND id = $2`, im.CompanyID, im.ID, ingested, duplicates)
	return err
}

// UndoImport deletes the transactions import im added that were never
// booked, marks it undone, and answers how many went and how many stayed
// booked or with a booking history.
func (s *Store) UndoImport(ctx context.Context, im Import) (deleted, booked, history int, err error) {
	err = s.db.Q(ctx).QueryRowxContext(ctx, `WITH gone AS (
			DELETE FROM bank_transactions WHERE company_id = $1 AND bank_file_import_id = $2
				AND journal_entry_id IS NULL AND NOT was_booked RETURNING 1),
		kept AS (SELECT count(*) FILTER (WHERE journal_entry_id IS NOT NULL) AS booked,
				count(*) FILTER (WHERE journal_entry_id IS NULL AND was_booked) AS history
			FROM bank_transactions WHERE company_id = $1 AND bank_file_import_id = $2),
		done AS (UPDATE bank_file_imports SET status = 'undone', undone_at = now() WHERE company_id = $1 AND id = $2)
		SELECT (SELECT count(*) FROM gone), kept.booked, kept.history FROM kept`, im.CompanyID, im.ID).
		Scan(&deleted, &booked, &history)
	return deleted, booked, history, err
}

// CopyTransactions stores a bank file's rows on at as InsertTransactions
// does, at the speed of COPY: the rows stream into a staging table of the
// transaction, then the same INSERT … ON CONFLICT DO NOTHING adds those
// the account does not have yet, in the file's order (the first of two
// rows with one external id is kept). It answers the ids added. It runs
// in the unit of work of ctx (the import's operation), whose end drops
// the stage.
func (s *Store) CopyTransactions(ctx context.Context, company uuid.UUID, at Settlement, source string, rows []Ingested) ([]uuid.UUID, error) {
	u := store.UnitFrom(ctx)
	if u == nil {
		return nil, errors.New("banking: a bank file is copied in a unit of work")
	}
	if _, err := u.Tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS bank_file_stage (
			n integer, id uuid, date date, description text, amount numeric(14, 2), currency text, external_id text,
			mcc_code text, merchant_name text, reference text, counterparty_account text, import_source text,
			search_text text) ON COMMIT DROP;
		TRUNCATE bank_file_stage`); err != nil {
		return nil, err
	}
	stmt, err := u.Tx.PrepareContext(ctx, pq.CopyIn("bank_file_stage", "n", "id", "date", "description", "amount",
		"currency", "external_id", "mcc_code", "merchant_name", "reference", "counterparty_account", "import_source",
		"search_text"))
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, r := range rows {
		v, err := staged(r, source)
		if err != nil {
			return nil, err
		}
		if _, err := stmt.ExecContext(ctx, i, v.ID, v.Date, v.Description, v.Amount, v.Currency, v.ExternalID, v.MCC,
			v.Merchant, v.Reference, v.CounterpartyAccount, v.ImportSource, v.Search); err != nil {
			return nil, err
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return nil, err
	}
	ids := []uuid.UUID{}
	err = s.db.Q(ctx).SelectContext(ctx, &ids, insertStaged+`(SELECT * FROM bank_file_stage ORDER BY n) AS r`+insertStagedEnd,
		company, at.CashAccountID, at.LedgerAccount, at.ImportID)
	return ids, err
}
