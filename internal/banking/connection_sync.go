package banking

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/outbox"
)

// maxPages bounds the pages of one account one sync reads: a bank that
// keeps answering with more is cut off rather than followed forever.
const maxPages = 200

// fetched is what a sync brought from the bank, before the write: the
// connection as claimed, the window, each cash account's rows and
// balances; or why nothing was brought (claimed false: the connection
// may not sync now; err: the bank's refusal, already recorded).
type fetched struct {
	company, id uuid.UUID
	claimed     bool
	conn        Connection
	from, to    time.Time
	rows        map[uuid.UUID][]Ingested
	balances    map[uuid.UUID]aggregator.Balances
	err         error
	// at is when the bank was asked.
	at time.Time
}

type fetchedKey struct{}

// FetchSync is the outside work of a sync: the attempt is committed
// first (the cooldown holds across replicas even if the bank never
// answers), then the bank is read outside any transaction. A refusal is
// recorded on the connection at once (expired, in error, or limited by
// its bank) and answered by Sync.
func (b *Bank) FetchSync(ctx context.Context, company, id uuid.UUID) context.Context {
	if b.consents == nil {
		return ctx
	}
	f := &fetched{company: company, id: id}
	claim, err := b.store.ClaimAttempt(ctx, company, id, b.consents.Now())
	if err == nil && claim != nil {
		f.claimed, f.conn = true, *claim
		f.err = b.fetch(ctx, f)
	} else if err != nil {
		f.err = err
	}
	return context.WithValue(ctx, fetchedKey{}, f)
}

// fetch reads f's connection's fed accounts in the window, and their
// balances when last read BalancesEvery ago; a refusal is recorded.
func (b *Bank) fetch(ctx context.Context, f *fetched) error {
	c := b.consents
	now := c.Now()
	f.at = now
	f.from, f.to = Window(f.conn.LastSyncedAt, ledger.Today(now))
	accounts, err := b.store.ConnAccounts(ctx, f.conn.CompanyID, f.conn.ID)
	if err != nil {
		return err
	}
	f.rows, f.balances = map[uuid.UUID][]Ingested{}, map[uuid.UUID]aggregator.Balances{}
	balances := f.conn.BalancesAt == nil || now.Sub(*f.conn.BalancesAt) >= BalancesEvery
	for _, a := range accounts {
		if a.CashAccountID == nil {
			continue
		}
		rows, err := b.read(ctx, a, f.from, f.to)
		if err != nil {
			return b.refused(ctx, f, err)
		}
		f.rows[*a.CashAccountID] = rows
		if balances {
			bal, err := c.Aggregator.Balances(ctx, a.UID)
			if err != nil {
				return b.refused(ctx, f, err)
			}
			f.balances[*a.CashAccountID] = bal
		}
	}
	return nil
}

// read reads the booked transactions of account a dated from..to, page
// by page.
func (b *Bank) read(ctx context.Context, a ConnAccount, from, to time.Time) ([]Ingested, error) {
	var out []Ingested
	seen := map[string]int{}
	next := ""
	for range maxPages {
		p, err := b.consents.Aggregator.Transactions(ctx, a.UID, from, to, next)
		if err != nil {
			return nil, err
		}
		for _, t := range p.Transactions {
			if t.Currency == "" {
				t.Currency = a.Currency
			}
			out = append(out, synced(t, externalID(t, seen)))
		}
		if next = p.Next; next == "" {
			break
		}
	}
	return out, nil
}

