package banking

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

const transactionsList = "bank_transactions"

// TxItem is a transaction as lists show it.
func TxItem(t Transaction) gen.TransactionListItem {
	return gen.TransactionListItem{Id: t.ID, Date: openapi_types.Date{Time: t.Date}, Description: envelope.Nullable(t.Description),
		Amount: t.Amount, Currency: t.Currency, Reference: envelope.Nullable(t.Reference),
		MerchantName: envelope.Nullable(t.MerchantName), JournalEntryId: envelope.Nullable(t.JournalEntryID),
		InvoiceId: envelope.Nullable(t.InvoiceID), SupplierInvoiceId: envelope.Nullable(t.SupplierInvoiceID),
		IsBusiness: envelope.Nullable(t.IsBusiness), Category: envelope.Nullable(t.Category),
		ImportSource: gen.TransactionListItemImportSource(t.ImportSource), CashAccountId: envelope.Nullable(t.CashAccountID),
		IsIgnored: t.Ignored, CreatedAt: t.CreatedAt}
}

// TxDetail is a transaction with all it holds, the invoice it likely
// pays and how it might be booked.
func TxDetail(t Transaction, potential *uuid.UUID, s *Suggestion) gen.Transaction {
	return gen.Transaction{Id: t.ID, Date: openapi_types.Date{Time: t.Date}, Description: envelope.Nullable(t.Description),
		Amount: t.Amount, Currency: t.Currency, Reference: envelope.Nullable(t.Reference),
		MerchantName: envelope.Nullable(t.MerchantName), JournalEntryId: envelope.Nullable(t.JournalEntryID),
		InvoiceId: envelope.Nullable(t.InvoiceID), SupplierInvoiceId: envelope.Nullable(t.SupplierInvoiceID),
		IsBusiness: envelope.Nullable(t.IsBusiness), Category: envelope.Nullable(t.Category),
		ImportSource: gen.TransactionImportSource(t.ImportSource), CashAccountId: envelope.Nullable(t.CashAccountID),
		IsIgnored: t.Ignored, CreatedAt: t.CreatedAt, AmountSek: envelope.Nullable(t.AmountSEK),
		ExchangeRate: envelope.Nullable(t.ExchangeRate), CounterpartyAccount: envelope.Nullable(t.CounterpartyAccount),
		PotentialInvoiceId: envelope.Nullable(potential), ReceiptId: nullable.NewNullNullable[uuid.UUID](),
		DocumentId: envelope.Nullable(t.DocumentID), ExternalId: t.ExternalID, LedgerAccount: t.LedgerAccount,
		ReconciliationMethod: envelope.NullableEnum[gen.TransactionReconciliationMethod](t.ReconciliationMethod),
		OriginalDescription:  envelope.Nullable(t.OriginalDescription), TitleEditedAt: envelope.NullableTime(t.TitleEditedAt),
		UpdatedAt: t.UpdatedAt, Suggestion: suggestion(s)}
}

func suggestion(s *Suggestion) nullable.Nullable[gen.TransactionSuggestion] {
	if s == nil {
		return nullable.NewNullNullable[gen.TransactionSuggestion]()
	}
	dims := map[string]string{}
	for k, v := range s.Dimensions {
		dims[k] = v
	}
	return nullable.NewNullableWithValue(gen.TransactionSuggestion{BasedOnTransactionId: s.BasedOn, IsBusiness: s.IsBusiness,
		Category: envelope.Nullable(s.Category), AccountNumber: s.Account, VatTreatment: gen.VatTreatmentBank(s.VATTreatment),
		Dimensions: dims})
}

// TxHandler serves the transaction endpoints.
type TxHandler struct {
	bank    *Bank
	cursors *cursor.Codec
	now     func() time.Time
}

// NewTxHandler returns the transactions handler.
func NewTxHandler(b *Bank, c *cursor.Codec, now func() time.Time) *TxHandler {
	return &TxHandler{bank: b, cursors: c, now: now}
}

func day(d *openapi_types.Date) *time.Time {
	if d == nil {
		return nil
	}
	return &d.Time
}

