package banking

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/outbox"
)

// The events the bank emits.
const (
	EventCategorized = "transaction.categorized"
	EventSynced      = "transaction.synced"
)

// MaxIngest is how many transactions one ingest takes.
const MaxIngest = 500

// Ingestion is what an ingest did.
type Ingestion struct {
	Imported, Duplicates int
	IDs                  []uuid.UUID
}

// Ingest adds rows to the company's transactions on the settlement
// account named (a cash account's ledger account, else a bare 19xx
// account), else the primary cash account, else 1930; rows whose external
// id the account has are duplicates. One audit row and one
// transaction.synced event name what was added.
func (b *Bank) Ingest(ctx context.Context, company uuid.UUID, rows []Ingested, settlement *string) (Ingestion, error) {
	if len(rows) < 1 || len(rows) > MaxIngest {
		return Ingestion{}, apierr.Field("transactions", "length", "1 to 500 transactions")
	}
	var issues []apierr.Issue
	for i, r := range rows {
		issues = append(issues, r.Check(i)...)
	}
	if len(issues) > 0 {
		return Ingestion{}, apierr.Validation(issues...)
	}
	at, account, err := b.settlement(ctx, company, settlement)
	if err != nil {
		return Ingestion{}, err
	}
	if account != nil {
		for i, r := range rows {
			if r.Currency != account.Currency {
				issues = append(issues, apierr.Issue{Field: "transactions[" + strconv.Itoa(i) + "].currency", In: "body",
					Rule: "cash_account_currency", Issue: "the cash account holds " + account.Currency})
			}
		}
		if len(issues) > 0 {
			return Ingestion{}, apierr.Validation(issues...)
		}
	}
	ids, err := b.store.InsertTransactions(ctx, company, at, "api", rows)
	if err != nil {
		return Ingestion{}, err
	}
	out := Ingestion{Imported: len(ids), Duplicates: len(rows) - len(ids), IDs: ids}
	if len(ids) == 0 {
		return out, nil
	}
	if err := b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "bank_transactions",
		Description: strconv.Itoa(len(ids)) + " banktransaktioner lades till på konto " + at.LedgerAccount,
		New:         audit.Of(map[string]any{"transaction_ids": ids, "ledger_account": at.LedgerAccount})}); err != nil {
		return out, err
	}
	if _, err = outbox.Emit(ctx, b.store.db, company, EventSynced, map[string]any{"transaction_ids": ids,
		"cash_account_id": at.CashAccountID, "ledger_account": at.LedgerAccount, "source": "api"}); err != nil {
		return out, err
	}
	return out, b.changed(ctx, company, at.CashAccountID)
}

// changed tells Changed of new transactions on cash account cash.
func (b *Bank) changed(ctx context.Context, company uuid.UUID, cash *uuid.UUID) error {
	if b.Changed == nil {
		return nil
	}
	return b.Changed(ctx, company, cash)
}

// settlement is where ingested rows land.
func (b *Bank) settlement(ctx context.Context, company uuid.UUID, named *string) (Settlement, *CashAccount, error) {
	if named != nil {
		a := strings.TrimSpace(*named)
		if len(a) != 4 || !strings.HasPrefix(a, "19") || strings.Trim(a, "0123456789") != "" {
			return Settlement{}, nil, apierr.Field("settlement_account", "pattern", "a 19xx account")
		}
		c, err := b.store.ByLedger(ctx, company, a)
		if err != nil || c == nil {
			return Settlement{LedgerAccount: a}, nil, err
		}
		return Settlement{CashAccountID: &c.ID, LedgerAccount: a}, c, nil
	}
	c, err := b.store.Primary(ctx, company)
	if err != nil || c == nil {
		return Settlement{LedgerAccount: "1930"}, nil, err
	}
	return Settlement{CashAccountID: &c.ID, LedgerAccount: c.LedgerAccount}, c, nil
}

