package reconciliation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
)

// Row statuses of an import.
const (
	RowAdded     = "added"
	RowDuplicate = "duplicate"
	RowDrawn     = "drawn"
)

// ImportedRow is a statement row and what the import made of it.
type ImportedRow struct {
	StatementRow
	Status string
	ID     *uuid.UUID
}

// TaxImport is what a skattekonto import did (or would do).
type TaxImport struct {
	Statement    Statement
	Rows         []ImportedRow
	Added, Dup   int
	Drawn        int
	OpeningAdded bool
	// Saldo is the account's saldo after the last drawn row, HistoryStart
	// the day its history starts.
	Saldo        money.Amount
	HistoryStart time.Time
}

// rowKey is what a re-import knows a row by: its day, amount and text,
// and which of alike rows of that day it is.
func rowKey(r StatementRow, n int) string {
	prefix := ""
	if r.Upcoming {
		prefix = "u|"
	}
	return fmt.Sprintf("%s%s|%s|%s|%d", prefix, r.Date.Format(time.DateOnly), r.Amount, truncate(r.Description, 500), n)
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// ImportStatement reads a skattekonto file and adds the rows not stored
// yet: an overlapping re-import adds only what is new, a coming debit
// stored earlier becomes drawn when the file shows it drawn. The saldo of
// every day the file states must agree with the stored rows and the new
// ones together, else SKATTEKONTO_SALDO_CONFLICT and nothing is written.
func (r *Reconciler) ImportStatement(ctx context.Context, company uuid.UUID, raw []byte) (TaxImport, error) {
	st, err := ParseStatement(raw)
	if err != nil {
		return TaxImport{}, err
	}
	if err := r.store.LockTaxAccount(ctx, company); err != nil {
		return TaxImport{}, err
	}
	stored, err := r.store.TaxRows(ctx, company)
	if err != nil {
		return TaxImport{}, err
	}
	out := TaxImport{Statement: st}
	byKey := map[string]TaxRow{}
	for _, t := range stored {
		byKey[t.Key] = t
	}
	opening := firstOpening(stored)
	var adds []TaxRow
	var draws []struct {
		id    uuid.UUID
		day   time.Time
		saldo money.Amount
		key   string
	}
	drawn := map[uuid.UUID]time.Time{}
	if st.Opening != nil && (opening == nil || st.Opening.Date.Before(opening.Date)) {
		adds = append(adds, TaxRow{Date: st.Opening.Date, Description: "Ingående saldo", Saldo: &st.Opening.Saldo, Kind: "opening",
			Source: "skatteverket_file", Key: "opening|" + st.Opening.Date.Format(time.DateOnly)})
		out.OpeningAdded = true
	}
	seen := map[string]int{}
	for _, row := range st.Rows {
		base := rowKey(row, 0)
		n := seen[base]
		seen[base]++
		key := rowKey(row, n)
		ir := ImportedRow{StatementRow: row, Status: RowAdded}
		if t, ok := byKey[key]; ok {
			if t.Saldo != nil && row.Saldo != nil && t.Saldo.Cmp(*row.Saldo) != 0 {
				return out, conflict(row, *t.Saldo, *row.Saldo)
			}
			ir.Status, ir.ID = RowDuplicate, &t.ID
			out.Dup++
			out.Rows = append(out.Rows, ir)
			continue
		}
		if row.Upcoming {
			// A coming debit drawn already is no news.
			if t, ok := drawnAlike(stored, row); ok {
				ir.Status, ir.ID = RowDuplicate, &t.ID
				out.Dup++
				out.Rows = append(out.Rows, ir)
				continue
			}
		} else if t, ok := comingAlike(stored, row, drawn); ok {
			drawn[t.ID] = row.Date
			draws = append(draws, struct {
				id    uuid.UUID
				day   time.Time
				saldo money.Amount
				key   string
			}{t.ID, row.Date, *row.Saldo, key})
			ir.Status, ir.ID = RowDrawn, &t.ID
			out.Drawn++
			out.Rows = append(out.Rows, ir)
			continue
		}
		adds = append(adds, TaxRow{Date: row.Date, Description: truncate(row.Description, 500), Amount: row.Amount,
			Saldo: row.Saldo, Kind: "row", Upcoming: row.Upcoming, Source: "skatteverket_file", Key: key})
		out.Rows = append(out.Rows, ir)
	}
	// Every day the file states a saldo for must agree with all rows
	// together.
	union := slices.Clone(stored)
	for i := range union {
		if d, ok := drawn[union[i].ID]; ok {
			union[i].Upcoming, union[i].Date = false, d
		}
	}
	union = append(union, adds...)
	// A day the file shows only part of (stored rows of it missing from
	// the file, and nothing new) states no end-of-day saldo to check. A
	// day the file gives a row the books lack while rows the books hold
	// of it are missing from it contradicts them: its saldo is checked
	// against them all, and conflicts.
	added := map[string]bool{}
	for _, ir := range out.Rows {
		if ir.Status == RowAdded && !ir.Upcoming {
			added[dayKey(ir.Date)] = true
		}
	}
	partial := map[string]bool{}
	inFile := map[uuid.UUID]bool{}
	for _, ir := range out.Rows {
		if ir.ID != nil {
			inFile[*ir.ID] = true
		}
	}
	fileDays := map[string]bool{}
	for _, row := range st.Rows {
		fileDays[dayKey(row.Date)] = true
	}
	for _, t := range stored {
		if t.Kind == "row" && !t.Upcoming && fileDays[dayKey(t.Date)] && !inFile[t.ID] && !added[dayKey(t.Date)] {
			partial[dayKey(t.Date)] = true
		}
	}
	var whole []StatementRow
	for _, row := range st.Rows {
		if !partial[dayKey(row.Date)] {
			whole = append(whole, row)
		}
	}
	if err := checkSaldos(union, whole); err != nil {
		return out, err
	}
	inserted, err := r.store.InsertTaxRows(ctx, company, adds)
	if err != nil {
		return out, err
	}
	ids := map[string]uuid.UUID{}
	for _, t := range inserted {
		ids[t.Key] = t.ID
	}
	// Ids of added rows, in file order (keys are unique per file).
	seen = map[string]int{}
	for i := range out.Rows {
		row := out.Rows[i].StatementRow
		base := rowKey(row, 0)
		n := seen[base]
		seen[base]++
		if out.Rows[i].Status == RowAdded {
			id := ids[rowKey(row, n)]
			out.Rows[i].ID = &id
			out.Added++
		}
	}
	for _, d := range draws {
		if err := r.store.DrawTaxRow(ctx, company, d.id, d.day, d.saldo, d.key); err != nil {
			return out, err
		}
	}
	out.Saldo, out.HistoryStart = saldoOf(union)
	if out.Added+out.Drawn > 0 || out.OpeningAdded {
		if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "skattekonto_transactions",
			Description: fmt.Sprintf("Skattekontoutdrag importerat: %d nya rader, %d dragna, %d redan kända", out.Added,
				out.Drawn, out.Dup),
			New: audit.Of(map[string]any{"added": out.Added, "drawn": out.Drawn, "duplicates": out.Dup,
				"opening_added": out.OpeningAdded, "saldo": out.Saldo})}); err != nil {
			return out, err
		}
		if err := r.queue(ctx, company, Key{Kind: KindSkattekonto}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// drawnAlike finds a stored drawn row of a coming debit's day and amount.
func drawnAlike(stored []TaxRow, row StatementRow) (TaxRow, bool) {
	for _, t := range stored {
		if t.Kind == "row" && !t.Upcoming && t.Date.Equal(row.Date) && t.Amount.Cmp(row.Amount) == 0 {
			return t, true
		}
	}
	return TaxRow{}, false
}

// comingAlike finds the stored coming debit a drawn row is: the same
// amount, due within three days of the day it was drawn, the nearest.
func comingAlike(stored []TaxRow, row StatementRow, taken map[uuid.UUID]time.Time) (TaxRow, bool) {
	best, gap := -1, 4
	for i, t := range stored {
		_, took := taken[t.ID]
		if d := abs(dayNumber(t.Date) - dayNumber(row.Date)); t.Upcoming && !took && d < gap &&
			t.Amount.Cmp(row.Amount) == 0 {
			best, gap = i, d
		}
	}
	if best < 0 {
		return TaxRow{}, false
	}
	return stored[best], true
}

// checkSaldos checks that for every day of file rows with a saldo, the
// opening and every drawn row through the day make the saldo the file
// states at the day's end.
func checkSaldos(all []TaxRow, file []StatementRow) error {
	opening := firstOpening(all)
	if opening == nil {
		return nil
	}
	stated := map[string][]StatementRow{}
	for _, f := range file {
		if !f.Upcoming && f.Saldo != nil {
			stated[dayKey(f.Date)] = append(stated[dayKey(f.Date)], f)
		}
	}
	// Stored opening saldos later than the first must agree too: the
	// saldo at the end of the day before.
	for _, t := range all {
		if t.Kind == "opening" && t.Date.After(opening.Date) {
			d := dayKey(t.Date.AddDate(0, 0, -1))
			stated[d] = append(stated[d], StatementRow{Date: t.Date, Saldo: t.Saldo, Description: "Ingående saldo"})
		}
	}
	days := make([]string, 0, len(stated))
	for d := range stated {
		days = append(days, d)
	}
	slices.Sort(days)
	for _, d := range days {
		want := *opening.Saldo
		for _, t := range all {
			if t.Kind == "row" && !t.Upcoming && dayKey(t.Date) <= d {
				want = want.Add(t.Amount)
			}
		}
		// The day's last row (rows are oldest first) states its end.
		if last := stated[d][len(stated[d])-1]; last.Saldo.Cmp(want) != 0 {
			return conflict(last, want, *last.Saldo)
		}
	}
	return nil
}

// dayKey is a day as text: map keys of days read from files and from the
// database alike (their locations differ).
func dayKey(t time.Time) string { return t.Format(time.DateOnly) }

func conflict(row StatementRow, stored, file money.Amount) error {
	d := map[string]any{"date": row.Date.Format(time.DateOnly), "stored_saldo": stored, "file_saldo": file,
		"description": row.Description}
	if row.Line > 0 {
		d["line"] = row.Line
	}
	return apierr.New(apierr.SkattekontoSaldoConflict, d)
}

// firstOpening is the earliest Ingående saldo of rows, where the history
// starts; nil without one.
func firstOpening(rows []TaxRow) *TaxRow {
	var out *TaxRow
	for i, t := range rows {
		if t.Kind == "opening" && (out == nil || t.Date.Before(out.Date)) {
			out = &rows[i]
		}
	}
	return out
}

// saldoOf is the saldo after the last drawn row, and the first day.
func saldoOf(all []TaxRow) (money.Amount, time.Time) {
	opening := firstOpening(all)
	if opening == nil {
		return money.Amount{}, time.Time{}
	}
	s := *opening.Saldo
	for _, t := range all {
		if t.Kind == "row" && !t.Upcoming {
			s = s.Add(t.Amount)
		}
	}
	return s, opening.Date
}

// within are the rows dated from..to (nil: unbounded), in their order.
func within(rows []TaxRow, from, to *time.Time) []TaxRow {
	out := []TaxRow{}
	for _, t := range rows {
		if from != nil && t.Date.Before(*from) || to != nil && t.Date.After(*to) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// ManualRow is a skattekonto row added by hand.
type ManualRow struct {
	Date        time.Time
	Description string
	Amount      money.Amount
	Saldo       *money.Amount
}

// AddTaxRow adds a row by hand. The first row of an account without
// history starts it (its saldo less its amount, or 0, is the opening); a
// saldo given must be what the opening and the rows through its day make,
// else SKATTEKONTO_SALDO_CONFLICT.
func (r *Reconciler) AddTaxRow(ctx context.Context, company uuid.UUID, m ManualRow) (TaxRow, error) {
	if strings.TrimSpace(m.Description) == "" {
		return TaxRow{}, apierr.Field("description", "min_length", "a row says what it is")
	}
	if err := r.store.LockTaxAccount(ctx, company); err != nil {
		return TaxRow{}, err
	}
	stored, err := r.store.TaxRows(ctx, company)
	if err != nil {
		return TaxRow{}, err
	}
	k := Key{Kind: KindSkattekonto}
	if err := r.frozen(ctx, company, k, m.Date, uuid.Nil); err != nil {
		return TaxRow{}, err
	}
	var adds []TaxRow
	_, start := saldoOf(stored)
	if start.IsZero() {
		o := money.Amount{}
		if m.Saldo != nil {
			o = m.Saldo.Sub(m.Amount)
		}
		adds = append(adds, TaxRow{Date: m.Date, Description: "Ingående saldo", Saldo: &o, Kind: "opening", Source: "manual",
			Key: "opening|" + m.Date.Format(time.DateOnly)})
	} else if m.Date.Before(start) {
		return TaxRow{}, apierr.Validation(apierr.Issue{Field: "date", In: "body", Rule: "after_history_start",
			Issue: "the skattekonto's history starts " + start.Format(time.DateOnly)})
	}
	row := TaxRow{Date: m.Date, Description: m.Description, Amount: m.Amount, Saldo: m.Saldo, Kind: "row", Source: "manual",
		Key: "manual|" + uuid.Must(uuid.NewV7()).String()}
	adds = append(adds, row)
	if m.Saldo != nil {
		if err := checkSaldos(append(slices.Clone(stored), adds...), []StatementRow{{Date: m.Date, Saldo: m.Saldo,
			Description: m.Description}}); err != nil {
			return TaxRow{}, err
		}
	}
	inserted, err := r.store.InsertTaxRows(ctx, company, adds)
	if err != nil {
		return TaxRow{}, err
	}
	row = inserted[len(inserted)-1]
	if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "skattekonto_transactions",
		RecordID: row.ID.String(), Description: "Skattekontorad tillagd för hand", New: audit.Of(row)}); err != nil {
		return row, err
	}
	return row, r.queue(ctx, company, k)
}

// DeleteTaxRow deletes a row added by hand that no link holds.
func (r *Reconciler) DeleteTaxRow(ctx context.Context, company, id uuid.UUID) (TaxRow, error) {
	row, err := r.store.TaxRow(ctx, company, id, true)
	if err != nil {
		return row, err
	}
	if row.Source != "manual" || row.Kind != "row" {
		return row, apierr.New(apierr.Conflict, map[string]any{"reason": "from_skatteverket", "id": id,
			"hint": "rows from Skatteverket's statement stay; ignore the row instead"})
	}
	if err := r.frozen(ctx, company, Key{Kind: KindSkattekonto}, row.Date, id); err != nil {
		return row, err
	}
	linked, err := r.store.ActiveFor(ctx, company, []uuid.UUID{id})
	if err != nil {
		return row, err
	}
	if linked[id] {
		return row, apierr.New(apierr.Conflict, map[string]any{"reason": "row_linked", "id": id,
			"hint": "unlink the row first (DELETE …/reconciliation/accounts/skattekonto/links/{linkId})"})
	}
	if err := r.store.DeleteTaxRow(ctx, company, id); err != nil {
		return row, err
	}
	return row, r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Delete, Table: "skattekonto_transactions",
		RecordID: id.String(), Description: "Skattekontorad borttagen", Old: audit.Of(row)})
}
