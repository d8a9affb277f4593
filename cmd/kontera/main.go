// Command kontera is the one binary of Kontera: the API server and the
// operator's tools.
//
//	kontera serve                 serve the API (DATABASE_URL, KONTERA_SECRET)
//	kontera migrate               bring the database schema up to date
//	kontera dev                   local PostgreSQL under .data, migrate, demo key, serve
//	kontera version               release, commit and schema
//	kontera keys create ...       create an API key (and its user)
//	kontera keys list|revoke|rotate  see, revoke and rotate API keys
//	kontera capabilities ...      grant or revoke paid capabilities of a company
//	kontera members add ...       make a user a member of a company
//	kontera fx import FILE        load exchange rates (currency,date,rate) into fx_rates
//	kontera payroll tax-tables YEAR FILE   load Skatteverket's month tables for a year
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	// The time zones are in the binary: an image of the binary alone
	// still knows Sweden's summer time.
	_ "time/tzdata"
)

const usage = `Kontera: a REST API for Swedish bookkeeping and invoicing.

Usage:
  kontera serve
  kontera migrate
  kontera dev
  kontera health                  GET /api/v1/health of the server on KONTERA_ADDR (an image's HEALTHCHECK)
  kontera version                 the release, its commit, the schema it brings and the database's
  kontera keys create --email E [--name N] [--scopes all|a,b,...] [--mode live|test]
                      [--company-access all_memberships|allowlist] [--company ID ...] [--read-only]
                      [--expires-at 2027-01-01T00:00:00Z]
  kontera keys list [--email E] [--company ID] [--status active|expired|revoked] [--json]
  kontera keys revoke KEY_ID...   refused at once on every replica
  kontera keys rotate KEY_ID [--grace 1h]   a new secret, printed once; the old one works for --grace
  kontera capabilities grant|revoke|list --company ID [NAME...]
                                  switch paid capabilities (payroll, peppol, bank_sync, inbox, or all)
                                  on for good after the trial, or off
  kontera members add --company ID --email E --role owner|admin|member|viewer [--read-only]
  kontera pii rekey --new-key-file FILE
                                  seal every personnummer, AGI file, webhook secret and bank session anew
                                  under a new KONTERA_PII_KEY (replicas stopped; as the owner role)
  kontera webhooks listen [--addr 127.0.0.1:8443] [--secret whsec_...] [--count N] [--timeout 1m]
                                  a receiver on this machine (kontera dev trusts it): prints each delivery
                                  and checks its signature
  kontera fx import FILE          load exchange rates: lines of currency,date,rate (SEK per unit)
  kontera payroll tax-tables YEAR FILE [--source URL]
                                  load a year's month tables (Skatteverket's allmanna-tabeller-manad.txt)

Configuration (environment):
  DATABASE_URL                    PostgreSQL URL; unset: dev and the tools use the cluster under .data
  KONTERA_ADDR                    listen address (default 127.0.0.1:8080)
  KONTERA_BASE_URL                public URL (default http://KONTERA_ADDR)
  KONTERA_SECRET                  signing secret, 32+ characters (dev: generated under .data)
  KONTERA_LOG_LEVEL               debug, info, warn, error (default info)
  KONTERA_RATE_LIMIT_PER_MINUTE   requests per minute per key (default 100, 0 = off)
  KONTERA_DATA_DIR                where dev keeps its data (default .data)
  KONTERA_RIKSBANK_URL            the Riksbank's rate API (https://api.riksbank.se/swea/v1); unset: offline
  KONTERA_INBOUND_EMAIL_SECRET    signs e-mails posted to /api/v1/inbound/email; unset: the route is off
  KONTERA_CAPABILITIES            paid capabilities every new company holds for good beside its 30-day
                                  trial: all, none, or a list (payroll,peppol,bank_sync,inbox); unset: the trial only
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "kontera:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "serve":
		return serve(ctx, stderr)
	case "migrate":
		return migrate(ctx, stderr)
	case "dev":
		return dev(ctx, stdout, stderr)
	case "keys":
		if err := keys(ctx, args[1:], stdout, stderr); !errors.Is(err, flag.ErrHelp) {
			return err
		}
	case "capabilities":
		if err := capabilities(ctx, args[1:], stdout, stderr); !errors.Is(err, flag.ErrHelp) {
			return err
		}
	case "members":
		if len(args) > 1 && args[1] == "add" {
			return membersAdd(ctx, args[2:], stdout, stderr)
		}
	case "fx":
		if len(args) > 2 && args[1] == "import" {
			return fxImport(ctx, args[2], stdout, stderr)
		}
	case "payroll":
		if len(args) > 1 && args[1] == "tax-tables" {
			return payrollTaxTables(ctx, args[2:], stdout, stderr)
		}
	case "pii":
		if len(args) > 1 && args[1] == "rekey" {
			return piiRekey(ctx, args[2:], stdout, stderr)
		}
	case "webhooks":
		if len(args) > 1 && args[1] == "listen" {
			return webhooksListen(ctx, args[2:], stdout, stderr)
		}
	case "health":
		return health(ctx, stdout)
	case "version", "--version":
		return version(ctx, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return flag.ErrHelp
}
