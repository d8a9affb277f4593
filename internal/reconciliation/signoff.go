package reconciliation

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Signoff is a period of an account signed off as reconciled: what both
// sides held through its day, frozen, with the signer.
type Signoff struct {
	ID           uuid.UUID       `db:"id" json:"id"`
	AccountKey   string          `db:"account_key" json:"account_key"`
	ThroughDate  time.Time       `db:"through_date" json:"through_date"`
	Note         *string         `db:"note" json:"note"`
	Forced       bool            `db:"forced" json:"forced"`
	External     money.Amount    `db:"external_balance" json:"external_balance"`
	Ledger       money.Amount    `db:"ledger_balance" json:"ledger_balance"`
	Difference   money.Amount    `db:"difference" json:"difference"`
	Unexplained  money.Amount    `db:"unexplained_difference" json:"unexplained_difference"`
	BridgeJSON   json.RawMessage `db:"bridge" json:"bridge"`
	ItemsJSON    json.RawMessage `db:"items" json:"items"`
	SignedBy     json.RawMessage `db:"signed_by" json:"signed_by"`
	SignedAt     time.Time       `db:"signed_at" json:"signed_at"`
	SupersededAt *time.Time      `db:"superseded_at" json:"superseded_at"`
	ReopenedAt   *time.Time      `db:"reopened_at" json:"reopened_at"`
	ReopenedBy   nullJSON        `db:"reopened_by" json:"reopened_by"`
	ReopenReason *string         `db:"reopen_reason" json:"reopen_reason"`
}

// nullJSON is a jsonb column that may be NULL, written as it is.
type nullJSON []byte

// Scan reads the column; NULL is empty.
func (n *nullJSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n = nil
	case []byte:
		*n = append((*n)[:0], v...)
	case string:
		*n = nullJSON(v)
	}
	return nil
}

// MarshalJSON writes the JSON as stored, null when empty.
func (n nullJSON) MarshalJSON() ([]byte, error) {
	if len(n) == 0 {
		return []byte("null"), nil
	}
	return n, nil
}

// Active says the sign-off freezes its period: neither reopened nor taken
// over by a later one.
func (s Signoff) Active() bool { return s.ReopenedAt == nil && s.SupersededAt == nil }

// Drift is what postings since a sign-off moved the books' side of its
// period by.
type Drift struct {
	LedgerBalance money.Amount
	Amount        money.Amount
}

const signoffColumns = `id, account_key, through_date, note, forced, external_balance, ledger_balance, difference,
	unexplained_difference, bridge, items, signed_by, signed_at, superseded_at, reopened_at, reopened_by, reopen_reason`

func (r *Reconciler) activeSignoff(ctx context.Context, company uuid.UUID, k Key) (*Signoff, error) {
	var out []Signoff
	err := r.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+signoffColumns+` FROM reconciliation_signoffs
		WHERE company_id = $1 AND account_key = $2 AND superseded_at IS NULL AND reopened_at IS NULL`, company, k.String())
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// drift is the active sign-off's drift: the books' balance through its
// day now, against what was signed.
func (r *Reconciler) drift(ctx context.Context, company uuid.UUID, a Account, s Signoff) (*Drift, error) {
	now, err := r.journal.AccountBalances(ctx, company, a.Number, s.ThroughDate)
	if err != nil || now[0].Cmp(s.Ledger) == 0 {
		return nil, err
	}
	return &Drift{LedgerBalance: now[0], Amount: now[0].Sub(s.Ledger)}, nil
}

// frozen refuses a change of outside row id dated day while an active
// sign-off covers it: CONFLICT with details.code SIGNED_OFF.
func (r *Reconciler) frozen(ctx context.Context, company uuid.UUID, k Key, day time.Time, id uuid.UUID) error {
	s, err := r.activeSignoff(ctx, company, k)
	if err != nil || s == nil || day.After(s.ThroughDate) {
		return err
	}
	return apierr.New(apierr.Conflict, map[string]any{"code": "SIGNED_OFF", "signoff_id": s.ID, "item_id": id,
		"through_date": s.ThroughDate.Format(time.DateOnly),
		"hint":         "reopen the sign-off (POST …/signoff/{signoffId}/reopen) to change what it froze"})
}

// SignRequest is a sign-off asked for.
type SignRequest struct {
	Through  time.Time
	Note     *string
	Force    bool
	External *money.Amount
}

// Signed is what a sign-off request did: the sign-off, written (or what
// would be on a dry run).
type Signed struct {
	Signoff Signoff
	Summary Summary
}

