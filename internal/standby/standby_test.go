package standby

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestLSNAsPostgresWritesIt(t *testing.T) {
	for s, want := range map[string]LSN{"0/0": 0, "16/B374D848": 0x16_B374D848, "FFFFFFFF/FFFFFFFF": 1<<64 - 1,
		"0/1": 1, "1/0": 1 << 32} {
		got, err := ParseLSN(s)
		if err != nil || got != want {
			t.Fatalf("ParseLSN(%q) = %v, %v; want %v", s, got, err, want)
		}
		if got.String() != s {
			t.Fatalf("%v written as %q, not %q", want, got.String(), s)
		}
	}
	if l, err := ParseLSN("16/b374d848"); err != nil || l != 0x16_B374D848 {
		t.Fatalf("lower case: %v %v", l, err)
	}
	for _, bad := range []string{"", "/", "16", "16/", "/B3", "G/1", "1/2/3", "123456789/0", "0/123456789", "-1/0", " 1/0"} {
		if _, err := ParseLSN(bad); err == nil {
			t.Fatalf("ParseLSN(%q) took it", bad)
		}
	}
}

// clock is a time a test moves by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func standbyAt(c *clock) *Standby {
	s := New(nil, nil, Config{MaxLag: 10 * time.Second, Sticky: 5 * time.Second, Poll: 100 * time.Millisecond, Now: c.Now})
	s.up = true
	return s
}

// The lag is the time since the primary last had nothing the replica has
// not replayed, reckoned from positions sampled before they were read.
func TestLagIsTheAgeOfTheNewestPositionReplayed(t *testing.T) {
	c := &clock{time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	s := standbyAt(c)
	t0 := c.now
	s.sampled(t0, 1000)
	s.sampled(t0.Add(1*time.Second), 2000)
	s.sampled(t0.Add(2*time.Second), 3000)
	c.now = t0.Add(3 * time.Second)

	s.replay = 2500 // holds what the primary had at t0+1s, not at t0+2s
	if got := s.lagLocked(c.now); got != 2*time.Second {
		t.Fatalf("lag %v, want 2s", got)
	}
	s.replay = 3000
	if got := s.lagLocked(c.now); got != time.Second {
		t.Fatalf("lag %v, want 1s", got)
	}
	s.replay = 500 // behind every sample kept: at least the oldest's age
	if got := s.lagLocked(c.now); got != 3*time.Second {
		t.Fatalf("lag %v, want 3s", got)
	}

	// An idle primary: the same position sampled later moves the sample,
	// so a replica holding it is not reckoned further behind with time.
	s.replay = 3000
	s.sampled(t0.Add(10*time.Second), 3000)
	c.now = t0.Add(10*time.Second + 100*time.Millisecond)
	if got := s.lagLocked(c.now); got != 100*time.Millisecond {
		t.Fatalf("idle primary: lag %v, want 100ms", got)
	}
	// A position learnt out of order is dropped, not misfiled.
	s.sampled(t0.Add(9*time.Second), 2900)
	if n := len(s.samples); s.samples[n-1].lsn != 3000 {
		t.Fatalf("samples %v", s.samples)
	}
	// A replica that is the primary itself is never behind.
	s.current, s.replay = true, 0
	if got := s.lagLocked(c.now); got != 0 {
		t.Fatalf("current: lag %v", got)
	}
}

// Samples older than the span the lag is reckoned on are let go.
func TestSamplesAreKeptForTwiceMaxLag(t *testing.T) {
	c := &clock{time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	s := standbyAt(c)
	for i := range 600 {
		s.sampled(c.now.Add(time.Duration(i)*100*time.Millisecond), LSN(1000+i))
	}
	// 60 s of samples, 10 s max lag: 22 s kept (2×10 s + 2 s), one a tenth.
	if n := len(s.samples); n < 215 || n > 225 {
		t.Fatalf("%d samples kept", n)
	}
}

// A position just past a page boundary (the primary's insert position
// after a record ending on it) counts as reached by a replay at the
// boundary; one further in does not.
func TestPassedAcrossAPageHeader(t *testing.T) {
	s := standbyAt(&clock{})
	s.replay = 3 * 8192
	for lsn, want := range map[LSN]bool{3 * 8192: true, 3*8192 - 5: true, 3*8192 + 24: true, 3*8192 + 40: true,
		3*8192 + 41: false, 4 * 8192: false} {
		if got := s.passed(lsn); got != want {
			t.Fatalf("replay %v, token %v: passed %v", s.replay, lsn, got)
		}
	}
	s.replay = 3*8192 + 8
	if s.passed(3*8192 + 24) {
		t.Fatal("a replay inside a page passed a position beyond it")
	}
}

// Route without reading either server: the cases its state decides.
func TestRouteByTheReplicasState(t *testing.T) {
	c := &clock{time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	s := standbyAt(c)
	ctx := context.Background()
	key, other := uuid.New(), uuid.New()
	s.sampled(c.now, 5000)
	s.replay = 5000

	if r := s.Route(ctx, other, nil); !r.Replica || r.Reason != Fresh || r.At != 5000 || r.Token {
		t.Fatalf("no token: %+v", r)
	}
	tok := LSN(4000)
	if r := s.Route(ctx, other, &tok); !r.Replica || r.Reason != CaughtUp || !r.Token {
		t.Fatalf("token passed: %+v", r)
	}

	// The key's own write of a moment ago stands in for a token: with
	// the replica not past it and no time to wait, the primary answers.
	s.recent[key] = sample{c.now, 6000}
	s.sampled(c.now.Add(50*time.Millisecond), 6000) // Committed sampled it
	s.cfg.MaxWait = time.Nanosecond
	s.replica = nil // a wait would read it: there is no time for one
	if r := s.Route(ctx, key, nil); r.Replica || r.Reason != TimedOut || !r.Token {
		t.Fatalf("sticky, not replayed: %+v", r)
	}
	if r := s.Route(ctx, other, nil); !r.Replica {
		t.Fatalf("another key is not held to it: %+v", r)
	}
	c.now = c.now.Add(6 * time.Second) // past Sticky
	s.sampled(c.now, 5000)
	if r := s.Route(ctx, key, nil); !r.Replica || r.Reason != Fresh {
		t.Fatalf("sticky over: %+v", r)
	}

	s.up = false
	if r := s.Route(ctx, key, &tok); r.Replica || r.Reason != Down {
		t.Fatalf("down: %+v", r)
	}
	s.up = true
	s.sampled(c.now.Add(time.Second), 9000)
	c.now = c.now.Add(12 * time.Second) // the replica at 5000 since: 12 s behind
	if r := s.Route(ctx, key, nil); r.Replica || r.Reason != Lagging {
		t.Fatalf("lagging: %+v", r)
	}
}
