package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kontera/kontera/db"
)

// kontera version names the release, the schema the binary brings and
// the one of the database it is pointed at.
func TestVersion(t *testing.T) {
	migrated(t)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"kontera " + release, fmt.Sprintf("schema  %d", db.Schema()),
		fmt.Sprintf("database schema %d (current)", db.Schema())} {
		if !strings.Contains(s, want) {
			t.Fatalf("%q not in:\n%s", want, s)
		}
	}
	if db.Schema() < 55 {
		t.Fatalf("schema %d", db.Schema())
	}
}
