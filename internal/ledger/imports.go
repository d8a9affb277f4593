package ledger

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/fiscal"
)

// Imported returns up to limit of the entries import wrote in period
// (nil: any) that still stand (not reversed, not themselves a storno),
// with their current lines, last voucher first, before (series, number)
// when before is set: what its undo reverses next. The walk goes down
// the import's index from where the last page ended, not over what it
// reversed already.
func (s *Store) Imported(ctx context.Context, company, imp uuid.UUID, period *uuid.UUID, before *Position, limit int) ([]Entry, error) {
	// sqlx appends row by row; room made up front spares regrowing a
	// slice of large structs (a tenth of an undo's CPU).
	out := make([]Entry, 0, min(limit, 10000))
	// The bound is written only when there is one: "$3 IS NULL OR (…) <
	// (…)" is no index condition in a generic plan, and each page then
	// walked down from the top past every storno and reversed original
	// of the pages before it.
	q := `SELECT ` + entryColumns + ` FROM journal_entries
		WHERE company_id = $1 AND import_id = $2 AND reverses_id IS NULL AND reversed_by_id IS NULL
		  AND ($4::uuid IS NULL OR fiscal_period_id = $4)`
	args := []any{company, imp, limit, period}
	if before != nil {
		q += ` AND (voucher_series, voucher_number) < ($5, $6)`
		args = append(args, before.Series, before.Number)
	}
	q += ` ORDER BY voucher_series DESC, voucher_number DESC LIMIT $3`
	if err := s.db.Q(ctx).SelectContext(ctx, &out, q, args...); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(out))
	at := make(map[uuid.UUID]int, len(out))
	for i, e := range out {
		ids[i], at[e.ID] = e.ID, i
	}
	lines := make([]struct {
		Entry uuid.UUID `db:"journal_entry_id"`
		Line
	}, 0, 4*len(out))
	if err := s.db.Q(ctx).SelectContext(ctx, &lines, `SELECT journal_entry_id, `+lineColumns+` FROM journal_lines
		WHERE company_id = $1 AND journal_entry_id = ANY($2) AND struck_by_rattelse_id IS NULL
		ORDER BY journal_entry_id, sort_order`, company, pq.Array(ids)); err != nil {
		return nil, err
	}
	for _, l := range lines {
		e := &out[at[l.Entry]]
		e.Lines = append(e.Lines, l.Line)
	}
	return out, nil
}

// Position is a voucher's place in its year: series and number.
type Position struct {
	Series string `json:"series"`
	Number int    `json:"number"`
}

