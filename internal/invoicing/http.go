package invoicing

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves the invoicing endpoints.
type Handler struct {
	sales   *Sales
	cursors *cursor.Codec
}

// NewHandler returns the invoicing handler.
func NewHandler(s *Sales, c *cursor.Codec) *Handler { return &Handler{sales: s, cursors: c} }

const listName = "invoices"

// ListInvoices reads a page of the company's invoices, newest first.
func (h *Handler) ListInvoices(ctx context.Context, req gen.ListInvoicesRequestObject) (gen.ListInvoicesResponseObject, error) {
	p := req.Params
	expand, err := envelope.Expand(p.Expand, "customer", "items")
	if err != nil {
		return nil, err
	}
	f := Filter{Status: (*string)(p.Status), DocumentType: (*string)(p.DocumentType), QuoteStatus: (*string)(p.QuoteStatus),
		Currency: (*string)(p.Currency), CustomerID: p.CustomerId}
	if p.DateFrom != nil {
		f.From = &p.DateFrom.Time
	}
	if p.DateTo != nil {
		f.To = &p.DateTo.Time
	}
	if f.QuoteStatus != nil && f.DocumentType != nil && *f.DocumentType != "quote" {
		return nil, apierr.Validation(apierr.Issue{Field: "quote_status", In: "query", Rule: "quote",
			Issue: "quote_status implies document_type quote"})
	}
	var after *cursor.Position
	if pos := (cursor.Position{}); h.cursors.DecodeParam(listName, p.Cursor, &pos) {
		after = &pos
	}
	limit := cursor.Limit(p.Limit, cursor.DefaultLimit, cursor.MaxLimit)
	rows, err := h.sales.List(ctx, req.CompanyId, f, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := cursor.Next(h.cursors, listName, rows, limit, func(i Invoice) any {
		return cursor.Position{At: i.CreatedAt, ID: i.ID}
	})
	cov, err := h.sales.store.Coverage(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	var lines map[uuid.UUID][]Line
	if expand["items"] {
		ids := make([]uuid.UUID, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		if lines, err = h.sales.store.LinesOf(ctx, req.CompanyId, ids); err != nil {
			return nil, err
		}
	}
	data := make([]gen.InvoiceListItem, len(rows))
	for i, r := range rows {
		data[i] = listItem(r)
		if expand["customer"] {
			data[i].Customer = &gen.InvoiceCustomer{Id: r.CustomerID, Name: r.CustomerName}
		}
		if lines != nil {
			items := itemsView(lines[r.ID])
			data[i].Items = &items
		}
	}
	m := envelope.Page(ctx, next)
	return gen.ListInvoices200JSONResponse{Data: data, Meta: gen.InvoiceListMeta{ApiVersion: m.ApiVersion, Audit: m.Audit,
		NextCursor: m.NextCursor, RequestId: m.RequestId, Warnings: m.Warnings,
		Coverage: gen.InvoiceCoverage{CoversFrom: envelope.NullableDate(cov.From), HasPreRegisterInvoices: cov.Before}}}, nil
}

// GetInvoice reads one invoice.
func (h *Handler) GetInvoice(ctx context.Context, req gen.GetInvoiceRequestObject) (gen.GetInvoiceResponseObject, error) {
	expand, err := envelope.Expand(req.Params.Expand, "items", "payments")
	if err != nil {
		return nil, err
	}
	inv, err := h.sales.Get(ctx, req.CompanyId, req.InvoiceId, true)
	if err != nil {
		return nil, err
	}
	v := Detail(inv)
	if c, ok, err := h.sales.Legal(ctx, inv); err != nil {
		return nil, err
	} else if ok {
		missing := append([]string{}, c.Missing...)
		v.LegalContent = &gen.InvoiceLegalContent{Complete: c.Complete(), Missing: missing, Rule: c.Rule,
			Simplified: c.Simplified}
	}
	if !expand["items"] {
		v.Items = nil
	}
	if expand["payments"] {
		payments, err := h.sales.store.Payments(ctx, req.CompanyId, req.InvoiceId)
		if err != nil {
			return nil, err
		}
		out := make([]gen.InvoicePayment, len(payments))
		for i, p := range payments {
			out[i] = gen.InvoicePayment{Id: p.ID, Date: openapi_types.Date{Time: p.Date}, Amount: p.Amount,
				AmountSek: p.SEK, Rate: envelope.Nullable(p.Rate), Account: envelope.Nullable(p.Account),
				JournalEntryId: envelope.Nullable(p.EntryID), Source: gen.InvoicePaymentSource(p.Source),
				ReversesPaymentId: envelope.Nullable(p.ReversesID)}
		}
		v.Payments = &out
	}
	return gen.GetInvoice200JSONResponse{Data: v, Meta: envelope.Meta(ctx)}, nil
}

// CreateInvoice stores a new draft.
func (h *Handler) CreateInvoice(ctx context.Context, req gen.CreateInvoiceRequestObject) (gen.CreateInvoiceResponseObject, error) {
	inv, warnings, err := h.sales.Create(ctx, req.CompanyId, draftOf(*req.Body))
	if err != nil {
		return nil, err
	}
	m := withWarnings(envelope.Meta(ctx), warnings, "")
	if store.IsDryRun(ctx) {
		p, err := preview(inv)
		return gen.CreateInvoice200JSONResponse{Meta: m, Data: gen.InvoiceCreateDryRun{DryRun: true, Preview: p}}, err
	}
	return gen.CreateInvoice201JSONResponse{Meta: m, Data: Detail(inv)}, nil
}

// draftOf reads a create body.
func draftOf(b gen.InvoiceCreate) Draft {
	d := Draft{CustomerID: b.CustomerId, InvoiceDate: b.InvoiceDate.Time, ExchangeRate: b.ExchangeRate,
		YourReference: envelope.Optional(b.YourReference), OurReference: envelope.Optional(b.OurReference),
		Marking: envelope.Optional(b.InvoiceMarking), Notes: envelope.Optional(b.Notes), OreRounding: b.OreRounding,
		SelfBilled: b.IsSelfBilled != nil && *b.IsSelfBilled, SourceQuoteID: envelope.Optional(b.SourceQuoteId),
		Housing: envelope.Optional(b.DeductionHousingDesignation), Apartment: envelope.Optional(b.DeductionApartmentNumber),
		BRFOrgNumber: envelope.Optional(b.DeductionBrfOrgNumber)}
	if b.DocumentType != nil {
		d.DocumentType = string(*b.DocumentType)
	}
	if b.Currency != nil {
		d.Currency = string(*b.Currency)
	}
	d.DueDate = dateOf(b.DueDate)
	d.DeliveryDate = dateOf(envelope.Optional(b.DeliveryDate))
	d.ValidUntil = dateOf(envelope.Optional(b.ValidUntil))
	if b.DefaultDimensions != nil {
		d.DefaultDimensions = ledger.Dimensions(*b.DefaultDimensions)
	}
	if t := envelope.Optional(b.VatTreatment); t != nil {
		d.Treatment = Treatment(*t)
	}
	if c := envelope.Optional(b.DeliveryCountry); c != nil {
		d.DeliveryCountry = *c
	}
	d.Lines = draftLines(b.Items)
	return d
}

// draftLines reads the items of a create or change body.
func draftLines(items []gen.InvoiceItemCreate) []DraftLine {
	out := make([]DraftLine, len(items))
	for i, it := range items {
		l := DraftLine{Text: it.LineType != nil && *it.LineType == gen.InvoiceItemCreateLineTypeText,
			ArticleID: envelope.Optional(it.ArticleId), Quantity: it.Quantity, Unit: it.Unit, UnitPrice: it.UnitPrice,
			Discount: it.DiscountPercent, VATRate: it.VatRate, RevenueAccount: it.RevenueAccount,
			LaborHours: it.LaborHours, WorkType: envelope.Optional(it.WorkType),
			AccrualStart: dateOf(envelope.Optional(it.AccrualPeriodStart)), AccrualEnd: dateOf(envelope.Optional(it.AccrualPeriodEnd)),
			AccrualAccount: envelope.Optional(it.AccrualBalanceAccount)}
		if t := envelope.Optional(it.DeductionType); t != nil {
			kind := string(*t)
			l.Deduction = &kind
		}
		if it.Dimensions != nil {
			l.Dimensions = ledger.Dimensions(*it.Dimensions)
		}
		if it.Description != nil {
			l.Description = *it.Description
		}
		out[i] = l
	}
	return out
}

func dateOf(d *openapi_types.Date) *time.Time {
	if d == nil {
		return nil
	}
	t := d.Time
	return &t
}

func date(t time.Time) openapi_types.Date { return openapi_types.Date{Time: t} }

// quoteState is the quote status answered: expired when it is.
func quoteState(i Invoice) nullable.Nullable[gen.QuoteStatus] {
	if i.QuoteStatus == nil {
		return nullable.NewNullNullable[gen.QuoteStatus]()
	}
	if i.QuoteExpired {
		return nullable.NewNullableWithValue(gen.QuoteStatusExpired)
	}
	return nullable.NewNullableWithValue(gen.QuoteStatus(*i.QuoteStatus))
}

func paidAt(i Invoice) nullable.Nullable[openapi_types.Date] { return envelope.NullableDate(i.PaidAt) }

func listItem(i Invoice) gen.InvoiceListItem {
	return gen.InvoiceListItem{Id: i.ID, InvoiceNumber: envelope.Nullable(i.Number), CustomerId: i.CustomerID,
		CustomerName: i.CustomerName, InvoiceDate: date(i.InvoiceDate), DueDate: date(i.DueDate),
		Status: gen.InvoiceStatus(i.State()), DocumentType: gen.InvoiceDocumentType(i.DocumentType),
		ValidUntil: envelope.NullableDate(i.ValidUntil), QuoteStatus: quoteState(i), Currency: gen.InvoiceCurrency(i.Currency),
		Subtotal: i.Subtotal, VatAmount: i.VAT, Total: i.Total, RemainingAmount: i.Remaining(), PaidAt: paidAt(i),
		CreatedAt: i.CreatedAt.UTC()}
}

// Detail is an invoice as the detail read answers it, with its lines
// when it carries them (the invoice events and the audit trail
// say the same).
func Detail(i Invoice) gen.Invoice {
	v := gen.Invoice{Id: i.ID, InvoiceNumber: envelope.Nullable(i.Number), CustomerId: i.CustomerID,
		CustomerName: i.CustomerName, Customer: gen.InvoiceCustomer{Id: i.CustomerID, Name: i.CustomerName},
		InvoiceDate: date(i.InvoiceDate), DueDate: date(i.DueDate), DeliveryDate: envelope.NullableDate(i.DeliveryDate),
		Status: gen.InvoiceStatus(i.State()), DocumentType: gen.InvoiceDocumentType(i.DocumentType),
		ValidUntil: envelope.NullableDate(i.ValidUntil), QuoteStatus: quoteState(i),
		QuoteDecidedAt: envelope.NullableTime(i.QuoteDecidedAt), Currency: gen.InvoiceCurrency(i.Currency),
		ExchangeRate: envelope.Nullable(i.ExchangeRate), VatTreatment: gen.InvoiceVatTreatment(i.Treatment),
		DeliveryCountry: envelope.Nullable(i.DeliveryCountry), BuyerVatNumberValidated: envelope.Nullable(i.BuyerVATValidated),
		Subtotal: i.Subtotal, VatAmount: i.VAT,
		RoundingAmount: i.Rounding, Total: i.Total, DeductionTotal: i.DeductionTotal, PaidAmount: i.Paid,
		RemainingAmount: i.Remaining(), TotalSek: envelope.Nullable((*money.Amount)(i.TotalSEK)),
		OcrReference: envelope.Nullable(i.OCR), YourReference: envelope.Nullable(i.YourReference),
		OurReference: envelope.Nullable(i.OurReference), InvoiceMarking: envelope.Nullable(i.Marking),
		Notes: envelope.Nullable(i.Notes), DefaultDimensions: gen.Dimensions(dimensions(i.DefaultDimensions)),
		CreditedInvoiceId: envelope.Nullable(i.CreditedID), JournalEntryId: envelope.Nullable(i.EntryID),
		SourceQuoteId: envelope.Nullable(i.SourceQuoteID), RotDeduction: i.ROTDeduction,
		DeductionHousingDesignation: envelope.Nullable(i.Housing), DeductionApartmentNumber: envelope.Nullable(i.Apartment),
		DeductionBrfOrgNumber: envelope.Nullable(i.BRFOrgNumber), PaidAt: paidAt(i), CreatedAt: i.CreatedAt.UTC(),
		UpdatedAt: i.UpdatedAt.UTC()}
	if i.Lines != nil {
		items := itemsView(i.Lines)
		v.Items = &items
	}
	return v
}

// preview is the invoice a dry run would store: the detail, without
// its id and timestamps.
func preview(i Invoice) (gen.InvoicePreview, error) {
	var p gen.InvoicePreview
	b, err := json.Marshal(Detail(i))
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	p.Id = nullable.NewNullNullable[openapi_types.UUID]()
	p.CreatedAt, p.UpdatedAt = nullable.NewNullNullable[time.Time](), nullable.NewNullNullable[time.Time]()
	return p, err
}

func itemsView(lines []Line) []gen.InvoiceItem {
	out := make([]gen.InvoiceItem, len(lines))
	for i, l := range lines {
		out[i] = gen.InvoiceItem{Id: l.ID, LineType: gen.InvoiceItemLineType(l.Type), Description: l.Description,
			Quantity: l.Quantity, Unit: l.Unit, UnitPrice: l.UnitPrice, DiscountPercent: l.Discount, VatRate: l.VATRate,
			RevenueAccount: envelope.Nullable(l.RevenueAccount), Dimensions: gen.Dimensions(dimensions(l.Dimensions)),
			VatAmount: l.VAT, LineTotal: l.Net, LaborHours: envelope.Nullable(l.LaborHours),
			WorkType: envelope.Nullable(l.WorkType), DeductionType: envelope.Nullable((*gen.HouseholdDeduction)(l.Deduction)),
			AccrualPeriodStart: envelope.NullableDate(l.AccrualStart), AccrualPeriodEnd: envelope.NullableDate(l.AccrualEnd),
			AccrualBalanceAccount: envelope.Nullable(l.AccrualBalanceAccount), CreditedItemId: envelope.Nullable(l.CreditedItemID),
			ArticleId: envelope.Nullable(l.ArticleID)}
	}
	return out
}

func dimensions(d ledger.Dimensions) map[string]string {
	if d == nil {
		return map[string]string{}
	}
	return d
}

// MarkInvoiceSent issues a draft without e-mailing it.
func (h *Handler) MarkInvoiceSent(ctx context.Context, req gen.MarkInvoiceSentRequestObject) (gen.MarkInvoiceSentResponseObject, error) {
	is, err := h.sales.Issue(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	i := is.Invoice
	data := gen.InvoiceSent{Id: i.ID, Status: gen.InvoiceStatus(i.State()), Total: i.Total,
		OcrReference: envelope.Nullable(i.OCR), JournalEntryId: envelope.Nullable(i.EntryID),
		BookingDeferred: i.BookingDeferred, VerifikatLines: ledger.PostingLines(is.Lines)}
	if i.Number != nil {
		data.InvoiceNumber = *i.Number
	}
	if store.IsDryRun(ctx) {
		data.JournalEntryId = nullable.NewNullNullable[openapi_types.UUID]()
	}
	return gen.MarkInvoiceSent200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}

// MarkInvoicePaid records a payment of an issued invoice.
func (h *Handler) MarkInvoicePaid(ctx context.Context, req gen.MarkInvoicePaidRequestObject) (gen.MarkInvoicePaidResponseObject, error) {
	var p Pay
	if b := req.Body; b != nil {
		p = Pay{Amount: b.Amount, Date: dateOf(b.PaymentDate), SEK: b.AmountSek, Rate: b.ExchangeRate,
			Notes: envelope.Optional(b.Notes), Force: b.Force != nil && *b.Force, Payout: b.RotRutPayout != nil && *b.RotRutPayout}
		if b.PaymentAccount != nil {
			p.Account = *b.PaymentAccount
		}
	}
	paid, err := h.sales.MarkPaid(ctx, req.CompanyId, req.InvoiceId, p)
	if err != nil {
		return nil, err
	}
	return gen.MarkInvoicePaid200JSONResponse{Data: paidView(ctx, paid), Meta: envelope.Meta(ctx)}, nil
}

// paidView is an invoice with a payment recorded, as mark-paid answers it.
func paidView(ctx context.Context, paid Paid) gen.InvoicePaid {
	i := paid.Invoice
	data := gen.InvoicePaid{Id: i.ID, Status: gen.InvoiceStatus(i.State()), Total: i.Total, PaidAmount: i.Paid,
		RemainingAmount: i.Remaining(), PaidAt: paidAt(i), PaymentId: nullable.NewNullableWithValue(paid.Payment.ID),
		JournalEntryId: envelope.Nullable(paid.Payment.EntryID), VerifikatLines: ledger.PostingLines(paid.Lines),
		CustomerCredit: nullable.NewNullNullable[gen.CustomerCredit]()}
	if i.Number != nil {
		data.InvoiceNumber = *i.Number
	}
	if paid.Credit != nil {
		data.CustomerCredit = nullable.NewNullableWithValue(creditView(*paid.Credit))
	}
	if store.IsDryRun(ctx) {
		data.PaymentId, data.JournalEntryId = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[openapi_types.UUID]()
	}
	return data
}

// DeleteInvoice deletes a draft, or cancels a numbered one.
func (h *Handler) DeleteInvoice(ctx context.Context, req gen.DeleteInvoiceRequestObject) (gen.DeleteInvoiceResponseObject, error) {
	d, err := h.sales.Delete(ctx, req.CompanyId, req.InvoiceId)
	if err != nil {
		return nil, err
	}
	return gen.DeleteInvoice200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.InvoiceDeleted{Id: d.Invoice.ID,
		Deleted: !d.Cancelled, Cancelled: d.Cancelled, InvoiceNumber: envelope.Nullable(d.Invoice.Number)}}, nil
}

// DecideQuote records the customer's decision on a quote.
func (h *Handler) DecideQuote(ctx context.Context, req gen.DecideQuoteRequestObject) (gen.DecideQuoteResponseObject, error) {
	q, err := h.sales.DecideQuote(ctx, req.CompanyId, req.InvoiceId, string(req.Body.Status), dateOf(req.Body.ValidUntil))
	if err != nil {
		return nil, err
	}
	effective := gen.QuoteStatus(*q.QuoteStatus)
	if q.QuoteExpired {
		effective = gen.QuoteStatusExpired
	}
	return gen.DecideQuote200JSONResponse{Meta: envelope.Meta(ctx), Data: gen.QuoteDecided{Id: q.ID, InvoiceNumber: *q.Number,
		DocumentType: gen.InvoiceDocumentType(q.DocumentType), Status: gen.InvoiceStatus(q.State()),
		QuoteStatus: gen.QuoteDecidedQuoteStatus(*q.QuoteStatus), EffectiveQuoteStatus: effective,
		QuoteDecidedAt: envelope.NullableTime(q.QuoteDecidedAt), ValidUntil: date(*q.ValidUntil)}}, nil
}

// CreditInvoice credits an issued invoice, whole or in part.
func (h *Handler) CreditInvoice(ctx context.Context, req gen.CreditInvoiceRequestObject) (gen.CreditInvoiceResponseObject, error) {
	var cr CreditRequest
	if req.Body != nil {
		cr.Reason = envelope.Optional(req.Body.Reason)
		if req.Body.CreditDate != nil {
			cr.Date = &req.Body.CreditDate.Time
		}
		if req.Body.Lines != nil {
			for _, l := range *req.Body.Lines {
				cr.Lines = append(cr.Lines, CreditLine{ItemID: l.ItemId, Quantity: l.Quantity, Amount: l.Amount})
			}
		}
	}
	c, err := h.sales.Credit(ctx, req.CompanyId, req.InvoiceId, cr)
	if err != nil {
		return nil, err
	}
	n := c.Note
	data := gen.InvoiceCredited{Id: nullable.NewNullableWithValue(n.ID), InvoiceNumber: *n.Number,
		CreditedInvoiceId: *n.CreditedID, Status: gen.InvoiceStatus(n.State()), Total: n.Total,
		RemainingAmount: n.Remaining(), OcrReference: envelope.Nullable(n.OCR), JournalEntryId: envelope.Nullable(n.EntryID),
		WouldCreateJournalEntry: len(c.Lines) > 0, VerifikatLines: ledger.PostingLines(c.Lines)}
	if store.IsDryRun(ctx) {
		data.Id, data.JournalEntryId = nullable.NewNullNullable[openapi_types.UUID](), nullable.NewNullNullable[openapi_types.UUID]()
	}
	return gen.CreditInvoice200JSONResponse{Data: data, Meta: envelope.Meta(ctx)}, nil
}
