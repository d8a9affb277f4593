// Package fakebank is a stand-in for Enable Banking's API on loopback,
// for tests: it checks every call's application token as the real API
// does (RS256, the application id as key id), and serves the consents,
// accounts, pages of transactions and balances a test gives it. It can
// be told to refuse a consent as expired, limit calls, or fail.
package fakebank

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Tx is a booked transaction an account holds, as the bank would report
// it: amount negative for money out.
type Tx struct {
	Ref, Date, Amount, Text, Party, Reference string
}

// Account is an account of the bank: the consent covers every one.
type Account struct {
	UID, IBAN, Currency, Name string
	Booked, Available         string
	Txs                       []Tx
}

// Modes the server can be put in for the calls that read accounts.
const (
	OK          = ""
	Expired     = "expired"      // the consent is dead: 401 EXPIRED_SESSION
	RateLimited = "rate_limited" // 429 with Retry-After
	Failing     = "failing"      // 500 ASPSP_ERROR
)

// Server is the fake API.
type Server struct {
	*httptest.Server
	AppID  string
	KeyPEM []byte
	// PageSize is how many transactions a page holds (default 2).
	PageSize int
	// RetryAfter is the Retry-After a limit answers with (default 3600).
	RetryAfter int

	mu       sync.Mutex
	key      *rsa.PublicKey
	accounts []Account
	mode     string
	states   []string
	windows  [][2]string
	calls    map[string]int
}

// New starts a fake API with accounts.
func New(accounts ...Account) *Server {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s := &Server{AppID: uuid.NewString(), key: &priv.PublicKey, accounts: accounts, PageSize: 2, RetryAfter: 3600,
		calls:  map[string]int{},
		KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(priv)})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /auth", s.auth)
	mux.HandleFunc("POST /sessions", s.session)
	mux.HandleFunc("GET /accounts/{uid}/transactions", s.transactions)
	mux.HandleFunc("GET /accounts/{uid}/balances", s.balances)
	s.Server = httptest.NewServer(s.checked(mux))
	return s
}

// SetMode puts the calls that read accounts in mode.
func (s *Server) SetMode(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = mode
}

// Add gives account uid more transactions.
func (s *Server) Add(uid string, txs ...Tx) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.accounts {
		if s.accounts[i].UID == uid {
			s.accounts[i].Txs = append(s.accounts[i].Txs, txs...)
		}
	}
}

// States are the states consents were asked with, in order.
func (s *Server) States() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.states...)
}

// Windows are the date_from and date_to each first page was asked for.
func (s *Server) Windows() [][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][2]string(nil), s.windows...)
}

// Calls is how many calls of kind ("auth", "sessions", "transactions",
// "balances") were made.
func (s *Server) Calls(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[kind]
}

