package webhooks

import (
	"context"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Rekey seals every webhook's signing secret anew under to, in the
// transaction of ctx (kontera pii rekey); it answers how many it moved.
func Rekey(ctx context.Context, db *store.DB, from, to *seal.Box) (int, error) {
	return store.Reseal(ctx, db, store.Resealing{Table: "webhooks", Column: "secret_sealed", Context: SecretContext}, from, to)
}