// SignOff signs account k off through req.Through: the bridge is
// recomputed through the day and, when it explains everything (or force,
// with a note), frozen with the signer. Refusals are VALIDATION_ERROR or
// CONFLICT with details.code saying which.
func (r *Reconciler) SignOff(ctx context.Context, company uuid.UUID, k Key, req SignRequest) (Signed, error) {
	refuse := func(code, why string, extra map[string]any) error {
		d := map[string]any{"code": code, "reason": why}
		for key, v := range extra {
			d[key] = v
		}
		if strings.HasPrefix(code, "ALREADY") || code == "SIGNOFF_RACE" {
			return apierr.New(apierr.Conflict, d)
		}
		field := map[string]string{"NOT_RECONCILED": "force", "NOTE_REQUIRED": "note",
			"EXTERNAL_BALANCE_NOT_ALLOWED": "external_balance"}[code]
		if field == "" {
			field = "through_date"
		}
		d["issues"] = []apierr.Issue{{Field: field, In: "body", Rule: strings.ToLower(code), Issue: why}}
		return apierr.New(apierr.ValidationError, d)
	}
	today := r.today()
	if req.Through.IsZero() || req.Through.Year() < 2000 {
		return Signed{}, refuse("INVALID_DATE", "through_date is not a day Kontera keeps books for", nil)
	}
	if req.Through.After(today) {
		return Signed{}, refuse("DATE_IN_FUTURE", "through_date is after today", map[string]any{"today": today.Format(time.DateOnly)})
	}
	if req.Note != nil && len(*req.Note) > 2000 {
		return Signed{}, apierr.Field("note", "max_length", "at most 2000 characters")
	}
	a, err := r.load(ctx, company, k, req.Through)
	if err != nil {
		return Signed{}, err
	}
	switch {
	case !a.Configured():
		return Signed{}, refuse("OUTSIDE_UNKNOWN", "the account has no outside truth yet (no statement rows)", nil)
	case req.Through.Before(*a.HistoryStart):
		return Signed{}, refuse("OUTSIDE_UNKNOWN", "the outside history starts "+a.HistoryStart.Format(time.DateOnly),
			map[string]any{"history_start": day(a.HistoryStart)})
	case a.LastCovered == nil || a.LastCovered.Before(req.Through):
		return Signed{}, refuse("NOT_FETCHED_THROUGH", "the outside truth does not reach through_date",
			map[string]any{"covered_through": day(a.LastCovered)})
	case req.External != nil && a.ExternalFrom != "movements":
		return Signed{}, refuse("EXTERNAL_BALANCE_NOT_ALLOWED",
			"the outside balance is known ("+a.ExternalFrom+"); external_balance is only for an account without one", nil)
	}
	if req.External != nil {
		// The balance the bank shows, said by the signer, stands for the
		// one the rows make: what they differ by is unexplained.
		a.Input.ExternalBalance = *req.External
	}
	pic := Build(a.Input)
	if !pic.Unexplained.IsZero() {
		if !req.Force {
			return Signed{}, refuse("NOT_RECONCILED", "the bridge leaves a difference unexplained; explain it or sign with force and a note",
				map[string]any{"unexplained_difference": pic.Unexplained})
		}
		if req.Note == nil || strings.TrimSpace(*req.Note) == "" {
			return Signed{}, refuse("NOTE_REQUIRED", "a forced sign-off says why in its note", nil)
		}
	}
	prev, err := r.activeSignoff(ctx, company, k)
	if err != nil {
		return Signed{}, err
	}
	if prev != nil && !prev.ThroughDate.Before(req.Through) {
		return Signed{}, refuse("ALREADY_SIGNED_OFF", "the account is signed off through "+prev.ThroughDate.Format(time.DateOnly),
			map[string]any{"signoff_id": prev.ID})
	}
	items := map[string][]uuid.UUID{}
	for _, b := range Buckets {
		items[b] = []uuid.UUID{}
	}
	for _, e := range pic.Entries {
		items[e.Bucket] = append(items[e.Bucket], e.ID)
	}
	bridge, _ := json.Marshal(pic.Bridge)
	itemsJSON, _ := json.Marshal(items)
	signer, _ := json.Marshal(actorOf(audit.ActorFrom(ctx)))
	s := Signoff{AccountKey: k.String(), ThroughDate: req.Through, Note: req.Note, Forced: req.Force && !pic.Unexplained.IsZero(),
		External: a.Input.ExternalBalance, Ledger: a.Input.LedgerBalance,
		Difference: a.Input.ExternalBalance.Sub(a.Input.LedgerBalance), Unexplained: pic.Unexplained,
		BridgeJSON: bridge, ItemsJSON: itemsJSON, SignedBy: signer}
	summary := Summary{Account: a, Window: Window{From: *a.HistoryStart, To: req.Through}, Picture: pic}
	if prev != nil {
		res, err := r.db.Q(ctx).ExecContext(ctx, `UPDATE reconciliation_signoffs SET superseded_at = now()
			WHERE company_id = $1 AND id = $2 AND superseded_at IS NULL AND reopened_at IS NULL`, company, prev.ID)
		if err != nil {
			return Signed{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Signed{}, refuse("SIGNOFF_RACE", "another sign-off of the account was written meanwhile", nil)
		}
	}
	err = r.db.Attempt(ctx, func(ctx context.Context) error {
		return r.db.Q(ctx).GetContext(ctx, &s, `INSERT INTO reconciliation_signoffs (company_id, account_key, through_date, note,
				forced, external_balance, ledger_balance, difference, unexplained_difference, bridge, items, signed_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb) RETURNING `+signoffColumns,
			company, s.AccountKey, store.Day(s.ThroughDate), s.Note, s.Forced, s.External, s.Ledger, s.Difference, s.Unexplained,
			string(bridge), string(itemsJSON), string(signer))
	})
	if store.UniqueViolation(err, "reconciliation_signoffs_active") {
		return Signed{}, refuse("SIGNOFF_RACE", "another sign-off of the account was written meanwhile", nil)
	}
	if err != nil {
		return Signed{}, err
	}
	if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "reconciliation_signoffs",
		RecordID: s.ID.String(), Description: "Avstämning " + k.String() + " signerad t.o.m. " + s.ThroughDate.Format(time.DateOnly),
		New: audit.Of(s)}); err != nil {
		return Signed{}, err
	}
	_, err = outbox.Emit(ctx, r.db, company, EventSignedOff, map[string]any{"account_key": k.String(),
		"signoff": wireSignoff(s, nil)})
	return Signed{Signoff: s, Summary: summary}, err
}

