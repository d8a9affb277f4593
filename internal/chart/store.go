package chart

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of accounts.
type Store struct {
	db    *store.DB
	audit *audit.Store
}

// NewStore returns the chart store on db.
func NewStore(db *store.DB, a *audit.Store) *Store { return &Store{db: db, audit: a} }

const columns = `account_number, account_name, account_type, normal_balance, is_bas, is_system_account, is_active,
	description, default_vat_rate, default_vat_treatment, vat_box, sru_code, type_from_file, created_at, updated_at`

// insert writes accounts in one statement and returns them as stored;
// with skipExisting, numbers the chart already has are left alone (and
// not returned).
func (s *Store) insert(ctx context.Context, company uuid.UUID, accounts []Account, skipExisting bool) ([]Account, error) {
	n := len(accounts)
	num, name, typ, bal, desc, treat, box, sru := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
	isBAS, sys, active, rate, file := make([]bool, n), make([]bool, n), make([]bool, n), make([]*string, n), make([]bool, n)
	for i, a := range accounts {
		num[i], name[i], typ[i], bal[i] = a.Number, a.Name, string(a.Type), string(a.NormalBalance)
		desc[i], treat[i], box[i], sru[i] = a.Description, a.VATTreatment, a.VATBox, a.SRU
		isBAS[i], sys[i], active[i], file[i] = a.BAS, a.System, a.Active, a.TypeFromFile
		if a.VATRate != nil {
			r := a.VATRate.String()
			rate[i] = &r
		}
	}
	var out []Account
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		INSERT INTO accounts (company_id, account_number, account_name, account_type, normal_balance, is_bas,
			is_system_account, is_active, description, default_vat_rate, default_vat_treatment, vat_box, sru_code,
			type_from_file)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::bool[], $8::bool[],
			$9::text[], $10::numeric[], $11::text[], $12::text[], $13::text[], $14::bool[])
		`+conflict(skipExisting)+` RETURNING `+columns,
		company, pq.Array(num), pq.Array(name), pq.Array(typ), pq.Array(bal), pq.Array(isBAS), pq.Array(sys),
		pq.Array(active), pq.Array(desc), pq.Array(rate), pq.Array(treat), pq.Array(box), pq.Array(sru), pq.Array(file))
	return out, err
}

// Seed gives a new company of form its chart, in the transaction of ctx.
func (s *Store) Seed(ctx context.Context, company uuid.UUID, form string) (int, error) {
	seed := Seed(form)
	accounts := make([]Account, len(seed))
	for i, a := range seed {
		accounts[i] = FromBAS(a)
	}
	if _, err := s.insert(ctx, company, accounts, false); err != nil {
		return 0, err
	}
	summary, _ := json.Marshal(map[string]any{"plan": "bas_2025", "entity_type": form, "accounts": len(accounts)})
	err := s.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "accounts",
		Description: fmt.Sprintf("Kontoplanen skapades från BAS 2025 med %d konton", len(accounts)), New: summary})
	return len(accounts), err
}

// Filter narrows a listing of the chart.
type Filter struct {
	// Class is one digit 0-9, or -1 for every class.
	Class int
	// Inactive includes deactivated accounts.
	Inactive bool
	// From and To, when set, bound the account numbers (inclusive).
	From, To string
}

// List returns the company's accounts in account-number order.
func (s *Store) List(ctx context.Context, company uuid.UUID, f Filter) ([]Account, error) {
	class := ""
	if f.Class >= 0 {
		class = strconv.Itoa(f.Class)
	}
	out := []Account{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `
		SELECT `+columns+` FROM accounts
		WHERE company_id = $1 AND ($2 = '' OR left(account_number, 1) = $2) AND (is_active OR $3)
			AND account_number BETWEEN $4 AND $5
		ORDER BY account_number`, company, class, f.Inactive, f.From, cmp.Or(f.To, "9999"))
	return out, err
}

// Get returns the company's account numbered n, ACCOUNT_NOT_FOUND if the
// chart has none.
func (s *Store) Get(ctx context.Context, company uuid.UUID, n string) (Account, error) {
	var a Account
	err := s.db.Q(ctx).GetContext(ctx, &a, `SELECT `+columns+` FROM accounts
		WHERE company_id = $1 AND account_number = $2 FOR UPDATE`, company, n)
	if store.NotFound(err) {
		return a, apierr.New(apierr.AccountNotFound, map[string]any{"account_number": n})
	}
	return a, err
}

// Create adds the account in describes to the company's chart:
// ACCOUNT_EXISTS when the chart has the number, ACCOUNT_EXISTS_INACTIVE
// when it has it deactivated (whatever else the body says), else the
// rules of New.
func (s *Store) Create(ctx context.Context, company uuid.UUID, in Input) (Account, error) {
	existing, err := s.Get(ctx, company, in.Number)
	switch {
	case err == nil && existing.Active:
		return existing, apierr.New(apierr.AccountExists, map[string]any{"account_number": in.Number})
	case err == nil:
		return existing, apierr.New(apierr.AccountExistsInactive, map[string]any{"account_number": in.Number})
	case !apierr.Is(err, apierr.AccountNotFound):
		return existing, err
	}
	a, err := New(in)
	if err != nil {
		return a, err
	}
	rows, err := s.insert(ctx, company, []Account{a}, false)
	if err != nil {
		return a, err
	}
	return rows[0], s.record(ctx, company, audit.Insert, "Konto "+a.Number+" lades till", nil, &rows[0])
}

// Update stores the changed account a.
func (s *Store) Update(ctx context.Context, company uuid.UUID, old, a Account) (Account, error) {
	var out Account
	err := s.db.Q(ctx).GetContext(ctx, &out, `
		UPDATE accounts SET account_name = $3, description = $4, is_active = $5, updated_at = now()
		WHERE company_id = $1 AND account_number = $2 RETURNING `+columns,
		company, a.Number, a.Name, a.Description, a.Active)
	if err != nil {
		return out, err
	}
	return out, s.record(ctx, company, audit.Update, "Konto "+a.Number+" ändrades", &old, &out)
}

// Delete removes the account numbered n: refused for a system account
// (ACCOUNT_SYSTEM_DELETE) and for one any verifikat line uses
// (ACCOUNT_IN_USE, with the number of lines).
func (s *Store) Delete(ctx context.Context, company uuid.UUID, n string) error {
	a, err := s.Get(ctx, company, n)
	if err != nil {
		return err
	}
	if a.System {
		return apierr.New(apierr.AccountSystemDelete, map[string]any{"account_number": n})
	}
	var uses int
	if err := s.db.Q(ctx).GetContext(ctx, &uses, `
		SELECT count(*) FROM journal_lines WHERE company_id = $1 AND account_number = $2`, company, n); err != nil {
		return err
	}
	if uses > 0 {
		return apierr.New(apierr.AccountInUse, map[string]any{"account_number": n, "usage_count": uses})
	}
	if _, err := s.db.Q(ctx).ExecContext(ctx, `DELETE FROM accounts WHERE company_id = $1 AND account_number = $2`,
		company, n); err != nil {
		return err
	}
	return s.record(ctx, company, audit.Delete, "Konto "+n+" togs bort", &a, nil)
}

// Ensure makes every account in numbers usable for booking in the
// company's chart, in the transaction of ctx: a BAS account the chart
// lacks is added from the catalogue (and audited); a number outside BAS
// that the chart lacks, or a deactivated account, fails the whole call
// with ACCOUNTS_NOT_IN_CHART naming them. The ledger calls it before it
// posts, on dry runs too.
func (s *Store) Ensure(ctx context.Context, company uuid.UUID, numbers []string) ([]Account, error) {
	byNumber, err := s.byNumber(ctx, company, numbers)
	if err != nil {
		return nil, err
	}
	return s.ensure(ctx, company, numbers, byNumber)
}

// Lookup answers the chart's accounts among numbers, by number; a number
// the chart lacks is missing from the map.
func (s *Store) Lookup(ctx context.Context, company uuid.UUID, numbers []string) (map[string]Account, error) {
	return s.byNumber(ctx, company, numbers)
}

// byNumber reads the chart's accounts among numbers.
func (s *Store) byNumber(ctx context.Context, company uuid.UUID, numbers []string) (map[string]Account, error) {
	var have []Account
	if err := s.db.Q(ctx).SelectContext(ctx, &have, `SELECT `+columns+` FROM accounts
		WHERE company_id = $1 AND account_number = ANY($2)`, company, pq.Array(numbers)); err != nil {
		return nil, err
	}
	out := make(map[string]Account, len(have))
	for _, a := range have {
		out[a.Number] = a
	}
	return out, nil
}

// Known refuses, as Ensure does (ACCOUNTS_NOT_IN_CHART), numbers the
// chart has deactivated or neither it nor BAS has, and adds nothing: for
// a draft that names accounts it will book only later.
func (s *Store) Known(ctx context.Context, company uuid.UUID, numbers []string) error {
	byNumber, err := s.byNumber(ctx, company, numbers)
	if err != nil {
		return err
	}
	if _, unknown, inactive := Missing(numbers, byNumber); len(unknown) > 0 || len(inactive) > 0 {
		return notInChart(unknown, inactive)
	}
	return nil
}

// EnsureKnown is Ensure for a caller that read the chart's state of
// numbers already, in a query of its own: which of them the chart has
// active and which deactivated.
func (s *Store) EnsureKnown(ctx context.Context, company uuid.UUID, numbers, active, inactive []string) ([]Account, error) {
	byNumber := make(map[string]Account, len(active)+len(inactive))
	for _, n := range active {
		byNumber[n] = Account{Number: n, Active: true}
	}
	for _, n := range inactive {
		byNumber[n] = Account{Number: n}
	}
	return s.ensure(ctx, company, numbers, byNumber)
}

func (s *Store) ensure(ctx context.Context, company uuid.UUID, numbers []string, byNumber map[string]Account) ([]Account, error) {
	add, unknown, inactive := Missing(numbers, byNumber)
	if len(unknown) > 0 || len(inactive) > 0 {
		return nil, notInChart(unknown, inactive)
	}
	if len(add) == 0 {
		return nil, nil
	}
	accounts := make([]Account, len(add))
	for i, b := range add {
		accounts[i] = FromBAS(b)
	}
	// Two postings adding the same account at once: the second waits on the
	// first's row and adds nothing.
	added, err := s.insert(ctx, company, accounts, true)
	if err != nil {
		return nil, err
	}
	for i := range added {
		if err := s.record(ctx, company, audit.Insert, "Konto "+added[i].Number+" lades till från BAS vid bokföring",
			nil, &added[i]); err != nil {
			return nil, err
		}
	}
	return added, nil
}

// notInChart is ACCOUNTS_NOT_IN_CHART naming the accounts.
func notInChart(unknown, inactive []string) error {
	return apierr.New(apierr.AccountsNotInChart, map[string]any{
		"accounts": append(append([]string{}, unknown...), inactive...), "unknown": nonNil(unknown),
		"inactive": nonNil(inactive)})
}

func conflict(skip bool) string {
	if skip {
		return "ON CONFLICT DO NOTHING"
	}
	return ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Store) record(ctx context.Context, company uuid.UUID, action audit.Action, desc string, old, new *Account) error {
	snap := func(a *Account) json.RawMessage {
		if a == nil {
			return nil
		}
		b, _ := json.Marshal(snapshot(*a))
		return b
	}
	number := ""
	if new != nil {
		number = new.Number
	} else if old != nil {
		number = old.Number
	}
	return s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "accounts",
		RecordID: number, Description: desc, Old: snap(old), New: snap(new)})
}

// snapshot is the account as the audit trail keeps it.
func snapshot(a Account) map[string]any {
	return map[string]any{
		"account_number": a.Number, "account_name": a.Name, "account_type": a.Type,
		"normal_balance": a.NormalBalance, "is_system_account": a.System, "is_active": a.Active,
		"description": a.Description, "default_vat_rate": a.VATRate, "default_vat_treatment": a.VATTreatment,
		"vat_box": a.VATBox, "sru_code": a.SRU,
	}
}

// Labels returns every account in the company's chart, deactivated ones
// too (reports name what was booked on them), with only its number,
// name, type and whether a file typed it: what a report needs to name
// its accounts and to tell the balance sheet's from the result's
// (ledger.SheetOf), in one read.
func (s *Store) Labels(ctx context.Context, company uuid.UUID) ([]Account, error) {
	out := []Account{}
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT account_number, account_name, account_type, type_from_file
		FROM accounts WHERE company_id = $1`, company)
	return out, err
}
