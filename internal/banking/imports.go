package banking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/outbox"
)

// ImportOperation is the operation type of a bank-file import.
const ImportOperation = "import.bank"

// MaxFile is the largest bank file taken.
const MaxFile = 10 << 20

// Formats are the formats a bank file may be read as.
var Formats = []string{FormatCamt053, FormatGenericCSV, FormatSwedbank, FormatNordea, FormatNordeaBusiness, FormatSEB,
	FormatHandelsbanken, FormatLansforsakringar, FormatICABanken, FormatSkandia, FormatLunar, FormatNorthmill, FormatWise,
	FormatWiseStatement}

// Parsed is what a bank file holds, as read.
type Parsed struct {
	Format, Encoding string
	Rows             []Ingested
	From, To         *time.Time
	Pending          int
	// Other counts rows of another currency's balance, left out.
	Other int
	// Note is the statement's balance check (opening + movements =
	// closing), said, never a refusal.
	Note *string
	// Balances are the closing balances the file states, each of its day
	// (camt.053 CLBD).
	Balances []StatementBalance
	// Statements are the accounts and currencies a camt.053 file's
	// statements are of.
	Statements []StatementAccount
	// Mismatches are the statements whose opening balance and entries do
	// not make their closing balance.
	Mismatches []BalanceMismatch
}

// StatementAccount is the account a statement says it is of.
type StatementAccount struct {
	Account  string `json:"account"`
	IBAN     string `json:"-"`
	Currency string `json:"currency"`
}

// BalanceMismatch is a statement whose opening balance and entries do not
// make its closing balance: rows are missing from it, or it is not the
// bank's whole story.
type BalanceMismatch struct {
	Statement int          `json:"statement"`
	Account   string       `json:"account"`
	Opening   money.Amount `json:"opening_balance"`
	Entries   money.Amount `json:"entries"`
	Closing   money.Amount `json:"closing_balance"`
}

// Warning is something an import says of a file without refusing it.
type Warning struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	MessageEn string         `json:"message_en"`
	Details   map[string]any `json:"details,omitempty"`
}

// WarnBalanceMismatch: a statement's opening balance and entries do not
// make its closing balance.
const WarnBalanceMismatch = "BANK_STATEMENT_BALANCE_MISMATCH"

// Warnings are what the import tells of the file.
func (p Parsed) Warnings() []Warning {
	out := []Warning{}
	for _, m := range p.Mismatches {
		out = append(out, Warning{Code: WarnBalanceMismatch,
			Message:   fmt.Sprintf("Kontoutdrag %d (%s): ingående saldo %s och transaktionerna %s ger inte utgående saldo %s; rader saknas eller utdraget är inte bankens hela bild.", m.Statement, m.Account, m.Opening, m.Entries, m.Closing),
			MessageEn: fmt.Sprintf("Statement %d (%s): the opening balance %s and the entries %s do not make the closing balance %s; rows are missing, or the statement is not the bank's whole story.", m.Statement, m.Account, m.Opening, m.Entries, m.Closing),
			Details: map[string]any{"statement": m.Statement, "account": m.Account, "opening_balance": m.Opening,
				"entries": m.Entries, "closing_balance": m.Closing, "difference": m.Closing.Sub(m.Opening.Add(m.Entries))}})
	}
	return out
}

// StatementBalance is what the bank states a cash account held at the end
// of a day.
type StatementBalance struct {
	Day     time.Time    `db:"day"`
	Balance money.Amount `db:"balance"`
	Source  string       `db:"source"`
}

