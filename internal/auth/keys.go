package auth

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/outbox"
	"github.com/kontera/kontera/internal/store"
)

// Record is an API key as the key endpoints show it: never its secret.
type Record struct {
	ID            uuid.UUID      `db:"id" json:"id"`
	UserID        uuid.UUID      `db:"user_id" json:"user_id"`
	UserEmail     string         `db:"email" json:"-"`
	Name          *string        `db:"name" json:"name"`
	Prefix        string         `db:"prefix" json:"prefix"`
	Mode          Mode           `db:"mode" json:"mode"`
	Scopes        pq.StringArray `db:"scopes" json:"scopes"`
	CompanyAccess CompanyAccess  `db:"company_access" json:"company_access"`
	ReadOnly      bool           `db:"read_only" json:"read_only"`
	CreatedAt     time.Time      `db:"created_at" json:"created_at"`
	LastUsedAt    *time.Time     `db:"last_used_at" json:"-"`
	ExpiresAt     *time.Time     `db:"expires_at" json:"expires_at"`
	RevokedAt     *time.Time     `db:"revoked_at" json:"revoked_at"`
	RotatedAt     *time.Time     `db:"rotated_at" json:"rotated_at"`
	// PreviousExpiresAt is when the secret a rotation replaced stops.
	PreviousExpiresAt *time.Time `db:"previous_expires_at" json:"previous_secret_expires_at"`
	// Status is active, expired or revoked, by the database's clock.
	Status string `db:"status" json:"-"`
	// Companies are the companies the key reaches that the caller reaches
	// too (its user's own keys) or manages (another member's).
	Companies pq.StringArray `db:"companies" json:"-"`
	// Reached are all the companies the key reaches: where its changes
	// are audited and announced.
	Reached pq.StringArray `db:"reached" json:"-"`
	// Shared are the caller's and the holder's roles, "caller/holder", in
	// each company the key reaches that the caller manages.
	Shared pq.StringArray `db:"shared" json:"-"`
}

// Managed are the keys a caller may see: its user's own, and those of
// members reaching a company where the caller is owner or admin.
type Managed struct {
	Company *uuid.UUID // only keys reaching it
	Status  string     // only keys in this state; "" all
	After   *KeyPosition
	Limit   int
}

// KeyPosition is where a page of keys ends: newest first.
type KeyPosition struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

// keysSQL selects the keys the caller ($1 user, $2 key, $3 its company
// access) manages, with what it may see of them: of the companies a key
// reaches, those the caller reaches too (its own keys) or manages
// (others'), so an allowlist key learns of no company outside its list; $4 narrows to one key
// (NULL: all). A NULL caller is the operator at the command line, who
// manages every key.
var keysSQL = `
	WITH visible AS (
		SELECT mc.company_id, mc.role FROM (` + reach("$1::uuid", "$2::uuid", "$3::text") + `) mc),
	managed AS (SELECT company_id, role FROM visible WHERE role IN ('owner', 'admin'))
	SELECT k.id, k.user_id, u.email, k.name, k.prefix, k.mode, k.scopes, k.company_access, k.read_only,
		k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.rotated_at, k.previous_expires_at,
		CASE WHEN k.revoked_at IS NOT NULL THEN 'revoked'
			WHEN k.expires_at <= now() THEN 'expired' ELSE 'active' END AS status,
		ARRAY(SELECT r.company_id::text FROM (` + reach("k.user_id", "k.id", "k.company_access") + `) r
			WHERE $1::uuid IS NULL OR r.company_id IN (SELECT company_id FROM managed)
				OR k.user_id = $1 AND r.company_id IN (SELECT company_id FROM visible)
			ORDER BY r.company_id) AS companies,
		ARRAY(SELECT r.company_id::text FROM (` + reach("k.user_id", "k.id", "k.company_access") + `) r
			ORDER BY r.company_id) AS reached,
		ARRAY(SELECT mg.role || '/' || r.role FROM (` + reach("k.user_id", "k.id", "k.company_access") + `) r
			JOIN managed mg ON mg.company_id = r.company_id) AS shared
	FROM api_keys k JOIN users u ON u.id = k.user_id
	WHERE ($4::uuid IS NULL OR k.id = $4)
	  AND ($1::uuid IS NULL OR k.user_id = $1 OR EXISTS (
		SELECT 1 FROM (` + reach("k.user_id", "k.id", "k.company_access") + `) r
		JOIN managed mg ON mg.company_id = r.company_id))`

// Keys returns up to m.Limit+1 keys caller manages (all of them for the
// operator, a nil caller), newest first.
func (s *Store) Keys(ctx context.Context, caller *Key, m Managed) ([]Record, error) {
	at, id := time.Now().Add(100*365*24*time.Hour), uuid.Max
	if m.After != nil {
		at, id = m.After.At, m.After.ID
	}
	user, key, access := callerArgs(caller)
	var out []Record
	err := s.db.Q(ctx).SelectContext(ctx, &out, `SELECT * FROM (`+keysSQL+`) x
		WHERE ($5::uuid IS NULL OR $5::text = ANY (x.companies))
		  AND ($6 = '' OR x.status = $6)
		  AND (x.created_at, x.id) < ($7, $8)
		ORDER BY x.created_at DESC, x.id DESC LIMIT $9`,
		user, key, access, nil, m.Company, m.Status, at, id, m.Limit+1)
	return out, err
}

// callerArgs are keysSQL's $1–$3 for caller; all NULL for the operator.
func callerArgs(caller *Key) (user, key *uuid.UUID, access *CompanyAccess) {
	if caller == nil {
		return nil, nil, nil
	}
	return &caller.UserID, &caller.ID, &caller.CompanyAccess
}

