package banking

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func on(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// The last 7 days, widened to the day of the last sync, at most 90; a
// connection never synced reads 90.
func TestWindow(t *testing.T) {
	today := on("2026-03-31")
	at := func(s string) *time.Time { d := on(s).Add(10 * time.Hour); return &d }
	for _, c := range []struct {
		last *time.Time
		from string
	}{
		{nil, "2025-12-31"},
		{at("2026-03-31"), "2026-03-24"},
		{at("2026-03-28"), "2026-03-24"},
		{at("2026-03-10"), "2026-03-10"},
		{at("2025-12-31"), "2025-12-31"},
		{at("2025-06-01"), "2025-12-31"},
	} {
		from, to := Window(c.last, today)
		if from.Format(time.DateOnly) != c.from || !to.Equal(today) {
			t.Errorf("%v: %s–%s, want from %s", c.last, from.Format(time.DateOnly), to.Format(time.DateOnly), c.from)
		}
	}
	// The day of the last sync is Stockholm's: 23:30 UTC on the 9th is
	// the 10th there.
	late := time.Date(2026, 3, 9, 23, 30, 0, 0, time.UTC)
	if from, _ := Window(&late, today); from.Format(time.DateOnly) != "2026-03-10" {
		t.Errorf("Stockholm's day: %s", from.Format(time.DateOnly))
	}
}

func TestNextAllowedAndStale(t *testing.T) {
	at := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
	limited := at.Add(time.Hour)
	early := at.Add(time.Minute)
	for _, c := range []struct {
		attempt, limited *time.Time
		want             time.Time
	}{
		{nil, nil, time.Time{}},
		{&at, nil, at.Add(Cooldown)},
		{&at, &limited, limited},
		{&at, &early, at.Add(Cooldown)},
	} {
		if got := NextAllowed(c.attempt, c.limited); !got.Equal(c.want) {
			t.Errorf("NextAllowed(%v, %v) = %v, want %v", c.attempt, c.limited, got, c.want)
		}
	}
	synced := at.Add(-37 * time.Hour)
	fresh := at.Add(-35 * time.Hour)
	if !Stale(&synced, at, at) || Stale(&fresh, at, at) || Stale(nil, at, at.Add(time.Hour)) || !Stale(nil, at, at.Add(37*time.Hour)) {
		t.Error("stale past 36 hours, since the last sync (or since made)")
	}
}

// A state names its company and connection, signed: another secret, a
// changed byte or an old state is refused.
func TestState(t *testing.T) {
	secret := []byte("a-test-secret-of-at-least-32-bytes!")
	company, conn := uuid.New(), uuid.New()
	now := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
	s := SignState(secret, company, conn, now.Add(stateTTL))
	c, id, err := ReadState(secret, s, now)
	if err != nil || c != company || id != conn {
		t.Fatalf("%v %v %v", c, id, err)
	}
	if _, _, err := ReadState([]byte("another-secret-of-at-least-32-bytes"), s, now); err != ErrBadState {
		t.Error("another secret")
	}
	tampered := []byte(s)
	tampered[3] ^= 1
	if _, _, err := ReadState(secret, string(tampered), now); err != ErrBadState {
		t.Error("tampered")
	}
	if _, _, err := ReadState(secret, s, now.Add(stateTTL+time.Second)); err != ErrBadState {
		t.Error("old")
	}
	// The same bytes spelled otherwise: the unused bits of the last
	// character of the body and of the signature set.
	body, sig, _ := strings.Cut(s, ".")
	for _, bad := range []string{"", ".", "x.y", s + "x", respell(body) + "." + sig, body + "." + respell(sig)} {
		if _, _, err := ReadState(secret, bad, now); err != ErrBadState {
			t.Errorf("%q", bad)
		}
	}
}

// respell sets the lowest unused bit of a raw base64url text's last
// character: the same bytes to a lenient decoder.
func respell(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last^1])
}
