package ledger

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/store"
)

// Company is what the ledger needs to know of the company it books for.
type Company struct {
	EntityType string
	// LockedThrough is the company-wide lock date: nothing is posted on or
	// before it.
	LockedThrough   *time.Time
	DefaultSeries   *string
	SeriesPerSource map[string]string
	// DimensionsEnabled holds every line's dimension tags to the
	// company's dimension register.
	DimensionsEnabled bool
}

// DimensionCheck checks the dimension tags of lines dated day against the
// company's register: DIMENSION_VALIDATION_FAILED naming line and key.
type DimensionCheck func(ctx context.Context, company uuid.UUID, day time.Time, tags []Dimensions) error

// CompanyFunc reads the company's ledger settings in the transaction of
// ctx; the company package owns them.
type CompanyFunc func(ctx context.Context, company uuid.UUID) (Company, error)

// Store holds the SQL of the journal tables and runs the ledger's
// operations in the unit of work of their context.
type Store struct {
	db      *store.DB
	audit   *audit.Store
	chart   *chart.Store
	periods *fiscal.Store
	company CompanyFunc
	// Now is the clock the ledger reads "today" from (in Sweden); nil:
	// the wall clock.
	Now func() time.Time
	// Accruals are the invoice registers' accrued months (accrual.Book):
	// a period is not locked, nor its year ended or closed, while months
	// dated in it wait. Nil: nothing is accrued.
	Accruals AccrualBook
	// Registers are the registers whose items can be open at a year's
	// end: the year-end books kontantmetoden's open invoices (cut-off)
	// and revalues the foreign-currency items. Nil: none.
	Registers []Register
	// Rates are the closing days' rates of the revaluation (fx.Rates).
	Rates Rates
	// PeriodsChanged runs in the unit of work after the ledger opened a
	// fiscal year itself (at year-end): the company's tax deadlines follow
	// its years.
	PeriodsChanged func(ctx context.Context, company uuid.UUID) error
	// LockBlocked is the bank's word on a period lock: an error while
	// transactions dated from..to wait to be booked or ignored
	// (PERIOD_HAS_UNBOOKED_TRANSACTIONS). Nil: no bank listens.
	LockBlocked func(ctx context.Context, company uuid.UUID, from, to time.Time) error
	// ImportHold is the imports' word on fixing a year: an error while an
	// import still writes or undoes a year overlapping from..to (a lock,
	// close or year-end waits for it). Nil: nothing imports.
	ImportHold func(ctx context.Context, company uuid.UUID, from, to time.Time) error
	// CheckDimensions is the dimension register's check, run on the lines
	// of every posting when the company has dimensions enabled.
	CheckDimensions DimensionCheck
	// PartyName is the parties register: the name of the company's
	// customer or supplier (the one given), or its 404.
	PartyName func(ctx context.Context, company uuid.UUID, customer, supplier *uuid.UUID) (string, error)
	// Underlag is the archive: which of the company's ids (entries or
	// their lines) current documents are underlag of. Nil: none are.
	Underlag func(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error)
	// MoveUnderlag is the archive too: the underlag of entry from goes to
	// its correction to, in the unit of work that posts it, each line link
	// to the line given for it (or to none). Nil: no archive.
	MoveUnderlag func(ctx context.Context, company, from, to uuid.UUID, lines map[uuid.UUID]uuid.UUID) (int, error)
	// Reversed tells the domain that posted orig that it was stornoed (by
	// Reverse), in the storno's unit of work; an error refuses the storno.
	// Nil: no domain listens.
	Reversed func(ctx context.Context, company uuid.UUID, orig, storno Entry) error
	// Replaced tells the domains that orig was replaced by a rättelse or
	// a redate (its storno and the new verifikat e), in the unit of work
	// that posts e: a document orig booked names e from now on. Nil: no
	// domain listens.
	Replaced func(ctx context.Context, company uuid.UUID, orig, e Entry) error
	// HasDocument is the archive's SQL for whether the entry e (the alias
	// the ledger's reads give journal_entries) has underlag; "" when
	// there is no archive.
	HasDocument string
}

// hasDocument is the has_document column of an entry e.
func (s *Store) hasDocument() string {
	if s.HasDocument == "" {
		return "false"
	}
	return s.HasDocument
}

// underlagOf asks the archive which of ids have underlag.
func (s *Store) underlagOf(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	if s.Underlag == nil || len(ids) == 0 {
		return map[uuid.UUID]bool{}, nil
	}
	return s.Underlag(ctx, company, ids)
}