// managedKey returns the key id caller manages, locked for the change,
// or 404 API_KEY_NOT_FOUND.
func (s *Store) managedKey(ctx context.Context, caller *Key, id uuid.UUID) (*Record, error) {
	user, key, access := callerArgs(caller)
	var r Record
	err := s.db.Q(ctx).GetContext(ctx, &r, keysSQL+` FOR UPDATE OF k`, user, key, access, id)
	if store.NotFound(err) {
		return nil, apierr.New(apierr.APIKeyNotFound, map[string]any{"key_id": id})
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Issue creates a key for the caller's user within the caller's grant
// (Within), audited and announced in every company it reaches. The
// secret is returned once.
func (s *Store) Issue(ctx context.Context, caller *Key, n NewKey, now time.Time) (string, *Record, error) {
	reach, err := s.Reachable(ctx, caller)
	if err != nil {
		return "", nil, err
	}
	if err := Within(caller, reach, &n, now); err != nil {
		return "", nil, err
	}
	n.UserID = caller.UserID
	return s.Create(ctx, n)
}

// Create creates a key as CreateKey does, audited and announced in every
// company it reaches; the secret is returned once.
func (s *Store) Create(ctx context.Context, n NewKey) (string, *Record, error) {
	var token string
	var r *Record
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		var k *Key
		var err error
		if token, k, err = s.CreateKey(ctx, n); err != nil {
			return err
		}
		if r, err = s.managedKey(ctx, nil, k.ID); err != nil {
			return err
		}
		return s.announce(ctx, r, "api_key.created", audit.Insert, "API-nyckel skapades", nil)
	})
	if err != nil {
		return "", nil, err
	}
	return token, r, nil
}

// Rotate gives one of the caller's own keys (any key, for the operator:
// a nil caller) a new secret; the old one
// keeps working for grace (0: it stops at once). A secret an earlier
// rotation replaced stops now.
func (s *Store) Rotate(ctx context.Context, caller *Key, id uuid.UUID, grace time.Duration) (string, *Record, error) {
	var token string
	var r *Record
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		old, err := s.managedKey(ctx, caller, id)
		if err != nil {
			return err
		}
		if caller != nil && old.UserID != caller.UserID {
			return apierr.New(apierr.Forbidden, map[string]any{"key_id": id,
				"reason": "only the key's own user may rotate it: its new secret would be theirs; revoke it instead"})
		}
		if old.Status != "active" {
			return apierr.New(apierr.APIKeyRevoked, map[string]any{"key_id": id, "status": old.Status})
		}
		t, hash := NewToken(old.Mode)
		token = t
		if _, err := s.db.Q(ctx).ExecContext(ctx, `
			UPDATE api_keys SET key_hash = $2, prefix = $3, rotated_at = now(),
				previous_key_hash = CASE WHEN $4 > 0 THEN key_hash END,
				previous_expires_at = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 second' END
			WHERE id = $1`, id, hash, Prefix(t), int64(grace/time.Second)); err != nil {
			return err
		}
		if r, err = s.managedKey(ctx, caller, id); err != nil {
			return err
		}
		return s.announce(ctx, r, "api_key.rotated", audit.Update, "API-nyckelns hemlighet byttes", old)
	})
	if err != nil {
		return "", nil, err
	}
	return token, r, nil
}

// Revoke revokes a key for good: the caller's user's own, or a member's
// the caller may take away (MayRevoke); any key for the operator (a nil
// caller). A revoked key is answered as it
// is.
func (s *Store) Revoke(ctx context.Context, caller *Key, id uuid.UUID) (*Record, error) {
	var r *Record
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		old, err := s.managedKey(ctx, caller, id)
		if err != nil {
			return err
		}
		if caller != nil && old.UserID != caller.UserID && !MayRevoke(shared(old.Shared)) {
			return apierr.New(apierr.Forbidden, map[string]any{"key_id": id,
				"reason": "an admin cannot revoke an owner's key; ask an owner"})
		}
		if old.RevokedAt != nil {
			r = old
			return nil
		}
		if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1`, id); err != nil {
			return err
		}
		if r, err = s.managedKey(ctx, caller, id); err != nil {
			return err
		}
		return s.announce(ctx, r, "api_key.revoked", audit.Update, "API-nyckel återkallades", old)
	})
	return r, err
}

func shared(pairs []string) []Roles {
	out := make([]Roles, 0, len(pairs))
	for _, p := range pairs {
		c, h, _ := strings.Cut(p, "/")
		out = append(out, Roles{Caller: Role(c), Holder: Role(h)})
	}
	return out
}

// announce writes the audit row and the event of a change to key r in
// every company it reaches: its owners see who made, rotated or revoked
// a key into their books. The snapshots hold no secret or hash.
func (s *Store) announce(ctx context.Context, r *Record, event string, action audit.Action, what string, old *Record) error {
	now, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var before json.RawMessage
	if old != nil {
		if before, err = json.Marshal(old); err != nil {
			return err
		}
	}
	label := r.Prefix + "…"
	if r.Name != nil {
		label = *r.Name + " (" + label + ")"
	}
	for _, c := range r.Reached {
		company, err := uuid.Parse(c)
		if err != nil {
			return err
		}
		if err := s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "api_keys",
			RecordID: r.ID.String(), Description: what + ": " + label, Old: before, New: now}); err != nil {
			return err
		}
		if _, err := outbox.Emit(ctx, s.db, company, event, map[string]json.RawMessage{"api_key": now}); err != nil {
			return err
		}
	}
	return nil
}
