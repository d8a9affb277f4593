package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/openapi"
)

// BatchSize is how many verifikationer a caller should hand PostBatch at
// a time: big enough that the per-statement checks cost little per
// entry, small enough that a chunk commits in well under a second.
const BatchSize = 5000

// BatchEntry is one verifikat for PostBatch.
type BatchEntry struct {
	Input
	// Number is the voucher number the entry must have (a file's own);
	// above the series' last, and gaps allowed only for source type
	// import. 0: the ledger numbers it after the series' last.
	Number int
	// Import is the import that writes the entry, if any: its undo finds
	// what it wrote by it.
	Import *uuid.UUID
}

// PostBatch posts entries, born posted, in the unit of work of ctx: the
// bulk door for imports and their undo. The entries and their lines go
// in with one COPY each, and the database checks them as a set with
// the single path's rules (dates, period, lock date, numbers, balance,
// accounts, stornos); the ledger numbers the unnumbered once per series.
// Each entry needs its PeriodID. The dimension register's rules are not
// applied: a batch carries books kept elsewhere, whose tags the caller
// has put in the register. journal_entry.committed is announced for
// each entry, and the batch is audited as one change.
func (s *Store) PostBatch(ctx context.Context, company uuid.UUID, entries []BatchEntry) ([]Entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	out := make([]Entry, len(entries))
	periods := map[uuid.UUID]bool{}
	for i := range entries {
		in := &entries[i].Input
		if err := Check(in, true); err != nil {
			return nil, batchError(err, i, entries[i])
		}
		if in.PeriodID == uuid.Nil || in.CorrectionOfID != nil {
			return nil, fmt.Errorf("ledger: batch entry %d needs its period and cannot be a correction", i)
		}
		if in.Series == "" {
			return nil, fmt.Errorf("ledger: batch entry %d needs its series", i)
		}
		periods[in.PeriodID] = true
	}
	now, last, err := s.lockSeries(ctx, company, periods)
	if err != nil {
		return nil, err
	}
	a := audit.ActorFrom(ctx)
	for i := range entries {
		b := &entries[i]
		n := b.Number
		if n == 0 {
			k := seriesKey{b.PeriodID, b.Series}
			last[k]++
			n = last[k]
		}
		id := b.ID
		if id == uuid.Nil {
			id = newID()
		}
		out[i] = Entry{ID: id, CompanyID: company, PeriodID: b.PeriodID, Series: b.Series, Number: n, Date: b.Date,
			Description: b.Description, Status: Posted, SourceType: b.SourceType, SourceID: b.SourceID, Notes: b.Notes,
			ReversesID: b.ReversesID, ChainDepth: b.ChainDepth, Counterparty: b.Counterparty, PostedAt: &now,
			CreatedAt: now, UpdatedAt: now,
			Poster: Poster{PostedByType: &a.Type, PostedByUserID: a.UserID, PostedByEmail: nonEmpty(a.Email),
				PostedByLabel: nonEmpty(a.Label)}}
		out[i].Lines = make([]Line, len(b.Lines))
		for j, l := range b.Lines {
			if l.ID == uuid.Nil {
				l.ID = newID()
			}
			out[i].Lines[j] = l
		}
	}
	imports := make([]*uuid.UUID, len(entries))
	for i, b := range entries {
		imports[i] = b.Import
	}
	if err := s.copyEntries(ctx, company, out, imports); err != nil {
		return nil, err
	}
	return out, s.recordBatch(ctx, company, out)
}

// batchError names the entry an input error is about.
func batchError(err error, i int, b BatchEntry) error {
	e, ok := apierr.As(err)
	if !ok {
		return err
	}
	d := map[string]any{}
	for k, v := range e.Details {
		d[k] = v
	}
	d["entry"] = i
	d["voucher_series"], d["voucher_number"] = b.Series, b.Number
	return apierr.New(e.Code, d)
}

type seriesKey struct {
	period uuid.UUID
	series string
}

