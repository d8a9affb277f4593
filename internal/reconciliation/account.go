package reconciliation

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Kinds of account with an outside truth.
const (
	KindBank        = "bank"
	KindSkattekonto = "skattekonto"
)

// Key names an account with an outside truth: "bank:<cash_account_id>"
// or "skattekonto".
type Key struct {
	Kind   string
	CashID uuid.UUID
}

// ParseKey reads an account key; anything else is VALIDATION_ERROR naming
// accountKey in the path.
func ParseKey(s string) (Key, error) {
	if s == KindSkattekonto {
		return Key{Kind: KindSkattekonto}, nil
	}
	if rest, ok := strings.CutPrefix(s, "bank:"); ok {
		if id, err := uuid.Parse(rest); err == nil && len(rest) == 36 {
			return Key{Kind: KindBank, CashID: id}, nil
		}
	}
	return Key{}, apierr.Validation(apierr.Issue{Field: "accountKey", In: "path", Rule: "pattern",
		Issue: "an account key is bank:<cash_account_id> or skattekonto"})
}

// String is the key as the API writes it.
func (k Key) String() string {
	if k.Kind == KindBank {
		return "bank:" + k.CashID.String()
	}
	return KindSkattekonto
}

// staleAfter is how old the outside truth may be before an account is
// stale.
const staleAfter = 7 * 24 * time.Hour

// Reconciler reconciles a company's accounts with an outside truth.
type Reconciler struct {
	store   *Store
	db      *store.DB
	bank    *banking.Bank
	journal *ledger.Store
	audit   *audit.Store
	ops     *jobs.Store
	// OCRs are the OCR references of the invoices each verifikat pays
	// (invoicing's), for the engine's first pass.
	OCRs func(ctx context.Context, company uuid.UUID, entries []uuid.UUID) (map[uuid.UUID][]string, error)
	now  func() time.Time
}

// New returns the reconciler.
func New(db *store.DB, bank *banking.Bank, journal *ledger.Store, a *audit.Store, ops *jobs.Store, now func() time.Time) *Reconciler {
	return &Reconciler{store: NewStore(db), db: db, bank: bank, journal: journal, audit: a, ops: ops, now: now}
}

func (r *Reconciler) today() time.Time { return ledger.Today(r.now()) }

// Account is an account with an outside truth as loaded through a day.
type Account struct {
	Key      Key
	Number   string
	Name     string
	Currency string
	Cash     *banking.CashAccount
	// Source is where the outside truth comes from (psd2, bank_file,
	// skatteverket_file, manual), SyncedAt when it last came.
	Source   string
	SyncedAt *time.Time
	// HistoryStart is the first day the outside truth covers (nil: none
	// yet), LastCovered the last.
	HistoryStart, LastCovered *time.Time
	// ExternalFrom says how the outside balance is known: statement (a
	// stated balance), saldo (skattekonto), movements (no balance: the
	// books' opening plus the rows).
	ExternalFrom string
	// Saldo, OpeningSaldo: the skattekonto's.
	OpeningSaldo *money.Amount
	Input        Input
	Rules        Rules
	// txs are a bank account's transactions, by id.
	txs map[uuid.UUID]banking.Transaction
	// statements are the balances the bank stated, oldest first.
	statements []banking.StatementBalance
}

// Configured says the account has any outside truth yet.
func (a Account) Configured() bool { return a.HistoryStart != nil }

// Stale says the outside truth is older than seven days.
func (a Account) Stale(now time.Time) bool {
	return a.LastCovered == nil || now.Sub(*a.LastCovered) > staleAfter+24*time.Hour
}

// cashAccount reads the key's cash account: NOT_FOUND when the company has
// none by that id.
func (r *Reconciler) cashAccount(ctx context.Context, company uuid.UUID, k Key) (banking.CashAccount, error) {
	a, err := r.bank.Store().CashAccount(ctx, company, k.CashID, false)
	if apierr.Is(err, apierr.CashAccountNotFound) || err == nil && !a.Enabled {
		return a, apierr.New(apierr.NotFound, map[string]any{"resource": "reconciliation_account", "account_key": k.String()})
	}
	return a, err
}

// load reads account k through day: both sides, the links and proposals,
// and the balances.
func (r *Reconciler) load(ctx context.Context, company uuid.UUID, k Key, through time.Time) (Account, error) {
	return r.loadWith(ctx, company, k, through, true)
}

// loadFresh is load without the stored proposals, for a caller that
// proposes again at once.
func (r *Reconciler) loadFresh(ctx context.Context, company uuid.UUID, k Key, through time.Time) (Account, error) {
	return r.loadWith(ctx, company, k, through, false)
}

