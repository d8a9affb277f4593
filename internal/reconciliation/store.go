package reconciliation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of reconciliation's tables.
type Store struct {
	db *store.DB
}

// NewStore returns the store on db.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// TaxRow is a row of the skattekonto as stored.
type TaxRow struct {
	ID          uuid.UUID     `db:"id" json:"id"`
	Date        time.Time     `db:"date" json:"date"`
	Description string        `db:"description" json:"description"`
	Amount      money.Amount  `db:"amount" json:"amount"`
	Saldo       *money.Amount `db:"saldo_after" json:"saldo_after"`
	Kind        string        `db:"kind" json:"kind"`
	Upcoming    bool          `db:"upcoming" json:"upcoming"`
	Source      string        `db:"source" json:"source"`
	Key         string        `db:"row_key" json:"-"`
	Ignored     bool          `db:"is_ignored" json:"is_ignored"`
	CreatedAt   time.Time     `db:"created_at" json:"created_at"`
}

const taxColumns = `id, date, description, amount, saldo_after, kind, upcoming, source, row_key, is_ignored, created_at`

// TaxRows returns the company's skattekonto rows, oldest first.
func (s *Store) TaxRows(ctx context.Context, company uuid.UUID) ([]TaxRow, error) {
	out := []TaxRow{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+taxColumns+` FROM skattekonto_transactions
		WHERE company_id = $1 ORDER BY date, kind = 'row', created_at, row_key`, company)
	return out, err
}

// TaxRow returns row id, locked when lock: NOT_FOUND when there is none.
func (s *Store) TaxRow(ctx context.Context, company, id uuid.UUID, lock bool) (TaxRow, error) {
	q := `SELECT ` + taxColumns + ` FROM skattekonto_transactions WHERE company_id = $1 AND id = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	var r TaxRow
	err := s.db.Q(ctx).GetContext(ctx, &r, q, company, id)
	if store.NotFound(err) {
		return r, apierr.New(apierr.NotFound, map[string]any{"resource": "skattekonto_transaction", "id": id})
	}
	return r, err
}

// LockTaxAccount holds the company's skattekonto for one writer at a
// time: imports and manual rows check the saldo against what is stored.
func (s *Store) LockTaxAccount(ctx context.Context, company uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('skattekonto:' || $1::text, 0))`,
		company)
	return err
}

// InsertTaxRows adds rows; it answers them with their ids.
func (s *Store) InsertTaxRows(ctx context.Context, company uuid.UUID, rows []TaxRow) ([]TaxRow, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	out := []TaxRow{}
	err = s.db.Q(ctx).SelectContext(ctx, &out, `INSERT INTO skattekonto_transactions (company_id, date, description, amount,
			saldo_after, kind, upcoming, source, row_key)
		SELECT $1, r.date, r.description, r.amount, r.saldo_after, r.kind, r.upcoming, r.source, r.row_key
		FROM jsonb_to_recordset($2::jsonb) AS r (date date, description text, amount numeric, saldo_after numeric, kind text,
			upcoming boolean, source text, row_key text)
		RETURNING `+taxColumns, company, string(raw))
	return out, err
}

// MarshalJSON writes a row for InsertTaxRows (row_key included).
func (r TaxRow) MarshalJSON() ([]byte, error) {
	type plain TaxRow
	return json.Marshal(struct {
		plain
		Date string `json:"date"`
		Key  string `json:"row_key"`
	}{plain(r), r.Date.Format(time.DateOnly), r.Key})
}

// DrawTaxRow turns a coming debit into a drawn one: the day it was
// drawn, its saldo, and its key as the statement now says it.
func (s *Store) DrawTaxRow(ctx context.Context, company, id uuid.UUID, day time.Time, saldo money.Amount, key string) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE skattekonto_transactions SET upcoming = false, date = $3, saldo_after = $4,
		row_key = $5, updated_at = now() WHERE company_id = $1 AND id = $2`, company, id, store.Day(day), saldo, key)
	return err
}

// SetTaxIgnored sets row id's ignored flag.
func (s *Store) SetTaxIgnored(ctx context.Context, company, id uuid.UUID, ignored bool) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE skattekonto_transactions SET is_ignored = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2`, company, id, ignored)
	return err
}

