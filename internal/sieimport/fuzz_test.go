package sieimport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/capability"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/company"
	"github.com/kontera/kontera/internal/deadline"
	"github.com/kontera/kontera/internal/dimensions"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/sie/sietest"
	"github.com/kontera/kontera/internal/sieimport"
	"github.com/kontera/kontera/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// books is the importer over a real database, wired as the server wires
// it, with a worker to run its operations.
type books struct {
	db        *store.DB
	companies *company.Store
	im        *sieimport.Importer
	ops       *jobs.Store
	worker    *jobs.Worker
}

func newBooks(t testing.TB) *books {
	d := pgtest.New(t)
	audits := audit.NewStore(d)
	periods := fiscal.NewStore(d, audits)
	accounts := chart.NewStore(d, audits)
	companies := company.NewStore(d, audits, company.Books{Chart: accounts, Periods: periods,
		Deadlines: deadline.NewStore(d), Capabilities: capability.NewStore(d)})
	journal := ledger.NewStore(d, audits, accounts, periods, companies.Ledger)
	dims := dimensions.NewStore(d, audits, journal.TagUse)
	journal.CheckDimensions = dims.Check
	ops := jobs.NewStore(d)
	im := sieimport.New(d, ops, journal, accounts, dims, periods, audits, sieimport.Books{
		OrgNumber:     func(context.Context, uuid.UUID) (string, error) { return "", nil },
		DefaultSeries: func(context.Context, uuid.UUID) (string, error) { return "A", nil },
	})
	w := jobs.NewWorker(ops, nil)
	// A failure that is not the file's ends the run at once: it is what
	// the fuzzing looks for.
	w.MaxAttempts = 1
	w.HandleSteps(sieimport.OpImport, im.Step, im.Failed)
	w.HandleSteps(sieimport.OpUndo, im.Step, im.Failed)
	return &books{db: d, companies: companies, im: im, ops: ops, worker: w}
}

// actor is who the fuzzed imports are started by.
var actor = func() context.Context {
	id := uuid.New()
	return audit.WithActor(context.Background(), audit.Actor{Type: "api_key", ID: &id, Label: "fuzz"})
}()

// company makes a new aktiebolag whose first year is the calendar year of
// now.
func (b *books) company(t testing.TB, now time.Time) uuid.UUID {
	t.Helper()
	c, err := company.New(company.Input{Name: "Fuzz AB", EntityType: company.Aktiebolag}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.db.InTx(actor, func(ctx context.Context) error {
		var user uuid.UUID
		if err := b.db.Q(ctx).GetContext(ctx, &user, `INSERT INTO users (email) VALUES ($1) RETURNING id`,
			uuid.NewString()+"@example.se"); err != nil {
			return err
		}
		if c, err = b.companies.Insert(ctx, c, user); err != nil {
			return err
		}
		return b.companies.SetUpBooks(ctx, c, now)
	}); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// run imports file into company and runs the worker until nothing is
// left to do; it answers the import's final state.
func (b *books) run(t testing.TB, co uuid.UUID, file []byte) (sieimport.Import, jobs.Operation, error) {
	t.Helper()
	tmp, f, err := sieimport.Spool(bytes.NewReader(file), sieimport.MaxFile)
	if err != nil {
		return sieimport.Import{}, jobs.Operation{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	var i sieimport.Import
	var op jobs.Operation
	if err := b.db.InTx(actor, func(ctx context.Context) error {
		i, op, _, err = b.im.Start(ctx, co, sieimport.Request{Filename: "fuzz.se", File: f, Body: tmp,
			Options: sieimport.Options{OnExistingPeriod: "block", UpdateAccountNames: true}})
		return err
	}); err != nil {
		return i, op, err
	}
	b.drain(t)
	op, err = b.ops.Get(context.Background(), op.ID)
	if err != nil {
		t.Fatal(err)
	}
	i, err = b.im.Imports.Get(context.Background(), co, i.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	return i, op, nil
}

// drain runs the worker until no operation is left.
func (b *books) drain(t testing.TB) {
	t.Helper()
	for n := 0; n < 100; n++ {
		did, err := b.worker.Once(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			return
		}
	}
	t.Fatal("the worker never runs out of work")
}

// FuzzImport runs the whole import, the reader, pass 1 and pass 2,
// against a real database on generated files: it never panics, never
// fails with INTERNAL_ERROR, and never leaves a year held without a way
// out (an import it stopped can be undone).
func FuzzImport(f *testing.F) {
	for _, q := range sietest.Quirks(2025) {
		f.Add(q.File)
	}
	f.Add(sietest.Write(sietest.Spec{Year: 2025, Vouchers: 5, Opening: 1000, Split: true, Checksum: true}))
	for _, y := range sietest.History(2024, 2, 6) {
		f.Add(y.File)
	}
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "sie", "*.s[ei]")); len(files) > 0 {
		for _, name := range files[:2] {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	b := newBooks(f)
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, file []byte) {
		co := b.company(t, now)
		i, op, err := b.run(t, co, file)
		if err != nil {
			// Refused before anything was queued: a catalogue error.
			if e, ok := apierr.As(err); !ok || e.Code == apierr.InternalError {
				t.Fatalf("start: %v", err)
			}
			return
		}
		var fail jobs.Failure
		if len(op.Error) > 0 {
			if err := json.Unmarshal(op.Error, &fail); err != nil {
				t.Fatal(err)
			}
		}
		if fail.Code == "INTERNAL_ERROR" {
			t.Fatalf("the import failed with INTERNAL_ERROR: %s", op.Error)
		}
		switch i.State {
		case sieimport.Completed, sieimport.Failed:
		case sieimport.Paused:
			// A way out: the import stopped can be undone.
			if err := b.db.InTx(actor, func(ctx context.Context) error {
				_, err := b.im.Undo(ctx, co, i.ID, false)
				return err
			}); err != nil {
				t.Fatalf("a paused import cannot be undone: %v", err)
			}
			b.drain(t)
			if u, _ := b.im.Imports.Get(context.Background(), co, i.ID, false); u.State != sieimport.Undone {
				t.Fatalf("undo left the import %s", u.State)
			}
		default:
			t.Fatalf("the import ended %s (operation %s %s)", i.State, op.Status, op.Error)
		}
	})
}
