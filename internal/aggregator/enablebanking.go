package aggregator

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kontera/kontera/internal/money"
)

// EnableBankingURL is Enable Banking's API.
const EnableBankingURL = "https://api.enablebanking.com"

// tokenTTL is how long an application token lives; the API takes up to
// a day, and a short one limits what a leaked one can do.
const tokenTTL = time.Hour

// rateLimitWait is how long the bank is left alone when it limits a
// consent without saying until when: PSD2 lets it refuse more than four
// unattended reads a day.
const rateLimitWait = 6 * time.Hour

// EnableBanking is the client of Enable Banking's account-information
// API: the application authenticates with a JWT (RS256) it signs with its
// private key, the application id as the key id.
type EnableBanking struct {
	base  string
	appID string
	key   *rsa.PrivateKey
	http  *http.Client
	now   func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// NewEnableBanking returns the client of base (EnableBankingURL unless a
// test's) for application appID signing with the RSA private key in
// keyPEM, each call waiting at most timeout.
func NewEnableBanking(base, appID string, keyPEM []byte, timeout time.Duration) (*EnableBanking, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("enable banking: the private key: %w", err)
	}
	if strings.TrimSpace(appID) == "" {
		return nil, errors.New("enable banking: the application id is empty")
	}
	return &EnableBanking{base: strings.TrimRight(base, "/"), appID: appID, key: key,
		http: &http.Client{Timeout: timeout}, now: time.Now}, nil
}

// Name is how connections name the aggregator.
func (c *EnableBanking) Name() string { return "enable_banking" }

// bearer is the application's token, signed anew when the last is close
// to its end.
func (c *EnableBanking) bearer() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.token != "" && now.Add(time.Minute).Before(c.expires) {
		return c.token, nil
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": "enablebanking.com",
		"aud": "api.enablebanking.com", "iat": now.Unix(), "exp": now.Add(tokenTTL).Unix()})
	t.Header["kid"] = c.appID
	signed, err := t.SignedString(c.key)
	if err != nil {
		return "", fmt.Errorf("enable banking: signing the token: %w", err)
	}
	c.token, c.expires = signed, now.Add(tokenTTL)
	return signed, nil
}

// call sends a request and decodes the answer into out, mapping the
// aggregator's refusals to ErrExpired, *RateLimited and *Failed.
func (c *EnableBanking) call(ctx context.Context, method, path string, body, out any) error {
	token, err := c.bearer()
	if err != nil {
		return err
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return &Failed{Code: "UNREACHABLE", Message: err.Error()}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return &Failed{Status: res.StatusCode, Code: "UNREADABLE", Message: err.Error()}
	}
	if res.StatusCode/100 == 2 {
		if err := json.Unmarshal(raw, out); err != nil {
			return &Failed{Status: res.StatusCode, Code: "UNREADABLE", Message: err.Error()}
		}
		return nil
	}
	return c.refusal(res, raw)
}

// refusal reads an error answer.
func (c *EnableBanking) refusal(res *http.Response, raw []byte) error {
	var e struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	switch {
	case res.StatusCode == http.StatusTooManyRequests || e.Error == "ASPSP_RATE_LIMIT_EXCEEDED":
		wait := rateLimitWait
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return &RateLimited{Wait: wait}
	}
	switch e.Error {
	case "EXPIRED_SESSION", "REVOKED_SESSION", "CLOSED_SESSION", "SESSION_DOES_NOT_EXIST", "WRONG_SESSION_STATUS",
		"EXPIRED_AUTHORIZATION_CODE":
		return fmt.Errorf("%w (%s: %s)", ErrExpired, e.Error, e.Message)
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
		if len(e.Message) > 200 {
			e.Message = e.Message[:200]
		}
	}
	return &Failed{Status: res.StatusCode, Code: e.Error, Message: e.Message}
}

// Start asks for consent: POST /auth.
func (c *EnableBanking) Start(ctx context.Context, in Consent) (Authorization, error) {
	psu := in.PSUType
	if psu == "" {
		psu = "business"
	}
	body := map[string]any{"access": map[string]any{"valid_until": in.ValidUntil.UTC().Format(time.RFC3339)},
		"aspsp": map[string]string{"name": in.Bank, "country": in.Country}, "state": in.State,
		"redirect_url": in.RedirectURL, "psu_type": psu}
	var out struct {
		URL             string `json:"url"`
		AuthorizationID string `json:"authorization_id"`
	}
	if err := c.call(ctx, http.MethodPost, "/auth", body, &out); err != nil {
		return Authorization{}, err
	}
	if out.URL == "" {
		return Authorization{}, &Failed{Status: http.StatusOK, Code: "NO_URL", Message: "the answer named no URL"}
	}
	return Authorization{URL: out.URL, ID: out.AuthorizationID}, nil
}

// ebAccount is an account as the API describes it.
type ebAccount struct {
	UID       string `json:"uid"`
	AccountID struct {
		IBAN string `json:"iban"`
	} `json:"account_id"`
	Currency string `json:"currency"`
	Name     string `json:"name"`
	Details  string `json:"details"`
	Product  string `json:"product"`
}

