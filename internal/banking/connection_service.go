package banking

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/seal"
)

// Consents is what the bank connects through: the aggregator, the secret
// a consent's state is signed with, the public URL the bank sends the
// user back to, the box that seals a session at rest, and the clock.
type Consents struct {
	Aggregator Aggregator
	Secret     []byte
	Callback   string
	Box        *seal.Box
	Now        func() time.Time
}

// UseAggregator connects the bank to c's aggregator; without it there are
// no connections (503 BANK_AGGREGATOR_NOT_CONFIGURED).
func (b *Bank) UseAggregator(c Consents) {
	if c.Now == nil {
		c.Now = time.Now
	}
	b.consents = &c
}

// notConfigured is the refusal of a connection without an aggregator.
func notConfigured(details map[string]any) error {
	return apierr.New(apierr.BankAggregatorNotConfigured, details)
}

// ConnectRequest is a connection asked for: the bank (its name at the
// aggregator) and country, business or personal accounts, where to send
// the user once the consent is given, and for how many days.
type ConnectRequest struct {
	Bank, Country, PSUType string
	ReturnURL              *string
	ValidDays              int
}

// check holds r to its rules, filling in the defaults.
func (r *ConnectRequest) check() error {
	var issues []apierr.Issue
	bad := func(field, rule, issue string) {
		issues = append(issues, apierr.Issue{Field: field, In: "body", Rule: rule, Issue: issue})
	}
	r.Bank = strings.TrimSpace(r.Bank)
	if l := len([]rune(r.Bank)); l < 1 || l > 100 {
		bad("bank", "length", "1 to 100 characters: the bank's name at the aggregator, e.g. SEB")
	}
	if r.Country == "" {
		r.Country = "SE"
	}
	if len(r.Country) != 2 || strings.ToUpper(r.Country) != r.Country {
		bad("country", "pattern", "a two-letter ISO 3166 code such as SE")
	}
	switch r.PSUType {
	case "":
		r.PSUType = "business"
	case "business", "personal":
	default:
		bad("psu_type", "enum", "business or personal")
	}
	if r.ValidDays == 0 {
		r.ValidDays = ConsentDays
	}
	if r.ValidDays < 1 || r.ValidDays > 180 {
		bad("valid_days", "range", "1 to 180 days")
	}
	if r.ReturnURL != nil {
		u, err := url.Parse(*r.ReturnURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || len(*r.ReturnURL) > 2048 {
			bad("return_url", "format", "an https URL of at most 2 048 characters")
		}
	}
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}

// asked is a consent asked for of the aggregator, before the request's
// transaction: the connection's id and the aggregator's answer.
type asked struct {
	company, id uuid.UUID
	request     ConnectRequest
	auth        aggregator.Authorization
	err         error
}

type askedKey struct{}

// AskConsent is the outside work of a new connection: the aggregator is
// asked for the consent before the request's transaction opens, the
// state naming the connection the write then stores. A request the rules
// refuse asks nothing (Connect answers why).
func (b *Bank) AskConsent(ctx context.Context, company uuid.UUID, r ConnectRequest) context.Context {
	if b.consents == nil || r.check() != nil {
		return ctx
	}
	c := b.consents
	a := &asked{company: company, id: uuid.New(), request: r}
	now := c.Now()
	a.auth, a.err = c.Aggregator.Start(ctx, aggregator.Consent{Bank: r.Bank, Country: r.Country, PSUType: r.PSUType,
		State: SignState(c.Secret, company, a.id, now.Add(stateTTL)), RedirectURL: c.Callback,
		ValidUntil: now.AddDate(0, 0, r.ValidDays)})
	return context.WithValue(ctx, askedKey{}, a)
}

// Connect stores the connection AskConsent asked for, pending the
// consent the user gives at its authorization URL. An aggregator that
// refused or failed is 502 BANK_SYNC_FAILED.
func (b *Bank) Connect(ctx context.Context, company uuid.UUID, r ConnectRequest) (Connection, error) {
	if err := r.check(); err != nil {
		return Connection{}, err
	}
	a, _ := ctx.Value(askedKey{}).(*asked)
	if b.consents == nil || a == nil || a.company != company {
		return Connection{}, notConfigured(nil)
	}
	if a.err != nil {
		e := apierr.Wrap(apierr.BankSyncFailed, a.err)
		e.Details = map[string]any{"reason": "consent_refused", "bank": r.Bank, "country": r.Country}
		return Connection{}, e
	}
	c, err := b.store.InsertConnection(ctx, Connection{CompanyID: company, ID: a.id,
		Aggregator: b.consents.Aggregator.Name(), Bank: &r.Bank, BankCountry: &r.Country, PSUType: r.PSUType,
		AuthorizationID: &a.auth.ID, AuthorizationURL: &a.auth.URL, ReturnURL: r.ReturnURL})
	if err != nil {
		return c, err
	}
	return c, b.recordConn(ctx, audit.Insert, nil, &c, "Bankkoppling till "+r.Bank+" begärdes")
}

// Complete ends a consent on the bank's callback: the state names the
// connection (a state this server did not sign, or an old one, is 400),
// the code opens the session (asked of the aggregator before any
// transaction) whose accounts the connection covers. One account feeds
// a cash account at once (the one with its IBAN, else a new one) and the
// connection is active; several wait for select-accounts. The bank's
// error (the user said no) leaves the connection in error. A connection
// already completed is answered as it is.
func (b *Bank) Complete(ctx context.Context, state, code, bankError string) (Connection, error) {
	if b.consents == nil {
		return Connection{}, notConfigured(nil)
	}
	c := b.consents
	company, id, err := ReadState(c.Secret, state, c.Now())
	if err != nil {
		return Connection{}, apierr.Validation(apierr.Issue{Field: "state", In: "query", Rule: "signature",
			Issue: "not a state this server signed, or older than a day: start the connection again"})
	}
	conn, err := b.store.Connection(ctx, company, id, false)
	if err != nil || conn.Status != ConnPending {
		return conn, err
	}
	if bankError == "" && strings.TrimSpace(code) == "" {
		return conn, apierr.Validation(apierr.Issue{Field: "code", In: "query", Rule: "required",
			Issue: "the bank's code, or its error"})
	}
	var session aggregator.Session
	var failed error
	if bankError == "" {
		session, failed = c.Aggregator.Session(ctx, code)
	}
	ctx = audit.WithActor(ctx, audit.System)
	err = b.store.db.InTx(ctx, func(ctx context.Context) error {
		conn, err = b.store.Connection(ctx, company, id, true)
		if err != nil || conn.Status != ConnPending {
			return err
		}
		old := conn
		switch {
		case bankError != "":
			conn.Status, conn.ErrorMessage = ConnError, ptr(msgRefused)
		case failed != nil:
			conn.Status, conn.ErrorMessage = ConnError, ptr(msgFailed)
		default:
			if conn, err = b.open(ctx, conn, session); err != nil {
				return err
			}
		}
		if conn, err = b.store.SaveConnection(ctx, conn); err != nil {
			return err
		}
		return b.recordConn(ctx, audit.Update, &old, &conn, "Bankkopplingens samtycke: "+conn.Status)
	})
	return conn, err
}

// open makes conn the session's: sealed, with the accounts it covers; one
// account is fed at once.
func (b *Bank) open(ctx context.Context, conn Connection, s aggregator.Session) (Connection, error) {
	conn.Session = b.consents.Box.Seal([]byte(s.ID), sessionContext(conn))
	if !s.ValidUntil.IsZero() {
		conn.ConsentExpires = &s.ValidUntil
	}
	if s.Bank != "" {
		conn.Bank = &s.Bank
	}
	conn.ErrorMessage = nil
	for i := range s.Accounts {
		// An IBAN is kept as a cash account keeps it, or not at all.
		iban := NormalIBAN(s.Accounts[i].IBAN)
		if checkIBAN(iban) != nil {
			iban = ""
		}
		s.Accounts[i].IBAN = iban
		s.Accounts[i].Currency = strings.ToUpper(strings.TrimSpace(s.Accounts[i].Currency))
	}
	if err := b.store.AddConnAccounts(ctx, conn.CompanyID, conn.ID, s.Accounts); err != nil {
		return conn, err
	}
	conn.Status = ConnPendingSelection
	if len(s.Accounts) == 1 {
		accounts, err := b.store.ConnAccounts(ctx, conn.CompanyID, conn.ID)
		if err != nil {
			return conn, err
		}
		if _, err := b.feed(ctx, conn, accounts[0], nil); err != nil {
			return conn, err
		}
		conn.Status = ConnActive
	}
	return conn, nil
}

func sessionContext(c Connection) string {
	return "bank-session/" + c.CompanyID.String() + "/" + c.ID.String()
}

// feed makes a cash account fed by account a of conn: cash when named
// (of the account's currency), else the company's cash account with its
// IBAN (taken over: same id, ledger account and rows), else a new one.
func (b *Bank) feed(ctx context.Context, conn Connection, a ConnAccount, cash *uuid.UUID) (uuid.UUID, error) {
	company := conn.CompanyID
	var id uuid.UUID
	switch {
	case cash != nil:
		ca, err := b.store.CashAccount(ctx, company, *cash, true)
		if err != nil {
			return id, err
		}
		if ca.Currency != a.Currency {
			return id, apierr.Field("accounts", "currency", "cash account "+ca.LedgerAccount+" holds "+ca.Currency+
				", the bank's account "+a.Currency)
		}
		id = ca.ID
	case a.IBAN != nil:
		other, err := b.store.WithIBAN(ctx, company, *a.IBAN, a.Currency)
		if err != nil {
			return id, err
		}
		if other != nil {
			id = *other
		}
	}
	if id == uuid.Nil {
		name := a.Currency + "-konto"
		if conn.Bank != nil {
			name = *conn.Bank + " " + name
		}
		if a.Name != nil && strings.TrimSpace(*a.Name) != "" {
			name = strings.TrimSpace(*a.Name)
		}
		ca, err := b.Create(ctx, company, NewCash{Name: name, Currency: a.Currency, IBAN: a.IBAN})
		if err != nil {
			return id, err
		}
		id = ca.ID
	}
	if err := b.store.Feed(ctx, company, conn.ID, a.UID, id); err != nil {
		return id, err
	}
	return id, b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "cash_accounts",
		RecordID: id.String(), Description: "Kassakontot hämtar transaktioner genom bankkopplingen",
		New: audit.Of(map[string]any{"bank_connection_id": conn.ID, "account_uid": a.UID})})
}

