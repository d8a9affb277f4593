package jobs

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Lease takes, or renews, the lease named name for holder until ttl from
// now, and reports whether holder has it: a periodic job every replica
// runs on its clock is run by one at a time. A lease that ran out (its
// holder died) goes to whoever asks next.
func (s *Store) Lease(ctx context.Context, name string, holder uuid.UUID, ttl time.Duration) (bool, error) {
	r, err := s.db.Q(ctx).ExecContext(ctx, `INSERT INTO worker_leases (name, holder, until)
		VALUES ($1, $2, now() + $3 * interval '1 millisecond')
		ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
			WHERE worker_leases.holder = EXCLUDED.holder OR worker_leases.until < now()`,
		name, holder, ttl.Milliseconds())
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

// Unlease hands holder's lease name back, for the next run of any replica.
func (s *Store) Unlease(ctx context.Context, name string, holder uuid.UUID) error {
	_, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE worker_leases SET until = now() WHERE name = $1 AND holder = $2`,
		name, holder)
	return err
}