// ImportCorrections lists (the first 100, in voucher order) the entries
// import wrote that something other than the import itself reversed or
// corrected inline since: a storno or correction from the API, or a
// rättelse not the file's own. It starts from the few such changes, not
// from the import's many entries, so it stays quick after the largest
// import.
func (s *Store) ImportCorrections(ctx context.Context, company, imp uuid.UUID) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT id FROM (
			SELECT e.id, e.voucher_series, e.voucher_number FROM journal_entries r
			JOIN journal_entries e ON e.company_id = r.company_id AND e.id = r.reverses_id
			WHERE r.company_id = $1 AND r.reverses_id IS NOT NULL AND r.import_id IS DISTINCT FROM $2 AND e.import_id = $2
			UNION
			SELECT e.id, e.voucher_series, e.voucher_number FROM journal_rattelser x
			JOIN journal_entries e ON e.company_id = x.company_id AND e.id = x.journal_entry_id
			WHERE x.company_id = $1 AND x.source <> 'sie_import' AND e.import_id = $2) c
		ORDER BY voucher_series, voucher_number LIMIT 100`, company, imp)
	return out, err
}

// ImportStanding counts the entries import wrote that still stand (not
// reversed, not themselves a storno): what its undo would reverse.
func (s *Store) ImportStanding(ctx context.Context, company, imp uuid.UUID) (int, error) {
	var n int
	err := s.db.Q(ctx).GetContext(ctx, &n, `SELECT count(*) FROM journal_entries
		WHERE company_id = $1 AND import_id = $2 AND reverses_id IS NULL AND reversed_by_id IS NULL`, company, imp)
	return n, err
}

// PostedIn counts the posted entries that stand in period (not reversed,
// not a storno) other than its opening balance, and names the imports
// that wrote any of them.
func (s *Store) PostedIn(ctx context.Context, company, period uuid.UUID) (int, []uuid.UUID, error) {
	var n int
	var imports pq.StringArray
	err := s.db.Q(ctx).QueryRowxContext(ctx, `SELECT count(*),
			coalesce(array_agg(DISTINCT import_id::text) FILTER (WHERE import_id IS NOT NULL), '{}')
		FROM journal_entries WHERE company_id = $1 AND fiscal_period_id = $2 AND status = 'posted'
		  AND source_type <> 'opening_balance' AND reversed_by_id IS NULL AND reverses_id IS NULL`,
		company, period).Scan(&n, &imports)
	out := make([]uuid.UUID, 0, len(imports))
	for _, id := range imports {
		out = append(out, uuid.MustParse(id))
	}
	return n, out, err
}

// Opening returns the opening balance that stands in period, nil when
// none does.
func (s *Store) Opening(ctx context.Context, company, period uuid.UUID) (*Entry, error) {
	ib, err := s.current(ctx, company, period, SourceOpeningBalance, nil)
	if err != nil || len(ib) == 0 {
		return nil, err
	}
	return &ib[0], nil
}

// OpeningSettable refuses an opening balance for p where the year before
// fixes it (OB_PREVIOUS_YEAR_CLOSED, OB_PREVIOUS_YEAR_IN_BOOKS).
func (s *Store) OpeningSettable(ctx context.Context, company uuid.UUID, p fiscal.Period) error {
	return s.openingSettable(ctx, company, p)
}

// StrikeImported records, on the posted entry id an import wrote, the
// corrections its file carries: lines struck afterwards (SIE #BTRANS) and
// lines added afterwards (#RTRANS), as a rättelse of source sie_import
// with the file's signature. The entry was posted as it first stood.
func (s *Store) StrikeImported(ctx context.Context, company, id uuid.UUID, strike []uuid.UUID, add []Line, signature *string) error {
	for i := range add {
		add[i].ID = newID()
	}
	var next int
	if err := s.db.Q(ctx).GetContext(ctx, &next, `SELECT coalesce(max(sort_order) + 1, 0) FROM journal_lines
		WHERE company_id = $1 AND journal_entry_id = $2`, company, id); err != nil {
		return err
	}
	for i := range add {
		add[i].SortOrder = next + i
	}
	aj, _ := json.Marshal(lineSnapshots(add))
	log, err := s.logRattelse(ctx, company, Rattelse{EntryID: id, Type: "lines", AddedLines: aj, Source: "sie_import",
		ExternalSignature: signature}, strike)
	if err != nil {
		return err
	}
	if len(strike) > 0 {
		if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE journal_lines SET struck_by_rattelse_id = $3
			WHERE company_id = $1 AND id = ANY($2)`, company, pq.Array(strike), log.ID); err != nil {
			return dbError(err)
		}
	}
	if len(add) > 0 {
		if _, err := s.insertLines(ctx, company, id, add, &log.ID); err != nil {
			return err
		}
	}
	return nil
}

// LastNumbers returns the last voucher number taken in each series of
// period.
func (s *Store) LastNumbers(ctx context.Context, company, period uuid.UUID) (map[string]int, error) {
	var rows []struct {
		Series string `db:"voucher_series"`
		Last   int    `db:"last_number"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT voucher_series, last_number FROM voucher_sequences
		WHERE company_id = $1 AND fiscal_period_id = $2`, company, period)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Series] = r.Last
	}
	return out, err
}