// Signoffs lists account k's sign-offs, newest first, reopened ones only
// when asked: up to limit.
func (r *Reconciler) Signoffs(ctx context.Context, company uuid.UUID, k Key, reopened bool, limit int) ([]Signoff, error) {
	if k.Kind == KindBank {
		if _, err := r.cashAccount(ctx, company, k); err != nil {
			return nil, err
		}
	}
	out := []Signoff{}
	err := r.db.Q(ctx).SelectContext(ctx, &out, `SELECT `+signoffColumns+` FROM reconciliation_signoffs
		WHERE company_id = $1 AND account_key = $2 AND ($3 OR reopened_at IS NULL)
		ORDER BY signed_at DESC, id DESC LIMIT $4`, company, k.String(), reopened, limit)
	return out, err
}

// Reopen stamps sign-off id reopened, with why; nothing is deleted. A
// reopened one is CONFLICT ALREADY_REOPENED.
func (r *Reconciler) Reopen(ctx context.Context, company uuid.UUID, k Key, id uuid.UUID, reason string) (Signoff, error) {
	var s Signoff
	err := r.db.Q(ctx).GetContext(ctx, &s, `SELECT `+signoffColumns+` FROM reconciliation_signoffs
		WHERE company_id = $1 AND account_key = $2 AND id = $3 FOR UPDATE`, company, k.String(), id)
	if store.NotFound(err) {
		return s, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_signoff", "signoff_id": id})
	}
	if err != nil {
		return s, err
	}
	if s.ReopenedAt != nil {
		return s, apierr.New(apierr.Conflict, map[string]any{"code": "ALREADY_REOPENED", "signoff_id": id,
			"reopened_at": s.ReopenedAt})
	}
	old := s
	by, _ := json.Marshal(actorOf(audit.ActorFrom(ctx)))
	if err := r.db.Q(ctx).GetContext(ctx, &s, `UPDATE reconciliation_signoffs SET reopened_at = now(), reopened_by = $3::jsonb,
			reopen_reason = $4 WHERE company_id = $1 AND id = $2 RETURNING `+signoffColumns,
		company, id, string(by), reason); err != nil {
		return s, err
	}
	if err := r.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "reconciliation_signoffs",
		RecordID: id.String(), Description: "Avstämning " + k.String() + " öppnades igen: " + reason,
		Old: audit.Of(old), New: audit.Of(s)}); err != nil {
		return s, err
	}
	_, err = outbox.Emit(ctx, r.db, company, EventReopened, map[string]any{"account_key": k.String(),
		"signoff": wireSignoff(s, nil)})
	return s, err
}

func day(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

// SignedAt answers, per ledger account, the sign-off a year closing on
// day rests on: of each reconciled account, the latest not reopened
// through day or before (a later one may have superseded it since).
func (r *Reconciler) SignedAt(ctx context.Context, company uuid.UUID, day time.Time) (map[string]Signoff, error) {
	var list []Signoff
	if err := r.db.Q(ctx).SelectContext(ctx, &list, `SELECT DISTINCT ON (account_key) `+signoffColumns+`
		FROM reconciliation_signoffs WHERE company_id = $1 AND reopened_at IS NULL AND through_date <= $2
		ORDER BY account_key, through_date DESC, signed_at DESC`, company, store.Day(day)); err != nil {
		return nil, err
	}
	out := map[string]Signoff{}
	for _, s := range list {
		k, err := ParseKey(s.AccountKey)
		if err != nil {
			return nil, err
		}
		account := SkattekontoAccount
		if k.Kind == KindBank {
			cash, err := r.bank.Store().CashAccount(ctx, company, k.CashID, false)
			if err != nil {
				return nil, err
			}
			account = cash.LedgerAccount
		}
		out[account] = s
	}
	return out, nil
}
