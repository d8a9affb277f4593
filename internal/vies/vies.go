// Package vies checks EU VAT numbers against the European Commission's VIES
// registry (its REST interface), behind a small interface so that a server
// without network access runs with an honest offline checker.
package vies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is the Commission's public REST endpoint.
const DefaultURL = "https://ec.europa.eu/taxation_customs/vies/rest-api"

// Result is the registry's answer on one VAT number.
type Result struct {
	Valid bool
	// Name and Address are the trader's as the member state reports them
	// ("---" when it does not disclose them).
	Name, Address string
	// RequestIdentifier is the consultation number, proof of the check.
	RequestIdentifier string
}

// ErrUnavailable means no answer could be had: offline, timed out, or the
// member state's registry is down. The number is then simply not
// validated; it is never a reason to refuse the caller's request.
var ErrUnavailable = errors.New("vies: registry unavailable")

// ErrNotConfigured is ErrUnavailable of a server with no registry
// configured (KONTERA_VIES_URL unset): nothing was asked at all.
var ErrNotConfigured = fmt.Errorf("%w: no VIES URL is configured", ErrUnavailable)

// Checker looks up one VAT number.
type Checker interface {
	// Check asks about number (without its country prefix) in country (the
	// VIES member-state code, "EL" for Greece, "XI" for Northern Ireland).
	Check(ctx context.Context, country, number string) (Result, error)
}

// Offline is the checker of a server with no registry configured: every
// lookup is unavailable.
type Offline struct{}

// Check reports the registry unavailable.
func (Offline) Check(context.Context, string, string) (Result, error) {
	return Result{}, ErrNotConfigured
}

// Client is the VIES REST client.
type Client struct {
	base string
	http *http.Client
}

// NewClient returns a client of the REST interface at base (DefaultURL for
// the Commission's), giving up on a lookup after timeout.
func NewClient(base string, timeout time.Duration) *Client {
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: timeout}}
}

// answer is the body of GET /ms/{country}/vat/{number}.
type answer struct {
	IsValid           bool   `json:"isValid"`
	UserError         string `json:"userError"`
	Name              string `json:"name"`
	Address           string `json:"address"`
	RequestIdentifier string `json:"requestIdentifier"`
}

// Check looks the number up.
func (c *Client) Check(ctx context.Context, country, number string) (Result, error) {
	u := c.base + "/ms/" + url.PathEscape(country) + "/vat/" + url.PathEscape(number)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Result{}, fmt.Errorf("%w: HTTP %d", ErrUnavailable, res.StatusCode)
	}
	var a answer
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		return Result{}, fmt.Errorf("%w: unreadable answer: %v", ErrUnavailable, err)
	}
	// userError says whether the registry answered at all: VALID and
	// INVALID are answers, anything else (MS_UNAVAILABLE, TIMEOUT,
	// SERVICE_UNAVAILABLE, ..._MAX_CONCURRENT_REQ) is not.
	switch a.UserError {
	case "VALID", "INVALID", "":
	case "INVALID_INPUT":
		return Result{Valid: false}, nil
	default:
		return Result{}, fmt.Errorf("%w: %s", ErrUnavailable, a.UserError)
	}
	return Result{Valid: a.IsValid, Name: a.Name, Address: a.Address, RequestIdentifier: a.RequestIdentifier}, nil
}

// members are the VIES member-state codes: the EU's, with EL for Greece,
// and XI for Northern Ireland's goods trade.
var members = map[string]bool{
	"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true, "EE": true, "EL": true,
	"ES": true, "FI": true, "FR": true, "HR": true, "HU": true, "IE": true, "IT": true, "LT": true, "LU": true,
	"LV": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SE": true, "SI": true, "SK": true,
	"XI": true,
}

// Split reads a VAT number as written on an invoice ("DE 123 456 789",
// "ATU12345678") into its member-state code and the number VIES is asked
// about. ok is false when the prefix is no VIES member state.
func Split(vat string) (country, number string, ok bool) {
	var b strings.Builder
	for _, r := range strings.ToUpper(vat) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) < 4 {
		return "", "", false
	}
	country, number = s[:2], s[2:]
	if country == "GR" {
		country = "EL"
	}
	return country, number, members[country]
}