// synced is a bank's transaction as a row of the company's.
func synced(t aggregator.Transaction, id string) Ingested {
	in := Ingested{Date: t.Date, Amount: t.Amount, Currency: t.Currency, ExternalID: id}
	for _, f := range []struct {
		v   string
		dst **string
	}{{t.Description, &in.Description}, {t.Counterparty, &in.MerchantName}, {t.Reference, &in.Reference},
		{t.CounterpartyAccount, &in.CounterpartyAccount}, {t.MCC, &in.MCC}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	if in.MCC != nil && !mccCode.MatchString(*in.MCC) {
		in.MCC = nil
	}
	fit(&in)
	return in
}

// refused records on f's connection what the bank's refusal err makes of
// it, in a statement of its own (committed whatever the request does),
// and answers err.
func (b *Bank) refused(ctx context.Context, f *fetched, err error) error {
	status, until, message := classify(err, b.consents.Now())
	err2 := b.store.db.InTx(audit.WithActor(ctx, audit.System), func(ctx context.Context) error {
		conn, err := b.store.Connection(ctx, f.conn.CompanyID, f.conn.ID, true)
		if err != nil {
			return err
		}
		old := conn
		if status != "" {
			conn.Status, conn.ErrorMessage = status, &message
		}
		if until != nil {
			conn.NextAllowedAt = until
		}
		if conn, err = b.store.SaveConnection(ctx, conn); err != nil {
			return err
		}
		return b.recordConn(ctx, audit.Update, &old, &conn, "Bankkopplingens synk misslyckades")
	})
	if err2 != nil {
		return err2
	}
	return err
}

// Synced is what a sync wrote.
type Synced struct {
	Connection Connection
	Imported   int
	Duplicates int
	From, To   time.Time
}

// Sync writes what FetchSync brought of connection id: the new rows of
// each fed cash account (what the account has already is a duplicate),
// a transaction.synced event per chunk, one audit row, the balances, and
// the connection synced now. Refusals: no aggregator 503; a dead consent
// 409 BANK_SESSION_EXPIRED; the cooldown 429 BANK_SYNC_COOLDOWN; the
// bank's limit 429 BANK_RATE_LIMITED (both with next_allowed_at and
// Retry-After); another failure 502 BANK_SYNC_FAILED.
func (b *Bank) Sync(ctx context.Context, company, id uuid.UUID) (Synced, error) {
	if b.consents == nil {
		return Synced{}, notConfigured(map[string]any{"connection_id": id})
	}
	f, _ := ctx.Value(fetchedKey{}).(*fetched)
	if f == nil || f.company != company || f.id != id || !f.claimed && f.err == nil {
		conn, err := b.store.Connection(ctx, company, id, false)
		if err != nil {
			return Synced{}, err
		}
		return Synced{}, b.refusal(conn)
	}
	if f.err != nil {
		return Synced{}, b.syncError(f)
	}
	return b.write(ctx, f)
}

// refusal is why conn may not sync now.
func (b *Bank) refusal(conn Connection) error {
	d := map[string]any{"connection_id": conn.ID, "status": conn.Status}
	switch conn.Status {
	case ConnExpired:
		d["error_message"] = conn.ErrorMessage
		return apierr.New(apierr.BankSessionExpired, d)
	case ConnPending, ConnPendingSelection:
		d["reason"] = "not_active"
		return apierr.New(apierr.Conflict, d)
	}
	if conn.Session == nil { // in error before its consent was given
		d["reason"], d["error_message"] = "not_active", conn.ErrorMessage
		return apierr.New(apierr.Conflict, d)
	}
	now := b.consents.Now()
	code := apierr.BankSyncCooldown
	if conn.NextAllowedAt != nil && conn.NextAllowedAt.After(now) &&
		(conn.LastAttemptAt == nil || conn.NextAllowedAt.After(conn.LastAttemptAt.Add(Cooldown))) {
		code = apierr.BankRateLimited
	}
	return waitUntil(code, d, NextAllowed(conn.LastAttemptAt, conn.NextAllowedAt), now)
}

// waitUntil is a 429 of code with details.next_allowed_at and Retry-After.
func waitUntil(code apierr.Code, d map[string]any, next, now time.Time) error {
	d["next_allowed_at"] = next.UTC().Format(time.RFC3339)
	secs := int(next.Sub(now).Seconds() + 0.999)
	if secs < 1 {
		secs = 1
	}
	return apierr.New(code, d).WithHeader("Retry-After", strconv.Itoa(secs))
}

// syncError answers a sync the bank refused (f.err), already recorded
// on the connection.
func (b *Bank) syncError(f *fetched) error {
	err := f.err
	d := map[string]any{"connection_id": f.id}
	status, until, _ := classify(err, f.at)
	switch {
	case status == ConnExpired:
		d["error_message"] = msgExpired
		return apierr.New(apierr.BankSessionExpired, d)
	case until != nil:
		return waitUntil(apierr.BankRateLimited, d, *until, b.consents.Now())
	}
	if failed := (*aggregator.Failed)(nil); !errors.As(err, &failed) {
		return err // not the bank's: the database's, or this server's
	}
	e := apierr.Wrap(apierr.BankSyncFailed, err)
	e.Details = d
	return e
}

// write stores what f brought, in the caller's transaction.
func (b *Bank) write(ctx context.Context, f *fetched) (Synced, error) {
	conn, err := b.store.Connection(ctx, f.company, f.id, true)
	if err != nil {
		return Synced{}, err
	}
	out := Synced{From: f.from, To: f.to}
	now := b.consents.Now()
	for cash, rows := range f.rows {
		a, err := b.store.CashAccount(ctx, f.company, cash, false)
		if err != nil {
			return out, err
		}
		at := Settlement{CashAccountID: &a.ID, LedgerAccount: a.LedgerAccount}
		for start := 0; start < len(rows); start += MaxIngest {
			chunk := rows[start:min(start+MaxIngest, len(rows))]
			for i := range chunk {
				if chunk[i].Currency != a.Currency {
					return out, apierr.Wrap(apierr.BankSyncFailed, fmt.Errorf("a %s row on a %s account", chunk[i].Currency,
						a.Currency))
				}
			}
			ids, err := b.store.InsertTransactions(ctx, f.company, at, "bank_feed", chunk)
			if err != nil {
				return out, err
			}
			out.Imported, out.Duplicates = out.Imported+len(ids), out.Duplicates+len(chunk)-len(ids)
			if len(ids) == 0 {
				continue
			}
			if _, err := outbox.Emit(ctx, b.store.db, f.company, EventSynced, map[string]any{"transaction_ids": ids,
				"cash_account_id": a.ID, "ledger_account": a.LedgerAccount, "source": "bank_feed"}); err != nil {
				return out, err
			}
		}
		if bal, ok := f.balances[cash]; ok {
			if err := b.store.SetBalances(ctx, f.company, cash, bal.Booked, bal.Available, now); err != nil {
				return out, err
			}
			if bal.Booked != nil {
				if err := b.store.RecordBalance(ctx, f.company, cash, StatementBalance{Day: now, Balance: *bal.Booked,
					Source: "bank_feed"}); err != nil {
					return out, err
				}
			}
		}
		if err := b.changed(ctx, f.company, &a.ID); err != nil {
			return out, err
		}
	}
	old := conn
	conn.Status, conn.ErrorMessage, conn.LastSyncedAt = ConnActive, nil, &now
	if len(f.balances) > 0 {
		conn.BalancesAt = &now
	}
	if conn, err = b.store.SaveConnection(ctx, conn); err != nil {
		return out, err
	}
	out.Connection = conn
	return out, b.recordConn(ctx, audit.Update, &old, &conn, fmt.Sprintf("Bankkopplingen synkades: %d nya transaktioner, "+
		"%d redan kända (%s–%s)", out.Imported, out.Duplicates, f.from.Format(time.DateOnly), f.to.Format(time.DateOnly)))
}

// SyncDue syncs the connections the daily run is due for, one at a time,
// each claimed (committed) before its bank is read and written in a
// transaction of its own; replicas share the work. It answers how many
// were synced and the refusals (recorded on their connections).
func (b *Bank) SyncDue(ctx context.Context) (int, []error, error) {
	if b.consents == nil {
		return 0, nil, nil
	}
	ctx = audit.WithActor(ctx, audit.System)
	done := 0
	var refused []error
	for ctx.Err() == nil {
		claim, err := b.store.ClaimDue(ctx, b.consents.Now())
		if err != nil || claim == nil {
			return done, refused, err
		}
		f := &fetched{company: claim.CompanyID, id: claim.ID, claimed: true, conn: *claim}
		if err := b.fetch(ctx, f); err != nil {
			refused = append(refused, err)
			continue
		}
		if err := b.store.db.InTx(ctx, func(ctx context.Context) error {
			_, err := b.write(ctx, f)
			return err
		}); err != nil {
			return done, refused, err
		}
		done++
	}
	return done, refused, ctx.Err()
}