func (r *Reconciler) loadWith(ctx context.Context, company uuid.UUID, k Key, through time.Time, stored bool) (Account, error) {
	a := Account{Key: k, Input: Input{Through: through}}
	var err error
	switch k.Kind {
	case KindBank:
		err = r.loadBank(ctx, company, &a, through)
	default:
		err = r.loadTax(ctx, company, &a, through)
	}
	if err != nil {
		return a, err
	}
	if a.LastCovered != nil {
		a.Input.LastCovered = *a.LastCovered
	}
	links, err := r.store.Links(ctx, company, k.String())
	if err != nil {
		return a, err
	}
	for _, l := range links {
		lk := Link{SetID: l.SetID, ExternalID: l.ExternalID, EntryID: l.EntryID, Amount: l.Amount, Method: l.Method}
		if l.Confidence != nil {
			c := int(l.Confidence.InÖre())
			lk.Confidence = &c
		}
		a.Input.Links = append(a.Input.Links, lk)
	}
	if stored {
		if a.Input.Proposals, err = r.store.Proposals(ctx, company, k.String()); err != nil {
			return a, err
		}
	}
	// Before the outside history starts nothing outside is known: both
	// sides are the books'.
	if a.HistoryStart == nil || through.Before(*a.HistoryStart) {
		b, err := r.journal.AccountBalances(ctx, company, a.Number, through)
		if err != nil {
			return a, err
		}
		a.Input.LedgerBalance, a.Input.ExternalBalance = b[0], b[0]
		return a, nil
	}
	start := *a.HistoryStart
	items, err := r.journal.AccountItems(ctx, company, a.Number, start, through)
	if err != nil {
		return a, err
	}
	for _, it := range items {
		a.Input.Items = append(a.Input.Items, led(it))
	}
	// Verifikat linked but outside the window, for their status.
	in := map[uuid.UUID]bool{}
	for _, it := range items {
		in[it.EntryID] = true
	}
	var outside []uuid.UUID
	for _, l := range a.Input.Links {
		if !in[l.EntryID] {
			outside = append(outside, l.EntryID)
		}
	}
	for _, x := range a.Input.Ext {
		if x.EntryID != nil && !in[*x.EntryID] {
			outside = append(outside, *x.EntryID)
		}
	}
	heads, err := r.journal.EntryHeads(ctx, company, outside)
	if err != nil {
		return a, err
	}
	a.Input.Heads = map[uuid.UUID]Led{}
	for id, h := range heads {
		a.Input.Heads[id] = led(h)
	}
	bal, err := r.journal.AccountBalances(ctx, company, a.Number, through, start.AddDate(0, 0, -1))
	if err != nil {
		return a, err
	}
	a.Input.LedgerBalance = bal[0]
	a.balances(bal[1])
	return a, nil
}

func led(it ledger.AccountItem) Led {
	return Led{EntryID: it.EntryID, Date: it.Date, Amount: it.Amount, Voucher: it.Voucher(), Series: it.Series,
		Number: it.Number, Description: it.Description,
		Status: it.Status, ReversesID: it.ReversesID, ReversedBy: it.ReversedBy}
}

// balances sets the outside balance at the day and the opening
// difference, given the books' balance the day before the history starts.
func (a *Account) balances(ledgerOpening money.Amount) {
	through := dayNumber(a.Input.Through)
	var sum, before money.Amount // the rows through the day; those through an anchor
	for _, x := range a.Input.Ext {
		if !x.Upcoming && dayNumber(x.Date) <= through {
			sum = sum.Add(x.Amount)
		}
	}
	var opening money.Amount
	external := func() money.Amount { return opening.Add(sum) }
	switch {
	case a.Key.Kind == KindSkattekonto:
		opening, a.ExternalFrom = *a.OpeningSaldo, "saldo"
	default:
		first, latest := a.anchors()
		if first == nil {
			opening, a.ExternalFrom = ledgerOpening, "movements"
			break
		}
		// The opening comes from the first balance the bank stated (a
		// statement's opening balance, the day before its rows), less any
		// rows through its day; the balance at the day is the latest one
		// stated, plus the rows after it. Rows missing between the two
		// are then a difference nothing explains, never an opening one.
		for _, x := range a.Input.Ext {
			if !x.Upcoming && dayNumber(x.Date) <= dayNumber(first.Day) {
				before = before.Add(x.Amount)
			}
		}
		opening, a.ExternalFrom = first.Balance.Sub(before), "statement"
		stated := *latest
		external = func() money.Amount {
			b := stated.Balance
			for _, x := range a.Input.Ext {
				if !x.Upcoming && dayNumber(x.Date) > dayNumber(stated.Day) && dayNumber(x.Date) <= through {
					b = b.Add(x.Amount)
				}
			}
			return b
		}
	}
	a.Input.ExternalBalance = external()
	a.Input.OpeningDifference = opening.Sub(ledgerOpening)
}