// today is the date in Sweden by the ledger's clock.
func (s *Store) today() time.Time {
	if s.Now == nil {
		return Today(time.Now())
	}
	return Today(s.Now())
}

// NewStore returns the ledger on db.
func NewStore(db *store.DB, a *audit.Store, accounts *chart.Store, periods *fiscal.Store, company CompanyFunc) *Store {
	return &Store{db: db, audit: a, chart: accounts, periods: periods, company: company}
}

const entryColumns = `id, company_id, fiscal_period_id, voucher_series, voucher_number, entry_date, description,
	status, source_type, source_id, notes, reverses_id, reversed_by_id, correction_of_id, chain_depth,
	no_document_required, no_document_reason, posted_at, cancelled_at, created_at, updated_at, posted_by_type,
	posted_by_user_id, posted_by_email, posted_by_label, counterparty_name, counterparty_customer_id,
	counterparty_supplier_id`

// rattelseCount is the number of inline rättelser of the entry e, for a
// select list over journal_entries e.
const rattelseCount = `(SELECT count(*) FROM journal_rattelser r
	WHERE r.company_id = e.company_id AND r.journal_entry_id = e.id) AS rattelse_count`

const lineColumns = `id, sort_order, account_number, debit_amount, credit_amount, line_description, currency,
	amount_in_currency, exchange_rate, tax_code, dimensions, added_by_rattelse_id, struck_by_rattelse_id`

// Get returns the company's entry id with its current lines,
// JOURNAL_ENTRY_NOT_FOUND when it has none by that id.
func (s *Store) Get(ctx context.Context, company, id uuid.UUID) (Entry, error) {
	return s.get(ctx, company, id, false)
}

// get reads an entry with its lines in one round trip; forUpdate locks
// it for the rest of the unit of work.
func (s *Store) get(ctx context.Context, company, id uuid.UUID, forUpdate bool) (Entry, error) {
	lock := ""
	if forUpdate {
		lock = " FOR UPDATE OF e"
	}
	var rows []struct {
		E Entry `db:"e"`
		L Line  `db:"l"`
	}
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT `+prefixed("e", entryColumns)+`,
			(SELECT count(*) FROM journal_rattelser r WHERE r.company_id = e.company_id AND r.journal_entry_id = e.id)
				AS "e.rattelse_count", (`+s.hasDocument()+`) AS "e.has_document", `+prefixed("l", lineColumns)+`
		FROM journal_entries e JOIN journal_lines l ON l.company_id = e.company_id AND l.journal_entry_id = e.id
		WHERE e.company_id = $1 AND e.id = $2 ORDER BY l.sort_order, l.id`+lock, company, id)
	if err != nil {
		return Entry{}, err
	}
	if len(rows) > 0 {
		e := rows[0].E
		all := make([]Line, len(rows))
		for i, r := range rows {
			all[i] = r.L
		}
		e.Lines, e.Struck = splitStruck(all)
		return e, nil
	}
	// No row: no such entry, or one without lines.
	var e Entry
	err = s.db.Q(ctx).GetContext(ctx, &e, `SELECT `+entryColumns+`, `+rattelseCount+`, (`+s.hasDocument()+`) AS has_document
		FROM journal_entries e
		WHERE company_id = $1 AND id = $2`+strings.TrimSuffix(lock, " OF e"), company, id)
	if store.NotFound(err) {
		return e, apierr.New(apierr.JournalEntryNotFound, map[string]any{"journal_entry_id": id})
	}
	e.Lines, e.Struck = []Line{}, []Line{}
	return e, err
}

// splitStruck parts lines into the current ones and the struck ones.
func splitStruck(all []Line) (current, struck []Line) {
	current, struck = []Line{}, []Line{}
	for _, l := range all {
		if l.StruckBy != nil {
			struck = append(struck, l)
		} else {
			current = append(current, l)
		}
	}
	return current, struck
}

// insertEntry writes a new draft with its lines, in one statement: the
// entry, then its lines (the line guard, a volatile function, sees the
// entry the statement has just written).
func (s *Store) insertEntry(ctx context.Context, company uuid.UUID, in Input) (Entry, error) {
	var rows []struct {
		E Entry `db:"e"`
		L Line  `db:"l"`
	}
	args := append([]any{company, in.PeriodID, in.Series, in.Date, in.Description, in.SourceType, in.SourceID, in.Notes,
		in.ReversesID, in.CorrectionOfID, in.ChainDepth, in.Counterparty.CounterpartyName,
		in.Counterparty.CounterpartyCustomerID, in.Counterparty.CounterpartySupplierID}, lineArrays(in.Lines)...)
	id := newID()
	if in.ID != uuid.Nil {
		id = in.ID
	}
	args = append(args, id)
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		WITH e AS (
			INSERT INTO journal_entries (company_id, fiscal_period_id, voucher_series, entry_date, description,
				source_type, source_id, notes, reverses_id, correction_of_id, chain_depth, counterparty_name,
				counterparty_customer_id, counterparty_supplier_id, id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $`+strconv.Itoa(len(args))+`)
			RETURNING `+entryColumns+`),
		l AS (
			INSERT INTO journal_lines (company_id, journal_entry_id, added_by_rattelse_id, id, sort_order, account_number,
				debit_amount, credit_amount, line_description, currency, amount_in_currency, exchange_rate, tax_code,
				dimensions)
			SELECT e.company_id, e.id, NULL, u.* FROM e, `+lineUnnest(15)+` u
			RETURNING `+lineColumns+`)
		SELECT `+prefixed("e", entryColumns)+`, `+prefixed("l", lineColumns)+` FROM e, l`, args...)
	if err != nil {
		return Entry{}, dbError(err)
	}
	if len(rows) == 0 {
		return Entry{}, errors.New("ledger: an entry was written without lines")
	}
	e := rows[0].E
	e.Lines = make([]Line, len(rows))
	for i, r := range rows {
		e.Lines[i] = r.L
	}
	slices.SortStableFunc(e.Lines, func(a, b Line) int { return a.SortOrder - b.SortOrder })
	return e, nil
}