// Selection is one account of a connection chosen to feed a cash account
// (the one named, else as feed chooses).
type Selection struct {
	UID           string
	CashAccountID *uuid.UUID
}

// SelectAccounts chooses which of a connection's accounts feed cash
// accounts; the connection is then active. Only a connection whose
// consent is given is chosen for (409 CONFLICT, reason not_selectable).
func (b *Bank) SelectAccounts(ctx context.Context, company, id uuid.UUID, sel []Selection) (Connection, []ConnAccount, error) {
	if b.consents == nil {
		return Connection{}, nil, notConfigured(map[string]any{"connection_id": id})
	}
	if len(sel) < 1 || len(sel) > 50 {
		return Connection{}, nil, apierr.Field("accounts", "length", "1 to 50 accounts")
	}
	conn, err := b.store.Connection(ctx, company, id, true)
	if err != nil {
		return conn, nil, err
	}
	if conn.Status != ConnPendingSelection && conn.Status != ConnActive {
		return conn, nil, apierr.New(apierr.Conflict, map[string]any{"reason": "not_selectable", "connection_id": id,
			"status": conn.Status})
	}
	accounts, err := b.store.ConnAccounts(ctx, company, id)
	if err != nil {
		return conn, nil, err
	}
	byUID := map[string]ConnAccount{}
	for _, a := range accounts {
		byUID[a.UID] = a
	}
	seen := map[string]bool{}
	for i, s := range sel {
		a, ok := byUID[s.UID]
		if !ok || seen[s.UID] {
			return conn, nil, apierr.Field(fmt.Sprintf("accounts[%d].account_uid", i), "enum",
				"one of the connection's accounts (data.accounts of GET bank-connections), once")
		}
		seen[s.UID] = true
		if _, err := b.feed(ctx, conn, a, s.CashAccountID); err != nil {
			return conn, nil, err
		}
	}
	old := conn
	conn.Status = ConnActive
	if conn, err = b.store.SaveConnection(ctx, conn); err != nil {
		return conn, nil, err
	}
	if err := b.recordConn(ctx, audit.Update, &old, &conn, "Bankkopplingens konton valdes"); err != nil {
		return conn, nil, err
	}
	accounts, err = b.store.ConnAccounts(ctx, company, id)
	return conn, accounts, err
}

