package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/store"
)

// Store holds the SQL of users, memberships and API keys.
type Store struct {
	db    *store.DB
	audit *audit.Store
}

// NewStore returns the auth store on db.
func NewStore(db *store.DB, a *audit.Store) *Store { return &Store{db: db, audit: a} }

// ErrNoKey means the token names no live, unrevoked key.
var ErrNoKey = errors.New("auth: no such key")

// validKey is the condition of a key k that authenticates the token whose
// hash is $1: its secret, or the one a rotation replaced while its grace
// lasts; never revoked, never expired. Every replica asks the database on
// every request, so a revocation holds everywhere at once.
const validKey = `(k.key_hash = $1 OR (k.previous_key_hash = $1 AND k.previous_expires_at > now()))
	AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`

type keyRow struct {
	Key
	Hash   []byte         `db:"key_hash"`
	Scopes pq.StringArray `db:"scopes"`
}

// Authenticate returns the key token names.
func (s *Store) Authenticate(ctx context.Context, token string) (*Key, error) {
	f, err := s.Lookup(ctx, token, nil, 0, 0)
	if err != nil {
		return nil, err
	}
	return f.Key, nil
}

// Bucket is a key's rate-limit bucket after a request took from it: the
// tokens left, whether there was one to take, and the database's clock.
type Bucket struct {
	Granted int // tokens leased; 0 when refused
	Tokens  float64
	At      time.Time
}

// Found is what Lookup answers: the key, what it may do in the company
// asked about (nil when it does not reach it or none was asked), and its
// rate-limit bucket (nil when no limit was taken).
type Found struct {
	Key    *Key
	Access *Access
	Bucket *Bucket
}

