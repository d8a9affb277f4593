package payroll

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Rekey seals the employees' personnummer (with their tokens) and the
// AGI files anew under to, in the transaction of ctx (kontera pii rekey);
// it answers how many rows of each it moved.
func Rekey(ctx context.Context, db *store.DB, from, to *seal.Box) (employees, agi int, err error) {
	if employees, err = store.Reseal(ctx, db, store.Resealing{Table: "employees", Column: "personnummer_sealed",
		Context: sealContext, Also: func(pn []byte) (string, any) {
			return "personnummer_token", to.Token(kindPersonnummer, string(pn))
		}}, from, to); err != nil {
		return employees, 0, err
	}
	agi, err = store.Reseal(ctx, db, store.Resealing{Table: "agi_declarations", Column: "xml_sealed",
		Context: agiContext}, from, to)
	return employees, agi, err
}

// agiContext binds a sealed AGI file to its declaration's row.
func agiContext(company, id uuid.UUID) string {
	return "agi_declarations/" + company.String() + "/" + id.String()
}
