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