// anchors are the bank's first and latest stated balances on or before
// the day; nil when it stated none by then (the rows read end at the
// day, so a later one cannot be carried back) or the account is not in
// kronor, whose books are.
func (a *Account) anchors() (first, latest *banking.StatementBalance) {
	if a.Cash.Currency != "SEK" {
		return nil, nil
	}
	through := dayNumber(a.Input.Through)
	for i := range a.statements {
		if dayNumber(a.statements[i].Day) <= through {
			if first == nil {
				first = &a.statements[i]
			}
			latest = &a.statements[i]
		}
	}
	return first, latest
}

// loadBank reads a cash account's transactions through day.
func (r *Reconciler) loadBank(ctx context.Context, company uuid.UUID, a *Account, through time.Time) error {
	cash, err := r.cashAccount(ctx, company, a.Key)
	if err != nil {
		return err
	}
	a.Cash, a.Number, a.Name, a.Currency = &cash, cash.LedgerAccount, cash.Name, cash.Currency
	a.Rules = BankRules(cash.LedgerAccount)
	txs, err := r.bank.Store().Rows(ctx, company, cash.ID, through)
	if err != nil {
		return err
	}
	a.txs = make(map[uuid.UUID]banking.Transaction, len(txs))
	a.Source = "manual"
	if cash.Source == "bank_feed" {
		a.Source = "psd2"
	}
	for _, t := range txs {
		amount, ok := t.SEK()
		if !ok {
			continue // a foreign row without a rate has no kronor to match yet
		}
		a.txs[t.ID] = t
		x := Ext{ID: t.ID, Date: t.Date, Amount: amount, Ignored: t.Ignored, EntryID: t.JournalEntryID,
			Method: t.ReconciliationMethod}
		if t.Description != nil {
			x.Description = *t.Description
		}
		if t.Reference != nil {
			x.Reference = *t.Reference
		}
		a.Input.Ext = append(a.Input.Ext, x)
		if a.HistoryStart == nil || t.Date.Before(*a.HistoryStart) {
			d := t.Date
			a.HistoryStart = &d
		}
		if a.LastCovered == nil || t.Date.After(*a.LastCovered) {
			d := t.Date
			a.LastCovered = &d
		}
		if t.ImportSource == "bank_file" && a.Source == "manual" {
			a.Source = "bank_file"
		}
		if a.SyncedAt == nil || t.CreatedAt.After(*a.SyncedAt) {
			c := t.CreatedAt
			a.SyncedAt = &c
		}
	}
	if cash.BalanceUpdatedAt != nil && (a.SyncedAt == nil || cash.BalanceUpdatedAt.After(*a.SyncedAt)) {
		a.SyncedAt = cash.BalanceUpdatedAt
	}
	if a.statements, err = r.bank.Store().StatementBalances(ctx, company, cash.ID); err != nil {
		return err
	}
	for _, b := range a.statements {
		if d := b.Day; a.LastCovered != nil && d.After(*a.LastCovered) && !d.After(through) {
			a.LastCovered = &d
		}
		// A balance the bank states before the first row starts the
		// history the day after it.
		if start := b.Day.AddDate(0, 0, 1); a.HistoryStart != nil && start.Before(*a.HistoryStart) {
			a.HistoryStart = &start
		}
	}
	return nil
}

// loadTax reads the skattekonto's rows.
func (r *Reconciler) loadTax(ctx context.Context, company uuid.UUID, a *Account, through time.Time) error {
	a.Number, a.Name, a.Currency, a.Rules = SkattekontoAccount, "Skattekonto", "SEK", SkattekontoRules()
	rows, err := r.store.TaxRows(ctx, company)
	if err != nil {
		return err
	}
	a.Source = "manual"
	for _, t := range rows {
		if t.Source == "skatteverket_file" {
			a.Source = "skatteverket_file"
		}
		if a.SyncedAt == nil || t.CreatedAt.After(*a.SyncedAt) {
			c := t.CreatedAt
			a.SyncedAt = &c
		}
		if t.Kind == "opening" {
			if a.HistoryStart == nil || t.Date.Before(*a.HistoryStart) {
				d, s := t.Date, *t.Saldo
				a.HistoryStart, a.OpeningSaldo = &d, &s
			}
			continue
		}
		if !t.Upcoming && (a.LastCovered == nil || t.Date.After(*a.LastCovered)) {
			d := t.Date
			a.LastCovered = &d
		}
		a.Input.Ext = append(a.Input.Ext, Ext{ID: t.ID, Date: t.Date, Amount: t.Amount, Description: t.Description,
			Reference: t.Description, Ignored: t.Ignored, Upcoming: t.Upcoming})
	}
	if a.HistoryStart != nil && (a.LastCovered == nil || a.LastCovered.Before(*a.HistoryStart)) {
		a.LastCovered = a.HistoryStart
	}
	return nil
}
