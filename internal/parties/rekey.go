package parties

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
)

// Rekey seals every sealed number of every company's customers and
// suppliers anew under to, and gives them to's tokens (in the rows and in
// their parties), in the transaction of ctx: a change of KONTERA_PII_KEY
// (kontera pii rekey). Rows sealed under to already stay as they are. It
// answers how many rows it moved; a value that opens under neither key
// fails it, naming the row.
func Rekey(ctx context.Context, db *store.DB, from, to *seal.Box) (int, error) {
	next := &Store{db: db, box: to}
	moved := 0
	for _, table := range []string{"customers", "suppliers"} {
		personal, withPersonal := "NULL::bytea", ""
		if table == "customers" {
			personal, withPersonal = "personal_number_sealed", " OR personal_number_sealed IS NOT NULL"
		}
		var rows []struct {
			Company   uuid.UUID  `db:"company_id"`
			ID        uuid.UUID  `db:"id"`
			Party     *uuid.UUID `db:"party_id"`
			Country   string     `db:"country"`
			Org       *string    `db:"org_number"`
			VAT       *string    `db:"vat_number"`
			OrgSealed []byte     `db:"org_number_sealed"`
			VATSealed []byte     `db:"vat_number_sealed"`
			PN        []byte     `db:"personal"`
		}
		if err := db.Q(ctx).SelectContext(ctx, &rows, `SELECT company_id, id, party_id, country, org_number, vat_number,
				org_number_sealed, vat_number_sealed, `+personal+` AS personal FROM `+table+`
			WHERE org_number_sealed IS NOT NULL OR vat_number_sealed IS NOT NULL`+withPersonal+` FOR UPDATE`); err != nil {
			return moved, err
		}
		for _, r := range rows {
			rowCtx := table + "/" + r.Company.String() + "/" + r.ID.String()
			changed := false
			// The numbers in clear, then sealed and tokened as a write
			// under the new key would have them.
			for _, n := range []struct {
				sealed []byte
				into   **string
				field  string
			}{{r.OrgSealed, &r.Org, "/org_number"}, {r.VATSealed, &r.VAT, "/vat_number"}} {
				if n.sealed == nil {
					continue
				}
				_, plain, did, err := seal.Reseal(from, to, n.sealed, rowCtx+n.field)
				if err != nil {
					return moved, fmt.Errorf("%s %s of company %s: %s: %w", table, r.ID, r.Company, n.field[1:], err)
				}
				v := string(plain)
				*n.into, changed = &v, changed || did
			}
			sn := next.sealNumbers(rowCtx, &r.Org, &r.VAT)
			var pn []byte
			var token *string
			if r.PN != nil {
				_, plain, did, err := seal.Reseal(from, to, r.PN, rowCtx)
				if err != nil {
					return moved, fmt.Errorf("%s %s of company %s: personal_number: %w", table, r.ID, r.Company, err)
				}
				clear := string(plain)
				pn, token = next.sealPersonal(Customer{CompanyID: r.Company, ID: r.ID}, &clear)
				changed = changed || did
			}
			if !changed {
				continue
			}
			set := `org_number = $3, vat_number = $4, org_number_sealed = $5, vat_number_sealed = $6, org_key = $7`
			args := []any{r.Company, r.ID, r.Org, r.VAT, sn.org, sn.vat, orgKey(r.Org)}
			if table == "customers" {
				set += `, personal_number_sealed = $8, personal_number_token = $9`
				args = append(args, pn, token)
			}
			if _, err := db.Q(ctx).ExecContext(ctx, `UPDATE `+table+` SET `+set+` WHERE company_id = $1 AND id = $2`, args...); err != nil {
				return moved, err
			}
			if err := renumberParty(ctx, db, r.Company, r.Party, r.Country, r.Org, r.VAT); err != nil {
				return moved, err
			}
			moved++
		}
	}
	return moved, nil
}

// renumberParty gives a record's party (none: nothing) the numbers the
// record now stores, and the identity they make: a sole trader's tokens
// after they were sealed (SealLegacy) or sealed anew (Rekey).
func renumberParty(ctx context.Context, db *store.DB, company uuid.UUID, party *uuid.UUID, country string, org, vat *string) error {
	if party == nil {
		return nil
	}
	_, err := db.Q(ctx).ExecContext(ctx, `UPDATE parties SET org_number = $3, vat_number = $4, identity = $5
		WHERE company_id = $1 AND id = $2`, company, *party, org, vat, Identity(country, org, vat))
	return err
}
