package standby

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Why a read went where it went: the label of the reads metric.
const (
	// On the replica: no position to wait for, or one it had passed, or
	// one it passed while the read waited.
	Fresh    = "no_token"
	CaughtUp = "caught_up"
	Waited   = "waited"
	// On the primary: the replica unreachable, further behind than
	// MaxLag, not past the position within MaxWait, failing the read, or
	// refusing it (a 404 for what it has not replayed yet: the primary,
	// which may know more, answers).
	Down     = "replica_down"
	Lagging  = "replica_lagging"
	TimedOut = "wait_timeout"
	Failed   = "replica_failed"
	Refused  = "replica_refused"
	// Ahead: the position brought lies beyond what the primary has
	// written: no replica will get there, so none is waited for.
	Ahead = "token_ahead"
)

// Reasons are the reasons by the server they send a read to, as the reads
// metric labels them: every series exists from the start.
var Reasons = map[string][]string{
	"replica": {Fresh, CaughtUp, Waited},
	"primary": {Down, Lagging, TimedOut, Ahead, Failed, Refused},
}

// Read is where one read goes.
type Read struct {
	Replica bool
	Reason  string
	// At is the position the replica had replayed when the read was sent
	// there: the answer holds every commit up to it. 0 for a replica that
	// is not in recovery (the primary itself), which holds everything.
	At LSN
	// Waited is how long the read waited for the replica.
	Waited time.Duration
	// Token tells whether the read waited on a position (brought, or of
	// the key's own recent write).
	Token bool
}

// Committed is the primary's position after a write of key committed: at
// or past the commit, so a replica past it shows the write. Reads of key
// in the next Sticky wait for it (see Route).
func (s *Standby) Committed(ctx context.Context, key uuid.UUID) (LSN, error) {
	lsn, err := s.position(ctx)
	if err != nil {
		return 0, err
	}
	at := s.cfg.Now()
	if key != uuid.Nil && s.cfg.Sticky > 0 {
		s.mu.Lock()
		if len(s.recent) >= 4096 {
			for k, v := range s.recent {
				if at.Sub(v.at) > s.cfg.Sticky {
					delete(s.recent, k)
				}
			}
		}
		if old, ok := s.recent[key]; !ok || old.lsn < lsn {
			s.recent[key] = sample{at, lsn}
		}
		s.mu.Unlock()
	}
	return lsn, nil
}

// Route says where a read of key goes. token is the position the client
// brought (nil: none); without one, the key's own write of the last
// Sticky stands in. A read with a position waits up to MaxWait for the
// replica to replay past it; the primary answers when the replica is
// down, lags past MaxLag, or does not get there in time.
func (s *Standby) Route(ctx context.Context, key uuid.UUID, token *LSN) Read {
	now := s.cfg.Now()
	s.mu.Lock()
	if token == nil && key != uuid.Nil {
		if w, ok := s.recent[key]; ok && now.Sub(w.at) <= s.cfg.Sticky {
			token = &w.lsn
		}
	}
	switch {
	case !s.up:
		s.mu.Unlock()
		return Read{Reason: Down, Token: token != nil}
	case s.lagLocked(now) > s.cfg.MaxLag:
		s.mu.Unlock()
		return Read{Reason: Lagging, Token: token != nil}
	case token == nil:
		defer s.mu.Unlock()
		return Read{Replica: true, Reason: Fresh, At: s.at()}
	case s.passed(*token):
		defer s.mu.Unlock()
		return Read{Replica: true, Reason: CaughtUp, At: s.at(), Token: true}
	}
	known := len(s.samples) > 0 && *token <= s.samples[len(s.samples)-1].lsn
	s.mu.Unlock()
	if !known && s.ahead(ctx, *token) {
		return Read{Reason: Ahead, Token: true}
	}
	return s.wait(ctx, *token, now)
}

// ahead reports whether token lies beyond the primary's insert position:
// a token made up, or of another database. It asks the primary only for
// a token past every position sampled here (another server's write of a
// moment ago may be).
func (s *Standby) ahead(ctx context.Context, token LSN) bool {
	lsn, err := s.position(ctx)
	return err == nil && token > lsn // unread, the wait decides
}

// wait polls the replica's replay until it passes token or MaxWait ends.
func (s *Standby) wait(ctx context.Context, token LSN, from time.Time) Read {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.MaxWait)
	defer cancel()
	pause := time.Millisecond
	for {
		timer := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return Read{Reason: TimedOut, Waited: s.cfg.Now().Sub(from), Token: true}
		case <-timer.C:
		}
		if ctx.Err() != nil {
			return Read{Reason: TimedOut, Waited: s.cfg.Now().Sub(from), Token: true}
		}
		var replay LSN
		if err := s.replica.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn()`).Scan(&replay); err != nil {
			if ctx.Err() != nil {
				return Read{Reason: TimedOut, Waited: s.cfg.Now().Sub(from), Token: true}
			}
			s.Recheck()
			return Read{Reason: Down, Waited: s.cfg.Now().Sub(from), Token: true}
		}
		s.mu.Lock()
		if replay > s.replay {
			s.replay = replay
		}
		ok, at := s.passed(token), s.at()
		s.mu.Unlock()
		if ok {
			return Read{Replica: true, Reason: Waited, At: at, Waited: s.cfg.Now().Sub(from), Token: true}
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// at is the position a read sent to the replica now holds: what it has
// replayed, or 0 when it is no standby.
func (s *Standby) at() LSN {
	if s.current {
		return 0
	}
	return s.replay
}
