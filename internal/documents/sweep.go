package documents

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/store"
)

// SweepGrace is how long a blob no row names is kept: an upload puts its
// bytes before its transaction, so a blob of an upload in flight has no
// row yet, and one of an upload that failed never gets one.
const SweepGrace = 24 * time.Hour

// sweepBatch is how many blobs one query asks about.
const sweepBatch = 500

// Sweep removes from b every blob that no row of documents names and that
// was written more than SweepGrace before now (an upload that found its
// bytes there renews the time), and answers how many went. It is the
// daily sweep; several replicas sweeping at once is harmless. A store
// that spools uploads (FS) also loses what a stopped server left there
// for as long.
func (s *Store) Sweep(ctx context.Context, b Blobs, now time.Time) (int, error) {
	removed := 0
	var batch []string
	flush := func() error {
		keys := batch
		batch = nil
		var unnamed []string
		if err := s.db.Q(ctx).SelectContext(ctx, &unnamed, `
			SELECT k FROM unnest($1::text[]) AS k
			WHERE NOT EXISTS (SELECT 1 FROM documents d
				WHERE d.company_id = split_part(k, '/', 1)::uuid AND d.sha256_hash = split_part(k, '/', 3))`,
			pq.Array(keys)); err != nil {
			return err
		}
		for _, k := range unnamed {
			if err := b.Delete(ctx, k); err != nil {
				return err
			}
			removed++
		}
		return nil
	}
	err := b.Each(ctx, func(key string, written time.Time) error {
		if now.Sub(written) < SweepGrace {
			return nil
		}
		if batch = append(batch, key); len(batch) == sweepBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if sp, ok := b.(interface {
		SweepSpool(before time.Time) (int, error)
	}); ok && err == nil {
		var n int
		n, err = sp.SweepSpool(now.Add(-SweepGrace))
		removed += n
	}
	return removed, err
}

// dropBlob removes the blob of company's bytes sha256 when no row names
// them any more: after the commit of a deletion.
func (s *Store) dropBlob(ctx context.Context, b Blobs, company uuid.UUID, sha256 string) error {
	var named bool
	if err := s.db.Q(ctx).GetContext(ctx, &named, `SELECT EXISTS (SELECT 1 FROM documents
		WHERE company_id = $1 AND sha256_hash = $2)`, company, sha256); err != nil || named {
		return err
	}
	return b.Delete(ctx, Key(company, sha256))
}

// afterDelete has the blob of deleted document d removed once the
// deletion commits, when no other row names its bytes; the daily sweep
// removes it should this fail.
func (a *Archive) afterDelete(ctx context.Context, d Doc) {
	if a.blobs == nil {
		return
	}
	store.AfterCommit(ctx, func(ctx context.Context) {
		if err := a.store.dropBlob(ctx, a.blobs, d.CompanyID, d.SHA256); err != nil && a.log != nil {
			a.log(err)
		}
	})
}