// DeleteTaxRow deletes row id (a manual one; the database refuses others).
func (s *Store) DeleteTaxRow(ctx context.Context, company, id uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM skattekonto_transactions WHERE company_id = $1 AND id = $2`,
		company, id)
	return err
}

// StoredLink is a row of reconciliation_links.
type StoredLink struct {
	ID         uuid.UUID       `db:"id"`
	SetID      uuid.UUID       `db:"set_id"`
	AccountKey string          `db:"account_key"`
	ExternalID uuid.UUID       `db:"external_id"`
	EntryID    uuid.UUID       `db:"journal_entry_id"`
	RowOrd     int             `db:"row_ordinal"`
	EntryOrd   int             `db:"entry_ordinal"`
	Amount     money.Amount    `db:"allocated_amount"`
	Method     string          `db:"method"`
	Confidence *money.Amount   `db:"confidence"`
	CreatedBy  json.RawMessage `db:"created_by"`
	CreatedAt  time.Time       `db:"created_at"`
}

const linkColumns = `id, set_id, account_key, external_id, journal_entry_id, row_ordinal, entry_ordinal, allocated_amount,
	method, confidence, created_by, created_at`

// Links returns the account's active links.
func (s *Store) Links(ctx context.Context, company uuid.UUID, key string) ([]StoredLink, error) {
	out := []StoredLink{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+linkColumns+` FROM reconciliation_links
		WHERE company_id = $1 AND account_key = $2 AND removed_at IS NULL ORDER BY created_at, id`, company, key)
	return out, err
}

// SetOf returns the active link set holding outside row ext, locked; none
// is an empty list.
func (s *Store) SetOf(ctx context.Context, company, ext uuid.UUID) ([]StoredLink, error) {
	out := []StoredLink{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+linkColumns+` FROM reconciliation_links
		WHERE company_id = $1 AND removed_at IS NULL AND set_id IN (SELECT set_id FROM reconciliation_links
			WHERE company_id = $1 AND external_id = $2 AND removed_at IS NULL)
		ORDER BY row_ordinal, entry_ordinal FOR UPDATE`, company, ext)
	return out, err
}

// ActiveFor says which of ids (rows or verifikat) are in an active link.
func (s *Store) ActiveFor(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var hits []uuid.UUID
	err := s.db.Q(ctx).SelectContext(ctx, &hits, `SELECT external_id FROM reconciliation_links
			WHERE company_id = $1 AND removed_at IS NULL AND external_id = ANY($2)
		UNION SELECT journal_entry_id FROM reconciliation_links
			WHERE company_id = $1 AND removed_at IS NULL AND journal_entry_id = ANY($2)`, company, pq.Array(ids))
	out := map[uuid.UUID]bool{}
	for _, h := range hits {
		out[h] = true
	}
	return out, err
}

// InsertLinks writes link sets; a row or verifikat already in an active
// set breaks the unique indexes (store.UniqueViolation): another request
// won.
func (s *Store) InsertLinks(ctx context.Context, company uuid.UUID, links []StoredLink) error {
	if len(links) == 0 {
		return nil
	}
	n := len(links)
	sets, exts, entries := make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	rowOrd, entryOrd := make([]int64, n), make([]int64, n)
	amounts, methods, confs := make([]string, n), make([]string, n), make([]*string, n)
	for i, l := range links {
		sets[i], exts[i], entries[i], rowOrd[i], entryOrd[i] = l.SetID, l.ExternalID, l.EntryID, int64(l.RowOrd), int64(l.EntryOrd)
		amounts[i], methods[i] = l.Amount.String(), l.Method
		if l.Confidence != nil {
			c := l.Confidence.String()
			confs[i] = &c
		}
	}
	actor, _ := json.Marshal(actorOf(audit.ActorFrom(ctx)))
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO reconciliation_links (company_id, set_id, account_key, external_id,
			journal_entry_id, row_ordinal, entry_ordinal, allocated_amount, method, confidence, created_by)
		SELECT $1, l.set_id, $2, l.ext, l.entry, l.row_ord, l.entry_ord, l.amount::numeric, l.method, l.conf::numeric, $11::jsonb
		FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[])
			AS l (set_id, ext, entry, row_ord, entry_ord, amount, method, conf)`,
		company, links[0].AccountKey, pq.Array(sets), pq.Array(exts), pq.Array(entries), pq.Array(rowOrd), pq.Array(entryOrd),
		pq.Array(amounts), pq.Array(methods), pq.Array(confs), string(actor))
	return err
}

