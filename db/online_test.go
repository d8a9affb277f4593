package db

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// firstRelease is the newest migration of v0.1.0's schema: what a new
// database receives whole at install, never by an upgrade.
const firstRelease = 54

// onlineLine is the header line an operator reads before an upgrade.
var onlineLine = regexp.MustCompile(`(?m)^-- Online: (safe|NOT safe)\b`)

// Every migration says in its header whether it runs online, beside a
// replica that still serves (CHANGELOG names a release whose migrations
// are not); those of the first release say they never run as an upgrade.
func TestMigrationsSayWhetherTheyRunOnline(t *testing.T) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		b, _ := migrations.ReadFile(f)
		head, _, ok := strings.Cut(string(b), "-- +goose Up")
		if !ok {
			t.Fatalf("%s: no -- +goose Up", f)
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f, "migrations/")[:5])
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		switch {
		case n <= firstRelease && !strings.Contains(head, "-- Online: part of v0.1.0's schema"):
			t.Errorf("%s: the header does not say it belongs to v0.1.0's schema", f)
		case n > firstRelease && !onlineLine.MatchString(head):
			t.Errorf("%s: the header does not say \"-- Online: safe\" or \"-- Online: NOT safe\", and why", f)
		}
	}
}