// Session opens the session of a consent given: POST /sessions with the
// code the callback brought.
func (c *EnableBanking) Session(ctx context.Context, code string) (Session, error) {
	var out struct {
		SessionID string      `json:"session_id"`
		Accounts  []ebAccount `json:"accounts"`
		ASPSP     struct {
			Name string `json:"name"`
		} `json:"aspsp"`
		Access struct {
			ValidUntil time.Time `json:"valid_until"`
		} `json:"access"`
	}
	if err := c.call(ctx, http.MethodPost, "/sessions", map[string]string{"code": code}, &out); err != nil {
		return Session{}, err
	}
	s := Session{ID: out.SessionID, Bank: out.ASPSP.Name, ValidUntil: out.Access.ValidUntil}
	for _, a := range out.Accounts {
		if a.UID == "" {
			continue // the bank offers no data of it (blocked, closed)
		}
		name := a.Details
		for _, n := range []string{a.Product, a.Name} {
			if name == "" {
				name = n
			}
		}
		s.Accounts = append(s.Accounts, Account{UID: a.UID, IBAN: a.AccountID.IBAN, Currency: a.Currency, Name: name})
	}
	return s, nil
}

// ebTransaction is a transaction as the API describes it.
type ebTransaction struct {
	EntryReference string `json:"entry_reference"`
	MCC            string `json:"merchant_category_code"`
	Amount         struct {
		Currency string `json:"currency"`
		Amount   string `json:"amount"`
	} `json:"transaction_amount"`
	Creditor *struct {
		Name string `json:"name"`
	} `json:"creditor"`
	Debtor *struct {
		Name string `json:"name"`
	} `json:"debtor"`
	CreditorAccount *struct {
		IBAN string `json:"iban"`
	} `json:"creditor_account"`
	DebtorAccount *struct {
		IBAN string `json:"iban"`
	} `json:"debtor_account"`
	Indicator       string   `json:"credit_debit_indicator"`
	Status          string   `json:"status"`
	BookingDate     string   `json:"booking_date"`
	ValueDate       string   `json:"value_date"`
	TransactionDate string   `json:"transaction_date"`
	Reference       string   `json:"reference_number"`
	Remittance      []string `json:"remittance_information"`
}

// Transactions reads a page of the booked transactions of account dated
// from..to (next continues a page before): GET
// /accounts/{uid}/transactions. Entries not booked are left out.
func (c *EnableBanking) Transactions(ctx context.Context, account string, from, to time.Time, next string) (Page, error) {
	q := url.Values{"date_from": {from.Format(time.DateOnly)}, "date_to": {to.Format(time.DateOnly)},
		"transaction_status": {"BOOK"}}
	if next != "" {
		q.Set("continuation_key", next)
	}
	var out struct {
		Transactions []ebTransaction `json:"transactions"`
		Next         *string         `json:"continuation_key"`
	}
	if err := c.call(ctx, http.MethodGet, "/accounts/"+url.PathEscape(account)+"/transactions?"+q.Encode(), nil, &out); err != nil {
		return Page{}, err
	}
	p := Page{}
	if out.Next != nil {
		p.Next = *out.Next
	}
	for _, t := range out.Transactions {
		if t.Status != "" && t.Status != "BOOK" {
			continue
		}
		tx, err := t.read()
		if err != nil {
			return Page{}, &Failed{Status: http.StatusOK, Code: "UNREADABLE_TRANSACTION", Message: err.Error()}
		}
		p.Transactions = append(p.Transactions, tx)
	}
	return p, nil
}

// read makes a transaction of the API's: signed by its indicator, dated
// its booking date (else its value or transaction date), the other party
// the one money went to (out) or came from (in).
func (t ebTransaction) read() (Transaction, error) {
	amount, err := money.Parse(t.Amount.Amount)
	if err != nil {
		return Transaction{}, fmt.Errorf("amount %q: %w", t.Amount.Amount, err)
	}
	amount = amount.Abs()
	out := t.Indicator == "DBIT"
	if out {
		amount = amount.Neg()
	}
	var day time.Time
	for _, d := range []string{t.BookingDate, t.ValueDate, t.TransactionDate} {
		if d == "" {
			continue
		}
		if day, err = time.Parse(time.DateOnly, d); err != nil {
			return Transaction{}, fmt.Errorf("date %q: %w", d, err)
		}
		break
	}
	if day.IsZero() {
		return Transaction{}, errors.New("no date")
	}
	tx := Transaction{EntryReference: t.EntryReference, Date: day, Amount: amount, Currency: t.Amount.Currency,
		Description: strings.TrimSpace(strings.Join(t.Remittance, " ")), Reference: t.Reference, MCC: t.MCC}
	party, account := t.Debtor, t.DebtorAccount
	if out {
		party, account = t.Creditor, t.CreditorAccount
	}
	if party != nil {
		tx.Counterparty = party.Name
	}
	if account != nil {
		tx.CounterpartyAccount = account.IBAN
	}
	return tx, nil
}

// Balances reads what account holds: GET /accounts/{uid}/balances. The
// booked balance is the closing or interim booked one, the available the
// closing or interim available one.
func (c *EnableBanking) Balances(ctx context.Context, account string) (Balances, error) {
	var out struct {
		Balances []struct {
			Amount struct {
				Currency string `json:"currency"`
				Amount   string `json:"amount"`
			} `json:"balance_amount"`
			Type string `json:"balance_type"`
		} `json:"balances"`
	}
	if err := c.call(ctx, http.MethodGet, "/accounts/"+url.PathEscape(account)+"/balances", nil, &out); err != nil {
		return Balances{}, err
	}
	var b Balances
	rank := map[string]int{"CLBD": 2, "ITBD": 1, "CLAV": 2, "ITAV": 1}
	var bookedRank, availRank int
	for _, x := range out.Balances {
		a, err := money.Parse(x.Amount.Amount)
		if err != nil {
			continue
		}
		b.Currency = x.Amount.Currency
		switch r := rank[x.Type]; x.Type {
		case "CLBD", "ITBD":
			if r > bookedRank {
				b.Booked, bookedRank = &a, r
			}
		case "CLAV", "ITAV":
			if r > availRank {
				b.Available, availRank = &a, r
			}
		}
	}
	return b, nil
}
