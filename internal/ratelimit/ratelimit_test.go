package ratelimit

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	// The 100th request of a full bucket of 100: allowed, none left; the
	// bucket is full again in a minute (0.6 s a token).
	r := decide(0, true, 100, now)
	if !r.Allowed || r.Remaining != 0 || r.Reset.Sub(now) < time.Minute || r.Reset.Sub(now) > time.Minute+time.Second {
		t.Fatalf("100th request: %+v", r)
	}
	// Refused with 0.25 tokens: the next one is back in 0.45 s, so retry
	// after a second (never less).
	r = decide(0.25, false, 100, now)
	if r.Allowed || r.Remaining != 0 || r.RetryAfter != time.Second {
		t.Fatalf("refused: %+v", r)
	}
	// A limit of 10 a minute: a token every 6 s.
	if r := decide(0, false, 10, now); r.RetryAfter != 6*time.Second {
		t.Fatalf("retry after %v, want 6s", r.RetryAfter)
	}
	if r := decide(42.7, true, 100, now); r.Remaining != 42 {
		t.Fatalf("remaining %d", r.Remaining)
	}
}

// A lease is spent in memory, token by token, until it runs out or its
// time is up; leases taken at once add up; a refusal makes none.
func TestLease(t *testing.T) {
	l := New(6000)
	if l.LeaseSize() != 60 {
		t.Fatalf("lease size %d", l.LeaseSize())
	}
	if New(100).LeaseSize() != 1 {
		t.Fatal("at the spec's limit every request must take from the bucket")
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if _, ok := l.Spend("k", now); ok {
		t.Fatal("spent a lease never taken")
	}
	r := l.Taken("k", 3, 100, now, now)
	if !r.Allowed || r.Remaining != 102 {
		t.Fatalf("take: %+v", r)
	}
	for want := 101; want >= 100; want-- {
		r, ok := l.Spend("k", now.Add(100*time.Millisecond))
		if !ok || r.Remaining != want {
			t.Fatalf("spend: %v %+v, want %d left", ok, r, want)
		}
	}
	if _, ok := l.Spend("k", now); ok {
		t.Fatal("spent past the lease")
	}
	l.Taken("k", 3, 100, now, now)
	if _, ok := l.Spend("k", now.Add(LeaseTTL+time.Millisecond)); ok {
		t.Fatal("spent a lease past its time")
	}
	later := now.Add(2 * LeaseTTL)
	if r := l.Taken("k", 0, 0.5, later, later); r.Allowed || r.Remaining != 0 {
		t.Fatalf("a refused take: %+v", r)
	}
	if _, ok := l.Spend("k", later); ok {
		t.Fatal("a refusal made a lease")
	}
	// Takes that found the lease empty at once add up.
	l.Taken("k", 3, 10, later, later)
	if r := l.Taken("k", 3, 7, later, later); r.Remaining != 11 {
		t.Fatalf("two takes leave %d, want 7 in the bucket and 4 leased", r.Remaining)
	}
	for range 4 {
		if _, ok := l.Spend("k", later); !ok {
			t.Fatal("a token of the two leases was lost")
		}
	}
	if _, ok := l.Spend("k", later); ok {
		t.Fatal("spent past the two leases")
	}
}
