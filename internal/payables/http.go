package payables

import (
	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the supplier-invoice endpoints.
type Handler struct {
	payables *Payables
	cursors  *cursor.Codec
}

// NewHandler returns the payables handler.
func NewHandler(p *Payables, c *cursor.Codec) *Handler { return &Handler{payables: p, cursors: c} }

const listName = "supplier_invoices"

func date(t time.Time) openapi_types.Date { return openapi_types.Date{Time: t} }

func listItem(i Invoice) gen.SupplierInvoiceListItem {
	return gen.SupplierInvoiceListItem{Id: i.ID, SupplierId: i.SupplierID, SupplierName: i.SupplierName,
		ArrivalNumber: i.ArrivalNumber, SupplierInvoiceNumber: i.Number, InvoiceDate: date(i.InvoiceDate),
		DueDate: date(i.DueDate), Status: gen.SupplierInvoiceStatus(i.State()), Currency: gen.SupplierInvoiceCurrency(i.Currency),
		Subtotal: i.Subtotal, VatAmount: i.VAT, Total: i.Total, PaidAmount: i.PaidAmount, RemainingAmount: i.Remaining(),
		IsCreditNote: i.CreditNote, PaidAt: envelope.NullableDate(i.PaidAt), CreatedAt: i.CreatedAt}
}

// Event is a supplier invoice as its events and audit rows carry it: the
// detail, with its lines when read with them.
func Event(i Invoice) gen.SupplierInvoice {
	v := gen.SupplierInvoice{Id: i.ID, SupplierId: i.SupplierID, SupplierName: i.SupplierName,
		ArrivalNumber: i.ArrivalNumber, SupplierInvoiceNumber: i.Number, InvoiceDate: date(i.InvoiceDate),
		DueDate: date(i.DueDate), Status: gen.SupplierInvoiceStatus(i.State()), Currency: gen.SupplierInvoiceCurrency(i.Currency),
		Subtotal: i.Subtotal, VatAmount: i.VAT, Total: i.Total, PaidAmount: i.PaidAmount, RemainingAmount: i.Remaining(),
		IsCreditNote: i.CreditNote, PaidAt: envelope.NullableDate(i.PaidAt), CreatedAt: i.CreatedAt,
		ReceivedDate: date(i.ReceivedDate), DeliveryDate: envelope.NullableDate(i.DeliveryDate),
		ExchangeRate: envelope.Nullable(i.ExchangeRate), VatTreatment: gen.SupplierInvoiceVatTreatment(i.Treatment),
		ReverseCharge: i.ReverseCharge, CreditedInvoiceId: envelope.Nullable(i.CreditedID),
		RegistrationJournalEntryId: envelope.Nullable(i.EntryID), PaymentJournalEntryId: envelope.Nullable(i.PaymentEntryID),
		PaymentReference: envelope.Nullable(i.PaymentReference), Notes: envelope.Nullable(i.Notes),
		OreRounding: i.OreRounding, RoundingAmount: i.Rounding, TotalSek: i.TotalSEK,
		DocumentId: envelope.Nullable(i.DocumentID), InboxItemId: envelope.Nullable(i.InboxItemID),
		BookingDeferred: i.BookingDeferred, PaidWithPrivateFunds: i.PrivatelyPaid, EmployeeId: envelope.Nullable(i.EmployeeID),
		ClaimantName: envelope.Nullable(i.ClaimantName), DefaultDimensions: gen.Dimensions(orEmpty(i.DefaultDimensions)),
		ApprovedAt: envelope.NullableTime(i.ApprovedAt), BankEnteredAt: envelope.NullableTime(i.BankEnteredAt),
		UpdatedAt: i.UpdatedAt, DisputedFrom: nullable.NewNullNullable[gen.SupplierInvoiceDisputedFrom]()}
	if i.DisputedFrom != nil {
		v.DisputedFrom = nullable.NewNullableWithValue(gen.SupplierInvoiceDisputedFrom(*i.DisputedFrom))
	}
	if i.Items != nil {
		items := itemsView(i.Items)
		v.Items = &items
	}
	return v
}

func orEmpty(d ledger.Dimensions) ledger.Dimensions {
	if d == nil {
		return ledger.Dimensions{}
	}
	return d
}

func itemsView(items []Item) []gen.SupplierInvoiceItem {
	out := make([]gen.SupplierInvoiceItem, len(items))
	for k, it := range items {
		out[k] = gen.SupplierInvoiceItem{Id: it.ID, Description: it.Description, Amount: it.Amount,
			AccountNumber: it.Account, VatRate: it.VATRate, VatAmount: it.VAT, ApplySlp: it.SLP,
			Dimensions: gen.Dimensions(orEmpty(it.Dimensions)), AccrualPeriodStart: envelope.NullableDate(it.AccrualStart),
			AccrualPeriodEnd: envelope.NullableDate(it.AccrualEnd), AccrualBalanceAccount: envelope.Nullable(it.AccrualAccount),
			CreditedItemId: envelope.Nullable(it.CreditedItemID)}
	}
	return out
}

// ListSupplierInvoices reads a page of the company's supplier invoices.
func (h *Handler) ListSupplierInvoices(ctx context.Context, req gen.ListSupplierInvoicesRequestObject) (gen.ListSupplierInvoicesResponseObject, error) {
	p := req.Params
	f := Filter{Status: (*string)(p.Status), Currency: (*string)(p.Currency), SupplierID: p.SupplierId}
	if p.DateFrom != nil {
		f.From = &p.DateFrom.Time
	}
	if p.DateTo != nil {
		f.To = &p.DateTo.Time
	}
	var after *cursor.Position
	if pos := (cursor.Position{}); h.cursors.DecodeParam(listName, p.Cursor, &pos) {
		after = &pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.payables.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, listName, rows, limit, func(i Invoice) any {
		return cursor.Position{At: i.CreatedAt, ID: i.ID}
	})
	data := make([]gen.SupplierInvoiceListItem, len(rows))
	for i, r := range rows {
		data[i] = listItem(r)
	}
	return gen.ListSupplierInvoices200JSONResponse{Data: data, Meta: envelope.Page(ctx, next)}, nil
}

// GetSupplierInvoice reads one supplier invoice.
func (h *Handler) GetSupplierInvoice(ctx context.Context, req gen.GetSupplierInvoiceRequestObject) (gen.GetSupplierInvoiceResponseObject, error) {
	expand, err := envelope.Expand(req.Params.Expand, "supplier", "items", "payments")
	if err != nil {
		return nil, err
	}
	inv, err := h.payables.Get(ctx, req.CompanyId, req.SupplierInvoiceId, expand["items"])
	if err != nil {
		return nil, err
	}
	v := Event(inv)
	months, err := h.payables.Months(ctx, req.CompanyId, inv.ID)
	if err != nil {
		return nil, err
	}
	accruals := make([]gen.SupplierInvoiceAccrual, len(months))
	for i, m := range months {
		status := gen.SupplierInvoiceAccrualStatusPending
		switch {
		case m.Released():
			status = gen.SupplierInvoiceAccrualStatusReleased
		case m.CancelledBy != nil:
			status = gen.SupplierInvoiceAccrualStatusCancelled
		}
		accruals[i] = gen.SupplierInvoiceAccrual{ItemId: m.ItemID, Month: date(m.Month), ReleaseDate: date(m.Day),
			Amount: m.Amount, BalanceAccount: m.Balance, Status: status, JournalEntryId: envelope.Nullable(m.EntryID)}
	}
	v.Accruals = &accruals
	if expand["supplier"] {
		v.Supplier = &gen.SupplierInvoiceSupplier{Id: inv.SupplierID, Name: inv.SupplierName}
	}
	if expand["payments"] {
		payments, err := h.payables.Payments(ctx, req.CompanyId, inv.ID)
		if err != nil {
			return nil, err
		}
		out := make([]gen.SupplierInvoicePayment, len(payments))
		for i, p := range payments {
			out[i] = gen.SupplierInvoicePayment{Id: p.ID, PaymentDate: date(p.Date), Amount: p.Amount, AmountSek: p.SEK,
				ExchangeRate: envelope.Nullable(p.ExchangeRate), AccountNumber: envelope.Nullable(p.Account),
				Source: gen.SupplierInvoicePaymentSource(p.Source), JournalEntryId: envelope.Nullable(p.EntryID),
				Notes: envelope.Nullable(p.Notes), CreatedAt: p.CreatedAt, ReversesPaymentId: envelope.Nullable(p.ReversesID)}
		}
		v.Payments = &out
	}
	return gen.GetSupplierInvoice200JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// draftOf reads a create body.
func draftOf(b gen.SupplierInvoiceCreate) (Draft, error) {
	d := Draft{SupplierID: b.SupplierId, DocumentID: b.DocumentId, Number: b.SupplierInvoiceNumber,
		InvoiceDate: b.InvoiceDate.Time, DueDate: b.DueDate.Time, ExchangeRate: b.ExchangeRate,
		ReverseCharge: b.ReverseCharge, PaymentReference: envelope.Text(b.PaymentReference), Notes: envelope.Text(b.Notes),
		OreRounding: b.OreRounding, PrivatelyPaid: b.PaidWithPrivateFunds != nil && *b.PaidWithPrivateFunds,
		EmployeeID: envelope.Optional(b.EmployeeId), ClaimantName: envelope.Text(b.ClaimantName),
		InboxItemID: envelope.Optional(b.InboxItemId)}
	if day := envelope.Optional(b.DeliveryDate); day != nil {
		d.DeliveryDate = &day.Time
	}
	if b.Currency != nil {
		d.Currency = string(*b.Currency)
	}
	if b.VatTreatment != nil {
		d.Treatment = string(*b.VatTreatment)
	}
	if b.PaymentDate != nil {
		d.PaymentDate = &b.PaymentDate.Time
	}
	if b.DefaultDimensions != nil {
		d.DefaultDimensions = ledger.Dimensions(*b.DefaultDimensions)
	}
	d.Items = make([]ItemDraft, len(b.Items))
	for i, it := range b.Items {
		d.Items[i] = ItemDraft{Description: it.Description, Amount: it.Amount, Account: it.AccountNumber,
			VATRate: it.VatRate, VATAmount: it.VatAmount, SLP: it.ApplySlp != nil && *it.ApplySlp}
		if it.Dimensions != nil {
			d.Items[i].Dimensions = ledger.Dimensions(*it.Dimensions)
		}
		if it.AccrualPeriodStart != nil {
			d.Items[i].AccrualStart = &it.AccrualPeriodStart.Time
		}
		if it.AccrualPeriodEnd != nil {
			d.Items[i].AccrualEnd = &it.AccrualPeriodEnd.Time
		}
		d.Items[i].AccrualAccount = it.AccrualBalanceAccount
		if a := it.CreateAsset; a != nil {
			d.Items[i].Asset = &AssetDraft{Class: string(a.AssetClass), Name: a.Name, LifeMonths: a.UsefulLifeMonths,
				Residual: a.ResidualValue}
			if a.DepreciationStart != nil {
				d.Items[i].Asset.Start = &a.DepreciationStart.Time
			}
		}
	}
	return d, nil
}

// CreateSupplierInvoice registers a supplier invoice.
func (h *Handler) CreateSupplierInvoice(ctx context.Context, req gen.CreateSupplierInvoiceRequestObject) (gen.CreateSupplierInvoiceResponseObject, error) {
	d, err := draftOf(*req.Body)
	if err != nil {
		return nil, err
	}
	c, err := h.payables.Create(ctx, req.CompanyId, d)
	if err != nil {
		return nil, err
	}
	v := Event(c.Invoice)
	lines := ledger.PostingLines(c.Lines)
	v.VerifikatLines = &lines
	var data gen.SupplierInvoiceCreateResponse_Data
	if store.IsDryRun(ctx) {
		var p gen.SupplierInvoicePreview
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, &p)
		}
		if err != nil {
			return nil, err
		}
		p.Id, p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[openapi_types.UUID](),
			nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
		if err := data.FromSupplierInvoiceCreateDryRun(gen.SupplierInvoiceCreateDryRun{DryRun: true, Preview: p}); err != nil {
			return nil, err
		}
		return gen.CreateSupplierInvoice200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
	}
	if err := data.FromSupplierInvoice(v); err != nil {
		return nil, err
	}
	return gen.CreateSupplierInvoice201JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

// ApproveSupplierInvoice attests a registered invoice.
func (h *Handler) ApproveSupplierInvoice(ctx context.Context, req gen.ApproveSupplierInvoiceRequestObject) (gen.ApproveSupplierInvoiceResponseObject, error) {
	inv, err := h.payables.Approve(ctx, req.CompanyId, req.SupplierInvoiceId)
	if err != nil {
		return nil, err
	}
	return gen.ApproveSupplierInvoice200JSONResponse{Data: gen.SupplierInvoiceApproved{Id: inv.ID,
		Status: gen.SupplierInvoiceApprovedStatus(inv.State()), ArrivalNumber: inv.ArrivalNumber,
		SupplierInvoiceNumber: inv.Number, ApprovedAt: envelope.NullableTime(inv.ApprovedAt)}, Meta: envelope.Meta(ctx)}, nil
}

// DeleteSupplierInvoice removes an unbooked, unpaid invoice.
func (h *Handler) DeleteSupplierInvoice(ctx context.Context, req gen.DeleteSupplierInvoiceRequestObject) (gen.DeleteSupplierInvoiceResponseObject, error) {
	inv, err := h.payables.Delete(ctx, req.CompanyId, req.SupplierInvoiceId)
	if err != nil {
		return nil, err
	}
	return gen.DeleteSupplierInvoice200JSONResponse{Data: gen.SupplierInvoiceDeleted{SupplierInvoiceId: inv.ID,
		Deleted: true, ArrivalNumber: inv.ArrivalNumber}, Meta: envelope.Meta(ctx)}, nil
}

// MarkSupplierInvoicePaid records a payment.
func (h *Handler) MarkSupplierInvoicePaid(ctx context.Context, req gen.MarkSupplierInvoicePaidRequestObject) (gen.MarkSupplierInvoicePaidResponseObject, error) {
	var pd PaymentDraft
	if b := req.Body; b != nil {
		pd = PaymentDraft{Amount: b.Amount, SEK: b.AmountSek, Difference: b.ExchangeRateDifference, Notes: envelope.Text(b.Notes),
			Force: b.Force != nil && *b.Force}
		if b.PaymentDate != nil {
			pd.Date = &b.PaymentDate.Time
		}
		if b.PaymentAccount != nil {
			pd.Account = *b.PaymentAccount
		}
	}
	out, err := h.payables.MarkPaid(ctx, req.CompanyId, req.SupplierInvoiceId, pd)
	if err != nil {
		return nil, err
	}
	i := out.Invoice
	data := gen.SupplierInvoicePaid{Id: i.ID, Status: gen.SupplierInvoiceStatus(i.State()), Total: i.Total,
		PaidAmount: i.PaidAmount, RemainingAmount: i.Remaining(), PaidAt: envelope.NullableDate(i.PaidAt),
		PaymentId: nullable.NewNullableWithValue(out.Payment.ID), PaymentJournalEntryId: envelope.Nullable(out.Payment.EntryID),
		VerifikatLines: ledger.PostingLines(out.Lines)}
	if store.IsDryRun(ctx) {
		data.PaymentId, data.PaymentJournalEntryId = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[openapi_types.UUID]()
	}
	return gen.MarkSupplierInvoicePaid200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}