// ParseFile reads a bank file's bytes in format (detected when empty) for
// a cash account on account in currency: every row it holds, or
// BANK_FILE_UNREADABLE naming the rows that cannot be read.
func ParseFile(raw []byte, format, account, currency string) (Parsed, error) {
	text, enc, err := Text(raw)
	if err != nil {
		return Parsed{}, unreadableText(err)
	}
	if format == "" {
		format = Detect(text)
	}
	if !slices.Contains(Formats, format) {
		return Parsed{}, apierr.Field("format", "enum", strings.Join(Formats, ", "))
	}
	p := Parsed{Format: format, Encoding: enc}
	switch format {
	case FormatCamt053:
		sts, err := ReadCamt053(strings.NewReader(text))
		var entry *EntryError
		if errors.As(err, &entry) {
			d := map[string]any{"reason": entry.Error(), "field": "file", "statement": entry.Statement}
			if entry.Entry > 0 {
				d["entry"] = entry.Entry
			} else {
				d["balance"] = entry.Balance
			}
			if entry.Ref != "" {
				d["entry_reference"] = entry.Ref
			}
			return p, apierr.New(apierr.BankFileUnreadable, d)
		}
		if err != nil {
			return p, unreadable(err.Error(), nil)
		}
		var notes []string
		for si, st := range sts {
			p.Rows, p.Pending = append(p.Rows, st.Rows...), p.Pending+st.Pending
			p.Statements = append(p.Statements, StatementAccount{Account: st.Account, IBAN: st.IBAN, Currency: st.Currency})
			// A file of one account's statements states its balances;
			// one of several accounts' cannot say which is the cash
			// account's.
			if st.Account != sts[0].Account {
				p.Balances = nil
				continue
			}
			// The opening balance is the end of the day before.
			if st.Opening != nil && !st.OpeningDate.IsZero() {
				p.Balances = append(p.Balances, StatementBalance{Day: st.OpeningDate.AddDate(0, 0, -1), Balance: *st.Opening,
					Source: "camt053"})
			}
			if st.Closing != nil && !st.ClosingDate.IsZero() {
				p.Balances = append(p.Balances, StatementBalance{Day: st.ClosingDate, Balance: *st.Closing, Source: "camt053"})
			}
			if st.Opening != nil && st.Closing != nil {
				sum := *st.Opening
				for _, r := range st.Rows {
					sum = sum.Add(r.Amount)
				}
				if sum.Cmp(*st.Closing) != 0 {
					notes = append(notes, fmt.Sprintf("statement %s: opening %s and its entries make %s, the closing balance says %s",
						st.Account, st.Opening, sum, st.Closing))
					p.Mismatches = append(p.Mismatches, BalanceMismatch{Statement: si + 1, Account: st.Account,
						Opening: *st.Opening, Entries: sum.Sub(*st.Opening), Closing: *st.Closing})
				}
			}
		}
		if len(notes) > 0 {
			n := truncated(strings.Join(notes, "; "), 1000)
			p.Note = &n
		}
	default:
		f, err := ReadCSV(text, format, account, currency)
		var rows *ErrRows
		if errors.As(err, &rows) {
			return p, unreadable("rows cannot be read", rows.Rows)
		}
		if err != nil {
			return p, unreadable(err.Error(), nil)
		}
		p.Rows, p.Pending, p.Other = f.Rows, f.Pending, f.Other
	}
	if len(p.Rows) == 0 {
		return p, unreadable("the file holds no booked transaction", nil)
	}
	for i := range p.Rows {
		fit(&p.Rows[i])
		r := p.Rows[i]
		if issues := r.Check(i); len(issues) > 0 {
			return p, unreadable("row "+strconv.Itoa(i+1)+": "+issues[0].Issue, nil)
		}
		d := r.Date
		if p.From == nil || d.Before(*p.From) {
			p.From = &d
		}
		if p.To == nil || d.After(*p.To) {
			p.To = &d
		}
	}
	return p, nil
}

// fit cuts a file row's texts to what a transaction keeps (the bounds the
// ingest endpoint holds its rows to): a bank's long text is shortened,
// never a reason to refuse the file.
func fit(r *Ingested) {
	for _, f := range []struct {
		s *string
		n int
	}{{r.Description, 500}, {r.MerchantName, 200}, {r.Reference, 200}, {r.CounterpartyAccount, 100}} {
		if f.s != nil {
			*f.s = truncated(*f.s, f.n)
		}
	}
}