// TxChange is a PATCH of a transaction: its working title, or the cash
// account (by ledger account) it is on.
type TxChange struct {
	Description   *string
	LedgerAccount *string
}

// UpdateTransaction applies c to unbooked transaction id.
func (b *Bank) UpdateTransaction(ctx context.Context, company, id uuid.UUID, c TxChange, now time.Time) (Transaction, error) {
	old, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return old, err
	}
	t := old
	if c.Description != nil {
		if old.Booked() {
			return old, apierr.New(apierr.TransactionTitleLocked, map[string]any{"transaction_id": id,
				"journal_entry_id": old.JournalEntryID})
		}
		d := strings.TrimSpace(*c.Description)
		if l := len([]rune(d)); l < 1 || l > 500 {
			return old, apierr.Field("description", "length", "1 to 500 characters")
		}
		t.Description, t.TitleEditedAt = &d, &now
	}
	if c.LedgerAccount != nil {
		if old.Booked() {
			return old, apierr.New(apierr.TransactionMoveBooked, map[string]any{"transaction_id": id,
				"journal_entry_id": old.JournalEntryID})
		}
		to, err := b.store.ByLedger(ctx, company, strings.TrimSpace(*c.LedgerAccount))
		if err != nil {
			return old, err
		}
		if to == nil {
			return old, apierr.New(apierr.TransactionMoveUnknownAccount, map[string]any{"field": "account_number",
				"account_number": *c.LedgerAccount})
		}
		if to.Currency != old.Currency {
			return old, apierr.New(apierr.TransactionMoveCurrency, map[string]any{"field": "account_number",
				"cash_account_currency": to.Currency, "transaction_currency": old.Currency})
		}
		t.CashAccountID, t.LedgerAccount = &to.ID, to.LedgerAccount
	}
	if t, err = b.store.Save(ctx, t); err != nil {
		return t, err
	}
	return t, b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionen ändrades")
}

// DeleteTransaction removes an unbooked transaction added by hand or
// through the API that was never booked.
func (b *Bank) DeleteTransaction(ctx context.Context, company, id uuid.UUID) error {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return err
	}
	switch {
	case t.Booked():
		return apierr.New(apierr.TransactionDeleteBooked, map[string]any{"transaction_id": id, "journal_entry_id": t.JournalEntryID})
	case t.ImportSource == "bank_feed" || t.ImportSource == "bank_file":
		return apierr.New(apierr.TransactionDeleteImported, map[string]any{"transaction_id": id, "import_source": t.ImportSource})
	case t.WasBooked:
		return apierr.New(apierr.TransactionDeleteHasAudit, map[string]any{"transaction_id": id})
	}
	if err := b.store.DeleteTransaction(ctx, company, id); err != nil {
		return err
	}
	return b.recordTx(ctx, audit.Delete, &t, nil, "Banktransaktionen togs bort")
}

// Ignore marks unbooked transaction id as needing no verifikat (allowed
// in a locked period: nothing is booked); back reports whether it was.
func (b *Bank) Ignore(ctx context.Context, company, id uuid.UUID, ignore bool) (Transaction, bool, error) {
	old, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return old, false, err
	}
	if ignore && old.Booked() {
		return old, false, apierr.New(apierr.TxIgnoreAlreadyBooked, map[string]any{"transaction_id": id,
			"journal_entry_id": old.JournalEntryID})
	}
	if old.Ignored == ignore {
		return old, old.Ignored, nil
	}
	t := old
	t.Ignored = ignore
	if t, err = b.store.Save(ctx, t); err != nil {
		return t, old.Ignored, err
	}
	what := "Banktransaktionen ignoreras"
	if !ignore {
		what = "Banktransaktionen ignoreras inte längre"
	}
	return t, old.Ignored, b.recordTx(ctx, audit.Update, &old, &t, what)
}

