package chart

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/bas"
)

// Imported is an account as an imported file describes it: a name, the
// file's own kind (SIE #KTYP: T asset, S liability, K cost, I income) and
// a tax-form code; any of them may be empty.
type Imported struct {
	Number string
	Name   string
	Kind   string
	SRU    string
}

// ImportResult says what Import changed.
type ImportResult struct {
	Created []string
	Renamed []string
	SRU     []string
}

// FileType is the type an SIE file's #KTYP kind gives account number
// against BAS's class: an account of classes 3-8 declared T (asset) or S
// (liability) stands on the balance sheet with that type (ok). Any other
// kind leaves the class's own rule in force.
func FileType(number, kind string) (bas.Type, bool) {
	if c := number[0]; c < '3' || c > '8' {
		return "", false
	}
	t := kindType(kind, number)
	return t, t == bas.Asset || t == bas.Liability
}

// TypeConflict refuses a file's type for an account the chart holds as
// another one: the books already use it, or the bookkeeping itself books
// on it (a system account), so its balances cannot change sides.
type TypeConflict struct {
	Number     string
	Have, Want bas.Type
}

func (e *TypeConflict) Error() string {
	return fmt.Sprintf("account %s is a %s account in use; the file declares it %s", e.Number, e.Have, e.Want)
}

// Import brings the accounts of an imported file into the company's
// chart, in the unit of work of ctx: a missing account is created (a BAS
// account from the catalogue, another with the file's kind when it fits
// its class, else the class's own), an existing one takes the file's
// name when rename is set, and an empty tax-form code takes the file's.
// An account of classes 3-8 the file declares an asset or a liability
// takes that type (FileType), when created or while nothing books on it;
// an account in use or a system account refuses it (*TypeConflict).
// Every change is audited.
func (s *Store) Import(ctx context.Context, company uuid.UUID, accounts []Imported, rename bool) (ImportResult, error) {
	var res ImportResult
	numbers := make([]string, len(accounts))
	for i, a := range accounts {
		numbers[i] = a.Number
	}
	have, err := s.byNumber(ctx, company, numbers)
	if err != nil {
		return res, err
	}
	if err := s.retype(ctx, company, accounts, have); err != nil {
		return res, err
	}
	var add []Account
	for _, in := range accounts {
		name := strings.TrimSpace(in.Name)
		if len([]rune(name)) > 200 {
			name = string([]rune(name)[:200])
		}
		old, ok := have[in.Number]
		if !ok {
			a := importedAccount(in, name, rename)
			add = append(add, a)
			have[in.Number] = a
			continue
		}
		a := old
		if rename && name != "" && name != old.Name {
			a.Name = name
			res.Renamed = append(res.Renamed, in.Number)
		}
		if (old.SRU == nil || *old.SRU == "") && in.SRU != "" {
			sru := in.SRU
			a.SRU = &sru
			res.SRU = append(res.SRU, in.Number)
		}
		if a.Name == old.Name && a.SRU == old.SRU {
			continue
		}
		var out Account
		if err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE accounts SET account_name = $3, sru_code = $4,
				updated_at = now() WHERE company_id = $1 AND account_number = $2 RETURNING `+columns,
			company, a.Number, a.Name, a.SRU); err != nil {
			return res, err
		}
		if err := s.record(ctx, company, audit.Update, "Konto "+a.Number+" ändrades av en import", &old, &out); err != nil {
			return res, err
		}
	}
	if len(add) == 0 {
		return res, nil
	}
	rows, err := s.insert(ctx, company, add, true)
	if err != nil {
		return res, err
	}
	for i := range rows {
		res.Created = append(res.Created, rows[i].Number)
		if err := s.record(ctx, company, audit.Insert, "Konto "+rows[i].Number+" lades till av en import", nil, &rows[i]); err != nil {
			return res, err
		}
	}
	return res, nil
}

// importedAccount is the account a file's #KONTO describes: a BAS
// account keeps the catalogue's name unless rename.
func importedAccount(in Imported, name string, rename bool) Account {
	var a Account
	if b, ok := bas.Lookup(in.Number); ok {
		a = FromBAS(b)
		if !rename {
			name = ""
		}
	} else {
		t := bas.TypeOf(in.Number, in.SRU)
		if k := kindType(in.Kind, in.Number); k != "" && bas.TypeFits(int(in.Number[0]-'0'), k) {
			t = k
		}
		a = Account{Number: in.Number, Name: "Konto " + in.Number, Type: t, Active: true,
			NormalBalance: bas.NormalBalanceOf(in.Number, name, t)}
	}
	if t, ok := FileType(in.Number, in.Kind); ok {
		a.Type, a.NormalBalance, a.TypeFromFile = t, bas.NormalBalanceOf(in.Number, "", t), true
	}
	if name != "" {
		a.Name = name
	}
	if in.SRU != "" && a.SRU == nil {
		sru := in.SRU
		a.SRU = &sru
	}
	return a
}

// kindType reads a SIE #KTYP.
func kindType(kind, number string) bas.Type {
	switch strings.ToUpper(kind) {
	case "T":
		return bas.Asset
	case "S":
		if strings.HasPrefix(number, "20") {
			return bas.Equity
		}
		return bas.Liability
	case "K":
		return bas.Expense
	case "I":
		return bas.Revenue
	}
	return ""
}

// retype gives the accounts have already holds the balance-sheet type
// their file declares (FileType), one statement for all; a system
// account or one any entry books on keeps its type (*TypeConflict).
func (s *Store) retype(ctx context.Context, company uuid.UUID, accounts []Imported, have map[string]Account) error {
	var numbers []string
	want := map[string]bas.Type{}
	for _, in := range accounts {
		t, ok := FileType(in.Number, in.Kind)
		old, exists := have[in.Number]
		if !ok || !exists || (old.TypeFromFile && old.Type == t) {
			continue
		}
		if old.System {
			return &TypeConflict{Number: in.Number, Have: old.Type, Want: t}
		}
		numbers, want[in.Number] = append(numbers, in.Number), t
	}
	if len(numbers) == 0 {
		return nil
	}
	var used []string
	if err := s.db.Q(ctx).SelectContext(ctx, &used, `SELECT DISTINCT account_number FROM journal_lines
		WHERE company_id = $1 AND account_number = ANY($2)`, company, pq.Array(numbers)); err != nil {
		return err
	}
	if len(used) > 0 {
		n := used[0]
		return &TypeConflict{Number: n, Have: have[n].Type, Want: want[n]}
	}
	for _, n := range numbers {
		old := have[n]
		var out Account
		if err := s.db.Q(ctx).GetContext(ctx, &out, `UPDATE accounts SET account_type = $3, normal_balance = $4,
				type_from_file = true, updated_at = now() WHERE company_id = $1 AND account_number = $2 RETURNING `+columns,
			company, n, want[n], bas.NormalBalanceOf(n, "", want[n])); err != nil {
			return err
		}
		if err := s.record(ctx, company, audit.Update, "Konto "+n+" fick filens kontotyp ("+string(want[n])+") av en import", &old, &out); err != nil {
			return err
		}
		have[n] = out
	}
	return nil
}