// unreadableText is a file whose text cannot be read: with the line,
// when one is at fault.
func unreadableText(err error) error {
	var te *TextError
	if errors.As(err, &te) {
		return apierr.New(apierr.BankFileUnreadable, map[string]any{"reason": te.Error(), "field": "file", "line": te.Line})
	}
	return unreadable(err.Error(), nil)
}

func unreadable(reason string, rows []RowError) error {
	details := map[string]any{"reason": reason, "field": "file"}
	if len(rows) > 0 {
		list := make([]map[string]any, 0, min(len(rows), 100))
		for _, r := range rows[:min(len(rows), 100)] {
			list = append(list, map[string]any{"row": r.Row, "issue": r.Issue})
		}
		details["rows"], details["row_count"] = list, len(rows)
	}
	return apierr.New(apierr.BankFileUnreadable, details)
}

// File is a bank file as uploaded.
type File struct {
	Name  string
	Bytes []byte
}

// Import is a bank-file import as kept.
type Import struct {
	CompanyID     uuid.UUID  `db:"company_id"`
	ID            uuid.UUID  `db:"id"`
	OperationID   uuid.UUID  `db:"operation_id"`
	FileName      string     `db:"file_name"`
	Content       []byte     `db:"content"`
	SHA256        string     `db:"sha256"`
	Encoding      string     `db:"encoding"`
	Format        string     `db:"format"`
	CashAccountID *uuid.UUID `db:"cash_account_id"`
	LedgerAccount string     `db:"ledger_account"`
	Status        string     `db:"status"`
	Ingested      *int       `db:"ingested"`
	Duplicates    *int       `db:"duplicates"`
	From          *time.Time `db:"from_date"`
	To            *time.Time `db:"to_date"`
	Note          *string    `db:"note"`
	CreatedAt     time.Time  `db:"created_at"`
	CompletedAt   *time.Time `db:"completed_at"`
	UndoneAt      *time.Time `db:"undone_at"`
}

// Queued is an import read and waiting for its operation, or in a dry
// run what it would import.
type Queued struct {
	Import    Import
	Parsed    Parsed
	Operation jobs.Operation
}

// QueueImport reads file f for the cash account given (else the primary,
// else 1930) and, when every row reads, keeps it and queues the operation
// that ingests it: a bad file is refused whole, before anything is kept.
func (b *Bank) QueueImport(ctx context.Context, company uuid.UUID, f File, format string, cash *uuid.UUID) (Queued, error) {
	if len(f.Bytes) > MaxFile {
		return Queued{}, apierr.New(apierr.PayloadTooLarge, map[string]any{"max_bytes": MaxFile, "field": "file"})
	}
	at := Settlement{LedgerAccount: "1930"}
	currency := "SEK"
	if cash != nil {
		a, err := b.store.CashAccount(ctx, company, *cash, false)
		if err != nil {
			return Queued{}, err
		}
		at, currency = Settlement{CashAccountID: &a.ID, LedgerAccount: a.LedgerAccount}, a.Currency
	} else if a, err := b.store.Primary(ctx, company); err != nil {
		return Queued{}, err
	} else if a != nil {
		at, currency = Settlement{CashAccountID: &a.ID, LedgerAccount: a.LedgerAccount}, a.Currency
	}
	p, err := ParseFile(f.Bytes, format, at.LedgerAccount, currency)
	if err != nil {
		return Queued{}, err
	}
	if p.Format == FormatCamt053 {
		if at, err = b.statementAccount(ctx, company, cash, p.Statements); err != nil {
			return Queued{}, err
		}
	}
	sum := sha256.Sum256(f.Bytes)
	im := Import{CompanyID: company, ID: uuid.New(), FileName: f.Name, Content: f.Bytes, SHA256: hex.EncodeToString(sum[:]),
		Encoding: p.Encoding, Format: p.Format, CashAccountID: at.CashAccountID, LedgerAccount: at.LedgerAccount,
		Status: "queued", From: p.From, To: p.To, Note: p.Note}
	op, err := b.books.Enqueue(ctx, company, ImportOperation, importParams{ImportID: im.ID})
	if err != nil {
		return Queued{}, err
	}
	im.OperationID = op.ID
	if im, err = b.store.InsertImport(ctx, im); err != nil {
		return Queued{}, err
	}
	err = b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Insert, Table: "bank_file_imports",
		RecordID: im.ID.String(), Description: "Bankfilen " + im.FileName + " (" + im.Format + ", " + strconv.Itoa(len(p.Rows)) +
			" rader) köades för import", New: audit.Of(map[string]any{"file_name": im.FileName, "sha256": im.SHA256,
			"format": im.Format, "rows": len(p.Rows), "ledger_account": im.LedgerAccount})})
	return Queued{Import: im, Parsed: p, Operation: op}, err
}

