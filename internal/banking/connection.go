package banking

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/aggregator"
	"github.com/kontera/kontera/internal/ledger"
)

// Aggregator is the bank-data service connections go through (PSD2 AIS):
// aggregator.EnableBanking, or a test's fake of it.
type Aggregator interface {
	// Name is how connections name it.
	Name() string
	Start(ctx context.Context, c aggregator.Consent) (aggregator.Authorization, error)
	Session(ctx context.Context, code string) (aggregator.Session, error)
	Transactions(ctx context.Context, account string, from, to time.Time, next string) (aggregator.Page, error)
	Balances(ctx context.Context, account string) (aggregator.Balances, error)
}

// The states of a connection.
const (
	ConnPending          = "pending"
	ConnPendingSelection = "pending_selection"
	ConnActive           = "active"
	ConnExpired          = "expired"
	ConnError            = "error"
)

// The limits of syncing (002 Limits).
const (
	// Cooldown is how long after a sync, or an attempt at one, the next
	// waits.
	Cooldown = 15 * time.Minute
	// SyncDays is the window a sync reads at least; MaxSyncDays at most.
	SyncDays    = 7
	MaxSyncDays = 90
	// BalancesEvery is how often balances are read at most.
	BalancesEvery = 12 * time.Hour
	// StaleAfter is when a connection not synced since is stale.
	StaleAfter = 36 * time.Hour
	// DailyEvery is how often the daily run syncs each active connection.
	DailyEvery = 24 * time.Hour
	// ConsentDays is how long a consent is asked for unless told.
	ConsentDays = 90
)

// Window is the days a sync on today reads: the last SyncDays, widened to
// the day of the last sync so no gap is left, never more than MaxSyncDays
// (a connection never synced reads them all).
func Window(lastSynced *time.Time, today time.Time) (from, to time.Time) {
	to = today
	from = today.AddDate(0, 0, -SyncDays)
	oldest := today.AddDate(0, 0, -MaxSyncDays)
	switch {
	case lastSynced == nil:
		from = oldest
	case ledger.Today(*lastSynced).Before(from):
		from = ledger.Today(*lastSynced)
	}
	if from.Before(oldest) {
		from = oldest
	}
	return from, to
}

// NextAllowed is when a connection last tried at attempt (nil: never)
// and limited by its bank until limited may sync again; the zero time is
// now.
func NextAllowed(attempt, limited *time.Time) time.Time {
	var next time.Time
	if attempt != nil {
		next = attempt.Add(Cooldown)
	}
	if limited != nil && limited.After(next) {
		next = *limited
	}
	return next
}

// Stale says whether a connection synced last at synced (nil: never,
// since it was made at since) is past StaleAfter on now.
func Stale(synced *time.Time, since, now time.Time) bool {
	at := since
	if synced != nil {
		at = *synced
	}
	return now.Sub(at) > StaleAfter
}

// stateTTL is how long a consent's state is honoured on the callback.
const stateTTL = 24 * time.Hour

// SignState is the state a consent carries to the bank and back: the
// company and connection it is of and when it ends, signed with secret,
// so the public callback trusts only what this server asked for.
func SignState(secret []byte, company, connection uuid.UUID, expires time.Time) string {
	msg := make([]byte, 40)
	copy(msg, company[:])
	copy(msg[16:], connection[:])
	binary.BigEndian.PutUint64(msg[32:], uint64(expires.Unix()))
	enc := base64.RawURLEncoding
	return enc.EncodeToString(msg) + "." + enc.EncodeToString(stateMAC(secret, msg))
}

// stateMAC signs a state's body under a label of its own, so nothing
// else the secret signs (a cursor) passes for a state.
func stateMAC(secret, msg []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("kontera-bank-consent\x00"))
	m.Write(msg)
	return m.Sum(nil)
}

// ErrBadState is a callback's state this server did not sign, or one
// past its time.
var ErrBadState = errors.New("banking: the consent's state is not valid")

// ReadState answers the company and connection a state signed by
// SignState names, refusing another's or one ended on now.
func ReadState(secret []byte, state string, now time.Time) (company, connection uuid.UUID, err error) {
	// Strict: a state spelled otherwise (the unused bits of a last
	// character set) is not the one this server wrote.
	enc := base64.RawURLEncoding.Strict()
	body, sig, ok := strings.Cut(state, ".")
	if !ok {
		return company, connection, ErrBadState
	}
	msg, err1 := enc.DecodeString(body)
	got, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || len(msg) != 40 {
		return company, connection, ErrBadState
	}
	if !hmac.Equal(got, stateMAC(secret, msg)) || now.Unix() > int64(binary.BigEndian.Uint64(msg[32:])) {
		return company, connection, ErrBadState
	}
	copy(company[:], msg[:16])
	copy(connection[:], msg[16:32])
	return company, connection, nil
}

// Messages in Swedish for the user, on a connection that stopped.
const (
	msgExpired = "Bankens samtycke har gått ut eller återkallats. Förnya kopplingen med BankID."
	msgFailed  = "Banken eller bankkopplingstjänsten svarade inte som väntat. Försök igen senare."
	msgRefused = "Samtycket gavs inte i banken. Gör om kopplingen för att försöka igen."
)
