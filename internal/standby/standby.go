// Package standby serves reads from a hot-standby replica of the primary
// database, PostgreSQL's own streaming replication, without ever answering
// a client from books older than the ones it has just written.
//
// A write's answer carries the position its commit reached in the
// primary's write-ahead log (Committed); a read that brings that position
// back, or comes from a key that wrote a moment ago, is served by the
// replica only once the replica has replayed past it, else by the
// primary (Route). A replica that is unreachable, or further behind than
// a bound, is passed over until it is back: the primary answers, and the
// client never sees an error of the replica's.
package standby

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/store"
)

// Config bounds how the replica is used.
type Config struct {
	// MaxWait is how long a read with a position waits for the replica
	// to replay past it before the primary answers (0: DefaultMaxWait).
	MaxWait time.Duration
	// MaxLag is how far behind the replica may be for reads without a
	// position (0: DefaultMaxLag); further behind, the primary answers them.
	MaxLag time.Duration
	// Sticky is how long after a write the same key's reads wait for
	// that write on the replica, as if they had brought its position
	// (0: never; the server's default is DefaultSticky).
	Sticky time.Duration
	// Poll is how often the replica's replay and the primary's position
	// are read (default 100 ms).
	Poll time.Duration
	Log  *zap.Logger
	Now  func() time.Time
}

// The bounds' defaults: KONTERA_READ_MAX_WAIT, _MAX_LAG and _STICKY's.
const (
	DefaultMaxWait = 2 * time.Second
	DefaultMaxLag  = 10 * time.Second
	DefaultSticky  = 5 * time.Second
)

// Standby is the read replica beside the primary and what is known of it.
type Standby struct {
	primary, replica *store.DB
	cfg              Config
	kick             chan struct{}

	sized bool // the WAL's page size was read (by Check alone)

	mu  sync.Mutex
	up  bool
	err error // why the replica is down
	// current: the replica is not in recovery (the primary itself, or a
	// pooler in front of it): it is never behind.
	current bool
	replay  LSN      // what the replica has replayed
	samples []sample // the primary's positions, oldest first
	block   uint64   // the WAL's page size
	lagging bool     // logged as behind MaxLag
	recent  map[uuid.UUID]sample
}

// sample is a position the primary had reached by a time: everything
// the primary had committed at `at` lies at or before lsn.
type sample struct {
	at  time.Time
	lsn LSN
}

// New watches replica beside primary; Run keeps it watched.
func New(primary, replica *store.DB, cfg Config) *Standby {
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = DefaultMaxLag
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Standby{primary: primary, replica: replica, cfg: cfg, kick: make(chan struct{}, 1),
		block: 8192, recent: map[uuid.UUID]sample{}}
}

// Run reads the replica's replay and the primary's position every Poll
// (and at once after Recheck) until ctx ends.
func (s *Standby) Run(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		s.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
	}
}

// Recheck asks Run to look at the replica now: a read there failed.
func (s *Standby) Recheck() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Check reads both servers once, as Run does every Poll.
func (s *Standby) Check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, _ = s.position(ctx) // a sample; unread, the lag is reckoned on the older ones
	var inRecovery bool
	var replay sql.NullString
	err := s.replica.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()`).Scan(&inRecovery, &replay)
	if err == nil && !s.sized {
		var block uint64
		if err := s.replica.QueryRowContext(ctx, `SELECT current_setting('wal_block_size')::bigint`).Scan(&block); err == nil && block > 0 {
			s.mu.Lock()
			s.block = block
			s.mu.Unlock()
			s.sized = true
		}
	}
	var r LSN
	if err == nil && inRecovery {
		if !replay.Valid {
			err = errors.New("the replica has replayed nothing yet")
		} else {
			err = r.Scan(replay.String)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.up || s.err == nil {
			s.cfg.Log.Warn("read replica unreachable: reads go to the primary", zap.Error(err))
		}
		s.up, s.err = false, err
		return
	}
	if !s.up {
		s.cfg.Log.Info("read replica answering: reads go to it again")
	}
	// Taken as read, even when a waiting read saw more a moment ago: a
	// replica replaced by one further behind must not keep its
	// predecessor's position.
	s.up, s.err, s.current, s.replay = true, nil, !inRecovery, r
	lag := s.lagLocked(s.cfg.Now())
	switch {
	case lag > s.cfg.MaxLag && !s.lagging:
		s.cfg.Log.Warn("read replica behind: reads go to the primary", zap.Duration("lag", lag), zap.Duration("max_lag", s.cfg.MaxLag))
		s.lagging = true
	case lag <= s.cfg.MaxLag && s.lagging:
		s.cfg.Log.Info("read replica caught up: reads go to it again", zap.Duration("lag", lag))
		s.lagging = false
	}
}

// position reads the primary's insert position, and keeps it as a
// sample. The insert position, not the write position: with an
// asynchronous commit a commit record may not be written out yet, but it
// is inserted.
func (s *Standby) position(ctx context.Context) (LSN, error) {
	at := s.cfg.Now()
	var lsn LSN
	if err := s.primary.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()`).Scan(&lsn); err != nil {
		return 0, err
	}
	s.sampled(at, lsn)
	return lsn, nil
}

// sampled keeps a position of the primary's, in order, over the span the
// lag is reckoned on.
func (s *Standby) sampled(at time.Time, lsn LSN) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.samples); n > 0 {
		last := &s.samples[n-1]
		if !at.After(last.at) || lsn < last.lsn {
			return // learnt out of order: the samples in place say more
		}
		if lsn == last.lsn || at.Sub(last.at) < s.cfg.Poll/10 {
			// The same position later (the primary idle), or one a moment
			// later: the newer sample replaces the last, so an idle
			// primary is not mistaken for a replica left behind.
			*last = sample{at, lsn}
			return
		}
	}
	s.samples = append(s.samples, sample{at, lsn})
	keep := 2*s.cfg.MaxLag + 2*time.Second
	i := 0
	for i < len(s.samples)-1 && at.Sub(s.samples[i+1].at) > keep {
		i++
	}
	if i > 0 {
		s.samples = append(s.samples[:0], s.samples[i:]...)
	}
}

// lagLocked is how stale the replica may be: the time since the primary
// last had nothing the replica has not replayed.
func (s *Standby) lagLocked(now time.Time) time.Duration {
	if s.current || len(s.samples) == 0 {
		return 0
	}
	for i := len(s.samples) - 1; i >= 0; i-- {
		if s.passed(s.samples[i].lsn) {
			return now.Sub(s.samples[i].at)
		}
	}
	return now.Sub(s.samples[0].at)
}

// passed reports whether the replica has replayed everything up to lsn.
// A position just past a page boundary counts as the boundary: the
// primary's insert position after a record ending there lies beyond the
// next page's header, which the replica never reports as replayed.
func (s *Standby) passed(lsn LSN) bool {
	if s.current || s.replay >= lsn {
		return true
	}
	const longHeader = 40 // SizeOfXLogLongPHD, the larger page header
	return uint64(s.replay)%s.block == 0 && lsn-s.replay <= longHeader
}

// State is what a scrape reports: whether the replica answers and how far
// behind the primary it is.
func (s *Standby) State() (up bool, lag time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.up, s.lagLocked(s.cfg.Now())
}
