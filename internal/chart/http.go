package chart

import (
	"context"
	"strconv"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the chart-of-accounts operations.
type Handler struct{ accounts *Store }

// NewHandler returns the chart handler.
func NewHandler(s *Store) *Handler { return &Handler{accounts: s} }

// ListAccounts lists the company's chart.
func (h *Handler) ListAccounts(ctx context.Context, req gen.ListAccountsRequestObject) (gen.ListAccountsResponseObject, error) {
	f := Filter{Class: -1}
	if c := req.Params.Class; c != nil {
		f.Class, _ = strconv.Atoi(*c) // the document's pattern admits one digit only
	}
	f.Inactive = req.Params.Active != nil && *req.Params.Active == gen.ListAccountsParamsActiveFalse
	rows, err := h.accounts.List(ctx, uuid.UUID(req.CompanyId), f)
	if err != nil {
		return nil, err
	}
	out := make([]gen.Account, len(rows))
	for i, a := range rows {
		out[i] = wire(a)
	}
	return gen.ListAccounts200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.AccountList{Accounts: out}}, nil
}

// CreateAccount adds an account to the chart.
func (h *Handler) CreateAccount(ctx context.Context, req gen.CreateAccountRequestObject) (gen.CreateAccountResponseObject, error) {
	b := req.Body
	in := Input{Number: b.AccountNumber, Name: b.AccountName, Description: envelope.Optional(b.Description),
		VATRate: envelope.Optional(b.DefaultVatRate), SRU: envelope.Optional(b.SruCode)}
	if b.AccountType != nil {
		t := bas.Type(*b.AccountType)
		in.Type = &t
	}
	if b.NormalBalance != nil {
		nb := bas.Balance(*b.NormalBalance)
		in.NormalBalance = &nb
	}
	if t := envelope.Optional(b.DefaultVatTreatment); t != nil {
		s := string(*t)
		in.VATTreatment = &s
	}
	if v := envelope.Optional(b.VatBox); v != nil {
		s := string(*v)
		in.VATBox = &s
	}
	a, err := h.accounts.Create(ctx, uuid.UUID(req.CompanyId), in)
	if err != nil {
		return nil, err
	}
	if store.IsDryRun(ctx) {
		return gen.CreateAccount200JSONResponse{Meta: envelope.Meta(ctx),
			Data: gen.AccountDryRun{DryRun: true, Preview: preview(wire(a))}}, nil
	}
	return gen.CreateAccount201JSONResponse{Meta: envelope.Meta(ctx), Data: wire(a)}, nil
}

// UpdateAccount renames, activates or deactivates an account.
func (h *Handler) UpdateAccount(ctx context.Context, req gen.UpdateAccountRequestObject) (gen.UpdateAccountResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	cur, err := h.accounts.Get(ctx, company, req.AccountNumber)
	if err != nil {
		return nil, err
	}
	p := Patch{Name: req.Body.AccountName, Active: req.Body.IsActive}
	if req.Body.Description.IsSpecified() {
		d := envelope.Optional(req.Body.Description)
		p.Description = &d
	}
	next, err := p.Apply(cur)
	if err != nil {
		return nil, err
	}
	a, err := h.accounts.Update(ctx, company, cur, next)
	if err != nil {
		return nil, err
	}
	var data gen.AccountUpdateResult
	if store.IsDryRun(ctx) {
		err = data.FromAccountDryRun(gen.AccountDryRun{DryRun: true, Preview: preview(wire(a))})
	} else {
		err = data.FromAccount(wire(a))
	}
	return gen.UpdateAccount200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

// DeleteAccount removes an account never booked on.
func (h *Handler) DeleteAccount(ctx context.Context, req gen.DeleteAccountRequestObject) (gen.DeleteAccountResponseObject, error) {
	if err := h.accounts.Delete(ctx, uuid.UUID(req.CompanyId), req.AccountNumber); err != nil {
		return nil, err
	}
	gone := gen.AccountDeleted{Deleted: true, AccountNumber: req.AccountNumber}
	var data gen.AccountDeletedResult
	var err error
	if store.IsDryRun(ctx) {
		err = data.FromAccountDeleteDryRun(gen.AccountDeleteDryRun{DryRun: true, Preview: gone})
	} else {
		err = data.FromAccountDeleted(gone)
	}
	return gen.DeleteAccount200JSONResponse{Meta: envelope.Meta(ctx), Data: data}, err
}

func wire(a Account) gen.Account {
	out := gen.Account{
		AccountNumber: a.Number, AccountName: a.Name, AccountClass: a.Class(), AccountGroup: a.Group(),
		AccountType: gen.AccountType(a.Type), NormalBalance: gen.NormalBalance(a.NormalBalance),
		IsSystemAccount: a.System, IsActive: a.Active, IsBas: a.BAS, Description: envelope.Nullable(a.Description),
		DefaultVatRate: envelope.Nullable((*money.Amount)(a.VATRate)), SruCode: envelope.Nullable(a.SRU),
		DefaultVatTreatment: nullable.NewNullNullable[gen.VatTreatment](), VatBox: nullable.NewNullNullable[gen.VatBox](),
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
	}
	if a.VATTreatment != nil {
		out.DefaultVatTreatment = nullable.NewNullableWithValue(gen.VatTreatment(*a.VATTreatment))
	}
	if a.VATBox != nil {
		out.VatBox = nullable.NewNullableWithValue(gen.VatBox(*a.VATBox))
	}
	return out
}

func preview(a gen.Account) gen.AccountPreview {
	return gen.AccountPreview{
		AccountNumber: a.AccountNumber, AccountName: a.AccountName, AccountClass: a.AccountClass,
		AccountGroup: a.AccountGroup, AccountType: a.AccountType, NormalBalance: a.NormalBalance,
		IsSystemAccount: a.IsSystemAccount, IsActive: a.IsActive, IsBas: a.IsBas, Description: a.Description,
		DefaultVatRate: a.DefaultVatRate, DefaultVatTreatment: a.DefaultVatTreatment, VatBox: a.VatBox,
		SruCode: a.SruCode,
	}
}
