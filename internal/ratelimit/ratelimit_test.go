package ratelimit

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	start := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	r := decide(100, 100, start, start.Add(18*time.Second))
	if !r.Allowed || r.Remaining != 0 || !r.Reset.Equal(start.Add(time.Minute)) {
		t.Fatalf("100th request: %+v", r)
	}
	r = decide(101, 100, start, start.Add(18*time.Second))
	if r.Allowed || r.Remaining != 0 || r.RetryAfter != 42*time.Second {
		t.Fatalf("101st request: %+v", r)
	}
	r = decide(101, 100, start, start.Add(59*time.Second+900*time.Millisecond))
	if r.RetryAfter != time.Second {
		t.Fatalf("retry-after must be at least a second: %v", r.RetryAfter)
	}
}