// Categorized is what a categorization did.
type Categorized struct {
	Transaction Transaction
	Entry       *ledger.Entry
	// Already says the transaction was booked before: nothing was done.
	Already bool
	// DocumentNotLinked is why the document pinned to the transaction
	// could not become the verifikat's underlag (the booking stands).
	DocumentNotLinked *apierr.Error
}

// Categorize books transaction id as c says, in one verifikat through
// the ledger, dated the transaction's day, in the cash account's series.
// Calls at once for one transaction book it once: the row is held.
func (b *Bank) Categorize(ctx context.Context, company, id uuid.UUID, c Categorization) (Categorized, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Categorized{}, err
	}
	if t.Booked() {
		return Categorized{Transaction: t, Already: true}, nil
	}
	if t.Ignored {
		return Categorized{}, apierr.New(apierr.Conflict, map[string]any{"reason": "transaction_ignored",
			"transaction_id": id, "hint": "DELETE …/ignore first"})
	}
	if t.Amount.Sign() < 0 && c.IsBusiness && !c.ConfirmNoMatch && b.books.OpenSupplierInvoices != nil {
		ids, err := b.books.OpenSupplierInvoices(ctx, company, t.Currency, t.Amount.Neg())
		if err != nil {
			return Categorized{}, err
		}
		if len(ids) > 0 {
			return Categorized{}, apierr.New(apierr.TxCategorizeSuggestSIMatch, map[string]any{"transaction_id": id,
				"supplier_invoice_ids": ids, "field": "confirm_no_match"})
		}
	}
	p, err := b.books.Policy(ctx, company)
	if err != nil {
		return Categorized{}, err
	}
	bk, err := Book(t, c, p)
	if err != nil {
		return Categorized{}, err
	}
	accounts := make([]string, len(bk.Lines))
	for i, l := range bk.Lines {
		accounts[i] = l.Account
	}
	if err := b.books.EnsureAccounts(ctx, company, accounts); err != nil {
		return Categorized{}, err
	}
	in := ledger.Input{Date: t.Date, Description: entryText(t, c), SourceType: "bank_transaction",
		SourceID: ptr(t.ID.String()), Lines: bk.Lines}
	in.Series = b.series(ctx, t)
	if t.MerchantName != nil {
		in.Counterparty.CounterpartyName = t.MerchantName
	}
	e, err := b.books.Post(ctx, company, in)
	if err != nil {
		return Categorized{}, err
	}
	old := t
	business, category, method := c.IsBusiness, bk.Category, "categorized"
	t.JournalEntryID, t.IsBusiness, t.Category, t.ReconciliationMethod = &e.ID, &business, &category, &method
	if t, err = b.store.Save(ctx, t); err != nil {
		return Categorized{}, err
	}
	if err := b.recordTx(ctx, audit.Update, &old, &t, "Banktransaktionen bokfördes i verifikation "+e.Voucher()); err != nil {
		return Categorized{}, err
	}
	unlinked, err := b.linkPinned(ctx, company, t, e.ID)
	if err != nil {
		return Categorized{}, err
	}
	_, err = outbox.Emit(ctx, b.store.db, company, EventCategorized, map[string]any{"transaction": TxDetail(t, nil, nil),
		"journal_entry_id": e.ID})
	return Categorized{Transaction: t, Entry: &e, DocumentNotLinked: unlinked}, err
}

// Uncategorize stornoes the verifikat that books transaction id, dated
// as it is; Reversed then returns every transaction it booked to the
// to-book list. A transaction linked to a verifikat it did not book is
// only unlinked (no storno: the Reversal is empty).
func (b *Bank) Uncategorize(ctx context.Context, company, id uuid.UUID) (Uncategorized, error) {
	t, err := b.store.Transaction(ctx, company, id, true)
	if err != nil {
		return Uncategorized{}, err
	}
	if !t.Booked() {
		return Uncategorized{}, apierr.New(apierr.TxUncategorizeNotBooked, map[string]any{"transaction_id": id})
	}
	out := Uncategorized{Entry: *t.JournalEntryID}
	if t.ReconciliationMethod != nil && *t.ReconciliationMethod == "linked" {
		out.Transaction, err = b.unlink(ctx, t)
		return out, err
	}
	r, err := b.books.Reverse(ctx, company, *t.JournalEntryID, t.Date, false)
	if err != nil {
		return out, err
	}
	out.Storno = &r.Storno.ID
	out.Transaction, err = b.store.Transaction(ctx, company, id, false)
	return out, err
}

