package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kontera/kontera/db"
	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/store"
)

// release is this binary's release (CHANGELOG.md names each one's
// commit); a build between releases says so with its commit.
const release = "0.1.0"

// commit is the commit the binary was built from: go build stamps it
// from the repository; a build from outside one may set it with
// -ldflags "-X main.commit=…".
var commit = ""

// build answers the commit and whether the tree had changes beside it.
func build() (rev string, modified bool) {
	rev = commit
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	return rev, modified
}

// version prints the release, the commit, the schema the binary brings
// and, when a database is configured and answers, the schema it has.
func version(ctx context.Context, stdout io.Writer) error {
	rev, modified := build()
	if rev == "" {
		rev = "unknown (not built from a git checkout)"
	} else if modified || strings.HasSuffix(rev, "-dirty") {
		rev = strings.TrimSuffix(rev, "-dirty") + " (with uncommitted changes)"
	}
	fmt.Fprintf(stdout, "kontera %s\ncommit  %s\nschema  %d\ngo      %s\n", release, rev, db.Schema(), runtime.Version())
	cfg, err := config.FromEnv()
	if err != nil || cfg.DatabaseURL == "" {
		return nil
	}
	// Room for a busy server: the answer is worth a wait, an unreachable
	// database still ends it.
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	d, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintf(stdout, "database unreachable: %v\n", err)
		return nil
	}
	defer d.Close()
	v, err := db.Current(ctx, d.DB.DB)
	if err != nil {
		fmt.Fprintf(stdout, "database schema unknown: %v\n", err)
		return nil
	}
	state := "current"
	switch {
	case v < db.Schema():
		state = "behind: kontera migrate brings it up"
	case v > db.Schema():
		state = "ahead: written by a newer release"
	}
	fmt.Fprintf(stdout, "database schema %d (%s)\n", v, state)
	return nil
}
