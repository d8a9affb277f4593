package parties

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/seal"
)

// The kinds of number a seal.Token stands in for.
const (
	kindOrg      = "PN" // a sole trader's organisation number: the owner's personnummer
	kindVAT      = "VN" // a VAT number built on a personnummer
	kindPersonal = "PP" // an individual's personnummer
)

// personalVAT reports whether v is a Swedish VAT number built on a
// personnummer: SE, a personnummer-shaped ten digits, 01.
func personalVAT(v string) bool {
	c := compact(v)
	return len(c) == 14 && c[:2] == "SE" && c[12:] == "01" && isPersonal(c[2:12])
}

// shown is a number as every answer shows it: a sealed organisation
// number masked as a personnummer is, a sealed VAT number as SE, asterisks,
// the last four digits and 01; any other as stored.
func shown(p *string) *string {
	switch {
	case p == nil:
		return nil
	case seal.IsToken(*p, kindOrg):
		m := Mask(seal.TokenLast4(*p))
		return &m
	case seal.IsToken(*p, kindVAT):
		m := "SE******" + seal.TokenLast4(*p) + "01"
		return &m
	}
	return p
}

// sealedNumber reports whether p holds a sealed number's token.
func sealedNumber(p *string) bool {
	return p != nil && (seal.IsToken(*p, kindOrg) || seal.IsToken(*p, kindVAT))
}

// unchanged reports whether sent is a sealed number as an answer showed
// it, sent back: no change to what is stored.
func unchanged(sent, stored *string) bool {
	return sent != nil && sealedNumber(stored) && *sent == *shown(stored)
}

// sealedNumbers are a row's organisation and VAT numbers sealed, and
// whether each stays as stored.
type sealedNumbers struct {
	org, vat         []byte
	keepOrg, keepVAT bool
}

// sealNumbers replaces a personnummer-shaped organisation number and a
// VAT number built on one with their tokens, and answers them sealed for
// the row named rowCtx. A number that is a token already stays as stored.
func (s *Store) sealNumbers(rowCtx string, org, vat **string) sealedNumbers {
	var out sealedNumbers
	out.org, out.keepOrg = s.sealNumber(rowCtx+"/org_number", kindOrg, org, func(n string) (string, bool) {
		return compact(n), isPersonal(n)
	})
	out.vat, out.keepVAT = s.sealNumber(rowCtx+"/vat_number", kindVAT, vat, func(n string) (string, bool) {
		if !personalVAT(n) {
			return "", false
		}
		return compact(n)[2:12], true // the personnummer between SE and 01, whose last four the token keeps
	})
	return out
}

// sealNumber seals *p for sealCtx when personal says it holds a
// personnummer (and which digits the token is of), putting the token of
// kind in its place; keep says *p is a token already.
func (s *Store) sealNumber(sealCtx, kind string, p **string, personal func(string) (string, bool)) (sealed []byte, keep bool) {
	if *p == nil {
		return nil, false
	}
	n := **p
	if seal.IsToken(n, kind) {
		return nil, true
	}
	digits, ok := personal(n)
	if !ok {
		return nil, false
	}
	t := s.box.Token(kind, digits)
	*p = &t
	return s.box.Seal([]byte(n), sealCtx), false
}

// SealLegacy seals the sole traders' numbers and gives the personnummer
// their tokens where rows were written before numbers were sealed
// (migration 00015): the server runs it at start, and it finds nothing to
// do after the first time. What the append-only audit trail and outbox
// recorded then stays as it was written. It answers how many records
// changed.
func (s *Store) SealLegacy(ctx context.Context) (int, error) {
	n := 0
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		for _, table := range []string{"customers", "suppliers"} {
			var rows []struct {
				Company uuid.UUID  `db:"company_id"`
				ID      uuid.UUID  `db:"id"`
				Party   *uuid.UUID `db:"party_id"`
				Country string     `db:"country"`
				Org     *string    `db:"org_number"`
				VAT     *string    `db:"vat_number"`
			}
			if err := s.db.Q(ctx).SelectContext(ctx, &rows, `SELECT company_id, id, party_id, country, org_number, vat_number
				FROM `+table+` WHERE org_number_sealed IS NULL AND org_number ~ '^(19|20)?[0-9]{2}[01][0-9]{3}[-+]?[0-9]{4}$'
				   OR vat_number_sealed IS NULL AND vat_number ~ '^SE[0-9]{2}[01][0-9]{7}01$' FOR UPDATE`); err != nil {
				return err
			}
			for _, r := range rows {
				sn := s.sealNumbers(table+"/"+r.Company.String()+"/"+r.ID.String(), &r.Org, &r.VAT)
				if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE `+table+` SET org_number = $3, vat_number = $4,
						org_number_sealed = coalesce($5, org_number_sealed), vat_number_sealed = coalesce($6, vat_number_sealed),
						org_key = $7 WHERE company_id = $1 AND id = $2`,
					r.Company, r.ID, r.Org, r.VAT, sn.org, sn.vat, orgKey(r.Org)); err != nil {
					return err
				}
				if err := renumberParty(ctx, s.db, r.Company, r.Party, r.Country, r.Org, r.VAT); err != nil {
					return err
				}
				n++
			}
		}
		var people []struct {
			Company uuid.UUID `db:"company_id"`
			ID      uuid.UUID `db:"id"`
			Sealed  []byte    `db:"personal_number_sealed"`
		}
		if err := s.db.Q(ctx).SelectContext(ctx, &people, `SELECT company_id, id, personal_number_sealed FROM customers
			WHERE personal_number_sealed IS NOT NULL AND personal_number_token IS NULL FOR UPDATE`); err != nil {
			return err
		}
		for _, p := range people {
			pn, err := s.box.Open(p.Sealed, sealContext(p.Company, p.ID))
			if err != nil {
				continue // another key's: PersonalNumber answers it as unreadable
			}
			if _, err := s.db.Q(ctx).ExecContext(ctx, `UPDATE customers SET personal_number_token = $3
				WHERE company_id = $1 AND id = $2`, p.Company, p.ID, s.box.Token(kindPersonal, compact(string(pn)))); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