// statementAccount is the cash account a camt.053 file's statements land
// on. Named (cash), it must be of the statements' currency and, when both
// say one, their IBAN. Unnamed, it is the company's cash account of the
// statements' IBAN, or for statements without one the primary (else 1930
// in SEK), in their currency. Anything else, or statements of several
// accounts, is BANK_FILE_ACCOUNT_MISMATCH: a statement never lands on an
// account it is not of.
func (b *Bank) statementAccount(ctx context.Context, company uuid.UUID, cash *uuid.UUID, sts []StatementAccount) (Settlement, error) {
	all, err := b.store.CashAccounts(ctx, company, false)
	if err != nil {
		return Settlement{}, err
	}
	mismatch := func(st StatementAccount, why string) error {
		list := make([]map[string]any, len(all))
		for i, a := range all {
			list[i] = map[string]any{"cash_account_id": a.ID, "ledger_account": a.LedgerAccount, "iban": a.IBAN,
				"currency": a.Currency}
		}
		return apierr.New(apierr.BankFileAccountMismatch, map[string]any{"field": "file", "reason": why,
			"file_account": st.Account, "file_currency": st.Currency, "cash_accounts": list})
	}
	fits := func(a CashAccount, st StatementAccount) error {
		if st.Currency != "" && !strings.EqualFold(st.Currency, a.Currency) {
			return mismatch(st, "the statement is in "+st.Currency+", the cash account in "+a.Currency)
		}
		if st.IBAN != "" && a.IBAN != nil && NormalIBAN(st.IBAN) != NormalIBAN(*a.IBAN) {
			return mismatch(st, "the statement is of "+st.IBAN+", the cash account is "+*a.IBAN)
		}
		return nil
	}
	var chosen *CashAccount
	for _, st := range sts {
		var a *CashAccount
		switch {
		case cash != nil:
			for i := range all {
				if all[i].ID == *cash {
					a = &all[i]
				}
			}
		case st.IBAN != "":
			for i := range all {
				if all[i].IBAN != nil && NormalIBAN(*all[i].IBAN) == NormalIBAN(st.IBAN) {
					a = &all[i]
				}
			}
			if a == nil {
				return Settlement{}, mismatch(st, "no cash account of the company has the statement's IBAN")
			}
		default:
			for i := range all {
				if all[i].Primary {
					a = &all[i]
				}
			}
			if a == nil {
				if st.Currency != "" && st.Currency != "SEK" {
					return Settlement{}, mismatch(st, "the company has no cash account in "+st.Currency)
				}
				continue // 1930, in kronor
			}
		}
		if a == nil {
			return Settlement{}, apierr.New(apierr.NotFound, map[string]any{"resource": "cash_account", "field": "cash_account_id"})
		}
		if err := fits(*a, st); err != nil {
			return Settlement{}, err
		}
		if chosen != nil && chosen.ID != a.ID {
			return Settlement{}, mismatch(st, "the file holds statements of several accounts: import one account's at a time")
		}
		chosen = a
	}
	if chosen == nil {
		return Settlement{LedgerAccount: "1930"}, nil
	}
	return Settlement{CashAccountID: &chosen.ID, LedgerAccount: chosen.LedgerAccount}, nil
}

