package expenses

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Books are what expenses needs of the other domains, in the request's
// unit of work.
type Books struct {
	// Facts are the company's form and VAT registration.
	Facts func(ctx context.Context, company uuid.UUID) (Facts, error)
	// Employee answers an employee's name; 404 EMPLOYEE_NOT_FOUND.
	Employee func(ctx context.Context, company, id uuid.UUID) (string, error)
	// Linked refuses a document the company lacks (404 DOC_NOT_FOUND)
	// and answers whether it is underlag of a verifikat already.
	Linked func(ctx context.Context, company, doc uuid.UUID) (bool, error)
	// InboxDocument answers an inbox item's document, nil for none; 404
	// INBOX_ITEM_NOT_FOUND.
	InboxDocument func(ctx context.Context, company, item uuid.UUID) (*uuid.UUID, error)
	// Link makes the document underlag of the entry.
	Link func(ctx context.Context, company, doc, entry uuid.UUID) error
	// EnsureAccounts adds to the chart those of numbers BAS has and it
	// lacks (ACCOUNTS_NOT_IN_CHART for others).
	EnsureAccounts  func(ctx context.Context, company uuid.UUID, numbers []string) error
	CheckDimensions func(ctx context.Context, company uuid.UUID, day time.Time, tags []ledger.Dimensions) error
	Post            func(ctx context.Context, company uuid.UUID, in ledger.Input) (ledger.Entry, error)
	Reverse         func(ctx context.Context, company, id uuid.UUID, day time.Time, allowDeep bool) (ledger.Reversal, error)
	// Rate is SEK per unit of currency on day, as looked up before the
	// transaction; an error when none is known.
	Rate func(ctx context.Context, currency string, day time.Time) (money.Rate, error)
	// Reserved answers which of the claims ids a payment batch holds,
	// and which (payfiles.Batches.Reserved).
	Reserved func(ctx context.Context, company uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error)
}

// Expenses keeps a company's expense claims: the rules, the store, the
// audit trail, in the request's unit of work.
type Expenses struct {
	store *Store
	books Books
	audit *audit.Store
	now   func() time.Time
}

// New returns the service.
func New(s *Store, b Books, a *audit.Store, now func() time.Time) *Expenses {
	return &Expenses{store: s, books: b, audit: a, now: now}
}

// Create registers a claim and books it, its receipt (a document, or an
// inbox item's) its underlag.
func (x *Expenses) Create(ctx context.Context, company uuid.UUID, in Input) (Claim, ledger.Entry, error) {
	var employee string
	if in.EmployeeID != nil {
		var err error
		if employee, err = x.books.Employee(ctx, company, *in.EmployeeID); err != nil {
			return Claim{}, ledger.Entry{}, err
		}
	}
	facts, err := x.books.Facts(ctx, company)
	if err != nil {
		return Claim{}, ledger.Entry{}, err
	}
	var rate *money.Rate
	if in.Currency != "" && in.Currency != "SEK" && in.ExchangeRate == nil {
		if r, err := x.books.Rate(ctx, in.Currency, in.ExpenseDate); err == nil {
			rate = &r
		}
	}
	c, err := Plan(company, in, facts, employee, rate)
	if err != nil {
		return c, ledger.Entry{}, err
	}
	if c.InboxItemID != nil {
		doc, err := x.books.InboxDocument(ctx, company, *c.InboxItemID)
		if err != nil {
			return c, ledger.Entry{}, err
		}
		switch {
		case doc == nil:
			return c, ledger.Entry{}, apierr.Field("inbox_item_id", "no_document", "the inbox item holds no document")
		case c.DocumentID != nil && *c.DocumentID != *doc:
			return c, ledger.Entry{}, apierr.Field("document_id", "inbox_item", "is not the inbox item's document")
		}
		c.DocumentID = doc
	}
	if c.DocumentID != nil {
		linked, err := x.books.Linked(ctx, company, *c.DocumentID)
		if err != nil {
			return c, ledger.Entry{}, err
		}
		if linked {
			return c, ledger.Entry{}, apierr.Field("document_id", "underlag", "the document is underlag of a verifikat already")
		}
	}
	lines := c.Lines()
	if err := x.books.EnsureAccounts(ctx, company, accounts(lines)); err != nil {
		return c, ledger.Entry{}, err
	}
	if err := x.books.CheckDimensions(ctx, company, c.ExpenseDate, []ledger.Dimensions{c.Dimensions}); err != nil {
		return c, ledger.Entry{}, err
	}
	id := c.ID.String()
	e, err := x.books.Post(ctx, company, ledger.Input{Date: c.ExpenseDate, Description: "Utlägg: " + c.Description + ", " +
		c.ClaimantName, SourceType: SourceClaim, SourceID: &id, Counterparty: ledger.Counterparty{CounterpartyName: &c.ClaimantName},
		Lines: lines})
	if err != nil {
		return c, e, noPeriod(err, c.ExpenseDate, "expense_date")
	}
	c.JournalEntryID = e.ID
	if c, err = x.store.Insert(ctx, c); err != nil {
		return c, e, err
	}
	if c.DocumentID != nil {
		if err := x.books.Link(ctx, company, *c.DocumentID, e.ID); err != nil {
			return c, e, err
		}
	}
	return c, e, x.record(ctx, audit.Insert, c.ID, "Utlägget "+c.Description+" ("+c.ClaimantName+", "+c.AmountSEK.String()+
		" kr) registrerades", nil, c)
}

