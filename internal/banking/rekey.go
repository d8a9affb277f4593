package banking

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Rekey seals every bank connection's aggregator session anew under to,
// in the transaction of ctx (kontera pii rekey); it answers how many it
// moved.
func Rekey(ctx context.Context, db *store.DB, from, to *seal.Box) (int, error) {
	return store.Reseal(ctx, db, store.Resealing{Table: "bank_connections", Column: "session",
		Context: func(company, id uuid.UUID) string { return sessionContext(Connection{CompanyID: company, ID: id}) }}, from, to)
}