// prefixed aliases each column of cols as "p.column", so sqlx scans it
// into the struct field tagged p.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		c = strings.TrimSpace(c)
		parts[i] = p + "." + c + ` AS "` + p + "." + c + `"`
	}
	return strings.Join(parts, ", ")
}

// lineUnnest is the lines' columns from id to dimensions as an unnest of
// the eleven arrays of lineArrays, numbered from placeholder n.
func lineUnnest(n int) string {
	ph := func(i int, typ string) string { return "$" + strconv.Itoa(n+i) + "::" + typ + "[]" }
	return "unnest(" + ph(10, "uuid") + ", " + ph(0, "int") + ", " + ph(1, "text") + ", " + ph(2, "numeric") + ", " +
		ph(3, "numeric") + ", " + ph(4, "text") + ", " + ph(5, "text") + ", " + ph(6, "numeric") + ", " +
		ph(7, "numeric") + ", " + ph(8, "text") + ", " + ph(9, "jsonb") + ")"
}

// lineArrays is lines as the eleven column arrays lineUnnest reads:
// sort order, account, debit, credit, description, currency, amount in
// currency, rate, tax code, dimensions, id (a new one where unset).
func lineArrays(lines []Line) []any {
	n := len(lines)
	acct, desc, cur, amt, rate, tax, dims := make([]string, n), make([]*string, n), make([]*string, n),
		make([]*string, n), make([]*string, n), make([]*string, n), make([]string, n)
	sort, debit, credit, ids := make([]int64, n), make([]string, n), make([]string, n), make([]string, n)
	for i, l := range lines {
		if l.ID == uuid.Nil {
			l.ID = newID()
		}
		ids[i] = l.ID.String()
		acct[i], desc[i], cur[i], tax[i], sort[i] = l.Account, l.Description, l.Currency, l.TaxCode, int64(l.SortOrder)
		debit[i], credit[i] = l.Debit.String(), l.Credit.String()
		if l.AmountInCurrency != nil {
			v := l.AmountInCurrency.String()
			amt[i] = &v
		}
		if l.ExchangeRate != nil {
			v := l.ExchangeRate.String()
			rate[i] = &v
		}
		d, _ := l.Dimensions.Value()
		dims[i] = d.(string)
	}
	return []any{pq.Array(sort), pq.Array(acct), pq.Array(debit), pq.Array(credit), pq.Array(desc), pq.Array(cur),
		pq.Array(amt), pq.Array(rate), pq.Array(tax), pq.Array(dims), pq.Array(ids)}
}

