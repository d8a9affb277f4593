package banking

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// The ways a template books several transactions in one verifikat.
const (
	OneLinePerTx  = "one_line_per_tx"
	SumPerAccount = "sum_per_account"
)

// MaxBulk is how many transactions one bulk-book takes.
const MaxBulk = 200

// Bulk is a bulk-book: same-day, same-direction SEK transactions of one
// cash account booked together, by exactly one of: a verifikat already
// posted (Existing), a template or category (Template, Mode), or the
// lines given (Manual).
type Bulk struct {
	IDs         []uuid.UUID
	Existing    *uuid.UUID
	Template    *string
	Mode        string
	Manual      []ledger.Line
	Description string
	Dimensions  ledger.Dimensions
}

// BulkBooked is what a bulk-book did.
type BulkBooked struct {
	Linked bool // onto an existing verifikat
	Entry  ledger.Entry
	Rows   []Transaction
	Sum    money.Amount
}

// checkBulk holds the transactions of a bulk-book to its rules and answers
// their sum.
func checkBulk(rows []Transaction) (money.Amount, error) {
	var sum money.Amount
	var booked []uuid.UUID
	for _, t := range rows {
		if t.Booked() || t.Ignored {
			booked = append(booked, t.ID)
		}
	}
	if len(booked) > 0 {
		return sum, apierr.New(apierr.BulkBookTxAlreadyBooked, map[string]any{"transaction_ids": booked})
	}
	first := rows[0]
	// Mixed currencies are named as such whichever row comes first.
	for _, t := range rows {
		if t.Currency != first.Currency {
			return sum, apierr.New(apierr.BulkBookMixedCurrency, map[string]any{"currencies": []string{first.Currency, t.Currency}})
		}
	}
	for _, t := range rows {
		switch {
		case t.Currency != "SEK":
			return sum, apierr.New(apierr.BulkBookForeignCurrency, map[string]any{"currency": t.Currency})
		case !t.Date.Equal(first.Date):
			return sum, apierr.New(apierr.BulkBookDateMismatch, map[string]any{"transaction_id": t.ID})
		case t.Amount.Sign() != first.Amount.Sign() || t.Amount.IsZero():
			return sum, apierr.New(apierr.BulkBookDirectionMismatch, map[string]any{"transaction_id": t.ID})
		case t.LedgerAccount != first.LedgerAccount:
			return sum, apierr.New(apierr.BulkBookAccountMismatch, map[string]any{"transaction_id": t.ID})
		}
		sum = sum.Add(t.Amount)
	}
	return sum, nil
}

// BulkLines are the lines a template books rows with in mode: each row
// its own lines, or the rows' sum booked once.
func BulkLines(rows []Transaction, template string, mode string, dims ledger.Dimensions, p Policy) ([]ledger.Line, error) {
	c := Categorization{IsBusiness: true, Dimensions: dims}
	if _, ok := Categories[template]; ok {
		c.Category = &template
	} else if _, ok := TemplateByID(template); ok {
		c.TemplateID = &template
	} else {
		return nil, apierr.New(apierr.BulkBookTemplateNotFound, map[string]any{"template_id": template})
	}
	if t, ok := TemplateByID(template); ok && t.NeedsAccount {
		return nil, apierr.New(apierr.BulkBookInvalidAccount, map[string]any{"template_id": template,
			"reason": "a transfer names its other account: categorize it"})
	}
	book := func(t Transaction) ([]ledger.Line, error) {
		b, err := Book(t, c, p)
		return b.Lines, err
	}
	var out []ledger.Line
	switch mode {
	case SumPerAccount:
		sum := rows[0]
		for _, t := range rows[1:] {
			sum.Amount = sum.Amount.Add(t.Amount)
		}
		lines, err := book(sum)
		if err != nil {
			return nil, err
		}
		out = lines
	case OneLinePerTx:
		for _, t := range rows {
			lines, err := book(t)
			if err != nil {
				return nil, err
			}
			out = append(out, lines...)
		}
	default:
		return nil, apierr.Field("mode", "enum", "one_line_per_tx or sum_per_account")
	}
	for i := range out {
		out[i].SortOrder = i + 1
	}
	return out, nil
}

// net is what lines move on account (debit − credit).
func net(lines []ledger.Line, account string) money.Amount {
	var n money.Amount
	for _, l := range lines {
		if l.Account == account && l.StruckBy == nil {
			n = n.Add(l.Debit).Sub(l.Credit)
		}
	}
	return n
}

