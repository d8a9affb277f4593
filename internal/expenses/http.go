package expenses

import (
	"context"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the expense claims' operations.
type Handler struct {
	x       *Expenses
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(x *Expenses, c *cursor.Codec) *Handler { return &Handler{x: x, cursors: c} }

const list = "expense_claims"

// ListExpenseClaims lists the company's claims, newest first.
func (h *Handler) ListExpenseClaims(ctx context.Context, req gen.ListExpenseClaimsRequestObject) (gen.ListExpenseClaimsResponseObject, error) {
	p := req.Params
	f := Filter{Employee: p.EmployeeId}
	if p.Status != nil {
		f.Status = string(*p.Status)
	}
	var after *cursor.Position
	if pos := new(cursor.Position); h.cursors.DecodeParam(list, p.Cursor, pos) {
		after = pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.x.store.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, list, rows, limit, func(c Claim) any { return cursor.Position{At: c.CreatedAt, ID: c.ID} })
	out := gen.ExpenseClaimList{ExpenseClaims: make([]gen.ExpenseClaim, len(rows)), NextCursor: nullable.NewNullNullable[string]()}
	for i, c := range rows {
		out.ExpenseClaims[i] = view(c)
	}
	if next != "" {
		out.NextCursor = nullable.NewNullableWithValue(next)
	}
	return gen.ListExpenseClaims200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// GetExpenseClaim answers one claim.
func (h *Handler) GetExpenseClaim(ctx context.Context, req gen.GetExpenseClaimRequestObject) (gen.GetExpenseClaimResponseObject, error) {
	c, err := h.x.store.Get(ctx, req.CompanyId, req.ExpenseClaimId, false)
	if err != nil {
		return nil, err
	}
	return gen.GetExpenseClaim200JSONResponse{Data: view(c), Meta: envelope.Meta(ctx)}, nil
}

// CreateExpenseClaim registers and books a claim.
func (h *Handler) CreateExpenseClaim(ctx context.Context, req gen.CreateExpenseClaimRequestObject) (gen.CreateExpenseClaimResponseObject, error) {
	b := req.Body
	in := Input{EmployeeID: b.EmployeeId, ClaimantName: b.ClaimantName, Description: b.Description,
		ExpenseDate: b.ExpenseDate.Time, Amount: b.Amount, VAT: b.VatAmount, ExchangeRate: b.ExchangeRate,
		ExpenseAccount: b.ExpenseAccount, DocumentID: b.DocumentId, InboxItemID: b.InboxItemId,
		PayWithSalary: b.PayWithSalary != nil && *b.PayWithSalary}
	if b.Currency != nil {
		in.Currency = string(*b.Currency)
	}
	if b.Dimensions != nil {
		in.Dimensions = ledger.Dimensions(*b.Dimensions)
	}
	c, e, err := h.x.Create(ctx, req.CompanyId, in)
	if err != nil {
		return nil, err
	}
	meta := envelope.WithAudit(envelope.Meta(ctx), e.Number, "/api/v1/companies/"+req.CompanyId.String()+
		"/journal-entries/"+e.ID.String(), e.PostedAt)
	if store.IsDryRun(ctx) {
		return gen.CreateExpenseClaim200JSONResponse{Data: gen.ExpenseClaimDryRun{DryRun: true, Preview: view(c)}, Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateExpenseClaim201JSONResponse{Data: view(c), Meta: meta}, nil
}

// DeleteExpenseClaim stornoes a registered claim.
func (h *Handler) DeleteExpenseClaim(ctx context.Context, req gen.DeleteExpenseClaimRequestObject) (gen.DeleteExpenseClaimResponseObject, error) {
	c, storno, err := h.x.Delete(ctx, req.CompanyId, req.ExpenseClaimId)
	if err != nil {
		return nil, err
	}
	res := gen.ExpenseClaimDeleted{Deleted: true, ExpenseClaimId: c.ID, ReversalEntryId: storno.ID}
	var data gen.ExpenseClaimDeletedOutcome
	if store.IsDryRun(ctx) {
		err = data.FromExpenseClaimDeletedDryRun(gen.ExpenseClaimDeletedDryRun{DryRun: true, Preview: res})
	} else {
		err = data.FromExpenseClaimDeleted(res)
	}
	return gen.DeleteExpenseClaim200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, err
}

// CreateExpensePayout pays claims back in one verifikat.
func (h *Handler) CreateExpensePayout(ctx context.Context, req gen.CreateExpensePayoutRequestObject) (gen.CreateExpensePayoutResponseObject, error) {
	b := req.Body
	p, e, err := h.x.Pay(ctx, req.CompanyId, PayoutInput{Claims: b.ClaimIds, Date: b.PayoutDate.Time, CashAccount: b.CashAccount,
		Notes: b.Notes})
	if err != nil {
		return nil, err
	}
	v := gen.ExpensePayout{BatchId: p.ID, JournalEntryId: e.ID, VoucherSeries: e.Series, VoucherNumber: e.Number,
		PayoutDate: openapi_types.Date{Time: p.PayoutDate}, CashAccount: p.CashAccount, TotalSek: p.TotalSEK, ClaimCount: p.ClaimCount}
	if store.IsDryRun(ctx) {
		return gen.CreateExpensePayout200JSONResponse{Data: gen.ExpensePayoutDryRun{DryRun: true, Preview: v}, Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateExpensePayout201JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

func view(c Claim) gen.ExpenseClaim {
	currency := gen.SupplierInvoiceCurrency(c.Currency)
	return gen.ExpenseClaim{ExpenseClaimId: c.ID, EmployeeId: envelope.Nullable(c.EmployeeID), ClaimantName: c.ClaimantName,
		Description: c.Description, ExpenseDate: openapi_types.Date{Time: c.ExpenseDate}, Currency: currency,
		AmountInCurrency: c.AmountInCurrency, ExchangeRate: envelope.Nullable(c.ExchangeRate), AmountSek: c.AmountSEK,
		VatSek: c.VATSEK, ExpenseAccount: c.ExpenseAccount, LiabilityAccount: gen.ExpenseClaimLiabilityAccount(c.LiabilityAccount),
		DocumentId: envelope.Nullable(c.DocumentID), InboxItemId: envelope.Nullable(c.InboxItemID),
		Dimensions: gen.Dimensions(c.Dimensions), Status: gen.ExpenseClaimStatus(c.Status), JournalEntryId: c.JournalEntryID,
		ReversalEntryId: envelope.Nullable(c.ReversalEntryID), PayoutBatchId: envelope.Nullable(c.PayoutID),
		PaidAt: envelope.NullableTime(c.PaidAt), CreatedAt: c.CreatedAt.UTC(), PayWithSalary: c.PayWithSalary,
		SalaryRunId: envelope.Nullable(c.SalaryRunID)}
}
