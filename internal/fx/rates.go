package fx

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Rates answers a currency's rate on a day: from fx_rates, else from the
// source (nil: offline), whose answer is kept.
type Rates struct {
	db     *store.DB
	source Source
}

// New returns the rates of db, fetched from source when missing (nil:
// never).
func New(db *store.DB, source Source) *Rates { return &Rates{db: db, source: source} }

// Online reports whether rates missing from fx_rates are fetched: without
// a source, the stored ones are all there is, and a write needs nothing
// resolved before its transaction.
func (r *Rates) Online() bool { return r.source != nil }

// Stored answers the last stored rate of currency on or before day
// within Window.
func (r *Rates) Stored(ctx context.Context, currency string, day time.Time) (Observation, bool, error) {
	var rows []struct {
		Day  time.Time  `db:"day"`
		Rate money.Rate `db:"rate"`
	}
	err := r.db.Q(ctx).SelectContext(ctx, &rows, `SELECT day, rate FROM fx_rates WHERE currency = $1 AND day <= $2 AND day >= $3
		ORDER BY day DESC LIMIT 1`, currency, store.Day(day), store.Day(day.Add(-Window)))
	if err != nil || len(rows) == 0 {
		return Observation{}, false, err
	}
	return Observation{Day: rows[0].Day, Rate: rows[0].Rate}, true, nil
}

// Fetch answers the rate of currency on day, asking the source for the
// week up to it when none is stored and keeping what it answers. It does
// I/O: never call it inside a transaction. SI_FX_RATE_MISSING when none
// is to be had (reason no_rate, offline, or unavailable).
func (r *Rates) Fetch(ctx context.Context, currency string, day time.Time) (money.Rate, error) {
	if o, ok, err := r.Stored(ctx, currency, day); err != nil || ok {
		return o.Rate, err
	}
	if r.source == nil {
		return money.Rate{}, Missing(currency, day, "exchange_rate", "offline")
	}
	obs, err := r.source.Observations(ctx, currency, day.Add(-Window), day)
	if errors.Is(err, ErrUnavailable) {
		return money.Rate{}, Missing(currency, day, "exchange_rate", "unavailable")
	}
	if err != nil {
		return money.Rate{}, err
	}
	if err := r.Save(ctx, currency, "riksbank", obs); err != nil {
		return money.Rate{}, err
	}
	o, ok := latest(obs, day)
	if !ok {
		return money.Rate{}, Missing(currency, day, "exchange_rate", "no_rate")
	}
	return o.Rate, nil
}

// Save keeps observations of currency from source; a day already known
// keeps its first rate.
func (r *Rates) Save(ctx context.Context, currency, source string, obs []Observation) error {
	if len(obs) == 0 {
		return nil
	}
	days, rates := make([]string, len(obs)), make([]string, len(obs))
	for i, o := range obs {
		days[i], rates[i] = store.Day(o.Day), o.Rate.String()
	}
	_, err := r.db.Q(ctx).ExecContext(ctx, `INSERT INTO fx_rates (currency, day, rate, source)
		SELECT $1, d, r, $2 FROM unnest($3::date[], $4::numeric[]) AS x(d, r) ON CONFLICT DO NOTHING`,
		currency, source, pq.Array(days), pq.Array(rates))
	return err
}

// Import loads an operator's file of rates, lines of currency, date and
// rate (SEK per unit), separated by commas or, throughout, semicolons (a
// decimal comma then allowed), a header line allowed, as the offline
// alternative to the Riksbank; it answers how many rates it read. A bad
// line refuses the whole file, naming it.
func (r *Rates) Import(ctx context.Context, in io.Reader) (int, error) {
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return 0, fmt.Errorf("fx: %w", err)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord, cr.TrimLeadingSpace, cr.Comment = -1, true, '#'
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			if strings.Contains(line, ";") {
				cr.Comma = ';'
			}
			break
		}
	}
	records, err := cr.ReadAll()
	if err != nil {
		return 0, fmt.Errorf("fx: %w", err)
	}
	byCurrency := map[string][]Observation{}
	n := 0
	for i, rec := range records {
		if len(rec) != 3 {
			return 0, fmt.Errorf("fx: line %d: want currency, date and rate, got %d fields", i+1, len(rec))
		}
		cur := strings.ToUpper(strings.TrimSpace(rec[0]))
		if i == 0 && (cur == "CURRENCY" || cur == "VALUTA") {
			continue
		}
		if !Known(cur) {
			return 0, fmt.Errorf("fx: line %d: currency %q is not one of %s", i+1, rec[0], strings.Join(Currencies, ", "))
		}
		day, err := time.Parse(time.DateOnly, strings.TrimSpace(rec[1]))
		if err != nil {
			return 0, fmt.Errorf("fx: line %d: date %q is not YYYY-MM-DD", i+1, rec[1])
		}
		rate, err := money.ParseRate(strings.Replace(strings.TrimSpace(rec[2]), ",", ".", 1))
		if err != nil {
			return 0, fmt.Errorf("fx: line %d: rate %q: %v", i+1, rec[2], err)
		}
		byCurrency[cur] = append(byCurrency[cur], Observation{Day: day, Rate: rate})
		n++
	}
	err = r.db.InTx(ctx, func(ctx context.Context) error {
		for cur, obs := range byCurrency {
			if err := r.Save(ctx, cur, "file", obs); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// Resolved are the rates looked up before a request's transaction,
// keyed by currency and day, for the request to book at.
type Resolved struct {
	mu    sync.Mutex
	rates map[string]money.Rate
	why   map[string]error
}

type resolvedKey struct{}

func key(currency string, day time.Time) string { return currency + "/" + day.Format(time.DateOnly) }

// Resolve fetches the rate of currency on day before the transaction and
// keeps it, or why there is none, in the context the request goes on with.
func (r *Rates) Resolve(ctx context.Context, currency string, day time.Time) context.Context {
	res, _ := ctx.Value(resolvedKey{}).(*Resolved)
	if res == nil {
		res = &Resolved{rates: map[string]money.Rate{}, why: map[string]error{}}
		ctx = context.WithValue(ctx, resolvedKey{}, res)
	}
	rate, err := r.Fetch(ctx, currency, day)
	res.mu.Lock()
	defer res.mu.Unlock()
	if err != nil {
		res.why[key(currency, day)] = err
	} else {
		res.rates[key(currency, day)] = rate
	}
	return ctx
}

// Rate is the rate of currency on day inside a transaction: the one
// resolved before it, else a stored one; never the network.
// SI_FX_RATE_MISSING (with the reason the lookup gave) when none is known.
func (r *Rates) Rate(ctx context.Context, currency string, day time.Time) (money.Rate, error) {
	if res, _ := ctx.Value(resolvedKey{}).(*Resolved); res != nil {
		res.mu.Lock()
		rate, ok := res.rates[key(currency, day)]
		why := res.why[key(currency, day)]
		res.mu.Unlock()
		if ok {
			return rate, nil
		}
		if why != nil {
			return money.Rate{}, why
		}
	}
	o, ok, err := r.Stored(ctx, currency, day)
	if err != nil || ok {
		return o.Rate, err
	}
	reason := "no_rate"
	if r.source == nil {
		reason = "offline"
	}
	return money.Rate{}, Missing(currency, day, "exchange_rate", reason)
}
