package webhooks

import "time"

// The states of a delivery.
const (
	Pending   = "pending"
	InFlight  = "in_flight"
	Delivered = "delivered"
	Failed    = "failed"
	Dead      = "dead"
)

// Retries are the waits after each failed attempt (spec 002, rule 4):
// seven retries, about 87 hours; the eighth attempt is the last.
var Retries = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 48 * time.Hour}

// Next is when a delivery that failed its attempt-th attempt (from 1) at
// now is tried again; false when that was the last: it is dead.
func Next(attempt int, now time.Time) (time.Time, bool) {
	if attempt < 1 || attempt > len(Retries) {
		return time.Time{}, false
	}
	return now.Add(Retries[attempt-1]), true
}

// Outcome is what an attempt's answer makes of a delivery: its state, and
// when the webhook is disabled, why.
type Outcome struct {
	State   string
	Disable string // disabled_reason; "" keeps the webhook active
}

// Judge reads an attempt: its HTTP status (0 when none came) or the error
// that stopped it, whether the address dialled was refused, and which
// attempt it was. 2xx is delivered; 410 dead and the webhook disabled; a
// redirect (never followed) or a refused address disables it too; any
// other answer, a timeout or a broken connection fails and is retried,
// until the last attempt, which is dead.
func Judge(status int, blocked bool, attempt int) Outcome {
	switch {
	case blocked:
		return Outcome{State: Dead, Disable: "blocked_address"}
	case status >= 200 && status < 300:
		return Outcome{State: Delivered}
	case status == 410:
		return Outcome{State: Dead, Disable: "gone"}
	case status >= 300 && status < 400:
		return Outcome{State: Dead, Disable: "redirect"}
	case attempt >= len(Retries)+1:
		return Outcome{State: Dead}
	}
	return Outcome{State: Failed}
}
