package fx

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// RiksbankURL is the Riksbank's public interest and exchange rate API
// (SWEA), the usual KONTERA_RIKSBANK_URL.
const RiksbankURL = "https://api.riksbank.se/swea/v1"

// Riksbank reads the Riksbank's daily mid rates (series SEK<CUR>PMI).
type Riksbank struct {
	base string
	http *http.Client
}

// NewRiksbank returns a client of the API at base, giving up on a lookup
// after timeout.
func NewRiksbank(base string, timeout time.Duration) *Riksbank {
	return &Riksbank{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: timeout}}
}

// observation is one element of GET /Observations/{series}/{from}/{to}.
type observation struct {
	Date  string      `json:"date"`
	Value json.Number `json:"value"`
}

// Observations asks for the rates of currency between from and to: 200
// with the observations, 204 when none was published; anything else is
// ErrUnavailable.
func (r *Riksbank) Observations(ctx context.Context, currency string, from, to time.Time) ([]Observation, error) {
	u := fmt.Sprintf("%s/Observations/SEK%sPMI/%s/%s", r.base, currency, from.Format(time.DateOnly), to.Format(time.DateOnly))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kontera-fx/1")
	res, err := r.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNoContent || res.StatusCode == http.StatusNotFound:
		return nil, nil
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: the Riksbank answered %d", ErrUnavailable, res.StatusCode)
	}
	var rows []observation
	dec := json.NewDecoder(io.LimitReader(res.Body, 1<<20))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("%w: unreadable answer: %v", ErrUnavailable, err)
	}
	out := make([]Observation, 0, len(rows))
	for _, row := range rows {
		day, err := time.Parse(time.DateOnly, row.Date)
		if err != nil {
			return nil, fmt.Errorf("%w: date %q: %v", ErrUnavailable, row.Date, err)
		}
		rate, err := money.ParseRate(row.Value.String())
		if err != nil {
			return nil, fmt.Errorf("%w: rate %q on %s: %v", ErrUnavailable, row.Value, row.Date, err)
		}
		out = append(out, Observation{Day: day, Rate: rate})
	}
	return out, nil
}