type importParams struct {
	ImportID uuid.UUID `json:"bank_file_import_id"`
}

// ImportResult is what an import operation did.
type ImportResult struct {
	ImportID   uuid.UUID `json:"bank_file_import_id"`
	Format     string    `json:"format"`
	Ingested   int       `json:"ingested"`
	Duplicates int       `json:"duplicates"`
	From       string    `json:"date_from"`
	To         string    `json:"date_to"`
	Note       *string   `json:"balance_note"`
	// Warnings say what of the file is not as it should be, such as a
	// statement whose balances and entries disagree.
	Warnings []Warning `json:"warnings"`
}

// RunImport is the import operation: the kept file read again, its rows
// COPYed to a stage and added to the account, those it has already left
// out, one transaction.synced per 500 rows added; all in the operation's
// transaction, with its outcome.
func (b *Bank) RunImport(ctx context.Context, run *jobs.Run) (any, error) {
	var p importParams
	if err := json.Unmarshal(run.Params, &p); err != nil {
		return nil, err
	}
	im, err := b.store.Import(ctx, run.CompanyID, p.ImportID, true)
	if err != nil {
		return nil, err
	}
	currency := "SEK"
	if im.CashAccountID != nil {
		a, err := b.store.CashAccount(ctx, run.CompanyID, *im.CashAccountID, false)
		if err != nil {
			return nil, err
		}
		currency = a.Currency
	}
	parsed, err := ParseFile(im.Content, im.Format, im.LedgerAccount, currency)
	if err != nil {
		return nil, err
	}
	at := Settlement{CashAccountID: im.CashAccountID, LedgerAccount: im.LedgerAccount, ImportID: &im.ID}
	run.Report(jobs.Progress{Phase: "ingest", Current: 0, Total: len(parsed.Rows)})
	ids, err := b.store.CopyTransactions(ctx, run.CompanyID, at, "bank_file", parsed.Rows)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += MaxIngest {
		chunk := ids[start:min(start+MaxIngest, len(ids))]
		if _, err := outbox.Emit(ctx, b.store.db, run.CompanyID, EventSynced, map[string]any{"transaction_ids": chunk,
			"cash_account_id": at.CashAccountID, "ledger_account": at.LedgerAccount, "source": "bank_file"}); err != nil {
			return nil, err
		}
	}
	run.Report(jobs.Progress{Phase: "ingest", Current: len(parsed.Rows), Total: len(parsed.Rows)})
	n, dup := len(ids), len(parsed.Rows)-len(ids)
	if im.CashAccountID != nil {
		for _, bal := range parsed.Balances {
			if err := b.store.RecordBalance(ctx, run.CompanyID, *im.CashAccountID, bal); err != nil {
				return nil, err
			}
		}
	}
	if err := b.settleBatches(ctx, run.CompanyID, ids); err != nil {
		return nil, err
	}
	if err := b.changed(ctx, run.CompanyID, im.CashAccountID); err != nil {
		return nil, err
	}
	if err := b.store.FinishImport(ctx, im, n, dup); err != nil {
		return nil, err
	}
	return ImportResult{ImportID: im.ID, Format: im.Format, Ingested: n, Duplicates: dup, From: dayText(*parsed.From),
		To: dayText(*parsed.To), Note: parsed.Note, Warnings: parsed.Warnings()}, nil
}

