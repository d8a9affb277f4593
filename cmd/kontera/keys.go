package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
)

// operator is the actor of the key commands in the audit trail: the
// person at the server's command line, not a key.
var operator = audit.Actor{Type: "system", Label: "kontera keys (operator)"}

// keys runs `kontera keys create|list|revoke|rotate`.
func keys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return flag.ErrHelp
	}
	switch args[0] {
	case "create":
		return keysCreate(ctx, args[1:], stdout, stderr)
	case "list":
		return keysList(ctx, args[1:], stdout, stderr)
	case "revoke":
		return keysRevoke(ctx, args[1:], stdout, stderr)
	case "rotate":
		return keysRotate(ctx, args[1:], stdout, stderr)
	}
	return flag.ErrHelp
}

func keysCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the key's user (created when missing)")
	name := fs.String("name", "", "a name for the key, shown as the actor in the audit trail")
	scopes := fs.String("scopes", "all", "all, or a comma list of scopes")
	mode := fs.String("mode", "live", "live or test")
	access := fs.String("company-access", "all_memberships", "all_memberships or allowlist")
	readOnly := fs.Bool("read-only", false, "the key may read but never write")
	expires := fs.String("expires-at", "", "when the key stops working (RFC 3339); empty: never")
	var companies stringList
	fs.Var(&companies, "company", "a company of the allowlist (repeat, or a comma list)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("keys create: --email is required")
	}
	sc, err := auth.ParseScopes(*scopes)
	if err != nil {
		return err
	}
	ids, err := parseIDs(companies)
	if err != nil {
		return err
	}
	var expiresAt *time.Time
	if *expires != "" {
		t, err := time.Parse(time.RFC3339, *expires)
		if err != nil || !t.After(time.Now()) {
			return fmt.Errorf("keys create: --expires-at must be a time to come, as 2027-01-01T00:00:00Z")
		}
		expiresAt = &t
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	token, k, err := auth.NewStore(d, audit.NewStore(d)).Create(audit.WithActor(ctx, operator), auth.NewKey{Email: *email, Name: *name,
		Mode: auth.Mode(*mode), Scopes: sc, CompanyAccess: auth.CompanyAccess(*access), Companies: ids, ReadOnly: *readOnly,
		ExpiresAt: expiresAt})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"key": token, "id": k.ID, "user_id": k.UserID, "mode": k.Mode, "scopes": k.Scopes,
		"expires_at": k.ExpiresAt})
}

// keysList prints every key (or those of --email, --company, --status):
// the operator's view of what GET /api-keys shows an owner.
func keysList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "only this user's keys")
	company := fs.String("company", "", "only keys reaching this company")
	status := fs.String("status", "", "only active, expired or revoked keys")
	asJSON := fs.Bool("json", false, "print JSON lines rather than a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m := auth.Managed{Status: *status, Limit: 1000}
	switch *status {
	case "", "active", "expired", "revoked":
	default:
		return fmt.Errorf("keys list: --status must be active, expired or revoked")
	}
	if *company != "" {
		id, err := uuid.Parse(*company)
		if err != nil {
			return fmt.Errorf("keys list: --company must be a company id")
		}
		m.Company = &id
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	s := auth.NewStore(d, audit.NewStore(d))
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	enc := json.NewEncoder(stdout)
	if !*asJSON {
		fmt.Fprintln(w, "ID\tUSER\tNAME\tPREFIX\tMODE\tSTATUS\tLAST USED\tEXPIRES\tSCOPES")
	}
	for {
		page, err := s.Keys(ctx, nil, m)
		if err != nil {
			return err
		}
		more := len(page) > m.Limit
		if more {
			page = page[:m.Limit]
		}
		for _, k := range page {
			if *email != "" && k.UserEmail != *email {
				continue
			}
			if *asJSON {
				if err := enc.Encode(map[string]any{"key": k, "user_email": k.UserEmail, "status": k.Status,
					"last_used_at": k.LastUsedAt, "companies": k.Reached}); err != nil {
					return err
				}
				continue
			}
			name := ""
			if k.Name != nil {
				name = *k.Name
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s…\t%s\t%s\t%s\t%s\t%d\n", k.ID, k.UserEmail, name, k.Prefix, k.Mode, k.Status,
				when(k.LastUsedAt), when(k.ExpiresAt), len(k.Scopes))
		}
		if !more {
			break
		}
		last := page[len(page)-1]
		m.After = &auth.KeyPosition{At: last.CreatedAt, ID: last.ID}
	}
	return w.Flush()
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// keysRevoke revokes keys by id: at once, on every replica.
func keysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: kontera keys revoke KEY_ID...")
	}
	ids, err := keyIDs(args)
	if err != nil {
		return err
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	s := auth.NewStore(d, audit.NewStore(d))
	ctx = audit.WithActor(ctx, operator)
	for _, id := range ids {
		k, err := s.Revoke(ctx, nil, id)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		fmt.Fprintf(stdout, "%s revoked at %s\n", k.ID, when(k.RevokedAt))
	}
	return nil
}

// keysRotate gives a key a new secret, printed once; --grace keeps the
// old one working beside it for a while.
func keysRotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys rotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	grace := fs.Duration("grace", 0, "how long the old secret keeps working (at most 168h)")
	if len(args) == 0 {
		return errors.New("usage: kontera keys rotate KEY_ID [--grace 1h]")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *grace < 0 || *grace > auth.MaxGrace {
		return fmt.Errorf("keys rotate: --grace must be between 0 and %s", auth.MaxGrace)
	}
	ids, err := keyIDs(args[:1])
	if err != nil {
		return err
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	token, k, err := auth.NewStore(d, audit.NewStore(d)).Rotate(audit.WithActor(ctx, operator), nil, ids[0], *grace)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"id": k.ID, "key": token, "rotated_at": k.RotatedAt,
		"previous_secret_expires_at": k.PreviousExpiresAt})
}

func keyIDs(args []string) ([]uuid.UUID, error) {
	out := make([]uuid.UUID, len(args))
	for i, a := range args {
		id, err := uuid.Parse(a)
		if err != nil {
			return nil, fmt.Errorf("%q is not a key id (kontera keys list shows them)", a)
		}
		out[i] = id
	}
	return out, nil
}
