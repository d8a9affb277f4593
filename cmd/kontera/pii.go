package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/idempotency"
	"github.com/kontera/kontera/internal/parties"
	"github.com/kontera/kontera/internal/payroll"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/webhooks"
)

// piiRekey is `kontera pii rekey --new-key-file FILE`: every value sealed
// under KONTERA_PII_KEY (personnummer and the numbers built on them, with
// their tokens; AGI files; webhook secrets; bank sessions; stored answers
// that carry one of them) sealed anew under the new key, in one
// transaction, as the owner role (KONTERA_MIGRATE_DATABASE_URL, else
// DATABASE_URL). Every replica is stopped first: one still running holds
// the old key, and the tables are locked until the change commits. Run
// again after it committed, it changes nothing.
func piiRekey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pii rekey", flag.ContinueOnError)
	fs.SetOutput(stderr)
	newKeyFile := fs.String("new-key-file", "", "a file holding the new key: 64 hexadecimal digits (make one with openssl rand -hex 32)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.PIIKey == nil {
		return errors.New("pii rekey: KONTERA_PII_KEY must hold the key in use now")
	}
	if *newKeyFile == "" {
		return errors.New("pii rekey: --new-key-file is required")
	}
	raw, err := os.ReadFile(*newKeyFile)
	if err != nil {
		return err
	}
	newKey, err := seal.ParseKey(string(raw))
	if err != nil {
		return fmt.Errorf("pii rekey: %s: %w", *newKeyFile, err)
	}
	if string(newKey) == string(cfg.PIIKey) {
		return errors.New("pii rekey: the new key is the key in use")
	}
	from, err := seal.New(cfg.PIIKey)
	if err != nil {
		return err
	}
	to, err := seal.New(newKey)
	if err != nil {
		return err
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	var people, employees, agi, hooks, sessions, replies int
	err = d.InTx(ctx, func(ctx context.Context) error {
		// Writers wait for the change (readers do not): a replica left
		// running could otherwise seal a value under the old key after it.
		if _, err := d.Q(ctx).ExecContext(ctx, `LOCK TABLE customers, suppliers, parties, employees, agi_declarations,
			webhooks, bank_connections, idempotency_keys IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		var err error
		if people, err = parties.Rekey(ctx, d, from, to); err != nil {
			return err
		}
		if employees, agi, err = payroll.Rekey(ctx, d, from, to); err != nil {
			return err
		}
		if hooks, err = webhooks.Rekey(ctx, d, from, to); err != nil {
			return err
		}
		if sessions, err = banking.Rekey(ctx, d, from, to); err != nil {
			return err
		}
		replies, err = idempotency.Rekey(ctx, d, from, to)
		return err
	})
	if err != nil {
		return fmt.Errorf("pii rekey: nothing was changed: %w", err)
	}
	fmt.Fprintf(stdout, "Sealed anew under the new key: %d customers and suppliers, %d employees, %d AGI files, "+
		"%d webhook secrets, %d bank sessions, %d stored answers.\n"+
		"Set KONTERA_PII_KEY to the new key on every replica before starting them; keep the old key until a backup\n"+
		"taken after this change has been restored in a drill (older backups need the old key).\n",
		people, employees, agi, hooks, sessions, replies)
	return nil
}