// checked refuses a call without a valid application token.
func (s *Server) checked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		t, err := jwt.Parse(raw, func(t *jwt.Token) (any, error) { return s.key, nil },
			jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer("enablebanking.com"),
			jwt.WithAudience("api.enablebanking.com"), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
		if !ok || err != nil || t.Header["kid"] != s.AppID {
			refuse(w, http.StatusUnauthorized, "UNAUTHORIZED_ACCESS", "the application token is not valid")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func refuse(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "error": code, "message": message})
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) auth(w http.ResponseWriter, r *http.Request) {
	var b struct {
		State       string `json:"state"`
		RedirectURL string `json:"redirect_url"`
		ASPSP       struct {
			Name    string `json:"name"`
			Country string `json:"country"`
		} `json:"aspsp"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.State == "" || b.RedirectURL == "" {
		refuse(w, http.StatusUnprocessableEntity, "WRONG_REQUEST_PARAMETERS", "state and redirect_url are needed")
		return
	}
	if b.ASPSP.Name == "Nobank" {
		refuse(w, http.StatusBadRequest, "WRONG_ASPSP_PROVIDED", "no such bank")
		return
	}
	s.mu.Lock()
	s.calls["auth"]++
	s.states = append(s.states, b.State)
	s.mu.Unlock()
	answer(w, map[string]any{"url": s.URL + "/authorize?state=" + b.State, "authorization_id": uuid.NewString(),
		"psu_id_hash": "x"})
}

// session opens a session for code "ok"; any other code has expired.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Code string `json:"code"`
	}
	_ = json.NewDecoder(r.Body).Decode(&b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["sessions"]++
	if b.Code != "ok" {
		refuse(w, http.StatusBadRequest, "EXPIRED_AUTHORIZATION_CODE", "the code has expired")
		return
	}
	accounts := make([]map[string]any, len(s.accounts))
	for i, a := range s.accounts {
		accounts[i] = map[string]any{"uid": a.UID, "account_id": map[string]any{"iban": a.IBAN}, "currency": a.Currency,
			"name": "Handelsbolaget AB", "details": a.Name, "cash_account_type": "CACC", "identification_hash": a.UID,
			"identification_hashes": []string{a.UID}}
	}
	answer(w, map[string]any{"session_id": uuid.NewString(), "accounts": accounts,
		"aspsp": map[string]string{"name": "SEB", "country": "SE"}, "psu_type": "business",
		"access": map[string]any{"valid_until": time.Now().AddDate(0, 0, 90).UTC().Format(time.RFC3339)}})
}

// failed answers the read calls in the mode set, reporting whether it did.
func (s *Server) failed(w http.ResponseWriter) bool {
	switch s.mode {
	case Expired:
		refuse(w, http.StatusUnauthorized, "EXPIRED_SESSION", "the session has expired")
	case RateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(s.RetryAfter))
		refuse(w, http.StatusTooManyRequests, "ASPSP_RATE_LIMIT_EXCEEDED", "the bank limits calls on the consent")
	case Failing:
		refuse(w, http.StatusInternalServerError, "ASPSP_ERROR", "the bank did not answer")
	default:
		return false
	}
	return true
}

func (s *Server) account(uid string) *Account {
	for i := range s.accounts {
		if s.accounts[i].UID == uid {
			return &s.accounts[i]
		}
	}
	return nil
}

// served counts a call to an account's endpoint and answers its account,
// or nil once it has refused the call. The caller holds s.mu.
func (s *Server) served(w http.ResponseWriter, r *http.Request, call string) *Account {
	s.calls[call]++
	if s.failed(w) {
		return nil
	}
	a := s.account(r.PathValue("uid"))
	if a == nil {
		refuse(w, http.StatusNotFound, "ACCOUNT_DOES_NOT_EXIST", "no such account")
	}
	return a
}

func (s *Server) transactions(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.served(w, r, "transactions")
	if a == nil {
		return
	}
	q := r.URL.Query()
	from, to := q.Get("date_from"), q.Get("date_to")
	if q.Get("transaction_status") != "BOOK" {
		refuse(w, http.StatusUnprocessableEntity, "WRONG_REQUEST_PARAMETERS", "this fake serves booked entries only")
		return
	}
	start, _ := strconv.Atoi(q.Get("continuation_key"))
	if start == 0 {
		s.windows = append(s.windows, [2]string{from, to})
	}
	var in []Tx
	for _, t := range a.Txs {
		if t.Date >= from && t.Date <= to {
			in = append(in, t)
		}
	}
	end := min(start+s.PageSize, len(in))
	page := make([]map[string]any, 0, end-start)
	for _, t := range in[min(start, end):end] {
		indicator, amount := "CRDT", t.Amount
		party := "debtor"
		if strings.HasPrefix(amount, "-") {
			indicator, amount, party = "DBIT", amount[1:], "creditor"
		}
		tx := map[string]any{"entry_reference": t.Ref, "transaction_amount": map[string]string{"currency": a.Currency,
			"amount": amount}, "credit_debit_indicator": indicator, "status": "BOOK", "booking_date": t.Date,
			"value_date": t.Date, "remittance_information": []string{t.Text}}
		if t.Party != "" {
			tx[party] = map[string]string{"name": t.Party}
		}
		if t.Reference != "" {
			tx["reference_number"] = t.Reference
		}
		page = append(page, tx)
	}
	out := map[string]any{"transactions": page, "continuation_key": nil}
	if end < len(in) {
		out["continuation_key"] = strconv.Itoa(end)
	}
	answer(w, out)
}

func (s *Server) balances(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.served(w, r, "balances")
	if a == nil {
		return
	}
	answer(w, map[string]any{"balances": []map[string]any{
		{"name": "Bokfört saldo", "balance_type": "CLBD", "balance_amount": map[string]string{"currency": a.Currency, "amount": a.Booked}},
		{"name": "Disponibelt", "balance_type": "CLAV", "balance_amount": map[string]string{"currency": a.Currency, "amount": a.Available}},
	}})
}
