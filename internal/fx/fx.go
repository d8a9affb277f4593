// Package fx knows what a foreign currency cost in kronor on a day: the
// rates the Riksbank publishes, kept in fx_rates once fetched (or loaded
// by an operator from a file), so that every amount booked at a rate can
// be explained later and no lookup asks the network twice.
package fx

import (
	"context"
	"errors"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// Window is how far back a day's rate may come from: the Riksbank
// publishes on banking days only, so a weekend or a holiday takes the
// last rate within a week before it.
const Window = 7 * 24 * time.Hour

// Currencies are the foreign currencies the books take.
var Currencies = []string{"EUR", "USD", "GBP", "NOK", "DKK", "CHF"}

// Known says whether currency is one the books take abroad.
func Known(currency string) bool {
	for _, c := range Currencies {
		if c == currency {
			return true
		}
	}
	return false
}

// Observation is a published rate: SEK per one unit of the currency on
// Day.
type Observation struct {
	Day  time.Time
	Rate money.Rate
}

// Source fetches published rates of currency between from and to, both
// included; none published is no error.
type Source interface {
	Observations(ctx context.Context, currency string, from, to time.Time) ([]Observation, error)
}

// ErrUnavailable is a source that could not be asked, or did not answer:
// offline, timed out, refused, or down.
var ErrUnavailable = errors.New("fx: the rate source is unavailable")

// Missing is 400 SI_FX_RATE_MISSING for currency on day, saying why.
func Missing(currency string, day time.Time, field, reason string) *apierr.Error {
	return apierr.New(apierr.SIFXRateMissing, map[string]any{"currency": currency, "date": day.Format(time.DateOnly),
		"field": field, "reason": reason})
}

// latest is the last of obs on or before day, within Window.
func latest(obs []Observation, day time.Time) (Observation, bool) {
	var best Observation
	found := false
	for _, o := range obs {
		if o.Day.After(day) || day.Sub(o.Day) > Window {
			continue
		}
		if !found || o.Day.After(best.Day) {
			best, found = o, true
		}
	}
	return best, found
}