// insertLines writes lines of entry in one statement; rattelse marks
// them as added by an inline rättelse of a posted entry.
func (s *Store) insertLines(ctx context.Context, company, entry uuid.UUID, lines []Line, rattelse *uuid.UUID) ([]Line, error) {
	out := []Line{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		INSERT INTO journal_lines (company_id, journal_entry_id, added_by_rattelse_id, id, sort_order, account_number,
			debit_amount, credit_amount, line_description, currency, amount_in_currency, exchange_rate, tax_code,
			dimensions)
		SELECT $1, $2, $3, * FROM `+lineUnnest(4)+`
		RETURNING `+lineColumns, append([]any{company, entry, rattelse}, lineArrays(lines)...)...)
	if err != nil {
		return nil, dbError(err)
	}
	return out, nil
}

// post moves the draft e to posted, naming who posted it (the actor of
// ctx); the database hands out the voucher number, gapless, and checks
// the balance when the unit of work commits.
//
// Given the books b read in this transaction, and when nothing else in the
// unit needs the number before its end, the posting is the unit's closing
// write (store.Closing): the series stays locked for the last statement
// and the COMMIT only, not while the audit row, the event and the response
// are built. e then carries a token for its number, which the unit fills
// in; posted_at is the transaction's clock, known already.
func (s *Store) post(ctx context.Context, company uuid.UUID, e *Entry, b *books) error {
	a := audit.ActorFrom(ctx)
	e.Poster = Poster{PostedByType: &a.Type, PostedByUserID: a.UserID, PostedByEmail: nonEmpty(a.Email),
		PostedByLabel: nonEmpty(a.Label)}
	const update = `
		UPDATE journal_entries SET status = 'posted', updated_at = now(), posted_by_type = $3,
			posted_by_user_id = $4, posted_by_email = $5, posted_by_label = $6
		WHERE company_id = $1 AND id = $2 AND status = 'draft'`
	args := []any{company, e.ID, e.PostedByType, e.PostedByUserID, e.PostedByEmail, e.PostedByLabel}
	if b != nil {
		number := store.Token()
		if store.Close(ctx, store.Closing{SQL: update + ` RETURNING voucher_number::text`, Args: args,
			Tokens: []string{strconv.Itoa(number)}, Refused: dbError}) {
			at := b.now
			e.Number, e.Status, e.PostedAt, e.UpdatedAt = number, Posted, &at, at
			return nil
		}
	}
	err := s.db.Q(ctx).QueryRowxContext(ctx, update+` RETURNING voucher_number, posted_at, status, updated_at`, args...).
		Scan(&e.Number, &e.PostedAt, &e.Status, &e.UpdatedAt)
	return dbError(err)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Filter selects entries of the journal-entry list.
type Filter struct {
	PeriodID *uuid.UUID
	// Statuses to include; empty means every status but cancelled.
	Statuses []Status
	From, To *time.Time
	After    *cursor.Position
	Limit    int
}

// List returns up to f.Limit+1 entries of company matching f, without
// lines; the extra one tells the caller another page exists.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter) ([]Entry, error) {
	statuses := make([]string, 0, len(f.Statuses))
	for _, st := range f.Statuses {
		statuses = append(statuses, string(st))
	}
	if len(statuses) == 0 {
		statuses = []string{string(Draft), string(Posted)}
	}
	var afterAt *time.Time
	var afterID *uuid.UUID
	if f.After != nil {
		afterAt, afterID = &f.After.At, &f.After.ID
	}
	out := []Entry{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+entryColumns+`, (`+s.hasDocument()+`) AS has_document
		FROM journal_entries e WHERE company_id = $1 AND status = ANY($2)
		  AND ($3::uuid IS NULL OR fiscal_period_id = $3)
		  AND ($4::date IS NULL OR entry_date >= $4) AND ($5::date IS NULL OR entry_date <= $5)
		  AND ($6::timestamptz IS NULL OR created_at < $6 OR (created_at = $6 AND id > $7))
		ORDER BY created_at DESC, id LIMIT $8`,
		company, pq.Array(statuses), f.PeriodID, f.From, f.To, afterAt, afterID, f.Limit+1)
	return out, err
}

// dbError maps the database's refusals to the catalogue (store.Refused).
var dbError = store.Refused

// DraftCounts answers, per company of ids that has any, its journal
// entries still drafts.
func (s *Store) DraftCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	return store.Counts(ctx, s.db, `SELECT company_id, count(*) AS n FROM journal_entries
		WHERE company_id = ANY($1) AND status = 'draft' GROUP BY company_id`, pq.Array(ids))
}
