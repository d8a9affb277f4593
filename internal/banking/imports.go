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
		return Parsed{}, unreadable(err.Error(), nil)
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
		if err != nil {
			return p, unreadable(err.Error(), nil)
		}
		var notes []string
		for _, st := range sts {
			p.Rows, p.Pending = append(p.Rows, st.Rows...), p.Pending+st.Pending
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
	if err := b.changed(ctx, run.CompanyID, im.CashAccountID); err != nil {
		return nil, err
	}
	if err := b.store.FinishImport(ctx, im, n, dup); err != nil {
		return nil, err
	}
	return ImportResult{ImportID: im.ID, Format: im.Format, Ingested: n, Duplicates: dup, From: dayText(*parsed.From),
		To: dayText(*parsed.To), Note: parsed.Note}, nil
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