// lockSeries takes the batch's periods for its transaction, so no single
// posting takes a number meanwhile (they hold a period FOR SHARE while
// they post), and answers the transaction's clock and each series' last
// number.
func (s *Store) lockSeries(ctx context.Context, company uuid.UUID, periods map[uuid.UUID]bool) (time.Time, map[seriesKey]int, error) {
	ids := make([]string, 0, len(periods))
	for p := range periods {
		ids = append(ids, p.String())
	}
	sort.Strings(ids)
	var rows []struct {
		Now    time.Time  `db:"now"`
		Period uuid.UUID  `db:"id"`
		Series *string    `db:"voucher_series"`
		Last   *int       `db:"last_number"`
		Found  *uuid.UUID `db:"found"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		WITH locked AS (SELECT id FROM fiscal_periods WHERE company_id = $1 AND id = ANY($2::uuid[])
			ORDER BY id FOR NO KEY UPDATE)
		SELECT now() AS now, l.id, l.id AS found, s.voucher_series, s.last_number
		FROM locked l LEFT JOIN voucher_sequences s ON s.company_id = $1 AND s.fiscal_period_id = l.id`,
		company, pq.Array(ids))
	if err != nil {
		return time.Time{}, nil, dbError(err)
	}
	found := map[uuid.UUID]bool{}
	last := map[seriesKey]int{}
	var now time.Time
	for _, r := range rows {
		now = r.Now
		found[r.Period] = true
		if r.Series != nil {
			last[seriesKey{r.Period, *r.Series}] = *r.Last
		}
	}
	for p := range periods {
		if !found[p] {
			return now, nil, apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": p})
		}
	}
	return now, last, nil
}

// copyEntries writes the entries, their lines and their events with one
// COPY each.
func (s *Store) copyEntries(ctx context.Context, company uuid.UUID, entries []Entry, imports []*uuid.UUID) error {
	_, err := s.db.Copy(ctx, "journal_entries", []string{"company_id", "id", "fiscal_period_id", "voucher_series",
		"voucher_number", "entry_date", "description", "status", "source_type", "source_id", "notes", "reverses_id",
		"chain_depth", "posted_at", "created_at", "updated_at", "posted_by_type", "posted_by_user_id", "posted_by_email",
		"posted_by_label", "counterparty_name", "counterparty_customer_id", "counterparty_supplier_id", "import_id"},
		func(put func(...any) error) error {
			for i, e := range entries {
				if err := put(company, e.ID, e.PeriodID, e.Series, e.Number, e.Date.Format(time.DateOnly), e.Description,
					string(Posted), e.SourceType, e.SourceID, e.Notes, e.ReversesID, e.ChainDepth, e.PostedAt, e.CreatedAt,
					e.UpdatedAt, e.PostedByType, e.PostedByUserID, e.PostedByEmail, e.PostedByLabel,
					e.Counterparty.CounterpartyName, e.Counterparty.CounterpartyCustomerID,
					e.Counterparty.CounterpartySupplierID, imports[i]); err != nil {
					return err
				}
			}
			return nil
		})
	if err != nil {
		return dbError(err)
	}
	_, err = s.db.Copy(ctx, "journal_lines", []string{"company_id", "journal_entry_id", "id", "sort_order",
		"account_number", "debit_amount", "credit_amount", "line_description", "currency", "amount_in_currency",
		"exchange_rate", "tax_code", "dimensions"},
		func(put func(...any) error) error {
			for _, e := range entries {
				for _, l := range e.Lines {
					dims, _ := l.Dimensions.Value()
					if err := put(company, e.ID, l.ID, l.SortOrder, l.Account, l.Debit, l.Credit, l.Description, l.Currency,
						l.AmountInCurrency, l.ExchangeRate, l.TaxCode, dims); err != nil {
						return err
					}
				}
			}
			return nil
		})
	if err != nil {
		return dbError(err)
	}
	_, err = s.db.Copy(ctx, "events", []string{"company_id", "id", "type", "payload", "api_version"},
		func(put func(...any) error) error {
			for _, e := range entries {
				body, err := json.Marshal(Snapshot(e))
				if err != nil {
					return err
				}
				if err := put(company, newID(), EventCommitted, string(body), openapi.APIVersion); err != nil {
					return err
				}
			}
			return nil
		})
	return dbError(err)
}

// recordBatch audits a batch as one change: how many entries, and which
// numbers of which series.
func (s *Store) recordBatch(ctx context.Context, company uuid.UUID, entries []Entry) error {
	type span struct{ From, To, Count int }
	spans := map[string]*span{}
	for _, e := range entries {
		sp := spans[e.Series]
		if sp == nil {
			spans[e.Series] = &span{e.Number, e.Number, 1}
			continue
		}
		sp.From, sp.To, sp.Count = min(sp.From, e.Number), max(sp.To, e.Number), sp.Count+1
	}
	series := make([]string, 0, len(spans))
	summary := map[string]any{}
	for k, sp := range spans {
		series = append(series, fmt.Sprintf("%s %d–%d", k, sp.From, sp.To))
		summary[k] = map[string]int{"from": sp.From, "to": sp.To, "count": sp.Count}
	}
	sort.Strings(series)
	b, _ := json.Marshal(map[string]any{"entries": len(entries), "source_type": entries[0].SourceType,
		"series": summary})
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Commit, Table: "journal_entries",
		RecordID: entries[0].ID.String(), New: b,
		Description: strconv.Itoa(len(entries)) + " verifikationer bokförda i en omgång (" + strings.Join(series, ", ") + ")"})
}