// Delete stornoes a registered claim's verifikat today (the ledger then
// marks the claim deleted, through Reversed), answering the storno.
func (x *Expenses) Delete(ctx context.Context, company, id uuid.UUID) (Claim, ledger.Entry, error) {
	c, err := x.store.Get(ctx, company, id, true)
	if err != nil {
		return c, ledger.Entry{}, err
	}
	if err := refuse(c, 0); err != nil {
		return c, ledger.Entry{}, err
	}
	// Reversed refuses a claim in a payment batch.
	r, err := x.books.Reverse(ctx, company, c.JournalEntryID, ledger.Today(x.now()), false)
	if err != nil {
		return c, r.Storno, err
	}
	old := c
	if c, err = x.store.Get(ctx, company, id, false); err != nil {
		return c, r.Storno, err
	}
	return c, r.Storno, x.record(ctx, audit.Update, c.ID, "Utlägget "+c.Description+" togs bort (storno)", old, c)
}

// refuse answers why claim c, the index-th asked for, cannot be paid or
// deleted, or nil.
func refuse(c Claim, index int) error {
	details := map[string]any{"expense_claim_id": c.ID, "index": index}
	switch {
	case c.Status == Paid && c.SalaryRunID != nil:
		details["salary_run_id"] = c.SalaryRunID
		return apierr.New(apierr.ExpenseClaimAlreadyPaid, details)
	case c.Status == Paid:
		details["payout_batch_id"] = c.PayoutID
		return apierr.New(apierr.ExpenseClaimAlreadyPaid, details)
	case c.Status == Deleted:
		return apierr.New(apierr.ExpenseClaimDeleted, details)
	case c.SalaryRunID != nil:
		details["salary_run_id"] = c.SalaryRunID
		return apierr.New(apierr.ExpenseClaimOnPayslip, details)
	}
	return nil
}

// unreserved refuses claims a payment batch holds, but for batch's own
// (nil: none).
func (x *Expenses) unreserved(ctx context.Context, company uuid.UUID, claims []Claim, batch *uuid.UUID) error {
	ids := make([]uuid.UUID, len(claims))
	for i, c := range claims {
		ids[i] = c.ID
	}
	held, err := x.books.Reserved(ctx, company, ids)
	if err != nil {
		return err
	}
	for i, c := range claims {
		b, ok := held[c.ID]
		switch {
		case ok && (batch == nil || b != *batch):
			return apierr.New(apierr.ExpenseClaimInPaymentBatch, map[string]any{"expense_claim_id": c.ID, "index": i,
				"batch_id": b})
		case !ok && batch != nil:
			return fmt.Errorf("expenses: claim %s is not in batch %s", c.ID, *batch)
		}
	}
	return nil
}

// PayoutInput is a payout as asked.
type PayoutInput struct {
	Claims      []uuid.UUID
	Date        time.Time
	CashAccount string
	Notes       *string
	// Batch is the payment batch whose bank debit pays the claims, which
	// it holds; nil for a payout asked directly.
	Batch *uuid.UUID
}