// Undone is what undoing an import did.
type Undone struct {
	ImportID                               uuid.UUID
	Deleted, SkippedBooked, SkippedHistory int
}

// UndoImport deletes the transactions import id added that are still
// unbooked and were never booked; booked ones and those with a booking
// history stay. Only a succeeded import is undone.
func (b *Bank) UndoImport(ctx context.Context, company, id uuid.UUID) (Undone, error) {
	im, err := b.store.Import(ctx, company, id, true)
	if err != nil {
		return Undone{}, err
	}
	if im.Status != "succeeded" {
		return Undone{}, apierr.New(apierr.BankFileUndoNotCompleted, map[string]any{"bank_file_import_id": id,
			"status": im.Status})
	}
	out := Undone{ImportID: id}
	if out.Deleted, out.SkippedBooked, out.SkippedHistory, err = b.store.UndoImport(ctx, im); err != nil {
		return out, err
	}
	return out, b.audit.Record(ctx, audit.Change{CompanyID: company, Action: audit.Update, Table: "bank_file_imports",
		RecordID: id.String(), Description: "Importen av " + im.FileName + " ångrades: " + strconv.Itoa(out.Deleted) +
			" banktransaktioner togs bort", New: audit.Of(map[string]any{"deleted_transactions": out.Deleted,
			"skipped_booked": out.SkippedBooked, "skipped_match_history": out.SkippedHistory})})
}

type fileKey struct{}

// WithFile is ctx carrying the uploaded bank file, read before the
// handler runs.
func WithFile(ctx context.Context, f File) context.Context {
	return context.WithValue(ctx, fileKey{}, f)
}

// FileFrom is the bank file ctx carries.
func FileFrom(ctx context.Context) (File, bool) {
	f, ok := ctx.Value(fileKey{}).(File)
	return f, ok
}

// settleBatches pays the supplier invoices and expense claims of
// payment files whose debits are among the transactions ids: a debit
// carrying a payment's reference (its end-to-end id, or the OCR number it
// paid) and its amount in its currency, or any amount in kronor for a
// payment in another currency (the bank converted it), settles that
// invoice as a match would, in a verifikat of its own: the bank reports a
// file's payments one debit each, so each debit's verifikat is the one
// its row is reconciled to. A claim's debit pays that claim out, its row
// linked to the payout's verifikat. A payment the books refuse (a locked
// period) is left for a hand.
func (b *Bank) settleBatches(ctx context.Context, company uuid.UUID, ids []uuid.UUID) error {
	if b.books.BatchPayments == nil || len(ids) == 0 {
		return nil
	}
	debits, err := b.store.ReferencedDebits(ctx, company, ids)
	if err != nil || len(debits) == 0 {
		return err
	}
	refs := make([]string, len(debits))
	for i, d := range debits {
		refs[i] = *d.Reference
	}
	pays, err := b.books.BatchPayments(ctx, company, refs)
	if err != nil {
		return err
	}
	for _, d := range debits {
		p, ok := pays[*d.Reference]
		switch {
		case !ok:
			continue
		case p.Currency == d.Currency && p.Amount.Cmp(d.Amount.Neg()) != 0:
			continue // not what was asked: a hand decides
		case p.Currency != d.Currency && d.Currency != "SEK":
			continue
		}
		delete(pays, *d.Reference) // one debit a payment
		_ = b.store.db.Attempt(ctx, func(ctx context.Context) error {
			if p.ClaimID != nil {
				if p.Currency != d.Currency || b.books.PayClaim == nil {
					return nil
				}
				entry, err := b.books.PayClaim(ctx, company, p.BatchID, *p.ClaimID, d.Date, d.LedgerAccount)
				if err == nil {
					_, err = b.Link(ctx, company, d.ID, entry)
				}
				return err
			}
			_, err := b.MatchSupplierInvoice(ctx, company, d.ID, *p.InvoiceID, false)
			return err
		})
	}
	return nil
}