// ListTransactions reads a page of the company's transactions.
func (h *TxHandler) ListTransactions(ctx context.Context, req gen.ListTransactionsRequestObject) (gen.ListTransactionsResponseObject, error) {
	p := req.Params
	f := TxFilter{Currency: p.Currency, From: day(p.DateFrom), To: day(p.DateTo), Search: p.Search,
		CashAccountID: p.CashAccountId, Limit: cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)}
	if p.Status != nil {
		f.Status = string(*p.Status)
	}
	if pos := (cursor.Position{}); h.cursors.DecodeParam(transactionsList, p.Cursor, &pos) {
		f.After = &pos
	}
	rows, err := h.bank.store.Transactions(ctx, req.CompanyId, f)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, transactionsList, rows, f.Limit, func(t Transaction) any {
		return cursor.Position{At: t.CreatedAt, ID: t.ID}
	})
	out := gen.TransactionList{Transactions: make([]gen.TransactionListItem, len(rows))}
	for i, t := range rows {
		out.Transactions[i] = TxItem(t)
	}
	return gen.ListTransactions200JSONResponse{Data: out, Meta: envelope.Page(ctx, next)}, nil
}

// GetTransaction reads one transaction.
func (h *TxHandler) GetTransaction(ctx context.Context, req gen.GetTransactionRequestObject) (gen.GetTransactionResponseObject, error) {
	t, err := h.bank.store.Transaction(ctx, req.CompanyId, req.TransactionId, false)
	if err != nil {
		return nil, err
	}
	potential, err := h.bank.PotentialInvoice(ctx, t)
	if err != nil {
		return nil, err
	}
	s, err := h.bank.Suggestion(ctx, t)
	if err != nil {
		return nil, err
	}
	return gen.GetTransaction200JSONResponse{Data: TxDetail(t, potential, s), Meta: envelope.Meta(ctx)}, nil
}

// IngestTransactions adds transactions.
func (h *TxHandler) IngestTransactions(ctx context.Context, req gen.IngestTransactionsRequestObject) (gen.IngestTransactionsResponseObject, error) {
	b := req.Body
	rows := make([]Ingested, len(b.Transactions))
	for i, r := range b.Transactions {
		rows[i] = Ingested{Date: r.Date.Time, Description: envelope.Text(r.Description), Amount: r.Amount,
			Currency: r.Currency, ExternalID: r.ExternalId, MCC: r.MccCode, MerchantName: envelope.Text(r.MerchantName),
			Reference: envelope.Text(r.Reference), CounterpartyAccount: envelope.Text(r.CounterpartyAccount)}
		if r.ImportSource != nil {
			s := string(*r.ImportSource)
			rows[i].ImportSource = &s
		}
	}
	in, err := h.bank.Ingest(ctx, req.CompanyId, rows, b.SettlementAccount)
	if err != nil {
		return nil, err
	}
	ids := in.IDs
	if store.IsDryRun(ctx) {
		ids = []uuid.UUID{}
	}
	return gen.IngestTransactions200JSONResponse{Data: gen.TransactionIngested{Imported: in.Imported,
		Duplicates: in.Duplicates, TransactionIds: ids}, Meta: envelope.Meta(ctx)}, nil
}

// UpdateTransaction retitles or moves an unbooked transaction.
func (h *TxHandler) UpdateTransaction(ctx context.Context, req gen.UpdateTransactionRequestObject) (gen.UpdateTransactionResponseObject, error) {
	t, err := h.bank.UpdateTransaction(ctx, req.CompanyId, req.TransactionId, TxChange{Description: req.Body.Description,
		LedgerAccount: req.Body.AccountNumber}, h.now())
	if err != nil {
		return nil, err
	}
	return gen.UpdateTransaction200JSONResponse{Data: gen.TransactionPatched{Id: t.ID, Description: envelope.Nullable(t.Description),
		TitleEditedAt: envelope.NullableTime(t.TitleEditedAt), CashAccountId: envelope.Nullable(t.CashAccountID)},
		Meta: envelope.Meta(ctx)}, nil
}