// recordConn audits a change of a connection (never its session).
func (b *Bank) recordConn(ctx context.Context, action audit.Action, old, new *Connection, desc string) error {
	view := func(c *Connection) any {
		if c == nil {
			return nil
		}
		v := *c
		v.Session = nil
		return v
	}
	c := old
	if c == nil {
		c = new
	}
	return b.audit.Record(ctx, audit.Change{CompanyID: c.CompanyID, Action: action, Table: "bank_connections",
		RecordID: c.ID.String(), Description: desc, Old: audit.Of(view(old)), New: audit.Of(view(new))})
}

// externalID is the dedup key of a synced transaction: the bank's entry
// reference, else what it says, counted within the day.
func externalID(t aggregator.Transaction, seen map[string]int) string {
	if t.EntryReference != "" {
		return t.EntryReference
	}
	key := strings.Join([]string{t.Date.Format(time.DateOnly), t.Amount.String(), t.Currency, t.Description,
		t.Counterparty, t.Reference}, "|")
	seen[key]++
	return "psd2:" + counted(key, seen[key])
}

// classify is what became on now of a connection whose bank call failed
// with err: expired, limited until a time, or in error.
func classify(err error, now time.Time) (status string, until *time.Time, message string) {
	var limited *aggregator.RateLimited
	switch {
	case errors.Is(err, aggregator.ErrExpired):
		return ConnExpired, nil, msgExpired
	case errors.As(err, &limited):
		u := now.Add(limited.Wait)
		return "", &u, ""
	}
	return ConnError, nil, msgFailed
}