// Uncategorized is what an uncategorize did: the verifikat that booked the
// transaction, and its storno (nil when a link was only released).
type Uncategorized struct {
	Transaction Transaction
	Entry       uuid.UUID
	Storno      *uuid.UUID
}

// Reversed is the ledger's word that verifikat orig was stornoed (st):
// the transactions it booked are unbooked again, their history kept.
func (b *Bank) Reversed(ctx context.Context, company uuid.UUID, orig, st ledger.Entry) error {
	rows, err := b.store.Unbook(ctx, company, orig.ID)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "bank_transactions",
			RecordID: r.ID.String(), Description: "Banktransaktionen avbokades (verifikation " + orig.Voucher() +
				" makulerad genom " + st.Voucher() + ")", Old: r.Before, New: audit.Of(r.Transaction)}); err != nil {
			return err
		}
	}
	return nil
}

// LockBlocked is PERIOD_HAS_UNBOOKED_TRANSACTIONS when transactions dated
// from..to wait to be booked or ignored, nil otherwise.
func (b *Bank) LockBlocked(ctx context.Context, company uuid.UUID, from, to time.Time) error {
	n, ids, err := b.store.Unbooked(ctx, company, from, to)
	if err != nil || n == 0 {
		return err
	}
	return apierr.New(apierr.PeriodHasUnbookedTransactions, map[string]any{"count": n, "transaction_ids": ids})
}

func entryText(t Transaction, c Categorization) string {
	for _, s := range []*string{c.Description, t.Description, t.MerchantName} {
		if s != nil && strings.TrimSpace(*s) != "" {
			return truncated(strings.TrimSpace(*s), 500)
		}
	}
	return "Banktransaktion " + t.Date.Format(time.DateOnly)
}

func ptr[T any](v T) *T { return &v }

// recordTx audits a change of a transaction.
func (b *Bank) recordTx(ctx context.Context, action audit.Action, old, new *Transaction, description string) error {
	t := old
	if t == nil {
		t = new
	}
	return b.audit.Record(ctx, audit.Change{CompanyID: t.CompanyID, Action: action, Table: "bank_transactions",
		RecordID: t.ID.String(), Description: description, Old: audit.Of(old), New: audit.Of(new)})
}

// MaxBatch is how many transactions one batch-categorize takes.
const MaxBatch = 100

// BatchItem is one categorization of a batch.
type BatchItem struct {
	TransactionID uuid.UUID
	Categorization
}

// BatchResult is what became of one item: its verifikat, or why not.
type BatchResult struct {
	Categorized Categorized
	Err         error
}

// BatchCategorize categorizes items one after the other, each under a
// savepoint of the request's transaction: an item that fails leaves the
// books as they were and the others go on (partial success).
func (b *Bank) BatchCategorize(ctx context.Context, company uuid.UUID, items []BatchItem) ([]BatchResult, error) {
	if len(items) < 1 || len(items) > MaxBatch {
		return nil, apierr.Field("items", "length", "1 to 100 items")
	}
	out := make([]BatchResult, len(items))
	for i, it := range items {
		err := b.store.db.Attempt(ctx, func(ctx context.Context) error {
			var err error
			out[i].Categorized, err = b.Categorize(ctx, company, it.TransactionID, it.Categorization)
			return err
		})
		if _, ok := apierr.As(err); err != nil && !ok {
			return out, err // the database itself failed: nothing is kept
		}
		out[i].Err = err
	}
	return out, nil
}
