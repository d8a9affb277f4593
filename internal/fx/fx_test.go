package fx

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// fakeRiksbank answers GET /Observations/SEK<CUR>PMI/{from}/{to} as the
// Riksbank does, from rates by currency and day; a currency listed in
// status answers that status instead; "slow" never answers in time.
func fakeRiksbank(t *testing.T, rates map[string]map[string]string, status map[string]int, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if len(parts) != 4 || parts[0] != "Observations" || !strings.HasPrefix(parts[1], "SEK") || !strings.HasSuffix(parts[1], "PMI") {
			http.NotFound(w, r)
			return
		}
		cur := strings.TrimSuffix(strings.TrimPrefix(parts[1], "SEK"), "PMI")
		if cur == "CHF" {
			time.Sleep(300 * time.Millisecond)
		}
		if s, ok := status[cur]; ok {
			w.WriteHeader(s)
			return
		}
		from, to := day(parts[2]), day(parts[3])
		var out []string
		for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
			if v, ok := rates[cur][d.Format(time.DateOnly)]; ok {
				out = append(out, `{"date":"`+d.Format(time.DateOnly)+`","value":`+v+`}`)
			}
		}
		if len(out) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[" + strings.Join(out, ",") + "]"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A Saturday takes Friday's rate; a day already fetched is not asked
// again; 204, 429, 500 and a timeout are SI_FX_RATE_MISSING with their
// reason, and nothing is stored.
func TestRiksbankRates(t *testing.T) {
	var calls atomic.Int32
	srv := fakeRiksbank(t, map[string]map[string]string{"EUR": {"2026-03-05": "11.4725", "2026-03-06": "11.5010"}},
		map[string]int{"USD": 429, "GBP": 500}, &calls)
	db := pgtest.New(t)
	rates := New(db, NewRiksbank(srv.URL, 100*time.Millisecond))
	ctx := context.Background()
	r, err := rates.Fetch(ctx, "EUR", day("2026-03-07")) // a Saturday
	if err != nil || r.String() != "11.501" {
		t.Fatalf("Saturday: %v %v", r, err)
	}
	r, err = rates.Fetch(ctx, "EUR", day("2026-03-05"))
	if err != nil || r.String() != "11.4725" || calls.Load() != 1 {
		t.Fatalf("stored: %v %v after %d calls", r, err, calls.Load())
	}
	for cur, reason := range map[string]string{"NOK": "no_rate", "USD": "unavailable", "GBP": "unavailable", "CHF": "unavailable"} {
		_, err := rates.Fetch(ctx, cur, day("2026-03-05"))
		ae, ok := apierr.As(err)
		if !ok || ae.Code != apierr.SIFXRateMissing || ae.Details["reason"] != reason {
			t.Fatalf("%s: %v", cur, err)
		}
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM fx_rates`); err != nil || n != 2 {
		t.Fatalf("%d rates stored (%v)", n, err)
	}
	// More than a week after the last rate there is none.
	if _, err := rates.Fetch(ctx, "EUR", day("2026-03-16")); !apierr.Is(err, apierr.SIFXRateMissing) {
		t.Fatalf("stale: %v", err)
	}

	// Resolved before the transaction, read inside it without the network.
	rctx := rates.Resolve(ctx, "EUR", day("2026-03-06"))
	before := calls.Load()
	if r, err := rates.Rate(rctx, "EUR", day("2026-03-06")); err != nil || r.String() != "11.501" || calls.Load() != before {
		t.Fatalf("resolved: %v %v", r, err)
	}
	rctx = rates.Resolve(ctx, "USD", day("2026-03-06"))
	if _, err := rates.Rate(rctx, "USD", day("2026-03-06")); !apierr.Is(err, apierr.SIFXRateMissing) {
		t.Fatalf("unresolved: %v", err)
	}
}

// Offline, the rates are an operator's file: commas or semicolons, a
// header, a decimal comma; a bad line refuses the file.
func TestImport(t *testing.T) {
	db := pgtest.New(t)
	rates := New(db, nil)
	ctx := context.Background()
	if _, err := rates.Fetch(ctx, "EUR", day("2026-03-05")); !apierr.Is(err, apierr.SIFXRateMissing) {
		t.Fatalf("offline: %v", err)
	}
	n, err := rates.Import(ctx, strings.NewReader("currency,date,rate\nEUR,2026-03-05,11.4725\nUSD,2026-03-05,10.12\n"))
	if err != nil || n != 2 {
		t.Fatalf("import: %d %v", n, err)
	}
	n, err = rates.Import(ctx, strings.NewReader("# from the bank\nGBP;2026-03-05;13,4410\n"))
	if err != nil || n != 1 {
		t.Fatalf("semicolons: %d %v", n, err)
	}
	if r, err := rates.Rate(ctx, "GBP", day("2026-03-08")); err != nil || r.String() != "13.441" {
		t.Fatalf("GBP: %v %v", r, err)
	}
	for _, bad := range []string{"SEK,2026-03-05,1\n", "EUR,5 mars,11\n", "EUR,2026-03-05,0\n", "EUR,2026-03-05\n"} {
		if _, err := rates.Import(ctx, strings.NewReader("EUR,2026-03-04,11.40\n"+bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	var count int
	if err := db.Get(&count, `SELECT count(*) FROM fx_rates WHERE day = '2026-03-04'`); err != nil || count != 0 {
		t.Fatalf("a refused file left %d rates (%v)", count, err)
	}
}