// Lookup finds the key token names, what it may do in company (nil asks
// nothing) and, when rateLimit is above 0, leases up to lease tokens of
// its bucket of rateLimit a minute (ratelimit_lease, the rate limiter's
// own function): the three things every request needs before its
// handler, in one round trip. Tokens are taken only for a live key.
func (s *Store) Lookup(ctx context.Context, token string, company *uuid.UUID, rateLimit, lease int) (*Found, error) {
	hash := HashToken(token)
	var r struct {
		keyRow
		AccessCompany  *uuid.UUID `db:"access_company_id"`
		AccessRole     *Role      `db:"access_role"`
		AccessReadOnly *bool      `db:"access_read_only"`
		Granted        *int       `db:"bucket_granted"`
		Tokens         *float64   `db:"bucket_tokens"`
		At             *time.Time `db:"bucket_at"`
	}
	// The key's last use is written at most once a minute, in the same
	// statement: an UPDATE whose condition fails takes no lock.
	err := s.db.Q(ctx).GetContext(ctx, &r, `
		WITH touched AS (
			UPDATE api_keys k SET last_used_at = now()
			WHERE `+validKey+` AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute'))
		SELECT k.id, k.user_id, u.email, k.name, k.mode, k.scopes, k.company_access, k.read_only, k.expires_at,
			CASE WHEN k.key_hash = $1 THEN k.key_hash ELSE k.previous_key_hash END AS key_hash,
			a.company_id AS access_company_id, a.role AS access_role, a.read_only AS access_read_only,
			b.granted AS bucket_granted, b.tokens AS bucket_tokens, b.updated_at AS bucket_at
		FROM api_keys k JOIN users u ON u.id = k.user_id
		LEFT JOIN LATERAL (`+reach("k.user_id", "k.id", "k.company_access")+` AND m.company_id = $2) a ON true
		LEFT JOIN LATERAL (SELECT * FROM ratelimit_lease(k.id, $3, $4) WHERE $3 > 0) b ON true
		WHERE `+validKey, hash, company, rateLimit, lease)
	if store.NotFound(err) {
		return nil, ErrNoKey
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(r.Hash, hash) != 1 {
		return nil, ErrNoKey
	}
	k := r.Key
	k.Scopes = []string(r.Scopes)
	f := &Found{Key: &k}
	if r.AccessCompany != nil {
		f.Access = &Access{CompanyID: *r.AccessCompany, Role: *r.AccessRole,
			ReadOnly: ReadOnlyCode(*r.AccessRole, *r.AccessReadOnly, k.ReadOnly)}
	}
	if r.Tokens != nil {
		f.Bucket = &Bucket{Granted: *r.Granted, Tokens: *r.Tokens, At: *r.At}
	}
	return f, nil
}

type accessRow struct {
	Access
	ConnectionReadOnly bool `db:"read_only"`
}

// reach selects the memberships a key reaches in non-archived companies:
// the one rule, given the SQL of the key's user, id and company access
// (placeholders, or the columns of a key the query joins).
func reach(user, key, access string) string {
	return `
	SELECT m.company_id, m.role, m.read_only
	FROM company_members m
	JOIN companies c ON c.id = m.company_id AND c.archived_at IS NULL
	WHERE m.user_id = ` + user + `
	  AND (` + access + ` = 'all_memberships' OR EXISTS (
	      SELECT 1 FROM api_key_companies ac WHERE ac.api_key_id = ` + key + ` AND ac.company_id = m.company_id))`
}

// reachSQL is reach with $1 the user, $2 the key, $3 its company access.
var reachSQL = reach("$1", "$2", "$3")

// Access returns what k may do in company, or nil when k does not reach
// it (not a member, not on the allowlist, or archived): such a company
// answers 404, as if it did not exist.
func (s *Store) Access(ctx context.Context, k *Key, company uuid.UUID) (*Access, error) {
	var r accessRow
	err := s.db.Q(ctx).GetContext(ctx, &r, reachSQL+` AND m.company_id = $4`, k.UserID, k.ID, k.CompanyAccess, company)
	if store.NotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a := r.Access
	a.ReadOnly = ReadOnlyCode(a.Role, r.ConnectionReadOnly, k.ReadOnly)
	return &a, nil
}

// Reachable returns every company k reaches, oldest company first.
func (s *Store) Reachable(ctx context.Context, k *Key) ([]Access, error) {
	var rows []accessRow
	err := s.db.Q(ctx).SelectContext(ctx, &rows, reachSQL+` ORDER BY c.created_at, c.id`, k.UserID, k.ID, k.CompanyAccess)
	if err != nil {
		return nil, err
	}
	out := make([]Access, len(rows))
	for i, r := range rows {
		out[i] = r.Access
		out[i].ReadOnly = ReadOnlyCode(r.Role, r.ConnectionReadOnly, k.ReadOnly)
	}
	return out, nil
}

// EnsureUser returns the id of the user with email, creating the user when
// missing.
func (s *Store) EnsureUser(ctx context.Context, email string) (uuid.UUID, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if !strings.Contains(email, "@") {
		return uuid.Nil, fmt.Errorf("%q is not an e-mail address", email)
	}
	var id uuid.UUID
	err := s.db.Q(ctx).GetContext(ctx, &id, `
		INSERT INTO users (email) VALUES ($1)
		ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
		RETURNING id`, email)
	return id, err
}

// NewKey describes a key to create.
type NewKey struct {
	Email         string
	UserID        uuid.UUID // instead of Email: an existing user
	Name          string
	Mode          Mode
	Scopes        []string
	CompanyAccess CompanyAccess
	Companies     []uuid.UUID // the allowlist
	ReadOnly      bool
	ExpiresAt     *time.Time // nil: never
}

// CreateKey creates the user if missing and a key for them. The token is
// returned once and never stored.
func (s *Store) CreateKey(ctx context.Context, n NewKey) (token string, k *Key, err error) {
	if n.Mode != Live && n.Mode != Test {
		return "", nil, fmt.Errorf("mode must be live or test")
	}
	if n.CompanyAccess != AllMemberships && n.CompanyAccess != Allowlist {
		return "", nil, fmt.Errorf("company access must be all_memberships or allowlist")
	}
	if n.CompanyAccess == AllMemberships && len(n.Companies) > 0 {
		return "", nil, fmt.Errorf("--company needs --company-access allowlist")
	}
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		uid := n.UserID
		if uid == uuid.Nil {
			var err error
			if uid, err = s.EnsureUser(ctx, n.Email); err != nil {
				return err
			}
		}
		t, hash := NewToken(n.Mode)
		token = t
		k = &Key{UserID: uid, Mode: n.Mode, Scopes: n.Scopes, CompanyAccess: n.CompanyAccess, ReadOnly: n.ReadOnly,
			ExpiresAt: n.ExpiresAt}
		if n.Name != "" {
			k.Name = &n.Name
		}
		if err := s.db.Q(ctx).GetContext(ctx, &k.ID, `
			INSERT INTO api_keys (user_id, name, prefix, key_hash, mode, scopes, company_access, read_only, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			uid, k.Name, Prefix(token), hash, n.Mode, pq.StringArray(n.Scopes), n.CompanyAccess, n.ReadOnly,
			n.ExpiresAt); err != nil {
			return err
		}
		for _, c := range n.Companies {
			if _, err := s.db.Q(ctx).ExecContext(ctx, `
				INSERT INTO api_key_companies (api_key_id, company_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, k.ID, c); err != nil {
				return fmt.Errorf("company %s: %w", c, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return token, k, nil
}

// AddMember makes the user a member of company with role, or changes the
// role of an existing member, audits the change and returns the
// membership. readOnly makes the connection read-only.
func (s *Store) AddMember(ctx context.Context, company, user uuid.UUID, role Role, readOnly bool) (Membership, error) {
	var row struct {
		Membership
		Old      []byte `db:"old"` // NULL when the member is new
		New      []byte `db:"new"`
		Inserted bool   `db:"inserted"`
	}
	err := s.db.Q(ctx).GetContext(ctx, &row, `
		WITH old AS (SELECT to_jsonb(m) AS j FROM company_members m WHERE company_id = $1 AND user_id = $2 FOR UPDATE)
		INSERT INTO company_members AS m (company_id, user_id, role, read_only) VALUES ($1, $2, $3, $4)
		ON CONFLICT (company_id, user_id) DO UPDATE SET role = EXCLUDED.role, read_only = EXCLUDED.read_only
		RETURNING m.user_id, (SELECT email FROM users WHERE id = m.user_id) AS email, m.role, m.read_only, m.created_at,
			(SELECT j FROM old) AS old, to_jsonb(m) AS new, (xmax = 0) AS inserted`,
		company, user, role, readOnly)
	if err != nil {
		return Membership{}, err
	}
	action, what := audit.Update, "ändrades"
	if row.Inserted {
		action, what = audit.Insert, "lades till"
	}
	err = s.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "company_members",
		RecordID: user.String(), Description: "Medlem " + what + " med rollen " + string(role), Old: row.Old, New: row.New})
	return row.Membership, err
}

// Membership is a user's role in a company, as listed.
type Membership struct {
	UserID    uuid.UUID `db:"user_id"`
	Email     string    `db:"email"`
	Role      Role      `db:"role"`
	ReadOnly  bool      `db:"read_only"`
	CreatedAt time.Time `db:"created_at"`
}

// membershipSQL selects memberships with their users' e-mail.
const membershipSQL = `
	SELECT m.user_id, u.email, m.role, m.read_only, m.created_at
	FROM company_members m JOIN users u ON u.id = m.user_id
	`

// MemberPosition is where a page of members ends: oldest first.
type MemberPosition struct {
	At time.Time `json:"at"`
	ID uuid.UUID `json:"id"`
}

// Members returns up to limit+1 members of company after the position
// (nil for the first page), oldest membership first.
func (s *Store) Members(ctx context.Context, company uuid.UUID, after *MemberPosition, limit int) ([]Membership, error) {
	at, id := time.Time{}, uuid.Nil
	if after != nil {
		at, id = after.At, after.ID
	}
	var out []Membership
	err := s.db.Q(ctx).SelectContext(ctx, &out, membershipSQL+`
		WHERE m.company_id = $1 AND (m.created_at, m.user_id) > ($2, $3)
		ORDER BY m.created_at, m.user_id LIMIT $4`, company, at, id, limit+1)
	return out, err
}

// Member returns the membership of user in company, or nil.
func (s *Store) Member(ctx context.Context, company, user uuid.UUID) (*Membership, error) {
	var m Membership
	err := s.db.Q(ctx).GetContext(ctx, &m, membershipSQL+`WHERE m.company_id = $1 AND m.user_id = $2`, company, user)
	if store.NotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}