// DeleteTransaction removes an unbooked hand-added transaction.
func (h *TxHandler) DeleteTransaction(ctx context.Context, req gen.DeleteTransactionRequestObject) (gen.DeleteTransactionResponseObject, error) {
	if err := h.bank.DeleteTransaction(ctx, req.CompanyId, req.TransactionId); err != nil {
		return nil, err
	}
	return gen.DeleteTransaction200JSONResponse{Data: gen.TransactionDeleted{TransactionId: req.TransactionId, Deleted: true},
		Meta: envelope.Meta(ctx)}, nil
}

// IgnoreTransaction marks a transaction as needing no verifikat.
func (h *TxHandler) IgnoreTransaction(ctx context.Context, req gen.IgnoreTransactionRequestObject) (gen.IgnoreTransactionResponseObject, error) {
	_, was, err := h.bank.Ignore(ctx, req.CompanyId, req.TransactionId, true)
	if err != nil {
		return nil, err
	}
	return gen.IgnoreTransaction200JSONResponse{Data: gen.TransactionIgnored{Success: true, TransactionId: req.TransactionId,
		IsIgnored: true, AlreadyIgnored: was}, Meta: envelope.Meta(ctx)}, nil
}

// UnignoreTransaction puts an ignored transaction back.
func (h *TxHandler) UnignoreTransaction(ctx context.Context, req gen.UnignoreTransactionRequestObject) (gen.UnignoreTransactionResponseObject, error) {
	_, was, err := h.bank.Ignore(ctx, req.CompanyId, req.TransactionId, false)
	if err != nil {
		return nil, err
	}
	return gen.UnignoreTransaction200JSONResponse{Data: gen.TransactionUnignored{Success: true, TransactionId: req.TransactionId,
		IsIgnored: false, WasIgnored: was}, Meta: envelope.Meta(ctx)}, nil
}

// categorization reads a categorize body.
func categorization(b gen.TransactionCategorize) Categorization {
	c := Categorization{IsBusiness: b.IsBusiness, VATAmount: b.VatAmount, AccountOverride: b.AccountOverride,
		Description: envelope.Text(b.UserDescription), ConfirmNoMatch: b.ConfirmNoMatch != nil && *b.ConfirmNoMatch}
	if b.Category != nil {
		s := string(*b.Category)
		c.Category = &s
	}
	if b.TemplateId != nil {
		s := string(*b.TemplateId)
		c.TemplateID = &s
	}
	if b.VatTreatment != nil {
		s := string(*b.VatTreatment)
		c.VATTreatment = &s
	}
	if b.Dimensions != nil {
		c.Dimensions = ledger.Dimensions(*b.Dimensions)
	}
	return c
}

// CategorizeTransaction books a transaction.
func (h *TxHandler) CategorizeTransaction(ctx context.Context, req gen.CategorizeTransactionRequestObject) (gen.CategorizeTransactionResponseObject, error) {
	c := categorization(*req.Body)
	r, err := h.bank.Categorize(ctx, req.CompanyId, req.TransactionId, c)
	if err != nil {
		return nil, err
	}
	out := gen.TransactionCategorized{Success: true, Category: envelope.Nullable(r.Transaction.Category),
		AlreadyHadJournalEntry: r.Already, JournalEntryId: envelope.Nullable(r.Transaction.JournalEntryID),
		VerifikatLines: []gen.PostingLine{}}
	if r.Entry != nil {
		out.JournalEntryCreated, out.VerifikatLines = true, ledger.PostingLines(r.Entry.Lines)
	}
	if store.IsDryRun(ctx) {
		out.JournalEntryId = nullable.NewNullNullable[uuid.UUID]()
	}
	meta := envelope.Meta(ctx)
	if e := r.DocumentNotLinked; e != nil {
		meta = envelope.WithWarning(meta, "DOCUMENT_NOT_LINKED",
			"Transaktionen bokfördes, men dess underlag kunde inte knytas till verifikationen: "+e.Message,
			"The transaction was booked, but its document could not become the verifikat's underlag: "+e.MessageEn)
	}
	return gen.CategorizeTransaction200JSONResponse{Data: out, Meta: meta}, nil
}

