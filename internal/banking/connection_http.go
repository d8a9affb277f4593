package banking

import (
	"context"
	"net/url"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/envelope"
)

// connView is a connection as the API shows it, with the accounts its
// consent covers.
func (h *TxHandler) connView(c Connection, accounts []ConnAccount) gen.BankConnection {
	v := gen.BankConnection{ConnectionId: c.ID, Bank: envelope.Nullable(c.Bank), Status: gen.BankConnectionStatus(c.Status),
		Since: c.Since, LastSyncedAt: envelope.NullableTime(c.LastSyncedAt), ConsentExpires: envelope.NullableTime(c.ConsentExpires),
		ErrorMessage: envelope.Nullable(c.ErrorMessage), Stale: c.Status == ConnActive && Stale(c.LastSyncedAt, c.Since, h.now()),
		NextAllowedAt: nullable.NewNullNullable[time.Time](), AuthorizationUrl: nullable.NewNullNullable[string](),
		Accounts: make([]gen.BankConnectionAccount, len(accounts))}
	if next := NextAllowed(c.LastAttemptAt, c.NextAllowedAt); next.After(h.now()) {
		v.NextAllowedAt.Set(next)
	}
	if c.Status == ConnPending && c.AuthorizationURL != nil {
		v.AuthorizationUrl.Set(*c.AuthorizationURL)
	}
	for i, a := range accounts {
		v.Accounts[i] = gen.BankConnectionAccount{AccountUid: a.UID, Iban: envelope.Nullable(a.IBAN), Currency: a.Currency,
			Name: envelope.Nullable(a.Name), CashAccountId: envelope.Nullable(a.CashAccountID)}
	}
	return v
}

// ListBankConnections lists the company's bank connections.
func (h *TxHandler) ListBankConnections(ctx context.Context, req gen.ListBankConnectionsRequestObject) (gen.ListBankConnectionsResponseObject, error) {
	rows, err := h.bank.store.Connections(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	accounts, err := h.bank.store.AccountsOf(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	out := gen.BankConnectionList{BankConnections: make([]gen.BankConnection, len(rows))}
	for i, c := range rows {
		out.BankConnections[i] = h.connView(c, accounts[c.ID])
	}
	return gen.ListBankConnections200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// ConnectRequestOf is a create body as the bank reads it (the outside
// work reads it too).
func ConnectRequestOf(b gen.BankConnectionCreate) ConnectRequest {
	r := ConnectRequest{Bank: b.Bank, ReturnURL: b.ReturnUrl}
	if b.Country != nil {
		r.Country = *b.Country
	}
	if b.PsuType != nil {
		r.PSUType = string(*b.PsuType)
	}
	if b.ValidDays != nil {
		r.ValidDays = *b.ValidDays
	}
	return r
}

// CreateBankConnection asks a bank for consent.
func (h *TxHandler) CreateBankConnection(ctx context.Context, req gen.CreateBankConnectionRequestObject) (gen.CreateBankConnectionResponseObject, error) {
	c, err := h.bank.Connect(ctx, req.CompanyId, ConnectRequestOf(*req.Body))
	if err != nil {
		return nil, err
	}
	return gen.CreateBankConnection201JSONResponse{Data: h.connView(c, nil), Meta: envelope.Meta(ctx)}, nil
}

// CompleteBankConnection is the bank's callback after the consent.
func (h *TxHandler) CompleteBankConnection(ctx context.Context, req gen.CompleteBankConnectionRequestObject) (gen.CompleteBankConnectionResponseObject, error) {
	p := req.Params
	c, err := h.bank.Complete(ctx, p.State, deref(p.Code), deref(p.Error))
	if err != nil {
		return nil, err
	}
	if c.ReturnURL != nil {
		if u, err := url.Parse(*c.ReturnURL); err == nil {
			q := u.Query()
			q.Set("connection_id", c.ID.String())
			q.Set("status", c.Status)
			u.RawQuery = q.Encode()
			to := u.String()
			return gen.CompleteBankConnection302Response{Headers: gen.CompleteBankConnection302ResponseHeaders{Location: &to}}, nil
		}
	}
	accounts, err := h.bank.store.ConnAccounts(ctx, c.CompanyID, c.ID)
	if err != nil {
		return nil, err
	}
	return gen.CompleteBankConnection200JSONResponse{Data: h.connView(c, accounts), Meta: envelope.Meta(ctx)}, nil
}

// SelectBankConnectionAccounts chooses the accounts that feed cash
// accounts.
func (h *TxHandler) SelectBankConnectionAccounts(ctx context.Context, req gen.SelectBankConnectionAccountsRequestObject) (gen.SelectBankConnectionAccountsResponseObject, error) {
	sel := make([]Selection, len(req.Body.Accounts))
	for i, a := range req.Body.Accounts {
		sel[i] = Selection{UID: a.AccountUid, CashAccountID: a.CashAccountId}
	}
	c, accounts, err := h.bank.SelectAccounts(ctx, req.CompanyId, req.ConnectionId, sel)
	if err != nil {
		return nil, err
	}
	return gen.SelectBankConnectionAccounts200JSONResponse{Data: h.connView(c, accounts), Meta: envelope.Meta(ctx)}, nil
}

// SyncBankConnection writes what the bank brought (FetchSync, the
// outside work, read it).
func (h *TxHandler) SyncBankConnection(ctx context.Context, req gen.SyncBankConnectionRequestObject) (gen.SyncBankConnectionResponseObject, error) {
	s, err := h.bank.Sync(ctx, req.CompanyId, req.ConnectionId)
	if err != nil {
		return nil, err
	}
	c := s.Connection
	return gen.SyncBankConnection200JSONResponse{Data: gen.BankSync{ConnectionId: c.ID, Bank: envelope.Nullable(c.Bank),
		Imported: s.Imported, Duplicates: s.Duplicates, FromDate: openapi_types.Date{Time: s.From},
		ToDate: openapi_types.Date{Time: s.To}, LastSyncedAt: *c.LastSyncedAt}, Meta: envelope.Meta(ctx)}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