// BulkBook books the transactions of bk in one verifikat, or links them to
// the posted one whose net on their cash account is their sum.
func (b *Bank) BulkBook(ctx context.Context, company uuid.UUID, bk Bulk) (BulkBooked, error) {
	if len(bk.IDs) < 1 || len(bk.IDs) > MaxBulk {
		return BulkBooked{}, apierr.Field("tx_ids", "length", "1 to 200 transactions")
	}
	rows, err := b.store.Held(ctx, company, bk.IDs)
	if err != nil {
		return BulkBooked{}, err
	}
	if len(rows) != len(uniq(bk.IDs)) {
		found := map[uuid.UUID]bool{}
		for _, t := range rows {
			found[t.ID] = true
		}
		var missing []uuid.UUID
		for _, id := range bk.IDs {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		return BulkBooked{}, apierr.New(apierr.BulkBookTxsNotFound, map[string]any{"missing": missing})
	}
	sum, err := checkBulk(rows)
	if err != nil {
		return BulkBooked{}, err
	}
	account := rows[0].LedgerAccount
	out := BulkBooked{Rows: rows, Sum: sum}
	method := "bulk"
	switch {
	case bk.Existing != nil:
		e, err := b.books.Entry(ctx, company, *bk.Existing)
		if apierr.Is(err, apierr.JournalEntryNotFound) {
			return out, apierr.New(apierr.BulkBookVoucherNotFound, map[string]any{"journal_entry_id": *bk.Existing})
		}
		if err != nil {
			return out, err
		}
		if e.Status != "posted" {
			return out, apierr.New(apierr.BulkBookVoucherNotPosted, map[string]any{"journal_entry_id": e.ID, "status": e.Status})
		}
		if n := net(e.Lines, account); n.Cmp(sum) != 0 {
			return out, apierr.New(apierr.BulkBookAmountMismatch, map[string]any{"expected": sum, "actual": n,
				"ledger_account": account})
		}
		out.Entry, out.Linked, method = e, true, "linked"
	default:
		p, err := b.books.Policy(ctx, company)
		if err != nil {
			return out, err
		}
		lines := bk.Manual
		if bk.Template != nil {
			if lines, err = BulkLines(rows, *bk.Template, bk.Mode, bk.Dimensions, p); err != nil {
				return out, err
			}
		} else if err := checkManual(lines, account, sum); err != nil {
			return out, err
		}
		accounts := make([]string, len(lines))
		for i, l := range lines {
			accounts[i] = l.Account
		}
		if err := b.books.EnsureAccounts(ctx, company, accounts); err != nil {
			return out, err
		}
		in := ledger.Input{Date: rows[0].Date, Description: bk.Description, SourceType: "bank_transaction",
			SourceID: ptr(rows[0].ID.String()), Lines: lines}
		if rows[0].CashAccountID != nil {
			if a, err := b.store.CashAccount(ctx, company, *rows[0].CashAccountID, false); err == nil && a.VoucherSeries != nil {
				in.Series = *a.VoucherSeries
			}
		}
		if out.Entry, err = b.books.Post(ctx, company, in); err != nil {
			return out, err
		}
	}
	event := EventCategorized
	if out.Linked {
		event = EventReconciled
	}
	for i, old := range rows {
		t := old
		t.JournalEntryID, t.ReconciliationMethod = &out.Entry.ID, &method
		if !out.Linked {
			business, category := true, "bulk"
			if bk.Template != nil {
				category = *bk.Template
			}
			t.IsBusiness, t.Category = &business, &category
		}
		if t, err = b.store.Save(ctx, t); err != nil {
			return out, err
		}
		out.Rows[i] = t
		if err := b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionen bokfördes i samlingsverifikation "+
			out.Entry.Voucher()); err != nil {
			return out, err
		}
	}
	views := make([]gen.Transaction, len(out.Rows))
	for i, t := range out.Rows {
		views[i] = TxDetail(t, nil, nil)
	}
	_, err = outbox.Emit(ctx, b.store.db, company, event, map[string]any{"transactions": views,
		"journal_entry_id": out.Entry.ID})
	return out, err
}

// checkManual holds the lines of a manual bulk-book: balanced, no
// invoice accounts, and their net on the cash account the rows' sum.
func checkManual(lines []ledger.Line, account string, sum money.Amount) error {
	var debit, credit money.Amount
	for _, l := range lines {
		a := strings.TrimSpace(l.Account)
		if a == "1510" || a == "2440" {
			return apierr.New(apierr.BulkBookInvalidAccount, map[string]any{"account_number": a})
		}
		debit, credit = debit.Add(l.Debit), credit.Add(l.Credit)
	}
	if debit.Cmp(credit) != 0 {
		return apierr.New(apierr.BulkBookUnbalanced, map[string]any{"total_debit": debit, "total_credit": credit})
	}
	if n := net(lines, account); n.Cmp(sum) != 0 {
		return apierr.New(apierr.BulkBookAmountMismatch, map[string]any{"expected": sum, "actual": n, "ledger_account": account})
	}
	return nil
}

func uniq(ids []uuid.UUID) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