// UncategorizeTransaction stornoes a transaction's verifikat.
func (h *TxHandler) UncategorizeTransaction(ctx context.Context, req gen.UncategorizeTransactionRequestObject) (gen.UncategorizeTransactionResponseObject, error) {
	u, err := h.bank.Uncategorize(ctx, req.CompanyId, req.TransactionId)
	if err != nil {
		return nil, err
	}
	st := envelope.Nullable(u.Storno)
	if store.IsDryRun(ctx) {
		st = nullable.NewNullNullable[uuid.UUID]()
	}
	return gen.UncategorizeTransaction200JSONResponse{Data: gen.TransactionUncategorized{Success: true,
		ReversedJournalEntryId: u.Entry, ReversalJournalEntryId: st}, Meta: envelope.Meta(ctx)}, nil
}

// ListTransactionTemplates lists the templates and categories.
func (h *TxHandler) ListTransactionTemplates(ctx context.Context, req gen.ListTransactionTemplatesRequestObject) (gen.ListTransactionTemplatesResponseObject, error) {
	out := gen.TransactionTemplateList{Templates: []gen.TransactionTemplate{}}
	for _, t := range Templates {
		out.Templates = append(out.Templates, gen.TransactionTemplate{Id: t.ID, Name: t.Name,
			Kind: gen.Template, AccountNumber: account(t.Account),
			VatTreatment: gen.VatTreatmentBank(t.VAT)})
	}
	for _, name := range CategoryNames() {
		k, ok := Categories[name]
		if !ok {
			continue // private: its account follows the company's form
		}
		out.Templates = append(out.Templates, gen.TransactionTemplate{Id: name, Name: name,
			Kind: gen.Category, AccountNumber: account(k.Account), VatTreatment: gen.VatTreatmentBank(k.VAT)})
	}
	return gen.ListTransactionTemplates200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

func account(a string) nullable.Nullable[string] {
	if a == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(a)
}

// LinkTransactionJournalEntry links a transaction to the verifikat that
// books it already.
func (h *TxHandler) LinkTransactionJournalEntry(ctx context.Context, req gen.LinkTransactionJournalEntryRequestObject) (gen.LinkTransactionJournalEntryResponseObject, error) {
	l, err := h.bank.Link(ctx, req.CompanyId, req.TransactionId, req.Body.JournalEntryId)
	if err != nil {
		return nil, err
	}
	return gen.LinkTransactionJournalEntry200JSONResponse{Data: gen.TransactionLinked{TransactionId: l.Transaction.ID,
		JournalEntryId: l.Entry.ID, VoucherLabel: l.Entry.Voucher()}, Meta: envelope.Meta(ctx)}, nil
}

// RefreshTransactionExchangeRate sets a foreign transaction's kronor.
func (h *TxHandler) RefreshTransactionExchangeRate(ctx context.Context, req gen.RefreshTransactionExchangeRateRequestObject) (gen.RefreshTransactionExchangeRateResponseObject, error) {
	r, err := h.bank.RefreshRate(ctx, req.CompanyId, req.TransactionId)
	if err != nil {
		return nil, err
	}
	t := r.Transaction
	return gen.RefreshTransactionExchangeRate200JSONResponse{Data: gen.TransactionRate{TransactionId: t.ID, Currency: t.Currency,
		Amount: t.Amount, AmountSek: envelope.Nullable(t.AmountSEK), ExchangeRate: envelope.Nullable(t.ExchangeRate),
		ExchangeRateDate: envelope.NullableDate(t.ExchangeRateDate), Refreshed: r.Refreshed}, Meta: envelope.Meta(ctx)}, nil
}

// BatchCategorizeTransactions categorizes up to 100 transactions, each
// on its own.
func (h *TxHandler) BatchCategorizeTransactions(ctx context.Context, req gen.BatchCategorizeTransactionsRequestObject) (gen.BatchCategorizeTransactionsResponseObject, error) {
	b := req.Body
	if b.AllOrNothing != nil && *b.AllOrNothing {
		return nil, envelope.AllOrNothing("categorized")
	}
	items := make([]BatchItem, len(b.Items))
	for i, it := range b.Items {
		items[i] = BatchItem{TransactionID: it.TransactionId, Categorization: categorization(it.Categorization)}
	}
	results, err := h.bank.BatchCategorize(ctx, req.CompanyId, items)
	if err != nil {
		return nil, err
	}
	out := gen.TransactionBatchCategorized{Results: make([]gen.TransactionBatchResult, len(results))}
	out.Summary.Total = len(results)
	for i, r := range results {
		res := gen.TransactionBatchResult{RequestIndex: i, TransactionId: items[i].TransactionID, Ok: r.Err == nil}
		if e, ok := apierr.As(r.Err); ok {
			res.Error = envelope.ItemError(e)
			out.Summary.Failed++
		} else {
			entry := envelope.Nullable(r.Categorized.Transaction.JournalEntryID)
			if store.IsDryRun(ctx) {
				entry = nullable.NewNullNullable[uuid.UUID]()
			}
			res.Data = &struct {
				AlreadyHadJournalEntry bool                         `json:"already_had_journal_entry"`
				JournalEntryId         nullable.Nullable[uuid.UUID] `json:"journal_entry_id"`
			}{AlreadyHadJournalEntry: r.Categorized.Already, JournalEntryId: entry}
			out.Summary.Succeeded++
		}
		out.Results[i] = res
	}
	return gen.BatchCategorizeTransactions200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// BulkBookTransactions books several transactions in one verifikat.
func (h *TxHandler) BulkBookTransactions(ctx context.Context, req gen.BulkBookTransactionsRequestObject) (gen.BulkBookTransactionsResponseObject, error) {
	b := req.Body
	bk := Bulk{IDs: b.TxIds, Existing: b.ExistingJournalEntryId, Template: b.TemplateId}
	ways := 0
	for _, given := range []bool{b.ExistingJournalEntryId != nil, b.TemplateId != nil, b.ManualLines != nil} {
		if given {
			ways++
		}
	}
	if ways != 1 {
		return nil, apierr.Field("existing_journal_entry_id", "one_of",
			"exactly one of existing_journal_entry_id, template_id or manual_lines")
	}
	if b.ExistingJournalEntryId == nil {
		if b.EntryDescription == nil || strings.TrimSpace(*b.EntryDescription) == "" {
			return nil, apierr.Field("entry_description", "required", "the verifikat's text")
		}
		bk.Description = strings.TrimSpace(*b.EntryDescription)
	}
	if b.TemplateId != nil {
		if b.Mode == nil {
			return nil, apierr.Field("mode", "required", "one_line_per_tx or sum_per_account")
		}
		bk.Mode = string(*b.Mode)
	}
	if b.DefaultDimensions != nil {
		bk.Dimensions = ledger.Dimensions(*b.DefaultDimensions)
	}
	if b.ManualLines != nil {
		for i, l := range *b.ManualLines {
			line := ledger.Line{SortOrder: i + 1, Account: l.AccountNumber, Description: envelope.Text(l.LineDescription)}
			if l.DebitAmount != nil {
				line.Debit = *l.DebitAmount
			}
			if l.CreditAmount != nil {
				line.Credit = *l.CreditAmount
			}
			if l.Dimensions != nil {
				line.Dimensions = ledger.Dimensions(*l.Dimensions)
			}
			bk.Manual = append(bk.Manual, line)
		}
	}
	r, err := h.bank.BulkBook(ctx, req.CompanyId, bk)
	if err != nil {
		return nil, err
	}
	out := gen.TransactionBulkBooked{Mode: gen.CreateNew, JournalEntryId: nullable.NewNullableWithValue(r.Entry.ID),
		VoucherSeries: nullable.NewNullableWithValue(r.Entry.Series), VoucherNumber: nullable.NewNullableWithValue(r.Entry.Number),
		LinkedTxCount: len(r.Rows), TxSum: r.Sum}
	if r.Linked {
		out.Mode = gen.LinkExisting
	} else if store.IsDryRun(ctx) {
		out.JournalEntryId, out.VoucherNumber = nullable.NewNullNullable[uuid.UUID](), nullable.NewNullNullable[int]()
	}
	return gen.BulkBookTransactions200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

func pinned(p Pinned) gen.TransactionDocument {
	t := p.Transaction
	return gen.TransactionDocument{TransactionId: t.ID, DocumentId: envelope.Nullable(t.DocumentID),
		PreviousDocumentId: envelope.Nullable(p.Previous), JournalEntryId: envelope.Nullable(t.JournalEntryID)}
}

// AttachTransactionDocument pins a document to a transaction.
func (h *TxHandler) AttachTransactionDocument(ctx context.Context, req gen.AttachTransactionDocumentRequestObject) (gen.AttachTransactionDocumentResponseObject, error) {
	p, err := h.bank.Attach(ctx, req.CompanyId, req.TransactionId, req.Body.DocumentId)
	if err != nil {
		return nil, err
	}
	return gen.AttachTransactionDocument200JSONResponse{Data: pinned(p), Meta: envelope.Meta(ctx)}, nil
}

// DetachTransactionDocument unpins an unbooked transaction's document.
func (h *TxHandler) DetachTransactionDocument(ctx context.Context, req gen.DetachTransactionDocumentRequestObject) (gen.DetachTransactionDocumentResponseObject, error) {
	p, err := h.bank.Detach(ctx, req.CompanyId, req.TransactionId)
	if err != nil {
		return nil, err
	}
	return gen.DetachTransactionDocument200JSONResponse{Data: pinned(p), Meta: envelope.Meta(ctx)}, nil
}

// ImportBankFile reads a bank file and queues its import.
func (h *TxHandler) ImportBankFile(ctx context.Context, req gen.ImportBankFileRequestObject) (gen.ImportBankFileResponseObject, error) {
	f, ok := FileFrom(ctx)
	if !ok {
		return nil, errors.New("banking: the bank file was not read before the handler")
	}
	format := ""
	if req.Params.Format != nil {
		format = string(*req.Params.Format)
	}
	q, err := h.bank.QueueImport(ctx, req.CompanyId, f, format, req.Params.CashAccountId)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		p := q.Parsed
		return gen.ImportBankFile200JSONResponse{Data: gen.BankFilePreview{DryRun: true, Format: gen.BankFileFormat(p.Format),
			Encoding: p.Encoding, Rows: len(p.Rows), Pending: p.Pending, OtherBalances: p.Other, DateFrom: openapi_types.Date{Time: *p.From},
			DateTo: openapi_types.Date{Time: *p.To}, BalanceNote: envelope.Nullable(p.Note)}, Meta: envelope.Meta(ctx)}, nil
	}
	return gen.ImportBankFile202JSONResponse{Data: jobs.Wire(q.Operation), Meta: envelope.Meta(ctx)}, nil
}

// UndoBankFileImport deletes what an import added and nothing booked.
func (h *TxHandler) UndoBankFileImport(ctx context.Context, req gen.UndoBankFileImportRequestObject) (gen.UndoBankFileImportResponseObject, error) {
	if a := auth.AccessFrom(ctx); a != nil && a.Role != auth.Owner && a.Role != auth.Admin {
		return nil, apierr.New(apierr.BankFileUndoForbidden, map[string]any{"role": a.Role})
	}
	u, err := h.bank.UndoImport(ctx, req.CompanyId, req.ImportId)
	if err != nil {
		return nil, err
	}
	return gen.UndoBankFileImport200JSONResponse{Data: gen.BankFileUndone{BankFileImportId: u.ImportID,
		DeletedTransactions: u.Deleted, SkippedBooked: u.SkippedBooked, SkippedMatchHistory: u.SkippedHistory},
		Meta: envelope.Meta(ctx)}, nil
}
