package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/capability"
)

// capabilities runs `kontera capabilities grant|revoke|list --company ID
// [NAME...]`: how the operator of a self-hosted server switches a paid
// capability on for good after the trial, or off.
func capabilities(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return flag.ErrHelp
	}
	verb := args[0]
	if verb != "grant" && verb != "revoke" && verb != "list" {
		return flag.ErrHelp
	}
	fs := flag.NewFlagSet("capabilities "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var companies stringList
	fs.Var(&companies, "company", "a company id (repeat, or a comma list)")
	// Flags and names in any order: the names are what is not a flag.
	var names []string
	rest := args[1:]
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if rest = fs.Args(); len(rest) > 0 {
			names, rest = append(names, rest[0]), rest[1:]
		}
	}
	ids, err := parseIDs(companies)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("capabilities %s: --company is required", verb)
	}
	caps, err := capability.Parse(strings.Join(names, ","))
	if err != nil {
		return err
	}
	if verb != "list" && len(caps) == 0 {
		return fmt.Errorf("capabilities %s: name the capabilities (all, or of %v)", verb, capability.All)
	}
	d, cleanup, err := openDB(ctx, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	s := capability.NewStore(d)
	ctx = audit.WithActor(ctx, audit.Actor{Type: "system", Label: "kontera capabilities (operator)"})
	now := time.Now()
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "COMPANY\tCAPABILITY\tSOURCE\tACTIVE\tFROM\tUNTIL")
	for _, id := range ids {
		var exists bool
		if err := d.GetContext(ctx, &exists, `SELECT EXISTS (SELECT FROM companies WHERE id = $1)`, id); err != nil {
			return err
		}
		if !exists {
			return errors.New(id.String() + ": no such company")
		}
		switch verb {
		case "grant":
			err = s.Grant(ctx, id, caps, now)
		case "revoke":
			err = s.Revoke(ctx, id, caps, now)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		grants, err := s.Grants(ctx, id)
		if err != nil {
			return err
		}
		for _, g := range grants {
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\n", id, g.Capability, g.Source, g.Active(now),
				g.ActiveFrom.UTC().Format(time.RFC3339), when(g.ActiveUntil))
		}
	}
	return w.Flush()
}