// Pay pays the registered claims of in back in one verifikat dated its
// day, from its cash account.
func (x *Expenses) Pay(ctx context.Context, company uuid.UUID, in PayoutInput) (Payout, ledger.Entry, error) {
	seen := map[uuid.UUID]bool{}
	for i, id := range in.Claims {
		if seen[id] {
			return Payout{}, ledger.Entry{}, apierr.Field("claim_ids."+strconv.Itoa(i), "uniqueItems", "names a claim twice")
		}
		seen[id] = true
	}
	claims, err := x.store.Hold(ctx, company, in.Claims, "claim_ids")
	if err != nil {
		return Payout{}, ledger.Entry{}, err
	}
	for i, c := range claims {
		if err := refuse(c, i); err != nil {
			return Payout{}, ledger.Entry{}, err
		}
	}
	if err := x.unreserved(ctx, company, claims, in.Batch); err != nil {
		return Payout{}, ledger.Entry{}, err
	}
	lines, total := PayoutLines(claims, in.CashAccount)
	if err := x.books.EnsureAccounts(ctx, company, accounts(lines)); err != nil {
		return Payout{}, ledger.Entry{}, err
	}
	p := Payout{CompanyID: company, ID: uuid.New(), PayoutDate: in.Date, CashAccount: in.CashAccount, TotalSEK: total,
		ClaimCount: len(claims), Notes: in.Notes}
	id := p.ID.String()
	e, err := x.books.Post(ctx, company, ledger.Input{Date: in.Date, Description: "Utbetalning av " + strconv.Itoa(len(claims)) +
		" utlägg", SourceType: SourcePayout, SourceID: &id, Notes: in.Notes, Lines: lines})
	if err != nil {
		return p, e, noPeriod(err, in.Date, "payout_date")
	}
	p.JournalEntryID = e.ID
	if p, err = x.store.InsertPayout(ctx, p, in.Claims); err != nil {
		return p, e, err
	}
	return p, e, x.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "expense_payouts",
		RecordID: p.ID.String(), Description: "Utbetalning av " + strconv.Itoa(p.ClaimCount) + " utlägg, " + total.String() +
			" kr från " + p.CashAccount, New: audit.Of(p)})
}

// Reversed follows a storno of a verifikat expenses posted (ledger.Store.Reversed).
func (x *Expenses) Reversed(ctx context.Context, company uuid.UUID, orig, storno ledger.Entry) error {
	if !ours(orig) {
		return nil
	}
	// A claim paid, on a payslip or in a payment batch keeps its verifikat.
	claims, err := x.store.OfEntry(ctx, company, orig.ID)
	if err != nil {
		return err
	}
	for i, c := range claims {
		if err := refuse(c, i); err != nil {
			return err
		}
	}
	if len(claims) > 0 {
		if err := x.unreserved(ctx, company, claims, nil); err != nil {
			return err
		}
	}
	return x.store.Reversed(ctx, company, orig.ID, storno.ID)
}

// Replaced follows a rättelse of a verifikat expenses posted.
func (x *Expenses) Replaced(ctx context.Context, company uuid.UUID, orig, e ledger.Entry) error {
	if !ours(orig) {
		return nil
	}
	return x.store.Replaced(ctx, company, orig.ID, e.ID)
}

// ours says whether e may be a verifikat of a claim or a payout: posted
// by expenses, or a rättelse of one.
func ours(e ledger.Entry) bool {
	return e.SourceType == SourceClaim || e.SourceType == SourcePayout || e.SourceType == ledger.SourceCorrection
}

// accounts are the accounts lines book on.
func accounts(lines []ledger.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Account
	}
	return out
}

// noPeriod maps the ledger's want of a fiscal period to the claim's own
// code, naming field.
func noPeriod(err error, day time.Time, field string) error {
	if apierr.Is(err, apierr.PeriodNotFound) {
		return apierr.New(apierr.ExpenseClaimNoFiscalPeriod, map[string]any{"date": day.Format(time.DateOnly), "field": field})
	}
	return err
}

func (x *Expenses) record(ctx context.Context, action audit.Action, id uuid.UUID, desc string, old, new any) error {
	var company uuid.UUID
	for _, v := range []any{old, new} {
		if c, ok := v.(Claim); ok {
			company = c.CompanyID
		}
	}
	return x.audit.Record(ctx, audit.Change{CompanyID: company, Action: action, Table: "expense_claims",
		RecordID: id.String(), Description: desc, Old: audit.Of(old), New: audit.Of(new)})
}
