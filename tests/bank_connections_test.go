package tests

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/aggregator/fakebank"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/httpapi"
)

// through connects the test server to the fake aggregator bank.
func through(t *testing.T, bank *fakebank.Server) option {
	c, err := aggregator.NewEnableBanking(bank.URL, bank.AppID, bank.KeyPEM, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return func(cfg *httpapi.Config) { cfg.Aggregator = c }
}

// movable is a clock a test moves on.
type movable struct{ at atomic.Int64 }

func (m *movable) now() time.Time          { return time.Unix(0, m.at.Load()).UTC() }
func (m *movable) set(t time.Time)         { m.at.Store(t.UnixNano()) }
func (m *movable) forward(d time.Duration) { m.at.Add(int64(d)) }

// consent asks for a connection and answers its id and the state the
// bank was sent.
func (b *partiesBooks) consent(bank *fakebank.Server, body map[string]any) (string, string) {
	b.t.Helper()
	r := b.write("POST", "bank-connections", body).status(b.t, 201)
	if r.str("data.status") != "pending" || !strings.HasPrefix(r.str("data.authorization_url"), bank.URL+"/authorize?state=") {
		b.t.Fatalf("connection: %s", r.Body)
	}
	states := bank.States()
	return r.str("data.connection_id"), states[len(states)-1]
}

// callback is the bank sending the user back.
func (b *partiesBooks) callback(query url.Values) *response {
	b.t.Helper()
	return b.do(req{Method: "GET", Path: "/api/v1/bank-connections/callback?" + query.Encode()})
}

func (b *partiesBooks) sync(id string) *response {
	b.t.Helper()
	return b.write("POST", "bank-connections/"+id+"/sync", nil)
}

// A connection through a fake aggregator on loopback: consent and
// callback, the choice of two accounts (one takes over the cash account
// with its IBAN), three pages of transactions, an overlapping sync that
// adds only what is new, the 7-day / gap / 90-day window, the cooldown,
// the bank's limit, a failing bank and an expired consent.
func TestBankConnections(t *testing.T) {
	t.Parallel()
	wall := &movable{}
	wall.set(time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC))
	bank := fakebank.New(
		fakebank.Account{UID: "a-sek", IBAN: "SE4550000000058398257466", Currency: "SEK", Name: "Företagskonto",
			Booked: "4955.37", Available: "4900.00", Txs: []fakebank.Tx{
				{Ref: "E1", Date: "2026-03-10", Amount: "12500.00", Text: "BG INBETALNING", Party: "Kund AB", Reference: "202600425"},
				{Ref: "E2", Date: "2026-03-11", Amount: "-1250.00", Text: "KONTORSGROSSISTEN"},
				{Ref: "E3", Date: "2026-03-12", Amount: "-45.00", Text: "AVGIFT"},
				{Ref: "", Date: "2026-03-20", Amount: "-6250.00", Text: "BG 5050-1055"},
				{Ref: "E5", Date: "2026-03-31", Amount: "0.37", Text: "RÄNTA"}}},
		fakebank.Account{UID: "a-eur", IBAN: "SE2350000000058398257474", Currency: "EUR", Name: "Valutakonto",
			Booked: "100.00", Available: "100.00", Txs: []fakebank.Tx{{Ref: "X1", Date: "2026-03-15", Amount: "100.00", Text: "PAYMENT"}}})
	defer bank.Close()
	b := newPartiesBooks(t, clock(wall.now), through(t, bank))
	// A subscription, not the 30-day trial: the test runs the clock on.
	if _, err := b.db.Exec(`INSERT INTO company_capabilities (company_id, capability, source, active_from)
		VALUES ($1, 'bank_sync', 'subscription', '2026-01-01')`, b.company); err != nil {
		t.Fatal(err)
	}
	manual := b.write("POST", "cash-accounts", map[string]any{"name": "Företagskonto", "currency": "SEK"}).status(t, 201)
	if _, err := b.db.Exec(`UPDATE cash_accounts SET iban = 'SE4550000000058398257466' WHERE company_id = $1`, b.company); err != nil {
		t.Fatal(err)
	}
	b.write("POST", "bank-connections", map[string]any{"bank": ""}).errorCode(t, 400, "VALIDATION_ERROR")
	// Owner or admin only: a member is refused before the bank is asked.
	b.member(b.company, "medlem@example.se", auth.Member, false)
	member := b.key("medlem@example.se", keySpec{})
	b.do(req{Method: "POST", Path: b.path("bank-connections"), Token: member, Body: map[string]any{"bank": "SEB"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).errorCode(t, 403, "FORBIDDEN")
	if n := bank.Calls("auth"); n != 0 {
		t.Fatalf("a refused request asked the bank %d times", n)
	}
	b.write("POST", "bank-connections", map[string]any{"bank": "Nobank"}).errorCode(t, 502, "BANK_SYNC_FAILED")
	id, state := b.consent(bank, map[string]any{"bank": "SEB"})

	// The callback: a state not ours is refused; the code opens the
	// session; two accounts wait to be chosen.
	b.callback(url.Values{"state": {state + "x"}, "code": {"ok"}}).errorCode(t, 400, "VALIDATION_ERROR")
	cb := b.callback(url.Values{"state": {state}, "code": {"ok"}}).status(t, 200)
	if cb.str("data.status") != "pending_selection" || len(cb.list("data.accounts")) != 2 || cb.at("data.authorization_url") != nil {
		t.Fatalf("callback: %s", cb.Body)
	}
	if again := b.callback(url.Values{"state": {state}, "code": {"ok"}}).status(t, 200); again.str("data.status") != "pending_selection" ||
		bank.Calls("sessions") != 1 {
		t.Fatalf("callback again: %s (%d sessions)", again.Body, bank.Calls("sessions"))
	}
	b.sync(id).errorCode(t, 409, "CONFLICT")
	sel := b.write("POST", "bank-connections/"+id+"/select-accounts", map[string]any{"accounts": []any{
		map[string]any{"account_uid": "a-sek"}, map[string]any{"account_uid": "a-eur"}}}).status(t, 200)
	if sel.str("data.status") != "active" {
		t.Fatalf("select: %s", sel.Body)
	}
	cash := map[string]string{}
	for _, a := range sel.list("data.accounts") {
		m := a.(map[string]any)
		cash[m["account_uid"].(string)] = m["cash_account_id"].(string)
	}
	if cash["a-sek"] != manual.str("data.cash_account_id") {
		t.Fatalf("the cash account with the IBAN was not taken over: %v", cash)
	}
	accounts := b.get(b.path("cash-accounts"), b.token).status(t, 200).list("data.cash_accounts")
	if len(accounts) != 2 {
		t.Fatalf("cash accounts: %v", accounts)
	}
	for _, a := range accounts {
		if m := a.(map[string]any); m["currency"] == "EUR" && (m["ledger_account"] != "1932" || m["bank_connected"] != true) {
			t.Fatalf("the EUR account: %v", m)
		}
	}

	// The first sync reads 90 days, in pages of two.
	s := b.sync(id).status(t, 200)
	if s.at("data.imported") != 6.0 || s.at("data.duplicates") != 0.0 || s.str("data.from_date") != "2025-12-31" ||
		s.str("data.to_date") != "2026-03-31" || bank.Calls("transactions") != 4 {
		t.Fatalf("first sync: %s (%d calls)", s.Body, bank.Calls("transactions"))
	}
	if n := b.count(`SELECT count(*) FROM bank_transactions WHERE company_id = $1 AND import_source = 'bank_feed'`, b.company); n != 6 {
		t.Fatalf("%d rows", n)
	}
	if b.events("transaction.synced") != 2 {
		t.Fatalf("%d transaction.synced", b.events("transaction.synced"))
	}
	sek := b.get(b.path("cash-accounts"), b.token).status(t, 200)
	for _, a := range sek.list("data.cash_accounts") {
		if m := a.(map[string]any); m["currency"] == "SEK" && (m["balance"] != 4955.37 || m["available_balance"] != 4900.0) {
			t.Fatalf("balance: %v", m)
		}
	}
	// Within 15 minutes: the cooldown, without a call to the bank.
	c := b.sync(id).errorCode(t, 429, "BANK_SYNC_COOLDOWN")
	if c.str("error.details.next_allowed_at") != "2026-03-31T10:15:00Z" || c.Header.Get("Retry-After") != "900" ||
		bank.Calls("transactions") != 4 {
		t.Fatalf("cooldown: %s %v", c.Body, c.Header)
	}
	// Sixteen minutes on, the last 7 days: one new row, the rest known.
	wall.forward(16 * time.Minute)
	bank.Add("a-sek", fakebank.Tx{Ref: "E7", Date: "2026-03-31", Amount: "-99.00", Text: "KORT"})
	s = b.sync(id).status(t, 200)
	if s.at("data.imported") != 1.0 || s.at("data.duplicates") != 1.0 || s.str("data.from_date") != "2026-03-24" {
		t.Fatalf("second sync: %s", s.Body)
	}
	// Twenty days on, the gap since the last sync; two hundred, 90 days.
	wall.forward(20 * 24 * time.Hour)
	if s = b.sync(id).status(t, 200); s.str("data.from_date") != "2026-03-31" || s.str("data.to_date") != "2026-04-20" {
		t.Fatalf("after a gap: %s", s.Body)
	}
	wall.forward(200 * 24 * time.Hour)
	if s = b.sync(id).status(t, 200); s.str("data.from_date") != "2026-08-08" || s.str("data.to_date") != "2026-11-06" {
		t.Fatalf("after a long gap: %s", s.Body)
	}

	// The bank limits the consent: until when it says, without asking it.
	wall.forward(time.Hour)
	bank.SetMode(fakebank.RateLimited)
	l := b.sync(id).errorCode(t, 429, "BANK_RATE_LIMITED")
	if l.Header.Get("Retry-After") != "3600" {
		t.Fatalf("limited: %s %v", l.Body, l.Header)
	}
	calls := bank.Calls("transactions")
	wall.forward(20 * time.Minute)
	b.sync(id).errorCode(t, 429, "BANK_RATE_LIMITED")
	if bank.Calls("transactions") != calls {
		t.Fatal("the bank was asked while it limited the consent")
	}
	// A failing bank: in error, with a Swedish message; the next sync
	// retries and succeeds.
	wall.forward(time.Hour)
	bank.SetMode(fakebank.Failing)
	b.sync(id).errorCode(t, 502, "BANK_SYNC_FAILED")
	conn := b.get(b.path("bank-connections"), b.token).status(t, 200)
	if conn.str("data.bank_connections.0.status") != "error" || !strings.Contains(conn.str("data.bank_connections.0.error_message"), "Banken") {
		t.Fatalf("failing: %s", conn.Body)
	}
	wall.forward(16 * time.Minute)
	bank.SetMode(fakebank.OK)
	b.sync(id).status(t, 200)
	// A dead consent: expired, and so it stays without asking the bank.
	wall.forward(16 * time.Minute)
	bank.SetMode(fakebank.Expired)
	b.sync(id).errorCode(t, 409, "BANK_SESSION_EXPIRED")
	calls = bank.Calls("transactions")
	wall.forward(16 * time.Minute)
	b.sync(id).errorCode(t, 409, "BANK_SESSION_EXPIRED")
	conn = b.get(b.path("bank-connections"), b.token).status(t, 200)
	if conn.str("data.bank_connections.0.status") != "expired" || bank.Calls("transactions") != calls {
		t.Fatalf("expired: %s", conn.Body)
	}
	b.write("POST", "bank-connections/00000000-0000-4000-8000-000000000000/sync", nil).errorCode(t, 404, "BANK_CONNECTION_NOT_FOUND")
}

// One account is fed at once; the user saying no leaves the connection in
// error; a return URL takes the user on; the daily run, in two workers at
// once, syncs each connection once.
func TestBankConnectionsDaily(t *testing.T) {
	t.Parallel()
	wall := &movable{}
	wall.set(time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC))
	bank := fakebank.New(fakebank.Account{UID: "only", IBAN: "SE4550000000058398257466", Currency: "SEK", Name: "Konto",
		Booked: "1.00", Available: "1.00", Txs: []fakebank.Tx{{Ref: "D1", Date: "2026-03-30", Amount: "1.00", Text: "IN"}}})
	defer bank.Close()
	b := newPartiesBooks(t, clock(wall.now), through(t, bank))
	for i := range 3 {
		if i > 0 {
			b.company = b.env.company(b.token, "Bolag "+string(rune('A'+i))+" AB")
		}
		_, state := b.consent(bank, map[string]any{"bank": "SEB"})
		if cb := b.callback(url.Values{"state": {state}, "code": {"ok"}}).status(t, 200); cb.str("data.status") != "active" {
			t.Fatalf("one account: %s", cb.Body)
		}
	}
	// No: the connection is in error; a return URL takes the user on.
	_, state := b.consent(bank, map[string]any{"bank": "SEB", "return_url": "https://app.example.se/bank?x=1"})
	hreq, _ := http.NewRequest("GET", b.srv.URL+"/api/v1/bank-connections/callback?"+url.Values{"state": {state},
		"error": {"access_denied"}}.Encode(), nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	to, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != 302 || to.Host != "app.example.se" || to.Query().Get("status") != "error" || to.Query().Get("x") != "1" {
		t.Fatalf("refused: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	// Two workers at once: each connection once.
	before := bank.Calls("transactions")
	var wg sync.WaitGroup
	done := make([]int, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, refused, err := b.server.SyncBankConnections(t.Context())
			if err != nil || len(refused) > 0 {
				t.Errorf("worker %d: %v %v", w, err, refused)
			}
			done[w] = n
		}()
	}
	wg.Wait()
	if done[0]+done[1] != 3 || bank.Calls("transactions")-before != 3 {
		t.Fatalf("synced %v, %d calls", done, bank.Calls("transactions")-before)
	}
	if n := b.count(`SELECT count(*) FROM bank_connections WHERE status = 'active' AND last_synced_at IS NOT NULL`); n != 3 {
		t.Fatalf("%d synced connections", n)
	}
	// Not again within the day; again the next.
	if n, _, _ := b.server.SyncBankConnections(t.Context()); n != 0 {
		t.Fatalf("synced %d again at once", n)
	}
	wall.forward(25 * time.Hour)
	if n, _, _ := b.server.SyncBankConnections(t.Context()); n != 3 {
		t.Fatalf("synced %d the next day", n)
	}
}

// Without an aggregator there are no connections, and each write says so.
func TestBankConnectionsNone(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	if got := b.get(b.path("bank-connections"), b.token).status(t, 200).list("data.bank_connections"); len(got) != 0 {
		t.Fatalf("connections: %v", got)
	}
	b.write("POST", "bank-connections", map[string]any{"bank": "SEB"}).errorCode(t, 503, "BANK_AGGREGATOR_NOT_CONFIGURED")
	b.callback(url.Values{"state": {"x.y"}, "code": {"ok"}}).errorCode(t, 503, "BANK_AGGREGATOR_NOT_CONFIGURED")
}
