package banking

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the bank's endpoints.
type Handler struct{ bank *Bank }

// NewHandler returns the banking handler.
func NewHandler(b *Bank) *Handler { return &Handler{bank: b} }

// View is a cash account as the API shows it.
func View(a CashAccount) gen.CashAccount {
	var payee gen.PaymentAccount
	if raw, err := json.Marshal(a.Payee); err == nil {
		_ = json.Unmarshal(raw, &payee)
	}
	return gen.CashAccount{CashAccountId: a.ID, LedgerAccount: a.LedgerAccount, Name: a.Name,
		Currency: gen.CashAccountCurrency(a.Currency), Iban: envelope.Nullable(a.IBAN), IsPrimary: a.Primary,
		Enabled: a.Enabled, Source: gen.CashAccountSource(a.Source), Balance: envelope.Nullable(a.Balance),
		AvailableBalance: envelope.Nullable(a.Available), BalanceUpdatedAt: envelope.NullableTime(a.BalanceUpdatedAt),
		BankConnected: a.ConnectionID != nil, VoucherSeries: envelope.Nullable(a.VoucherSeries),
		InvoicePayee: a.InvoicePayee, Payee: payee, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// payeeMap is payment details as stored: the fields given, nulls left out.
func payeeMap(p *gen.PaymentAccount) map[string]any {
	out := map[string]any{}
	if p == nil {
		return out
	}
	raw, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// ListCashAccounts lists the company's cash accounts and payee defaults.
func (h *Handler) ListCashAccounts(ctx context.Context, req gen.ListCashAccountsRequestObject) (gen.ListCashAccountsResponseObject, error) {
	rows, err := h.bank.store.CashAccounts(ctx, req.CompanyId, req.Params.EnabledOnly != nil && *req.Params.EnabledOnly)
	if err != nil {
		return nil, err
	}
	defaults, err := h.bank.store.PayeeDefaults(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	out := gen.CashAccountList{CashAccounts: make([]gen.CashAccount, len(rows)), PayeeDefaults: map[string]uuid.UUID{}}
	for i, a := range rows {
		out.CashAccounts[i] = View(a)
	}
	for c, id := range defaults {
		out.PayeeDefaults[c] = id
	}
	return gen.ListCashAccounts200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// CreateCashAccount opens a manual cash account.
func (h *Handler) CreateCashAccount(ctx context.Context, req gen.CreateCashAccountRequestObject) (gen.CreateCashAccountResponseObject, error) {
	b := req.Body
	a, err := h.bank.Create(ctx, req.CompanyId, NewCash{Name: b.Name, Currency: string(b.Currency),
		LedgerAccount: b.LedgerAccount, IBAN: b.Iban, InvoicePayee: b.InvoicePayee, Payee: payeeMap(b.Payee)})
	if err != nil {
		return nil, err
	}
	v := View(a)
	if store.IsDryRun(ctx) {
		var p gen.CashAccountPreview
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		p.CashAccountId = nullable.NewNullNullable[uuid.UUID]()
		p.CreatedAt, p.UpdatedAt = envelope.NullableTime(nil), envelope.NullableTime(nil)
		return gen.CreateCashAccount200JSONResponse{Data: gen.CashAccountCreateDryRun{DryRun: true, Preview: p},
			Meta: envelope.Meta(ctx)}, nil
	}
	return gen.CreateCashAccount201JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// UpdateCashAccount changes a cash account's name, state, series or payee.
func (h *Handler) UpdateCashAccount(ctx context.Context, req gen.UpdateCashAccountRequestObject) (gen.UpdateCashAccountResponseObject, error) {
	b := req.Body
	c := CashChange{Name: b.Name, Enabled: b.Enabled, InvoicePayee: b.InvoicePayee,
		VoucherSeriesSet: b.VoucherSeries.IsSpecified(), VoucherSeries: envelope.Optional(b.VoucherSeries),
		PayeeSet: b.Payee.IsSpecified()}
	if c.PayeeSet {
		c.Payee = payeeMap(envelope.Optional(b.Payee))
	}
	a, err := h.bank.Update(ctx, req.CompanyId, req.CashAccountId, c)
	if err != nil {
		return nil, err
	}
	return gen.UpdateCashAccount200JSONResponse{Data: View(a), Meta: envelope.Meta(ctx)}, nil
}

// SetPrimaryCashAccount makes a cash account the primary.
func (h *Handler) SetPrimaryCashAccount(ctx context.Context, req gen.SetPrimaryCashAccountRequestObject) (gen.SetPrimaryCashAccountResponseObject, error) {
	a, err := h.bank.SetPrimary(ctx, req.CompanyId, req.CashAccountId)
	if err != nil {
		return nil, err
	}
	return gen.SetPrimaryCashAccount200JSONResponse{Data: View(a), Meta: envelope.Meta(ctx)}, nil
}

// SetCashAccountPayeeDefault chooses the payee invoices in a currency print.
func (h *Handler) SetCashAccountPayeeDefault(ctx context.Context, req gen.SetCashAccountPayeeDefaultRequestObject) (gen.SetCashAccountPayeeDefaultResponseObject, error) {
	b := req.Body
	id := envelope.Optional(b.CashAccountId)
	if err := h.bank.SetPayee(ctx, req.CompanyId, string(b.Currency), id); err != nil {
		return nil, err
	}
	return gen.SetCashAccountPayeeDefault200JSONResponse{Data: gen.PayeeDefault{Currency: b.Currency,
		CashAccountId: envelope.Nullable(id)}, Meta: envelope.Meta(ctx)}, nil
}