// RemoveSet stamps link set id removed.
func (s *Store) RemoveSet(ctx context.Context, company, id uuid.UUID) error {
	actor, _ := json.Marshal(actorOf(audit.ActorFrom(ctx)))
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE reconciliation_links SET removed_at = now(), removed_by = $3::jsonb
		WHERE company_id = $1 AND set_id = $2 AND removed_at IS NULL`, company, id, string(actor))
	return err
}

// storedProposal is a row of reconciliation_proposals.
type storedProposal struct {
	Seq         int             `db:"seq"`
	ExternalIDs pq.StringArray  `db:"external_ids"`
	EntryIDs    pq.StringArray  `db:"journal_entry_ids"`
	Allocations json.RawMessage `db:"allocations"`
	Confidence  money.Amount    `db:"confidence"`
	Method      string          `db:"method"`
	Reasons     pq.StringArray  `db:"reasons"`
}

// Proposals returns the account's stored proposals, best first.
func (s *Store) Proposals(ctx context.Context, company uuid.UUID, key string) ([]Proposal, error) {
	var rows []storedProposal
	if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT seq, external_ids, journal_entry_ids, allocations, confidence,
		method, reasons FROM reconciliation_proposals WHERE company_id = $1 AND account_key = $2 ORDER BY seq`,
		company, key); err != nil {
		return nil, err
	}
	out := make([]Proposal, len(rows))
	for i, r := range rows {
		p := Proposal{Method: r.Method, Reasons: []string(r.Reasons), Confidence: int(r.Confidence.InÖre())}
		for _, id := range r.ExternalIDs {
			p.ExternalIDs = append(p.ExternalIDs, uuid.MustParse(id))
		}
		for _, id := range r.EntryIDs {
			p.EntryIDs = append(p.EntryIDs, uuid.MustParse(id))
		}
		if err := json.Unmarshal(r.Allocations, &p.Allocations); err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// ReplaceProposals puts props in place of the account's stored proposals.
// Replacements of one account wait for each other (the job after an
// import and a bank run may meet): each deletes what the one before wrote.
func (s *Store) ReplaceProposals(ctx context.Context, company uuid.UUID, key string, props []Proposal) error {
	if _, err := s.db.Q(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('proposals:' || $1 || ':' || $2, 0))`,
		company.String(), key); err != nil {
		return err
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM reconciliation_proposals WHERE company_id = $1 AND account_key = $2`,
		company, key); err != nil || len(props) == 0 {
		return err
	}
	n := len(props)
	exts, entries, allocs, confs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	methods, reasons := make([]string, n), make([]string, n)
	for i, p := range props {
		exts[i], entries[i] = uuidArray(p.ExternalIDs), uuidArray(p.EntryIDs)
		a, _ := json.Marshal(p.Allocations)
		r, _ := json.Marshal(p.Reasons)
		allocs[i], reasons[i], methods[i] = string(a), string(r), p.Method
		confs[i] = confidence(p.Confidence).String()
	}
	_, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO reconciliation_proposals (company_id, account_key, seq, external_ids,
			journal_entry_ids, allocations, confidence, method, reasons)
		SELECT $1, $2, p.seq, p.ext::uuid[], p.entries::uuid[], p.alloc::jsonb, p.conf::numeric, p.method,
			ARRAY(SELECT jsonb_array_elements_text(p.reasons::jsonb))
		FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY
			AS p (ext, entries, alloc, conf, method, reasons, seq)`,
		company, key, pq.Array(exts), pq.Array(entries), pq.Array(allocs), pq.Array(confs), pq.Array(methods), pq.Array(reasons))
	return err
}

func uuidArray(ids []uuid.UUID) string {
	b := []byte{'{'}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, id.String()...)
	}
	return string(append(b, '}'))
}

// confidence is hundredths as an amount-like decimal (0.97).
func confidence(c int) money.Amount { return money.Öre(int64(c)) }

// actorJSON is who did something, as stored beside links and sign-offs.
type actorJSON struct {
	Type  string     `json:"type"`
	ID    *uuid.UUID `json:"id"`
	Label string     `json:"label"`
}

func actorOf(a audit.Actor) actorJSON { return actorJSON{Type: a.Type, ID: a.ID, Label: a.Label} }

// Standing is how far a company's bank accounts are reconciled: its
// enabled cash accounts, how many have a sign-off in force, and the
// earliest day they are signed off through when all have one.
type Standing struct {
	Company   uuid.UUID  `db:"company_id"`
	Accounts  int        `db:"accounts"`
	SignedOff int        `db:"signed_off"`
	Through   *time.Time `db:"through"`
}

// Standings answers the standing of each company of ids with a cash
// account.
func (s *Store) Standings(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]Standing, error) {
	var rows []Standing
	err := s.db.Q(ctx).SelectContext(ctx, &rows, `
		SELECT c.company_id, count(*) AS accounts, count(s.id) AS signed_off,
			CASE WHEN count(s.id) = count(*) THEN min(s.through_date) END AS through
		FROM cash_accounts c
		LEFT JOIN reconciliation_signoffs s ON s.company_id = c.company_id AND s.account_key = 'bank:' || c.id
			AND s.superseded_at IS NULL AND s.reopened_at IS NULL
		WHERE c.company_id = ANY($1) AND c.enabled
		GROUP BY c.company_id`, pq.Array(ids))
	return store.Index(rows, func(r Standing) uuid.UUID { return r.Company }), err
}
