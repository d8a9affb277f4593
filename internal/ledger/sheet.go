package ledger

import (
	"context"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/chart"
)

// Sheet tells the balance sheet's accounts from the result's. BAS puts
// classes 1 and 2 on the balance sheet and every other class in the
// result; an SIE file may declare an account of classes 3-8 an asset or
// a liability (#KTYP T or S), and the chart then keeps it so, its
// balances carried from year to year like any balance-sheet account's.
// Sheet holds those exceptions, account → type; the zero Sheet is BAS's
// rule alone.
type Sheet map[string]bas.Type

// Holds reports whether account stands on the balance sheet.
func (s Sheet) Holds(account string) bool {
	return account[0] == '1' || account[0] == '2' || s[account] != ""
}

// InResult reports whether account belongs to the result: every account
// off the balance sheet, classes 3-8 and the internal accounts of classes
// 0 and 9 the chart holds as revenue or expense (an SIE file's 9999
// obs-konto).
func (s Sheet) InResult(account string) bool { return !s.Holds(account) }

// SheetOf is the Sheet of a chart's accounts, as Store.Sheet reads it.
func SheetOf(accounts []chart.Account) Sheet {
	var out Sheet
	for _, a := range accounts {
		if a.TypeFromFile && a.Class() >= 3 && a.Class() <= 8 && balanceType(a.Type) {
			if out == nil {
				out = Sheet{}
			}
			out[a.Number] = a.Type
		}
	}
	return out
}

// balanceType reports whether t is a balance sheet's type.
func balanceType(t bas.Type) bool {
	return t == bas.Asset || t == bas.Equity || t == bas.Liability || t == bas.UntaxedReserves
}

// Sheet reads the company's exceptions to BAS's balance sheet: the
// accounts outside classes 1-2 its chart holds as an asset or a liability
// (an SIE file declared them so). SheetOf decides which; the query only
// leaves out the accounts no file typed.
func (s *Store) Sheet(ctx context.Context, company uuid.UUID) (Sheet, error) {
	var typed []chart.Account
	err := s.db.Q(ctx).SelectContext(ctx, &typed, `SELECT account_number, account_type, type_from_file FROM accounts
		WHERE company_id = $1 AND type_from_file`, company)
	return SheetOf(typed), err
}
